"""CPython's own parse, quietly: for analyses that read the file as `ast` rather than libcst."""
from __future__ import annotations

import ast
import warnings
from typing import Iterator, Optional, Tuple

# Nodes whose code is not their parent's own (a scope of its own, or run later).
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


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


def own_nodes(node: ast.AST, nested: Tuple[type, ...] = NESTED) -> Iterator[ast.AST]:
    """The nodes of a function's (or module's) own code, not those inside the `nested` kinds of node in it
    (definitions; refactors.value_sets adds comprehensions, whose targets are scopes of their own)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, nested):
            stack.extend(ast.iter_child_nodes(child))


def bindings(module: ast.AST, name: str) -> int:
    """How many times `name` is bound anywhere in `module` (assigned, a parameter, a definition, imported)."""
    count = 0
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            count += node.id == name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            count += node.name == name
        elif isinstance(node, ast.arg):
            count += node.arg == name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            count += sum((a.asname or a.name.split(".")[0]) == name for a in node.names)
    return count


# The docstring of each definition paddle-upgrade writes into a module says so (module_definitions.define_once
# holds its templates to it): what reads an upgraded file can tell the upgrade's code from the user's.
WRITTEN_MARK = "(paddle-upgrade)"


def written_by_upgrade(node: ast.AST) -> bool:
    """A function or class the upgrade wrote into the module for a 1.8 API (a second run meets it)."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    doc = ast.get_docstring(node)
    return doc is not None and WRITTEN_MARK in doc
