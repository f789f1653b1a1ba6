"""Line and column of chosen nodes, at the cost of one plain code generation.

libcst's PositionProvider records a range for every node of the module and costs several times a
code generation on real files. Findings need positions only for use sites, so this records the
token index at which each wanted node starts, then derives lines and columns from the joined text.
Lines are counted by "\n" (LF and CRLF text; old-Mac lone "\r" files would report line 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate
from typing import Dict, Iterable, Set, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState


@dataclass(frozen=False)
class _MarkingState(CodegenState):
    wanted: Set[int] = field(default_factory=set)
    marks: Dict[int, int] = field(default_factory=dict)

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted:
            self.marks[key] = len(self.tokens)


def positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Tuple[Dict[int, Tuple[int, int]], str]:
    """{id(node): (line, column)} for each node of `module` in `nodes` (line and column 1-based), and
    the module's code, generated on the way (callers use it to check the round trip)."""
    wanted = {id(n) for n in nodes}
    state = _MarkingState(default_indent=module.default_indent, default_newline=module.default_newline,
                          wanted=wanted)
    module._codegen(state)
    # Offsets from a C-level prefix sum; lines and columns from str.count/rfind, also in C.
    code = "".join(state.tokens)
    starts = [0, *accumulate(map(len, state.tokens))]
    result: Dict[int, Tuple[int, int]] = {}
    line, counted = 1, 0
    for key, index in sorted(state.marks.items(), key=lambda kv: kv[1]):
        offset = starts[index]
        line += code.count("\n", counted, offset)
        counted = offset
        result[key] = (line, offset - code.rfind("\n", 0, offset))
    return result, code
