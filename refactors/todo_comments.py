"""`# TODO(paddle-upgrade): <reason>` comments, on the line where the use they are about starts.

That is the line the report cites. When the use starts on the statement's last line (or a one-line
header), the comment goes at its end, as libcst stores it (a trailing comment). On an earlier line of a
statement spread over several, the comment is written at the end of that line's text and the
statement is parsed again; the result is kept only when CPython reads the same program from it (a
line that ends in a backslash or inside a string cannot take a comment). Otherwise, and for a reason
without a node, the comment goes on a line of its own above the statement.

A reason already written on its line (a second run over upgraded code) is not written again.
"""
from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

PREFIX = "# TODO(paddle-upgrade): "

Mark = Tuple[str, Optional[cst.CSTNode]]  # a reason, and the node whose first line it belongs on


def attach(stmt: cst.BaseStatement, marks: Sequence[Mark], module: cst.Module) -> cst.BaseStatement:
    """`stmt` with a TODO for each mark; `module` gives the code style (indentation, newlines)."""
    marks = [(_one_line(reason), node) for reason, node in marks]
    reasons = list(dict.fromkeys(reason for reason, _ in marks))
    if not reasons:
        return stmt
    text = module.code_for_node(stmt)
    lines = text.splitlines(keepends=True)
    if isinstance(stmt, cst.SimpleStatementLine) and len(lines) == len(stmt.leading_lines) + 1:
        return _trailing(stmt, reasons)  # a one-line statement: every use starts on its line
    at_line = _lines_of(stmt, [node for _, node in marks], module, text)
    by_line: Dict[int, List[str]] = {}
    above: List[str] = []
    for reason, node in marks:
        line = at_line.get(id(node)) if node is not None else None
        if line is None or not 0 < line <= len(lines):
            above.append(reason)
        else:
            by_line.setdefault(line, []).append(reason)
    for line in sorted(by_line, reverse=True):
        new = [r for r in dict.fromkeys(by_line[line]) if PREFIX + r not in lines[line - 1]]
        if not new:
            continue
        edited = _with_comment(lines, line, new)
        replaced = _reparsed(text, edited, module)
        if replaced is None:
            above.extend(new)
            continue
        text, lines, stmt = edited, edited.splitlines(keepends=True), replaced
    return _above(stmt, [r for r in dict.fromkeys(above) if not _has(stmt, r)])


def _one_line(reason: str) -> str:
    """A comment is one line. Code the reason quotes loses the TODO comments in it (an earlier run's, on a
    line of a statement spread over several), or a second run would write a longer reason."""
    return " ".join(_OWN_COMMENT.sub("", reason).split())


_OWN_COMMENT = re.compile(r"[ \t]*" + re.escape(PREFIX.rstrip()) + r"[^\n]*")


def _lines_of(stmt: cst.BaseStatement, nodes: Sequence[Optional[cst.CSTNode]], module: cst.Module,
              text: str) -> Dict[int, int]:
    """The line (1-based, in the statement's own code `text`, its leading lines included) where each
    node starts: found by its own code when that occurs once in the statement's, else by libcst's
    PositionProvider."""
    lines: Dict[int, int] = {}
    for node in nodes:
        if node is None:
            continue
        code = module.code_for_node(node)
        at = text.find(code)
        if at < 0 or text.find(code, at + 1) >= 0:
            break
        lines[id(node)] = text.count("\n", 0, at) + 1
    else:
        return lines
    alone = module.with_changes(body=[stmt], header=[], footer=[])
    wanted = {id(n) for n in nodes if n is not None}
    positions = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): pos.start.line for node, pos in positions.items() if id(node) in wanted}


def _with_comment(lines: List[str], line: int, reasons: List[str]) -> str:
    current = lines[line - 1]
    body = current.rstrip("\r\n")
    ending = current[len(body):]
    comment = "  ".join(PREFIX + r for r in reasons)
    edited = lines[:line - 1] + [body.rstrip(" \t") + "  " + comment + ending] + lines[line:]
    return "".join(edited)


def _reparsed(old: str, new: str, module: cst.Module) -> Optional[cst.BaseStatement]:
    """The statement parsed from `new`, when CPython reads it as the same program as `old`."""
    try:
        if ast.dump(ast.parse(_dedented(new))) != ast.dump(ast.parse(_dedented(old))):
            return None
        return cst.parse_statement(new, config=module.config_for_parsing)
    except (SyntaxError, cst.ParserSyntaxError):
        return None


def _dedented(code: str) -> str:
    """A statement's code as a module: its first line has no indentation, but its leading comment lines
    may (they keep the indentation they had in the file)."""
    return "".join(line.lstrip(" \t") if line.lstrip(" \t").startswith("#") else line
                   for line in code.splitlines(keepends=True))


def _trailing(stmt: cst.SimpleStatementLine, reasons: List[str]) -> cst.SimpleStatementLine:
    """The comments at the end of a one-line statement, after a comment it already has."""
    ws = stmt.trailing_whitespace
    existing = ws.comment.value if ws.comment is not None else ""
    new = [PREFIX + r for r in reasons if PREFIX + r not in existing]
    if not new:
        return stmt
    comment = cst.Comment("  ".join(([existing] if existing else []) + new))
    return stmt.with_changes(trailing_whitespace=ws.with_changes(
        whitespace=ws.whitespace if existing else cst.SimpleWhitespace("  "), comment=comment))


def _has(stmt: cst.BaseStatement, reason: str) -> bool:
    return any(line.comment is not None and PREFIX + reason in line.comment.value for line in stmt.leading_lines)


def _above(stmt: cst.BaseStatement, reasons: List[str]) -> cst.BaseStatement:
    if not reasons:
        return stmt
    lines = [cst.EmptyLine(comment=cst.Comment(PREFIX + r)) for r in reasons]
    return stmt.with_changes(leading_lines=(*stmt.leading_lines, *lines))
