"""Fill in and check the mechanical fields of a table data file from the signature indexes.

    python -m tools.entry_fields api_mapping/data/layers.json            # report problems
    python -m tools.entry_fields api_mapping/data/layers.json --write    # also refresh the file

A person decides each entry's 2.x target and argument changes; the fields that follow from the real
1.8.5 sources are derived here instead of being typed: `kind`, `args_list` (the 1.8.5 parameters, in
order, with default source text) and `alias` (every other exported 1.8.5 path of the same object:
its defining module, and any module whose `__all__` re-exports it, under the same package root as the
main name, e.g. `paddle.fluid.layers.nn.reshape` for `paddle.fluid.layers.reshape`).

The check reports, per entry: a 1.8 parameter list that differs from 1.8.5; a target missing from
Paddle 2.0.2 or 3.3.1 (from 3.3.1 only, for an entry whose `since` says the target came later); and
a keyword the upgrader would emit (a kept or renamed 1.8 parameter, or an added one) that the target
does not accept in one of them. Exit status 1 when anything is reported.
Entries the 1.8.5 index does not list (private helpers) keep their hand-written fields.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from api_mapping.schema import BASELINE, version_tuple
from api_mapping.signatures import SignatureIndex, load_index

LEGACY = "1.8.5"
TARGETS = ("2.0.2", "3.3.1")
# Canonical field order of an entry, as the loader documents them.
FIELD_ORDER = ("kind", "alias", "args_list", "update_to", "since", "no_equivalent", "args_change", "transformer",
               "with_guard", "guard_exit", "static_graph", "warning", "warning_when", "args_warning", "notes",
               "semantics")
_KINDS = {"function", "class", "constant"}


def alias_root(main: str) -> str:
    """The package whose paths may alias `main`: `paddle.fluid.<package>` (or `paddle.fluid`)."""
    parts = main.split(".")
    return ".".join(parts[:3]) if len(parts) > 3 else ".".join(parts[:2])


def _public(path: str) -> bool:
    return not any(part.startswith("_") for part in path.split("."))


class Deriver:
    """Answers "what does 1.8.5 say about this name" from the legacy signature index."""

    def __init__(self, index: SignatureIndex) -> None:
        self.index = index
        self._paths: Dict[str, List[str]] = defaultdict(list)
        for path in index.names():
            target = index.resolve(path)
            if target is not None and _public(path):
                self._paths[target].append(path)

    def exported(self, path: str, defining: str) -> bool:
        if path == defining:
            return True
        module, _, member = path.rpartition(".")
        return member in self.index.module_members(module)

    def aliases(self, main: str) -> List[str]:
        defining = self.index.resolve(main)
        if defining is None:
            return []
        root = alias_root(main) + "."
        return sorted(p for p in self._paths.get(defining, ())
                      if p != main and p.startswith(root) and self.exported(p, defining))

    def kind(self, main: str) -> Optional[str]:
        sig = self.index.get(main)
        return sig.kind if sig is not None and sig.kind in _KINDS else None

    def args_list(self, main: str) -> Optional[List[List[str]]]:
        return self.index.params(main)


def refresh(name: str, raw: dict, deriver: Deriver) -> dict:
    """The entry with `kind`, `alias` and `args_list` taken from 1.8.5 where the index knows the name."""
    entry = dict(raw)
    kind = deriver.kind(name)
    if kind is not None:
        if kind == "function":
            entry.pop("kind", None)  # the loader's default
        else:
            entry["kind"] = kind
        aliases = deriver.aliases(name)
        if aliases:
            entry["alias"] = aliases
        else:
            entry.pop("alias", None)
        params = deriver.args_list(name)
        if params is not None:
            entry["args_list"] = params
    return {key: entry[key] for key in FIELD_ORDER if key in entry}


def emitted_keywords(raw: dict) -> List[str]:
    """Keywords a converted call may carry: kept/renamed 1.8 parameters and added ones."""
    renamed = {c["arg"]: c["to"] for c in raw.get("args_change", ()) if c["op"] == "rename"}
    dropped = {c["arg"] for c in raw.get("args_change", ()) if c["op"] == "drop"}
    out: List[str] = []
    for param in raw.get("args_list") or ():
        name = param[0]
        if name.startswith("*") or name in dropped:
            continue
        out.append(renamed.get(name, name))
    out.extend(c["arg"] for c in raw.get("args_change", ()) if c["op"] == "add")
    return list(dict.fromkeys(out))


def problems(name: str, raw: dict, legacy: SignatureIndex, targets: Dict[str, SignatureIndex]) -> List[str]:
    found: List[str] = []
    real = legacy.params(name)
    if real is None:
        if not legacy.exists(name) and _public(name):  # private helpers are not indexed
            found.append(f"not in the {legacy.version} index")
    elif raw.get("args_list") != real:
        found.append(f"args_list differs from {legacy.version}: {real}")
    target = raw.get("update_to")
    if target is None:
        return found
    since = version_tuple(raw.get("since") or BASELINE)
    for version, index in targets.items():
        if version_tuple(version) < since:
            continue  # the entry says the target came later than this release
        if not index.exists(target):
            found.append(f"{target} does not exist in {version}")
            continue
        if raw.get("transformer"):
            continue  # the transformer decides what the call looks like
        for keyword in emitted_keywords(raw):
            if not index.accepts_keyword(target, keyword):
                found.append(f"{target}({keyword}=...) not accepted in {version}")
    return found


def dump(data: Dict[str, dict]) -> str:
    """One entry per line, so that a change to an entry is a one-line diff."""
    lines = [f"  {json.dumps(name)}: {json.dumps(entry, ensure_ascii=False)}" for name, entry in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def run(path: Path, write: bool, out=sys.stdout) -> int:
    data: Dict[str, dict] = json.loads(path.read_text(encoding="utf-8"))
    legacy = load_index(LEGACY)
    targets = {v: load_index(v) for v in TARGETS}
    deriver = Deriver(legacy)
    refreshed = {name: refresh(name, raw, deriver) for name, raw in data.items()}
    status = 0
    for name, raw in refreshed.items():
        for problem in problems(name, raw, legacy, targets):
            print(f"{name}: {problem}", file=out)
            status = 1
    if write:
        path.write_text(dump(refreshed), encoding="utf-8")
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.entry_fields",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="table data files (api_mapping/data/*.json)")
    parser.add_argument("--write", action="store_true", help="rewrite the files with the derived fields")
    args = parser.parse_args(argv)
    return max(run(path, args.write) for path in args.files)


if __name__ == "__main__":
    raise SystemExit(main())
