"""`paddle-upgrade --mode shim`: keep a 1.x file as it is and make it run on today's Paddle.

The analogue of tf_upgrade_v2's safety mode: instead of rewriting API calls, the only change is one
line, `import runtime_shim; runtime_shim.install()`, placed before the file's first paddle import
(after its docstring and `from __future__` imports, which must stay first). Everything else is kept
byte for byte, and a file that already activates the shim, or imports no paddle, is returned as is.
"""
from __future__ import annotations

import ast
import re
from typing import List, Optional, Tuple

ACTIVATION = "import runtime_shim; runtime_shim.install()"

_ALREADY = re.compile(
    r"(?:^|;)[ \t\ufeff]*(?:import[ \t]+runtime_shim\b|from[ \t]+runtime_shim[ \t]+import\b)", re.MULTILINE)
# For sources `ast` cannot parse (Python 2): a top-level import of paddle at the start of a line.
_TOP_LEVEL_IMPORT = re.compile(r"^(?:import[ \t]+paddle\b|from[ \t]+paddle(?:\.|[ \t]))", re.MULTILINE)


def _imports_paddle(node: ast.AST) -> bool:
    """True when `node` (a statement, searched to any depth) imports paddle or a module under it."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Import) and any(
                a.name == "paddle" or a.name.startswith("paddle.") for a in sub.names):
            return True
        if isinstance(sub, ast.ImportFrom) and sub.level == 0 and sub.module is not None and (
                sub.module == "paddle" or sub.module.startswith("paddle.")):
            return True
    return False


def _lines(source: str) -> List[str]:
    """Lines with their endings, split where Python counts lines (not at form feeds, unlike splitlines)."""
    return [m.group(0) for m in re.finditer(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)]


def _insertion_point(source: str, lines: List[str]) -> Optional[Tuple[int, int]]:
    """(0-based line index, character column) of the first top-level statement importing paddle."""
    body = source[1:] if source.startswith("\ufeff") else source
    try:
        tree = ast.parse(body)
    except SyntaxError:
        for index, text in enumerate(lines):
            if _TOP_LEVEL_IMPORT.match(text.lstrip("\ufeff") if index == 0 else text):
                return index, 1 if index == 0 and text.startswith("\ufeff") else 0
        return None
    for stmt in tree.body:
        if _imports_paddle(stmt):
            index = stmt.lineno - 1
            text = lines[index][1:] if index == 0 and source.startswith("\ufeff") else lines[index]
            # ast columns count UTF-8 bytes; the text is indexed by characters.
            column = len(text.encode("utf-8")[: stmt.col_offset].decode("utf-8", "ignore"))
            if index == 0 and source.startswith("\ufeff"):
                column += 1
            return index, column
    return None


def _newline(source: str) -> str:
    """The file's own line ending (its first one), LF when it has none."""
    match = re.search(r"\r\n|\r|\n", source)
    return match.group(0) if match else "\n"


def insert_shim_activation(source: str) -> str:
    """`source` with the shim activated before its first paddle import; unchanged when not needed.

    Idempotent: a source that already imports `runtime_shim` is returned unchanged.
    """
    if _ALREADY.search(source):
        return source
    lines = _lines(source)
    point = _insertion_point(source, lines)
    if point is None:
        return source
    index, column = point
    text = lines[index]
    if text[:column].strip(" \t\x0c\ufeff") == "":
        # Only a BOM or a form feed before the import: they stay where they are, the new line goes
        # before the import's line (after the BOM, which must remain the file's first character).
        keep = 1 if index == 0 and text.startswith("\ufeff") else 0
        lines[index] = text[:keep] + ACTIVATION + _newline(source) + text[keep:]
    else:
        # The import follows another statement on the same line (`"""doc"""; import paddle`):
        # activate in between, on that line, so that nothing before the import moves.
        lines[index] = text[:column] + ACTIVATION + "; " + text[column:]
    return "".join(lines)
