"""Parse only the parts of a file that can concern the upgrade.

libcst's parse is most of an upgrade's cost, and in real 1.8 code about 30% of a file's text is in
parts that never mention a name a paddle import binds: the bodies of helper functions and classes
and, inside functions, the loops, branches and multi-line statements around the paddle calls. No
use site can be in such a part. Before libcst sees the text, each one (the outermost) is replaced
by one line, `...  # paddle-upgrade: not parsed, lines <first>-<last>`, at its indentation. The
part is cold, so its original text is cut from the source like that of any other cold statement
(refactors.positions) and the output keeps it byte for byte.

A refactor that reads more than the paths to its use sites asks first
(`engine.Context.require_parsed`): `act` reads all of a class's methods; the searches of a scope
for a name's assignments (`save_dygraph`), for an optimizer's `minimize` in loops (learning-rate
schedules) and for what a name is bound to (`fresh_name`, a standard-library import a rewrite adds)
ask for the parts whose text holds the word they look for. A part they need raises
`WholeModuleNeeded`, and the file is parsed whole.

Kept parsed, so that readers find what they expect: the module's own statements (its docstring and
imports decide where imports go), docstrings, a block under a paddle `with` (it may be unwrapped,
its statements moved), statements sharing a line, `elif` clauses, and the last statement of a block
whose end libcst decides (before `else:`/`except:`, or a footer). Nothing is left out with a star
import from paddle (it binds names the text does not spell), in code that says `global` or
`nonlocal`, or in text with lone CRs, no final newline or a footer. A stub that would still be
generated shows its marker, which the pipeline looks for in the output before parsing the whole
file instead. Either way the result is that of a whole parse (tests/test_partial_parse.py).
"""
from __future__ import annotations

import ast
import re
from bisect import bisect_left
from typing import Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from refactors.hot_paths import HOLDS_STATEMENTS
from refactors.scopes import children

MARKER = "paddle-upgrade: not parsed"
_COMMENT = re.compile(r"# " + MARKER + r", lines (\d+)-(\d+)")

ROOT = "paddle"
# Words that make a part count as hot whatever the imports: the root, and the statements that bind
# names in an enclosing scope.
ALWAYS_HOT = (ROOT, "global", "nonlocal")

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_HOLDERS = HOLDS_STATEMENTS + (cst.SimpleStatementLine,)


class WholeModuleNeeded(Exception):
    """The upgrade needs a part of the module that was left unparsed: parse the whole text."""


def stubs_in(node: cst.CSTNode, into_definitions: bool = True) -> Iterator[Tuple[int, int]]:
    """The lines of the source each stub in `node`'s statements stands for; without
    `into_definitions`, only the stubs among the statements of its own scope (not in the bodies of
    the functions and classes in it)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.SimpleStatementLine):
            comment = current.trailing_whitespace.comment
            match = _COMMENT.fullmatch(comment.value) if comment is not None else None
            if match:
                yield int(match.group(1)), int(match.group(2))
        elif into_definitions or current is node or not isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            stack.extend(child for child in children(current) if isinstance(child, _HOLDERS))


def stub_cold_parts(text: str, tree: ast.Module) -> Optional[str]:
    """`text` with its cold parts replaced by stubs (CPython's `tree` of it gives the lines), or None
    when there is none to replace or replacing is not safe."""
    if MARKER in text or text.count("\r") != text.count("\r\n") or not text.endswith("\n"):
        return None  # (without a final newline, every statement is generated: refactors.positions)
    names = _hot_names(tree)
    if names is None:
        return None
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    hits = [m.start() for m in pattern.finditer(text)]
    offsets = line_offsets(text)
    if not tree.body or text[_line_end(text, offsets, tree.body[-1].end_lineno or 0):].strip():
        return None  # comments after the last statement: libcst's footer, and every statement is generated
    spans: List[Tuple[int, int]] = []
    _cold(tree.body, text, offsets, hits, spans)
    if not spans:
        return None
    spans.sort()  # blocks are visited body, orelse, finalbody, handlers: not quite source order
    out: List[str] = []
    at = 0  # offset in text up to which it is copied
    for first, last in spans:
        start, end = offsets[first - 1], _line_end(text, offsets, last)
        line = text[start:_line_end(text, offsets, first)]
        indent = line[: len(line) - len(line.lstrip(" \t\f"))]
        newline = "\r\n" if text.endswith("\r\n", start, end) else "\n" if text.endswith("\n", start, end) else ""
        out += [text[at:start], indent, f"...  # {MARKER}, lines {first}-{last}", newline]
        at = end
    out.append(text[at:])
    return "".join(out)


def _hot_names(tree: ast.Module) -> Optional[Set[str]]:
    """Every name an import of paddle binds, anywhere in the module (None: a star import)."""
    names = set(ALWAYS_HOT)
    for stmt in _statements(tree.body):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name.split(".")[0] == ROOT:
                    names.add(alias.asname or ROOT)
        elif isinstance(stmt, ast.ImportFrom) and not stmt.level and (stmt.module or "").split(".")[0] == ROOT:
            for alias in stmt.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name)
    return names


def _blocks(stmt: ast.stmt) -> Iterator[Sequence[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list):
            yield block
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def _statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        for block in _blocks(stmt):
            yield from _statements(block)


def line_offsets(text: str) -> List[int]:
    """Offset of each line's start, lines counted by "\\n" as CPython counts them (no lone CRs here)."""
    offsets, at = [0], text.find("\n")
    while at != -1:
        offsets.append(at + 1)
        at = text.find("\n", at + 1)
    return offsets


def _line_end(text: str, offsets: List[int], line: int) -> int:
    return offsets[line] if line < len(offsets) else len(text)


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


def _cold(body: Sequence[ast.stmt], text: str, offsets: List[int], hits: List[int],
          spans: List[Tuple[int, int]], module_level: bool = True, closed: bool = False) -> None:
    """Add the line spans of the outermost cold parts under `body`: the bodies of definitions, and
    whole statements (compound, or spanning lines) inside a function or class. `closed`: a
    clause (`else:`, `except:`) follows the block, so where its last statement ends is libcst's to
    decide, and a cold one is generated whole: nothing in it is left out."""
    for index, stmt in enumerate(body):
        first, last = _first_line(stmt), stmt.end_lineno or stmt.lineno
        if not _hot(hits, offsets[first - 1], _line_end(text, offsets, last)):
            if closed and index == len(body) - 1:
                continue  # generated whole (its end is not known), so nothing in it may be left out
            if isinstance(stmt, _DEFINITIONS):
                span = _body_lines(stmt, text, offsets)
                if span is not None:
                    spans.append(span)
                continue
            if not module_level and (last > first or any(True for _ in _blocks(stmt))) and not _is_string(stmt) \
                    and _alone(body, index, text, offsets):
                spans.append((first, last))
                continue
        elif isinstance(stmt, (ast.With, ast.AsyncWith)) \
                and _hot(hits, offsets[stmt.lineno - 1], offsets[_first_line(stmt.body[0]) - 1]):
            continue  # a paddle guard's block may be unwrapped: its statements would move
        blocks = [block for block in _blocks(stmt) if block]
        final = max(blocks, key=lambda block: block[-1].end_lineno or 0) if blocks else None
        ends_unknown = closed and index == len(body) - 1  # so do those of its final block's last statement
        for block in blocks:
            _cold(block, text, offsets, hits, spans, False,
                  block is not final or ends_unknown or _has_footer(block, text, offsets))


def _has_footer(block: Sequence[ast.stmt], text: str, offsets: List[int]) -> bool:
    """Whether comment or whitespace lines indented like the block follow its last statement (libcst
    keeps them as the block's footer, and then the last statement's end is its to decide)."""
    first = text[offsets[block[0].lineno - 1]:_line_end(text, offsets, block[0].lineno)]
    indent = first[: len(first) - len(first.lstrip(" \t\f"))]
    number = (block[-1].end_lineno or block[-1].lineno) + 1
    while number <= len(offsets):
        line = text[offsets[number - 1]:_line_end(text, offsets, number)]
        code = line.lstrip(" \t\f")
        if code.strip() and not code.startswith("#"):
            return False
        if indent and line.startswith(indent):
            return True
        number += 1
    return False


def _is_string(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _alone(body: Sequence[ast.stmt], index: int, text: str, offsets: List[int]) -> bool:
    """Whether `body[index]` is a statement with lines to itself: it starts its first line after the
    indentation, and the next statement starts on a later line than its last (no `;` between them)."""
    stmt = body[index]
    line = text[offsets[stmt.lineno - 1]:_line_end(text, offsets, stmt.lineno)]
    code = line.lstrip(" \t\f")
    if len(line) - len(code) != stmt.col_offset:  # whitespace: bytes are characters
        return False
    if isinstance(stmt, ast.If) and code.startswith("elif"):
        return False  # CPython's `orelse` holds an `elif` as an `if`; in the text it is a clause
    return index + 1 == len(body) or _first_line(body[index + 1]) > (stmt.end_lineno or stmt.lineno)


def _hot(hits: List[int], start: int, end: int) -> bool:
    """Whether a hot word starts in text[start:end]."""
    index = bisect_left(hits, start)
    return index < len(hits) and hits[index] < end


def _body_lines(stmt: ast.stmt, text: str, offsets: List[int]) -> Optional[Tuple[int, int]]:
    """First and last line of a definition's body when the body has lines of its own (not `def f(): x`)."""
    body = stmt.body  # type: ignore[attr-defined]
    first = _first_line(body[0])
    line = text[offsets[first - 1]:_line_end(text, offsets, first)]
    code = line.lstrip(" \t\f")
    indent = len(line) - len(code)
    if not indent:
        return None
    if first == body[0].lineno and indent != body[0].col_offset:  # whitespace: bytes are characters
        return None  # the body starts after the header's colon, on its last line
    if first != body[0].lineno and not code.startswith("@"):
        return None
    return first, stmt.end_lineno or stmt.lineno
