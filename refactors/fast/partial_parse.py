"""Parse only the parts of a file that can concern the upgrade.

libcst's parse is most of an upgrade's cost, and much of a real 1.8 file never mentions a name a
paddle import binds: the bodies of helper functions and classes and, inside functions, the
statements around the paddle calls. No use site can be there. Before libcst sees the text, each
such part (a body, or a run of statements) is replaced by one line at its indentation,
`...  # paddle-upgrade: not parsed, lines <first>-<last>`. The part is cold, so its original text is
cut from the source like that of any other cold statement (refactors.fast.positions), and the output
keeps it byte for byte.

What the steps read beyond their use sites stays parsed, as `Keep` says: a transformer declares it
where it is registered (`refactors.transformers.register(reads=...)`), and the names of the APIs it
serves become the words that keep a scope's statements, or a whole class, parsed. The scope analysis
needs the statements that bind names in other scopes (`scopes.BINDS_OUTSIDE`). Should a part left
out be needed after all (an API imported under another name, a binding searched for by a name only
known at run time), the reader says so (`refactors.fast.Fast.provide`, `provide_binding`) and the
file is parsed whole.

Also kept parsed, so that readers find what they expect: the module's own statements (its docstring
and imports decide where imports go), docstrings, `pass` (a `try` left with only `pass` goes), a
block under a paddle `with` (it may be unwrapped and its statements moved), statements sharing a
line with others, `elif` clauses, and the last statement of a block whose end libcst decides
(before `else:` or `except:`, or a footer). Nothing is left out with a star import from paddle (it
binds names the text does not spell), or in text with lone CRs, no final newline or a footer. A
stub that would still be generated shows its marker, which the fast way looks for in the output
before parsing the whole file instead. Names are compared as Python reads them (NFKC).
"""
from __future__ import annotations

import ast
import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

import libcst as cst

from refactors.statement_visitor import HOLDS_STATEMENTS
from refactors.scopes import BINDS_OUTSIDE, ROOT, children

MARKER = "paddle-upgrade: not parsed"
_COMMENT = re.compile(r"# " + MARKER + r", lines (\d+)-(\d+)")


@dataclass(frozen=True)
class Keep:
    """Words that keep parts parsed although they hold no use site: a scope (function, class, the
    module) whose text holds one of `scope` keeps all its own statements parsed; a class whose text
    holds one of `whole` is parsed whole; a statement that says one of `words` is never left out."""

    scope: Tuple[str, ...] = ()
    whole: Tuple[str, ...] = ()
    words: Tuple[str, ...] = ()


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_HOLDERS = HOLDS_STATEMENTS + (cst.SimpleStatementLine,)


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


def stub_cold_parts(text: str, tree: ast.Module, keep: Keep = Keep()) -> Optional[str]:
    """`text` with its cold parts replaced by stubs (CPython's `tree` of it gives the lines), or None
    when there is none to replace or replacing is not safe."""
    if MARKER in text or text.count("\r") != text.count("\r\n") or not text.endswith("\n"):
        return None  # (without a final newline, every statement is generated: refactors.fast.positions)
    names = _hot_names(tree)
    if names is None:
        return None
    uses = _offsets_of(names, text)
    kept = _offsets_of((*BINDS_OUTSIDE, *keep.words), text)
    hits = Hits(uses, sorted(uses + kept), _offsets_of(keep.scope, text), _offsets_of(keep.whole, text))
    offsets = line_offsets(text)
    if not tree.body or text[line_end(text, offsets, tree.body[-1].end_lineno or 0):].strip():
        return None  # comments after the last statement: libcst's footer, and every statement is generated
    spans: List[Tuple[int, int]] = []
    _cold(tree.body, text, offsets, hits, spans, runs=False, scope_runs=not hits.scope)
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
    `str.find` and a look at the characters around: several times cheaper than a regex. A line with
    other than ASCII is read as Python reads names (NFKC), and a word in it is found at its start."""
    words = tuple(words)
    if not words:
        return []
    if text.isascii():
        return _ascii_offsets(words, text, 0)
    found: List[int] = []
    at = 0
    for line in text.splitlines(keepends=True):
        if line.isascii():
            found += _ascii_offsets(words, line, at)
        elif _ascii_offsets(words, unicodedata.normalize("NFKC", line), 0):
            found.append(at)
        at += len(line)
    return found


def _ascii_offsets(words: Sequence[str], text: str, base: int) -> List[int]:
    found = []
    for word in words:
        size, at = len(word), text.find(word)
        while at != -1:
            end = at + size
            if not (at and _word_char(text[at - 1])) and not (end < len(text) and _word_char(text[end])):
                found.append(base + at)
            at = text.find(word, end)
    found.sort()
    return found


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


class Hits(NamedTuple):
    uses: List[int]  # offsets of the names paddle imports bind: where use sites can be
    kept: List[int]  # those and the offsets of `scopes.BINDS_OUTSIDE` and `Keep`'s words: what no stub may hold
    scope: List[int]  # offsets of the `Keep.scope` words
    whole: List[int]  # offsets of the `Keep.whole` words


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
          spans: List[Tuple[int, int]], runs: bool, scope_runs: bool, closed: bool = False) -> None:
    """Add the line spans of the outermost cold parts under `body`: the bodies of definitions, and
    with `runs` each run of statements of `body` (one stub stands for a run); `scope_runs` says the
    same of the blocks of the scope `body` is in. `closed`: a clause (`else:`, `except:`) follows
    the block, so where its last statement ends is libcst's to decide, and a cold one is generated
    whole: nothing in it is left out."""
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
            if runs and not isinstance(stmt, ast.Pass) and not _is_string(stmt) and not _is_elif(stmt, text, offsets):
                run.append(index)
                continue
        flush()
        if isinstance(stmt, (ast.With, ast.AsyncWith)) \
                and _hot(hits.uses, offsets[stmt.lineno - 1], offsets[start_line(stmt.body[0]) - 1]):
            continue  # a paddle guard's block may be unwrapped: its statements would move
        if isinstance(stmt, ast.ClassDef) and _hot(hits.whole, start, end):
            continue
        inner = not _hot(hits.scope, start, end) if isinstance(stmt, _DEFINITIONS) else scope_runs
        blocks = [block for block in _blocks(stmt) if block]
        final = max(blocks, key=lambda block: block[-1].end_lineno or 0) if blocks else None
        ends_unknown = closed and index == len(body) - 1  # so do those of its final block's last statement
        for block in blocks:
            _cold(block, text, offsets, hits, spans, inner, inner,
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
