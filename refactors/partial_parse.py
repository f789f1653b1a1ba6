"""Parse only the parts of a file that can concern the upgrade.

libcst's parse is most of an upgrade's cost, and much of a real 1.8 file never mentions a name a
paddle import binds: the bodies of helper functions and classes and, inside functions, the
statements around the paddle calls. No use site can be there. Before libcst sees the text, each
such part (a body, or a run of statements) is replaced by one line at its indentation,
`...  # paddle-upgrade: not parsed, lines <first>-<last>`. The part is cold, so its original text is
cut from the source like that of any other cold statement (refactors.positions), and the output
keeps it byte for byte.

A refactor that reads more than the paths to its use sites asks first
(`engine.Context.require_parsed` and `require_bindings`): `act` reads all of a class's methods;
the searches of a scope for a name's binding and assignments (`save_dygraph`'s state dict,
`fresh_name`, a standard-library import a rewrite adds) and for an optimizer's `minimize` in loops
(learning-rate schedules) ask for the parts whose text holds the word they look for. A part they
need raises `WholeModuleNeeded`, and the file is parsed whole. So that this stays rare, the words
those searches always look for (`KEPT`) stay parsed, and so does a class that says `act`.

Also kept parsed, so that readers find what they expect: the module's own statements (its docstring
and imports decide where imports go), docstrings, `pass` (a `try` left with only `pass` goes), a
block under a paddle `with` (it may be unwrapped and its statements moved), statements sharing a
line with others, `elif` clauses, and the last statement of a block whose end libcst decides
(before `else:` or `except:`, or a footer). Nothing is left out with a star import from paddle (it
binds names the text does not spell), or in text with lone CRs, no final newline or a footer. A
stub that would still be generated shows its marker, which the pipeline looks for in the output
before parsing the whole file instead. Either way the result is that of a whole parse
(tests/test_partial_parse.py).
"""
from __future__ import annotations

import ast
import re
from bisect import bisect_left
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

import libcst as cst

from refactors.hot_paths import HOLDS_STATEMENTS
from refactors.scopes import ROOT, children

MARKER = "paddle-upgrade: not parsed"
_COMMENT = re.compile(r"# " + MARKER + r", lines (\d+)-(\d+)")

# Words that keep a part parsed although it holds no use site: the statements that bind names in an
# enclosing scope, and words refactors search a scope for beyond their use sites (see
# `engine.Context.require_parsed`; kept parsed, those searches do not need the whole file).
KEPT = ("global", "nonlocal", "minimize", "os", "lr_scheduler")
# A class that says `act` may have a layer whose activation moves into its methods, all of which are
# then read (`act`): it stays parsed whole.
WHOLE_CLASS = ("act",)

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_HOLDERS = HOLDS_STATEMENTS + (cst.SimpleStatementLine,)


class WholeModuleNeeded(Exception):
    """The upgrade needs a part of the module that was left unparsed: parse the whole text."""


def stub_lines(stmt: cst.CSTNode) -> Optional[Tuple[int, int]]:
    """The first and last line of the source a stub statement stands for; None for other nodes."""
    if isinstance(stmt, cst.SimpleStatementLine):
        comment = stmt.trailing_whitespace.comment
        match = _COMMENT.fullmatch(comment.value) if comment is not None else None
        if match:
            return int(match.group(1)), int(match.group(2))
    return None


def stubs_in(node: cst.CSTNode, into_definitions: bool = True) -> Iterator[Tuple[int, int]]:
    """The lines of the source each stub in `node`'s statements stands for; without
    `into_definitions`, only the stubs among the statements of its own scope (not in the bodies of
    the functions and classes in it)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.SimpleStatementLine):
            lines = stub_lines(current)
            if lines is not None:
                yield lines
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
    uses = _offsets_of(names, text)
    hits = Hits(uses, sorted(uses + _offsets_of(KEPT, text)), _offsets_of(WHOLE_CLASS, text))
    offsets = line_offsets(text)
    if not tree.body or text[line_end(text, offsets, tree.body[-1].end_lineno or 0):].strip():
        return None  # comments after the last statement: libcst's footer, and every statement is generated
    spans: List[Tuple[int, int]] = []
    _cold(tree.body, text, offsets, hits, spans)
    if not spans:
        return None
    spans.sort()  # blocks are visited body, orelse, finalbody, handlers: not quite source order
    out: List[str] = []
    at = 0  # offset in text up to which it is copied
    for first, last in spans:
        start, end = offsets[first - 1], line_end(text, offsets, last)
        line = text[start:line_end(text, offsets, first)]
        indent = line[: len(line) - len(line.lstrip(" \t\f"))]
        newline = "\r\n" if text.endswith("\r\n", start, end) else "\n" if text.endswith("\n", start, end) else ""
        out += [text[at:start], indent, f"...  # {MARKER}, lines {first}-{last}", newline]
        at = end
    out.append(text[at:])
    return "".join(out)


def _offsets_of(words: Iterable[str], text: str) -> List[int]:
    """Where the words start in the text, as whole words (names are whole words wherever used).
    `str.find` and a look at the characters around: several times cheaper than a regex."""
    found = []
    for word in words:
        size, at = len(word), text.find(word)
        while at != -1:
            end = at + size
            if not (at and _word_char(text[at - 1])) and not (end < len(text) and _word_char(text[end])):
                found.append(at)
            at = text.find(word, end)
    found.sort()
    return found


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


class Hits(NamedTuple):
    uses: List[int]  # offsets of the names paddle imports bind: where use sites can be
    kept: List[int]  # those and the offsets of the `KEPT` words: what no stub may hold
    whole_class: List[int]  # offsets of the `WHOLE_CLASS` words


def _hot_names(tree: ast.Module) -> Optional[Set[str]]:
    """Every name an import of paddle binds, anywhere in the module (None: a star import)."""
    names = {ROOT}
    stack = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name.split(".")[0] == ROOT:
                    names.add(alias.asname or ROOT)
        elif isinstance(stmt, ast.ImportFrom):
            if not stmt.level and (stmt.module or "").split(".")[0] == ROOT:
                for alias in stmt.names:
                    if alias.name == "*":
                        return None
                    names.add(alias.asname or alias.name)
        else:
            for block in _blocks(stmt):
                stack.extend(block)
    return names


_BLOCK_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _blocks(stmt: ast.stmt) -> Iterator[Sequence[ast.stmt]]:
    """The statement lists of a compound statement (none for a simple one)."""
    names = _BLOCK_FIELDS.get(type(stmt))
    if names is None:
        fields = type(stmt)._fields
        names = _BLOCK_FIELDS[type(stmt)] = tuple(
            n for n in ("body", "orelse", "finalbody", "handlers", "cases") if n in fields)
    for name in names:
        value = getattr(stmt, name)
        if name in ("handlers", "cases"):
            for part in value:
                yield part.body
        else:
            yield value


def line_offsets(text: str) -> List[int]:
    """Offset of each line's start, lines counted by "\\n" as CPython counts them (no lone CRs here)."""
    offsets, at = [0], text.find("\n")
    while at != -1:
        offsets.append(at + 1)
        at = text.find("\n", at + 1)
    return offsets


def line_end(text: str, offsets: List[int], line: int) -> int:
    """Offset where line `line` (1-based) ends, its newline included."""
    return offsets[line] if line < len(offsets) else len(text)


def start_line(stmt: ast.stmt) -> int:
    """The line a statement's text starts on: its first decorator's, if any."""
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


def _cold(body: Sequence[ast.stmt], text: str, offsets: List[int], hits: Hits,
          spans: List[Tuple[int, int]], module_level: bool = True, closed: bool = False) -> None:
    """Add the line spans of the outermost cold parts under `body`: the bodies of definitions, and
    inside a function or class each run of statements (one stub stands for a run). `closed`: a
    clause (`else:`, `except:`) follows the block, so where its last statement ends is libcst's to
    decide, and a cold one is generated whole: nothing in it is left out."""
    run: List[int] = []  # indexes of the cold statements a stub may replace, one after the other

    def flush() -> None:
        if run and _alone(body, run[0], run[-1], text, offsets):
            spans.append((start_line(body[run[0]]), body[run[-1]].end_lineno or body[run[-1]].lineno))
        run.clear()

    for index, stmt in enumerate(body):
        start, end = offsets[start_line(stmt) - 1], line_end(text, offsets, stmt.end_lineno or stmt.lineno)
        if closed and index == len(body) - 1 and not _hot(hits.uses, start, end):
            break  # cold, so generated whole (its end is not known): nothing in it may be left out
        if not _hot(hits.kept, start, end):
            if isinstance(stmt, _DEFINITIONS):
                flush()
                span = _body_lines(stmt, text, offsets)
                if span is not None:
                    spans.append(span)
                continue
            if not module_level and not isinstance(stmt, ast.Pass) and not _is_string(stmt) \
                    and not _is_elif(stmt, text, offsets):
                run.append(index)
                continue
        flush()
        if isinstance(stmt, (ast.With, ast.AsyncWith)) \
                and _hot(hits.uses, offsets[stmt.lineno - 1], offsets[start_line(stmt.body[0]) - 1]):
            continue  # a paddle guard's block may be unwrapped: its statements would move
        if isinstance(stmt, ast.ClassDef) and _hot(hits.whole_class, start, end):
            continue
        blocks = [block for block in _blocks(stmt) if block]
        final = max(blocks, key=lambda block: block[-1].end_lineno or 0) if blocks else None
        ends_unknown = closed and index == len(body) - 1  # so do those of its final block's last statement
        for block in blocks:
            _cold(block, text, offsets, hits, spans, False,
                  block is not final or ends_unknown or _has_footer(block, text, offsets))
    flush()


def _has_footer(block: Sequence[ast.stmt], text: str, offsets: List[int]) -> bool:
    """Whether comment or whitespace lines indented like the block follow its last statement (libcst
    keeps them as the block's footer, and then the last statement's end is its to decide)."""
    first = text[offsets[block[0].lineno - 1]:line_end(text, offsets, block[0].lineno)]
    indent = first[: len(first) - len(first.lstrip(" \t\f"))]
    number = (block[-1].end_lineno or block[-1].lineno) + 1
    while number <= len(offsets):
        line = text[offsets[number - 1]:line_end(text, offsets, number)]
        code = line.lstrip(" \t\f")
        if code.strip() and not code.startswith("#"):
            return False
        if indent and line.startswith(indent):
            return True
        number += 1
    return False


def _is_string(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_elif(stmt: ast.stmt, text: str, offsets: List[int]) -> bool:
    """CPython's `orelse` holds an `elif` as an `if`; in the text it is a clause, not a statement."""
    if not isinstance(stmt, ast.If):
        return False
    line = text[offsets[stmt.lineno - 1]:line_end(text, offsets, stmt.lineno)]
    return line.lstrip(" \t\f").startswith("elif")


def _alone(body: Sequence[ast.stmt], first: int, last: int, text: str, offsets: List[int]) -> bool:
    """Whether `body[first:last + 1]` has its lines to itself: it starts its first line after the
    indentation, and the next statement starts on a later line than its last (no `;` between)."""
    stmt = body[first]
    line = text[offsets[stmt.lineno - 1]:line_end(text, offsets, stmt.lineno)]
    if len(line) - len(line.lstrip(" \t\f")) != stmt.col_offset:  # whitespace: bytes are characters
        return False
    end = body[last].end_lineno or body[last].lineno
    return last + 1 == len(body) or start_line(body[last + 1]) > end


def _hot(hits: List[int], start: int, end: int) -> bool:
    """Whether a hot word starts in text[start:end]."""
    index = bisect_left(hits, start)
    return index < len(hits) and hits[index] < end


def _body_lines(stmt: ast.stmt, text: str, offsets: List[int]) -> Optional[Tuple[int, int]]:
    """First and last line of a definition's body when the body has lines of its own (not `def f(): x`)."""
    body = stmt.body  # type: ignore[attr-defined]
    first = start_line(body[0])
    line = text[offsets[first - 1]:line_end(text, offsets, first)]
    code = line.lstrip(" \t\f")
    indent = len(line) - len(code)
    if not indent:
        return None
    if first == body[0].lineno and indent != body[0].col_offset:  # whitespace: bytes are characters
        return None  # the body starts after the header's colon, on its last line
    if first != body[0].lineno and not code.startswith("@"):
        return None
    return first, stmt.end_lineno or stmt.lineno
