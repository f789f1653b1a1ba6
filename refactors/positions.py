"""One code generation of the input module, and what the upgrade needs from it.

- Line and column of the use sites. libcst's PositionProvider records a range for every node and
  costs several times a code generation on real files; findings need positions only for use sites.
- The module's code, which the caller compares with the input to prove libcst's round trip.
- The text of every cold subtree next to a hot path (see `frontier`), so that generating the
  upgraded module can copy it instead of generating it again (`refactors.codegen`).

Lines are counted by "\n" (LF and CRLF text; old-Mac lone "\r" files would report line 1).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Collection, Dict, Iterable, Set, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState

from refactors.scopes import child_fields

Recorded = Tuple[str, Tuple[str, ...]]  # a subtree's text, and the indentation it was generated at


@dataclass
class Layout:
    positions: Dict[int, Tuple[int, int]]  # id(node) -> (line, column), both 1-based
    code: str
    recorded: Dict[int, Recorded] = field(default_factory=dict)  # id(frontier node) -> its text


@dataclass(frozen=False)
class _MarkingState(CodegenState):
    wanted: Set[int] = field(default_factory=set)
    frontier: Set[int] = field(default_factory=set)
    marks: Dict[int, int] = field(default_factory=dict)
    starts: Dict[int, Tuple[int, Tuple[str, ...]]] = field(default_factory=dict)
    ends: Dict[int, int] = field(default_factory=dict)

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted:
            self.marks[key] = len(self.tokens)
        if key in self.frontier:
            self.starts[key] = (len(self.tokens), tuple(self.indent_tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.frontier:
            self.ends[key] = len(self.tokens)


def layout(module: cst.Module, nodes: Iterable[cst.CSTNode], frontier: Collection[int] = ()) -> Layout:
    """Positions of `nodes`, the module's code, and the text of each node of `frontier` (ids)."""
    state = _MarkingState(default_indent=module.default_indent, default_newline=module.default_newline,
                          wanted={id(n) for n in nodes}, frontier=set(frontier))
    module._codegen(state)
    # Offsets from a C-level prefix sum; lines and columns from str.count/rfind, also in C.
    code = "".join(state.tokens)
    starts = [0, *accumulate(map(len, state.tokens))]
    positions: Dict[int, Tuple[int, int]] = {}
    line, counted = 1, 0
    for key, index in sorted(state.marks.items(), key=lambda kv: kv[1]):
        offset = starts[index]
        line += code.count("\n", counted, offset)
        counted = offset
        positions[key] = (line, offset - code.rfind("\n", 0, offset))
    recorded = {}
    count = len(state.tokens)
    for key, (begin, indent) in state.starts.items():
        end = state.ends[key]
        # A module without a final newline drops its last token (a newline) after generating it.
        popped = module.default_newline if end > count else ""
        recorded[key] = (code[starts[begin]:starts[min(end, count)]] + popped, indent)
    return Layout(positions, code, recorded)


# -- which subtrees to record ---------------------------------------------------------------------

_TAKES_CONTEXT: Dict[type, bool] = {}


def _takes_context(kind: type) -> bool:
    """Whether the node's text depends on its parent beyond indentation: `Arg`, `Element`, small
    statements... are generated with a default comma or semicolon that depends on their position."""
    takes = _TAKES_CONTEXT.get(kind)
    if takes is None:
        params = inspect.signature(kind._codegen_impl).parameters
        takes = _TAKES_CONTEXT[kind] = any(name not in ("self", "state") for name in params)
    return takes


def frontier(module: cst.Module, hot: Collection[int]) -> Set[int]:
    """The cold subtrees the rewriting pass cannot change: every child of a hot node that is not hot
    itself (looking through nodes whose text depends on their parent)."""
    out: Set[int] = set()
    _frontier(module, hot, out)
    return out


def _frontier(node: cst.CSTNode, hot: Collection[int], out: Set[int]) -> None:
    for name in child_fields(type(node)):
        value = getattr(node, name)
        for child in value if isinstance(value, (tuple, list)) else (value,):
            if not isinstance(child, cst.CSTNode):
                continue
            if id(child) in hot or _takes_context(type(child)):
                _frontier(child, hot, out)
            else:
                out.add(id(child))
