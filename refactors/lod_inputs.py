"""Whether a data variable (`fluid.data`, `fluid.layers.data`) that the module being upgraded, or a module
of the tree it imports, makes may have a LoD level: a feed list the file does not show may hold it.

Read with CPython's parser: the module's own calls resolve through its imports (`refactors.scopes`),
another module's through the top-level imports that module binds once (`refactors.tree_index`, which
finds the modules and records what was read). A call whose `lod_level` is not literally 0, or that
passes `*args`/`**kwargs`, counts; a module the tree index does not find (an installed package, a
`sys.path` entry set at run time, a module with `import *`) is not read.
"""
from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Callable, Optional, Tuple

from api_mapping.namespaces import DATA_VARIABLES
from refactors import cpython, tree_index
from refactors.engine import Context

STATIC_DATA = "paddle.static.data"  # what they become (a file upgraded before)
_Calls = Tuple[Tuple[str, str, Optional[str]], ...]  # (chain, the variable's name, why it may have a LoD level)


def lod_input(ctx: Context) -> Optional[str]:
    """Which data variable may have a LoD level (`'words'`, `'words' of models/net.py`; no line
    number, which an upgrade of the module moves), else None."""
    key = "lod inputs"
    if key not in ctx.memo:
        ctx.memo[key] = _find(ctx)
    return ctx.memo[key]  # type: ignore[no-any-return]


def _find(ctx: Context) -> Optional[str]:
    tree = ctx.python_tree()
    if tree is None:
        return "the module, which CPython does not parse"
    scope = ctx.resolver.module_scope
    found = _first(ctx, _calls(tree), lambda chain: ctx.resolver.qualname(chain, scope))
    if found is not None:
        return found
    others = ctx.other_modules
    for path in others.imported_modules() if others is not None else ():
        stat = os.stat(path)
        calls, imports = _module_calls(path, stat.st_mtime_ns, stat.st_size)
        found = _first(ctx, calls, lambda chain: _qualname(imports, chain))
        if found is not None:
            return f"{found} of {os.path.relpath(path, os.path.dirname(os.path.abspath(others.origin)))}"
    return None


def _first(ctx: Context, calls: _Calls, qualname: Callable[[str], Optional[str]]) -> Optional[str]:
    """The name of the first variable `calls` makes that may have a LoD level."""
    for chain, variable, why in calls:
        name = qualname(chain)
        entry = ctx.entry_for(name) if name else None
        if why is not None and (name == STATIC_DATA or (entry is not None and entry.name in DATA_VARIABLES)):
            return variable
    return None


def _calls(tree: ast.AST) -> _Calls:
    """Each call of a dotted name whose last part is `data`, with why it may make a LoD variable."""
    found = []
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if last == "data":
            found.append((ast.unparse(func), _name(node), _lod_level(node)))  # type: ignore[arg-type]
    return tuple(found)


def _name(call: ast.Call) -> str:
    name = next((k.value for k in call.keywords if k.arg == "name"), call.args[0] if call.args else None)
    return repr(name.value) if isinstance(name, ast.Constant) and isinstance(name.value, str) else "a data variable"


def _lod_level(call: ast.Call) -> Optional[str]:
    """Why the data call may have a LoD level, else None. A positional argument past the third counts
    (`lod_level` is the fourth of `fluid.data`, the fifth of `layers.data`)."""
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return "*args/**kwargs"
    lod = next((k.value for k in call.keywords if k.arg == "lod_level"), None)
    if lod is None and len(call.args) > 3:
        return "positional arguments past dtype"
    try:
        return None if lod is None or ast.literal_eval(lod) == 0 else "a LoD level"
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return "a LoD level not a literal"


@lru_cache(maxsize=1024)
def _module_calls(path: str, mtime_ns: int, size: int) -> Tuple[_Calls, dict]:
    """The data calls of another module and the names its imports bind."""
    try:
        with open(path, "rb") as fh:
            tree = cpython.parse(fh.read().decode("utf-8", "replace"))
    except OSError:
        tree = None
    return (_calls(tree) if tree is not None else ()), tree_index.module_imports(path)


def _qualname(imports: dict, chain: str) -> Optional[str]:
    head, _, rest = chain.partition(".")
    if head not in imports:
        return None
    module, member, level = imports[head]
    return None if level else (f"{module}.{member}" if member else module) + ("." + rest if rest else "")
