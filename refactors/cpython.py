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


def parse_either(text: str) -> Optional[ast.Module]:
    """CPython's parse of a module as the upgrade reads it: one in Python 2 syntax through the upgrade's
    syntax pre-pass (`refactors.python2`); None when neither parses."""
    tree = parse(text)
    if tree is None:
        from refactors import python2  # (fissix, only for the rare Python 2 module)

        try:
            tree = parse(python2.convert(text).text)
        except python2.NotPython2:
            return None
    return tree if isinstance(tree, ast.Module) else None
