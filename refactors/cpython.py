"""CPython's own parse, quietly: for analyses that read the file as `ast` rather than libcst."""
from __future__ import annotations

import ast
import warnings
from typing import Optional


def parse(text: str, mode: str = "exec") -> Optional[ast.AST]:
    """`ast.parse(text, mode=mode)`, or None when CPython refuses the text; its warnings (invalid escape
    sequences and the like) are the file's business, not ours."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, mode=mode)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
