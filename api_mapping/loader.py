"""Load and validate the table's data files (`data/*.json`), standard library only.

Every inconsistency fails here, loudly, so that no refactor or shim adapter ever sees a bad entry.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Collection, Dict, Iterable, List, Optional, Tuple

from api_mapping import legacy_paths
from api_mapping.schema import (ARG_OPS, BASELINE, ApiEntry, ClassFacts, ArgChange, NoEquivalent, Param, Table, TableError,
                                version_tuple)

DATA_DIR = Path(__file__).with_name("data")

_ENTRY_FIELDS = {
    "kind", "alias", "args_list", "update_to", "since", "no_equivalent", "args_change", "transformer",
    "with_guard", "guard_exit", "static_graph", "warning", "warning_when", "args_warning", "notes", "semantics",
    "returns",
}
_CLASS_FIELDS = {"update_to", "instances", "made_by", "methods", "attributes"}
_CHANGE_FIELDS = {"op", "arg", "to", "value", "alters_result", "reason"}
_KINDS = {"function", "class", "module", "constant"}
_MEMBER_KINDS = {"method", "attribute"}
_WITH_GUARDS = {"unwrap", "rename"}


def _fail(where: str, message: str) -> TableError:
    return TableError(f"{where}: {message}")


def _param(where: str, raw: Any) -> Param:
    if not isinstance(raw, list) or not 1 <= len(raw) <= 2 or not isinstance(raw[0], str):
        raise _fail(where, f"args_list item must be [name] or [name, default-source], got {raw!r}")
    name = raw[0]
    star = "**" if name.startswith("**") else "*" if name.startswith("*") else ""
    default = raw[1] if len(raw) == 2 else None
    if default is not None and not isinstance(default, str):
        raise _fail(where, f"default of {name!r} must be source text, got {default!r}")
    return Param(name=name[len(star):], default=default, star=star)


def _change(where: str, raw: Any, params: Optional[Tuple[Param, ...]]) -> ArgChange:
    if not isinstance(raw, dict):
        raise _fail(where, f"args_change item must be an object, got {raw!r}")
    unknown = set(raw) - _CHANGE_FIELDS
    if unknown:
        raise _fail(where, f"unknown args_change fields {sorted(unknown)}")
    change = ArgChange(**raw)
    if change.op not in ARG_OPS:
        raise _fail(where, f"args_change op must be one of {ARG_OPS}, got {change.op!r}")
    if change.op == "rename" and not change.to:
        raise _fail(where, f"rename of {change.arg!r} needs 'to'")
    if change.op == "add" and change.value is None:
        raise _fail(where, f"add of {change.arg!r} needs 'value'")
    if change.op in ("rename", "drop") and params is not None:
        if not any(p.name == change.arg and not p.star for p in params):
            raise _fail(where, f"{change.op} of {change.arg!r}, which is not a 1.8 parameter")
    return change


def _since(where: str, since: Any, update_to: Optional[str], transformer: Optional[str],
           no_eq: Optional[NoEquivalent]) -> Optional[str]:
    """`since` names a release after 2.0 ("2.2"), and only on an entry that emits a 2.x name."""
    if since is None:
        return None
    if not isinstance(since, str):
        raise _fail(where, f"since must be a version string such as '2.2', got {since!r}")
    try:
        version = version_tuple(since)
    except ValueError:
        raise _fail(where, f"since must be a version string such as '2.2', got {since!r}") from None
    if since.count(".") != 1 or version <= version_tuple(BASELINE):
        raise _fail(where, f"since must be a release after {BASELINE} written major.minor, got {since!r}")
    if no_eq is not None or (update_to is None and transformer is None):
        raise _fail(where, "since applies only to an entry with update_to or a transformer")
    return since


def _entry(name: str, raw: Dict[str, Any], known_transformers: Optional[Collection[str]],
           kinds: Collection[str] = _KINDS, default_kind: str = "function") -> ApiEntry:
    where = name
    unknown = set(raw) - _ENTRY_FIELDS
    if unknown:
        raise _fail(where, f"unknown fields {sorted(unknown)}")
    kind = raw.get("kind", default_kind)
    if kind not in kinds:
        raise _fail(where, f"kind must be one of {sorted(kinds)}, got {kind!r}")
    params = None
    if raw.get("args_list") is not None:
        params = tuple(_param(where, p) for p in raw["args_list"])
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise _fail(where, "duplicate parameter in args_list")
    no_eq = raw.get("no_equivalent")
    if no_eq is not None:
        if not {"reason", "suggest"} <= set(no_eq) <= {"reason", "suggest", "shim", "shim_refuses"}:
            raise _fail(where, "no_equivalent needs 'reason' and 'suggest', and may say why the shim cannot serve it "
                               "('shim') or name the arguments it refuses ('shim_refuses')")
        refuses = tuple(no_eq.get("shim_refuses", ()))
        if not set(refuses) <= {p.name for p in params or ()}:
            raise _fail(where, "no_equivalent.shim_refuses names an argument args_list does not have")
        no_eq = NoEquivalent(**dict(no_eq, shim_refuses=refuses))
    update_to = raw.get("update_to")
    transformer = raw.get("transformer")
    if update_to is not None and no_eq is not None:
        raise _fail(where, "both update_to and no_equivalent")
    if update_to is None and no_eq is None and transformer is None and raw.get("with_guard") is None:
        raise _fail(where, "needs update_to, no_equivalent, a transformer or a with_guard")
    if transformer is not None and known_transformers is not None and transformer not in known_transformers:
        raise _fail(where, f"transformer {transformer!r} is not registered")
    since = _since(where, raw.get("since"), update_to, transformer, no_eq)
    with_guard = raw.get("with_guard")
    if with_guard is not None and with_guard not in _WITH_GUARDS:
        raise _fail(where, f"with_guard must be one of {sorted(_WITH_GUARDS)}")
    if raw.get("guard_exit") is not None and with_guard != "unwrap":
        raise _fail(where, "guard_exit only applies to with_guard 'unwrap'")
    changes = tuple(_change(where, c, params) for c in raw.get("args_change", ()))
    if changes and params is None:
        raise _fail(where, "args_change needs args_list")
    args_warning = raw.get("args_warning", {})
    warning_when = raw.get("warning_when", {})
    if not isinstance(warning_when, dict) or not all(isinstance(k, str) for k in warning_when):
        raise _fail(where, f"warning_when must map check names to their arguments, got {warning_when!r}")
    if warning_when and not raw.get("warning"):
        raise _fail(where, "warning_when without a warning")
    return ApiEntry(
        name=name,
        kind=kind,
        alias=tuple(raw.get("alias", ())),
        args_list=params,
        update_to=update_to,
        since=since,
        no_equivalent=no_eq,
        args_change=changes,
        transformer=transformer,
        with_guard=with_guard,
        guard_exit=raw.get("guard_exit"),
        static_graph=bool(raw.get("static_graph", False)),
        warning=raw.get("warning"),
        warning_when=dict(warning_when),
        args_warning=dict(args_warning),
        notes=tuple(raw.get("notes", ())),
        semantics=tuple(raw.get("semantics", ())),
        returns=raw.get("returns"),
    )


def _class_facts(name: str, raw: Any, entries: Dict[str, ApiEntry],
                 known_transformers: Optional[Collection[str]]) -> ClassFacts:
    if not isinstance(raw, dict) or set(raw) - _CLASS_FIELDS or "update_to" not in raw:
        raise _fail(name, f"class facts need update_to and only {sorted(_CLASS_FIELDS)}")
    members: Dict[str, ApiEntry] = {}
    for group, kind in (("methods", "method"), ("attributes", "attribute")):
        for member, fields in raw.get(group, {}).items():
            members[member] = _entry(f"{name}.{member}", fields, known_transformers, _MEMBER_KINDS, kind)
            if members[member].kind != kind:
                raise _fail(f"{name}.{member}", f"listed under {group!r} but of kind {members[member].kind!r}")
    facts = ClassFacts(name, raw["update_to"], tuple(raw.get("instances", ())), tuple(raw.get("made_by", ())), members)
    for api in (*facts.instances, *facts.made_by):
        if api not in entries:
            raise _fail(name, f"{api!r} is not a main name of the table")
    return facts


def build_table(
    sources: Iterable[Tuple[str, Dict[str, Any]]],
    known_transformers: Optional[Collection[str]] = None,
    class_sources: Iterable[Tuple[str, Dict[str, Any]]] = (),
) -> Table:
    """Validate raw data (pairs of source label and {main name: entry}, and of label and {1.8 class:
    member facts}) into a `Table`."""
    entries: Dict[str, ApiEntry] = {}
    by_alias: Dict[str, str] = {}
    origin: Dict[str, str] = {}
    for label, data in sources:
        for name, raw in data.items():
            if name in entries:
                raise _fail(f"{label}: {name}", f"duplicate main name (also in {origin[name]})")
            entries[name] = _entry(name, raw, known_transformers)
            origin[name] = label
    for name, entry in entries.items():
        for alias in entry.alias:
            if alias in entries:
                raise _fail(name, f"alias {alias!r} is also a main name")
            if alias in by_alias:
                raise _fail(name, f"alias {alias!r} also listed by {by_alias[alias]!r}")
            by_alias[alias] = name
    classes: Dict[str, ClassFacts] = {}
    for label, data in class_sources:
        for name, raw in data.items():
            if name in classes:
                raise _fail(f"{label}: {name}", "class facts given twice")
            classes[name] = _class_facts(name, raw, entries, known_transformers)
    return Table(entries=entries, by_alias=by_alias, classes=classes)


def read_sources(data_dir: Path = DATA_DIR) -> List[Tuple[str, Dict[str, Any]]]:
    sources = []
    for path in sorted(data_dir.glob("*.json")):
        with path.open(encoding="utf-8") as fh:
            try:
                data = json.load(fh)
            except json.JSONDecodeError as exc:
                raise TableError(f"{path.name}: not valid JSON: {exc}") from None
        sources.append((path.name, data))
    return sources


METHODS_DIR = DATA_DIR / "methods"


def build_listed(known_transformers: Optional[Collection[str]] = None) -> Table:
    """The table of the data files alone (without the other 1.8.5 paths of its APIs)."""
    return build_table(read_sources(), known_transformers, read_sources(METHODS_DIR))


@lru_cache(maxsize=None)
def _cached(known_transformers: Optional[Tuple[str, ...]]) -> Table:
    table = build_listed(known_transformers)
    other_paths = {path: main for path, main in legacy_paths.load().items()
                   if main in table.entries and path not in table.entries}
    return Table(entries=table.entries, by_alias={**other_paths, **table.by_alias}, classes=table.classes)


def load_table(known_transformers: Optional[Collection[str]] = None) -> Table:
    """The validated table from the packaged data files (cached per transformer set)."""
    key = None if known_transformers is None else tuple(sorted(known_transformers))
    return _cached(key)
