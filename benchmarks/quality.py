"""Quality of an upgrade, measured on an input tree and the tree a tool made of it.

Counted over the files that use paddle (an import of paddle or a module under it):

- failed: the tool reported it could not upgrade the file (its own report or log), or left no output;
- parses: the output parses with `ast` (files the tool failed on are not counted here);
- idempotent: a second run of the same tool on its output changes nothing (a file the second run
  fails on counts as not idempotent);
- conversion: `paddle.fluid` use sites (`tools.count_uses.count_source`) in the input, and how many
  are left in the output; a failed file or an output that does not parse converts nothing;
- missing names: `paddle.*` references in the output, resolved through its imports, that Paddle 3.3.1
  does not have. Only names the tool emitted count: the output's references minus the input's (as
  multisets), so a name the tool left alone shows up in the conversion rate instead. Emitted
  `paddle.fluid.*` paths (`fluid.layers.conv2d` re-spelled `paddle.fluid.layers.nn.conv2d`) are
  counted apart, as "missing legacy names": they are unconverted sites, already in the conversion
  rate. Names under a compiled module or an opaque object are "unknown", not missing;
- bad keywords: `name(kw=...)` in the output where `name` is a 3.3.1 callable with known parameters
  that takes no `kw` (again minus the same pairs in the input, and minus keywords the input passed
  where 1.8.5 did not accept them either: a bug carried over, not emitted);
- dropped arguments: calls that lost arguments without a TODO saying why (a proxy, an upper bound;
  see `benchmarks/dropped_args.py`).
"""
from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from tools import count_uses
from api_mapping.signatures import SignatureIndex, load_index
from benchmarks.corpus import decode_source, parse, python_files, uses_paddle
from benchmarks.dropped_args import dropped_arguments

TARGET = "3.3.1"
SOURCE = "1.8.5"
LEGACY = "paddle.fluid"

OK, MISSING, UNKNOWN = "ok", "missing", "unknown"


@lru_cache(maxsize=None)
def _index(version: str) -> SignatureIndex:
    return load_index(version)


def star_members(module: str) -> Sequence[str]:
    """What `from <module> import *` binds: 1.8.5's members, else 3.3.1's (for emitted 2.x modules)."""
    return _index(SOURCE).module_members(module) or _index(TARGET).module_members(module)


# -- references to paddle, resolved through the imports -----------------------------------------

@dataclass(frozen=True)
class CallRef:
    callee: str  # fully qualified paddle name
    keywords: Tuple[str, ...]
    line: int
    col: int


class _PaddleRefs(count_uses._Counter):
    """count_uses.py's scope-aware resolver, counting every `paddle.*` chain (not only `paddle.fluid`),
    the modules and names imports bind, and the calls whose callee is a paddle name."""

    def __init__(self, star) -> None:
        super().__init__(star)
        self.calls: List[CallRef] = []

    def _qualify(self, node: ast.AST) -> Optional[str]:
        parts = count_uses._chain(node)
        if parts is None:
            return None
        qual = self._resolve(parts[0])
        return None if qual is None else ".".join([qual, *parts[1:]])

    def _count(self, node: ast.AST) -> bool:
        full = self._qualify(node)
        if full is None:
            return False
        self.counts[full] += 1
        return True

    def visit_Import(self, node: ast.Import) -> None:
        super().visit_Import(node)
        for alias in node.names:
            if alias.name.split(".")[0] == count_uses.ROOT:
                self.counts[alias.name] += 1

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        super().visit_ImportFrom(node)
        module = node.module or ""
        if node.level == 0 and module.split(".")[0] == count_uses.ROOT:
            for alias in node.names:
                self.counts[module if alias.name == "*" else f"{module}.{alias.name}"] += 1

    def visit_Call(self, node: ast.Call) -> None:
        callee = self._qualify(node.func)
        if callee is not None:
            keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
            self.calls.append(CallRef(callee, keywords, node.lineno, node.col_offset))
        self.generic_visit(node)


def paddle_refs(tree: ast.Module) -> Tuple[Counter, List[CallRef]]:
    """Every resolved `paddle.*` reference (name -> occurrences) and every call of a paddle name."""
    refs = _PaddleRefs(star_members)
    refs.visit(tree)
    return refs.counts, refs.calls


def _signature(index: SignatureIndex, name: str):
    """index.get(name), or None where the index cannot describe what the name resolves to."""
    try:
        return index.get(name)
    except KeyError:  # resolves to a member of something that is not a class (a module alias chain)
        return None


def is_legacy(name: str) -> bool:
    """A `paddle.fluid` path: a use site left (or re-spelled) in 1.8 form, counted by the conversion rate."""
    return name == LEGACY or name.startswith(LEGACY + ".")


def _inside_compiled(name: str, index: SignatureIndex) -> bool:
    """Whether name, or what it resolves to, lies in a module filled at runtime (its classes are
    described from stubs, without nested classes such as `core.VarDesc.VarType`)."""
    for path in (name, index.resolve(name) or name):
        parts = path.split(".")
        if any(index.is_dynamic(".".join(parts[:i])) for i in range(2, len(parts) + 1)):
            return True
    return False


def classify_name(name: str, index: SignatureIndex) -> str:
    """OK if the target has it; UNKNOWN if it hangs off something opaque; MISSING otherwise."""
    if index.exists(name):
        return OK
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:i])
        if not index.exists(prefix):
            continue
        if _inside_compiled(prefix, index):
            return UNKNOWN
        sig = _signature(index, prefix)
        # modules and classes list their members; anything else (a compiled object, a constant,
        # a function's attributes) is not described, so a member of it is merely unknown
        if sig is None or sig.kind not in ("module", "class") or sig.opaque_bases:
            return UNKNOWN
        # every class has object's members (`Layer.__init__(self)`), which no listing names
        if sig.kind == "class" and i == len(parts) - 1 and hasattr(object, parts[-1]):
            return OK
        return MISSING
    return MISSING


def rejected_keywords(calls: Iterable[CallRef], index: SignatureIndex) -> Counter:
    """(callee, keyword) pairs the release does not accept, for callees with known parameters."""
    bad: Counter = Counter()
    for call in calls:
        sig = _signature(index, call.callee)
        if sig is None or (sig.params is None and not sig.kwalias):
            continue
        for kw in call.keywords:
            if not sig.accepts_keyword(kw):
                bad[(call.callee, kw)] += 1
    return bad


def emitted_bad_keywords(old_calls: Sequence[CallRef], new_calls: Sequence[CallRef]) -> Counter:
    """`callee(kw=)` in the output that 3.3.1 rejects, less what the input already had: the same
    pair, or a keyword the input passed where 1.8.5 did not accept it either (a bug carried over)."""
    bad = rejected_keywords(new_calls, _index(TARGET)) - rejected_keywords(old_calls, _index(TARGET))
    inherited = Counter(kw for (_, kw), n in rejected_keywords(old_calls, _index(SOURCE)).items() for _ in range(n))
    emitted: Counter = Counter()
    for (callee, kw), n in sorted(bad.items()):
        carried = min(n, inherited[kw])
        inherited[kw] -= carried
        if n > carried:
            emitted[f"{callee}({kw}=)"] = n - carried
    return emitted


# -- one file -------------------------------------------------------------------------------------

@dataclass
class FileQuality:
    path: str
    failed: bool = False
    changed: bool = False
    parses: Optional[bool] = None  # None: not judged (failed)
    idempotent: Optional[bool] = None  # None: not judged (failed, or no second run)
    sites_in: Optional[int] = None  # None: the input does not parse (Python 2), so it cannot be counted
    sites_out: Optional[int] = None
    missing_names: Counter = field(default_factory=Counter)
    unknown_names: Counter = field(default_factory=Counter)
    bad_keywords: Counter = field(default_factory=Counter)
    dropped_args: int = 0
    explained_drops: int = 0


def file_quality(path: str, old_text: str, new_text: Optional[str], failed: bool,
                 again_text: Optional[str] = None, again_failed: bool = False,
                 judge_idempotence: bool = False) -> FileQuality:
    """Judge one file. new_text None: the tool left no output. again_*: the second run on new_text."""
    q = FileQuality(path, failed=failed or new_text is None)
    try:
        old_tree: Optional[ast.Module] = parse(old_text)
    except SyntaxError:
        old_tree = None
    old_sites = sum(count_uses.count_source(old_text, star_members).values()) if old_tree is not None else None
    q.sites_in = old_sites
    if q.failed or new_text is None:
        q.sites_out = old_sites
        return q
    q.changed = new_text != old_text
    try:
        new_tree = parse(new_text)
        q.parses = True
    except SyntaxError:
        q.parses = False
        q.sites_out = old_sites
        return q
    if judge_idempotence:
        q.idempotent = not again_failed and again_text == new_text
    q.sites_out = sum(count_uses.count_source(new_text, star_members).values()) if old_sites is not None else None
    if not q.changed:
        return q
    new_refs, new_calls = paddle_refs(new_tree)
    old_refs, old_calls = paddle_refs(old_tree) if old_tree is not None else (Counter(), [])
    index = _index(TARGET)
    for name, n in (new_refs - old_refs).items():
        verdict = classify_name(name, index)
        if verdict == MISSING:
            q.missing_names[name] += n
        elif verdict == UNKNOWN:
            q.unknown_names[name] += n
    q.bad_keywords = emitted_bad_keywords(old_calls, new_calls)
    if old_tree is not None:
        paddle_at = {(c.line, c.col): c.callee for c in old_calls}
        q.dropped_args, q.explained_drops = dropped_arguments(old_text, old_tree, paddle_at, new_text, new_tree)
    return q


# -- a tree ---------------------------------------------------------------------------------------

Rerun = Callable[[Path], Tuple[Path, Set[str]]]
"""Run the same tool again on a tree (it may copy it first); returns the tree it wrote and the
files it reported as failed."""


@dataclass
class TreeQuality:
    files: List[FileQuality]

    def summary(self) -> Dict[str, object]:
        fs = self.files
        judged = [f for f in fs if f.parses is not None]
        idem = [f for f in fs if f.idempotent is not None]
        counted = [f for f in fs if f.sites_in is not None]
        sites_in = sum(f.sites_in or 0 for f in counted)
        left = sum(f.sites_out or 0 for f in counted)
        converted = sum(max(0, (f.sites_in or 0) - (f.sites_out or 0)) for f in counted)
        missing: Counter = sum((f.missing_names for f in fs), Counter())
        legacy = sum(n for name, n in missing.items() if is_legacy(name))
        unknown: Counter = sum((f.unknown_names for f in fs), Counter())
        bad: Counter = sum((f.bad_keywords for f in fs), Counter())
        return {
            "files_using_paddle": len(fs),
            "failed": sum(f.failed for f in fs),
            "changed": sum(f.changed for f in fs),
            "untouched_with_fluid_sites": sum(1 for f in fs if not f.failed and not f.changed and (f.sites_in or 0)),
            "parsed": sum(bool(f.parses) for f in judged), "parse_judged": len(judged),
            "idempotent": sum(bool(f.idempotent) for f in idem), "idempotence_judged": len(idem),
            "sites_in": sites_in, "sites_left": left, "sites_converted": converted,
            "conversion_rate": converted / sites_in if sites_in else None,
            "uncountable_inputs": len(fs) - len(counted),
            "missing_names": sum(missing.values()) - legacy,
            "missing_names_distinct": sum(1 for name in missing if not is_legacy(name)),
            "missing_legacy_names": legacy,
            "unknown_names": sum(unknown.values()),
            "bad_keywords": sum(bad.values()), "bad_keywords_distinct": len(bad),
            "dropped_args": sum(f.dropped_args for f in fs),
            "explained_drops": sum(f.explained_drops for f in fs),
        }

    def details(self, top: int = 40) -> Dict[str, object]:
        fs = self.files
        missing: Counter = sum((f.missing_names for f in fs), Counter())
        unknown: Counter = sum((f.unknown_names for f in fs), Counter())
        bad: Counter = sum((f.bad_keywords for f in fs), Counter())
        drops = Counter({f.path: f.dropped_args for f in fs if f.dropped_args})
        return {
            "failed_files": [f.path for f in fs if f.failed],
            "unparsable_outputs": [f.path for f in fs if f.parses is False],
            "not_idempotent": [f.path for f in fs if f.idempotent is False],
            "untouched_with_fluid_sites": [f.path for f in fs if not f.failed and not f.changed and f.sites_in],
            "missing_names": dict(missing.most_common(top)),
            "unknown_names": dict(unknown.most_common(top)),
            "bad_keywords": dict(bad.most_common(top)),
            "dropped_args_by_file": dict(drops.most_common(top)),
        }


def _read(path: Path) -> Optional[str]:
    try:
        return decode_source(path.read_bytes())
    except OSError:
        return None


def measure_tree(input_root: Path, output_root: Path, failed: Set[str], rerun: Optional[Rerun] = None,
                 paths: Optional[Sequence[str]] = None) -> TreeQuality:
    """Judge every file of input_root that uses paddle against its counterpart in output_root."""
    candidates = paths if paths is not None else python_files(input_root)
    selected = []
    for rel in candidates:
        text = _read(input_root / rel)
        if text is not None and uses_paddle(text):
            selected.append((rel, text))
    again_root, again_failed = rerun(output_root) if rerun is not None else (None, set())
    files = []
    for rel, old_text in selected:
        again = _read(again_root / rel) if again_root is not None else None
        files.append(file_quality(rel, old_text, _read(output_root / rel), rel in failed, again,
                                  rel in again_failed or (again_root is not None and again is None),
                                  judge_idempotence=rerun is not None))
    return TreeQuality(files)
