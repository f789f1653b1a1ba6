"""Whether a data variable (`fluid.data`, `fluid.layers.data`) that the module being upgraded, or a module
of the tree it imports, makes may have a LoD level: a feed list the file does not show may hold it.

Read with CPython's parser. The module's own calls of `data` count where they resolve to one of these
(`refactors.scopes`); in another module (`refactors.tree_index.TreeIndex.imported_modules` finds them
and records what was read), any call of a name ending in `data`. A call whose `lod_level` is not
literally 0, or that passes more than three positional arguments or `*args`/`**kwargs`, counts. A
module the tree index does not find (an installed package, a `sys.path` entry set at run time) is not
read; one it finds but CPython does not parse makes the answer unknown.
"""
from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Callable, Optional, Tuple

from api_mapping.namespaces import DATA_VARIABLES
from refactors import cpython
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
        return "a data variable of the module, which CPython does not parse,"
    scope = ctx.resolver.module_scope
    found = _first(ctx, _calls(tree), lambda chain: ctx.resolver.qualname(chain, scope))
    if found is not None:
        return found
    others = ctx.other_modules
    if others is None:  # (no path: no module of the tree to read)
        return None
    here = os.path.dirname(os.path.abspath(others.origin))
    paths = others.imported_modules()
    for path in paths if paths is not None else [""]:  # ("": where they are not all known)
        stat = os.stat(path) if path else None
        calls = _module_calls(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None
        if calls is None:
            return "a data variable of a module it imports, which is not read,"
        found = next((variable for _, variable, why in calls if why is not None), None)
        if found is not None:
            return f"{found} of {os.path.relpath(path, here)}"
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


@lru_cache(maxsize=4096)
def _module_calls(path: str, mtime_ns: int, size: int) -> Optional[_Calls]:
    """The data calls of another module of the tree (`_calls`), None where it is not read."""
    try:
        with open(path, "rb") as fh:
            tree = cpython.parse(fh.read().decode("utf-8", "replace"))
    except OSError:
        return None
    return _calls(tree) if tree is not None else None
