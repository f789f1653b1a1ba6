"""At most one code generation of the input module, and what the upgrade needs from it.

- Line and column of the use sites, as libcst's PositionProvider gives them (the start of a node's
  syntactic range, after its parentheses). The provider records a range for every node and costs
  several times a code generation on real files; findings need positions only for use sites.
- Whether libcst gives the input back byte for byte: the upgrade never writes a file it does not.
  With CPython's parse of the file at hand, statements without a use site are not generated at all:
  their text is cut from the source (see `layout`).
- The text of every cold statement next to a hot path (see `frontier`), so that generating the
  upgraded module can copy it instead of generating it again (`refactors.fast.codegen`).

Lines are counted by "\n" (LF and CRLF text; old-Mac lone "\r" files would report line 1).
"""
from __future__ import annotations

import ast
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Collection, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState

from refactors.fast.codegen import Recorded, with_copies
from refactors.fast.partial_parse import line_offsets, start_line, stub_lines
from refactors.scopes import children
from refactors.statement_visitor import HOLDS_STATEMENTS


@dataclass
class Layout:
    positions: Dict[int, Tuple[int, int]]  # id(node) -> (line, column), both 1-based
    reproduces: bool  # libcst gives the input back byte for byte (what it generated equals the input)
    recorded: Dict[int, Recorded] = field(default_factory=dict)  # id(frontier statement) -> its text


@dataclass(frozen=False)
class _MarkingState(CodegenState):
    wanted: Set[int] = field(default_factory=set)
    frontier: Set[int] = field(default_factory=set)
    marks: Dict[int, int] = field(default_factory=dict)
    starts: Dict[int, Tuple[int, Tuple[str, ...]]] = field(default_factory=dict)
    ends: Dict[int, int] = field(default_factory=dict)

    @contextmanager
    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> Iterator[None]:
        # Where PositionProvider starts a node's range (its own start: no `start_node` given).
        if start_node is None and id(node) in self.wanted:
            self.marks[id(node)] = len(self.tokens)
        yield

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.frontier:
            self.starts[key] = (len(self.tokens), tuple(self.indent_tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.frontier:
            self.ends[key] = len(self.tokens)


def _generate(module: cst.Module, node: cst.CSTNode, wanted: Set[int], frontier: Set[int], first_line: int,
              positions: Dict[int, Tuple[int, int]], recorded: Dict[int, Recorded]) -> str:
    """Generate `node` (the module, or one of its statements, whose text starts a line), adding the
    positions of the `wanted` nodes in it and the texts of its `frontier` nodes; returns its code."""
    state = _MarkingState(default_indent=module.default_indent, default_newline=module.default_newline,
                          wanted=wanted, frontier=frontier)
    node._codegen(state)
    # Offsets from a C-level prefix sum; lines and columns from str.count/rfind, also in C.
    code = "".join(state.tokens)
    starts = [0, *accumulate(map(len, state.tokens))]
    line, counted = first_line, 0
    for key, index in sorted(state.marks.items(), key=lambda kv: kv[1]):
        offset = starts[index]
        line += code.count("\n", counted, offset)
        counted = offset
        positions[key] = (line, offset - code.rfind("\n", 0, offset))
    count = len(state.tokens)
    for key, (begin, indent) in state.starts.items():
        end = state.ends[key]
        # A module without a final newline drops its last token (a newline) after generating it.
        popped = module.default_newline if end > count else ""
        recorded[key] = (code[starts[begin]:starts[min(end, count)]] + popped, indent)
    return code


def layout(module: cst.Module, nodes: Iterable[cst.CSTNode], hot: Collection[int], source: str,
           tree: Optional[ast.Module] = None) -> Layout:
    """Positions of `nodes`, whether libcst reproduces `source` (the module's text), and the text of
    each cold statement next to the `hot` paths (ids; see `frontier`).

    With `tree`, CPython's own parse of `source`, only the statements that hold a wanted node are
    generated: every cold statement, at the top level or in a block of a hot compound statement, is
    recorded as its lines of `source`, found through the tree's line numbers (its round trip holds by
    construction), and each hot top-level statement's text is compared with its lines. Otherwise (or
    when the tree and the module do not line up) the whole module is generated once.
    """
    wanted, marked = {id(n) for n in nodes}, frontier(module, hot)
    positions: Dict[int, Tuple[int, int]] = {}
    recorded: Dict[int, Recorded] = {}
    offsets = line_offsets(source)
    spans = _statement_spans(module, source, tree, offsets) if tree is not None else None
    if spans is None:
        code = _generate(module, module, wanted, marked, 1, positions, recorded)
        return Layout(positions, code == source, recorded)
    header, statements = spans
    reproduces = "".join(module.code_for_node(line) for line in module.header) == header
    for stmt, (first_line, start, end, node) in zip(module.body, statements):
        text = source[start:end]
        if id(stmt) not in hot:  # cold: not even generated
            recorded[id(stmt)] = (text, ())
            continue
        inner: Dict[int, Recorded] = {}
        _cold_inside(module, stmt, node, end, (), source, offsets, hot, inner)
        if inner and _generate(module, with_copies(stmt, inner), wanted, marked, first_line,
                               positions, recorded) == text:
            recorded.update(inner)
        elif _generate(module, stmt, wanted, marked, first_line, positions, recorded) != text:
            reproduces = False
    return Layout(positions, reproduces, recorded)


Span = Tuple[int, int, Optional[int], ast.stmt]  # first line, start and end offsets, CPython's node


def _cut(statements: Sequence[cst.BaseStatement], nodes: Sequence[ast.stmt], offsets: List[int],
         end: Optional[int]) -> Optional[List[Span]]:
    """Where each statement's text (leading comment and blank lines included, as libcst counts them)
    starts, at the line CPython gives its first token; it ends where the next one starts, the last
    at `end` (None: unknown). None when libcst's and CPython's statements do not line up."""
    starts: List[int] = []
    firsts: List[ast.stmt] = []
    index = 0
    for stmt in statements:
        if index >= len(nodes):
            return None
        firsts.append(nodes[index])
        starts.append(start_line(nodes[index]) - len(stmt.leading_lines))
        stub = stub_lines(stmt)
        if stub is not None:  # one stub for a run of statements (refactors.fast.partial_parse)
            index += 1
            while index < len(nodes) and start_line(nodes[index]) <= stub[1]:
                index += 1
            continue
        index += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
    if index != len(nodes) or not starts or starts[0] < 1 or starts[-1] > len(offsets) \
            or any(b <= a for a, b in zip(starts, starts[1:])):
        return None
    cuts: List[Optional[int]] = [offsets[line - 1] for line in starts]
    return [(line, a, b, node) for line, a, b, node in zip(starts, cuts, cuts[1:] + [end], firsts)]  # type: ignore


def _statement_spans(module: cst.Module, source: str, tree: ast.Module,
                     offsets: List[int]) -> Optional[Tuple[str, List[Span]]]:
    """The header's text, and each top-level statement's span in `source`; None when cutting is not
    safe: lone CRs (CPython and libcst would count lines differently), a footer or a missing final
    newline (the last statement's end is libcst's business), or statements that do not line up."""
    if module.footer or not module.has_trailing_newline or not module.body \
            or source.count("\r") != source.count("\r\n"):
        return None
    spans = _cut(module.body, tree.body, offsets, len(source))
    return None if spans is None else (source[:spans[0][1]], spans)


def _blocks(stmt: cst.BaseStatement, node: ast.stmt) -> List[Tuple[cst.BaseSuite, List[ast.stmt]]]:
    """The blocks of a compound statement, each with CPython's statements for it, in source order
    (an `elif` brings its own); [] when libcst's and CPython's statements are not of one kind."""
    if isinstance(stmt, (cst.ClassDef, cst.FunctionDef, cst.With)) \
            and isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.With, ast.AsyncWith)):
        return [(stmt.body, node.body)]
    if isinstance(stmt, (cst.For, cst.While)) and isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        return [(stmt.body, node.body)] + ([(stmt.orelse.body, node.orelse)] if stmt.orelse else [])
    if isinstance(stmt, cst.If) and isinstance(node, ast.If):
        if isinstance(stmt.orelse, cst.If):
            elif_ = node.orelse[0] if len(node.orelse) == 1 else None
            return [(stmt.body, node.body), *(_blocks(stmt.orelse, elif_) if isinstance(elif_, ast.If) else [])]
        return [(stmt.body, node.body)] + ([(stmt.orelse.body, node.orelse)] if stmt.orelse else [])
    if isinstance(stmt, cst.Try) and isinstance(node, ast.Try) and len(stmt.handlers) == len(node.handlers):
        return [(stmt.body, node.body), *((h.body, n.body) for h, n in zip(stmt.handlers, node.handlers)),
                *([(stmt.orelse.body, node.orelse)] if stmt.orelse else []),
                *([(stmt.finalbody.body, node.finalbody)] if stmt.finalbody else [])]
    return []


def _cold_inside(module: cst.Module, stmt: cst.BaseStatement, node: ast.stmt, end: Optional[int],
                 indent: Tuple[str, ...], source: str, offsets: List[int], hot: Collection[int],
                 out: Dict[int, Recorded]) -> None:
    """Record, as their lines of `source`, the cold statements in the blocks of a hot compound
    statement, and in those of the hot ones among them; `end` is where the statement's text ends
    (None: unknown). Only the last block's last statement ends with the statement; in the other
    blocks the last statement is followed by a keyword line (`else:`, `except:`) CPython does not
    place, so it is left to be generated."""
    blocks = _blocks(stmt, node)
    for number, (block, nodes) in enumerate(blocks, 1):
        if not isinstance(block, cst.IndentedBlock):
            continue
        inner = indent + (block.indent if block.indent is not None else module.default_indent,)
        last_end = end if number == len(blocks) and not block.footer else None
        for child, (_, start, stop, child_node) in zip(block.body, _cut(block.body, nodes, offsets, last_end) or ()):
            if id(child) in hot:
                _cold_inside(module, child, child_node, stop, inner, source, offsets, hot, out)
            elif stop is not None:
                out[id(child)] = (source[start:stop], inner)


# -- which statements to record ------------------------------------------------------------------

_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def frontier(module: cst.Module, hot: Collection[int]) -> Set[int]:
    """The cold statements the rewriting pass cannot change: every statement of the module or of a hot
    indented block that is not hot itself. (An `elif`, the other statement a statement may hold, is
    generated by its `if` with a keyword of its own: it is never copied.)"""
    out: Set[int] = set()
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        opaque = isinstance(node, (cst.Module, cst.IndentedBlock))
        for child in children(node):
            if id(child) in hot:
                if isinstance(child, HOLDS_STATEMENTS):
                    stack.append(child)
            elif opaque and isinstance(child, _STATEMENTS):
                out.add(id(child))
    return out
