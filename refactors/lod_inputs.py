"""Whether a data variable (`fluid.data`, `fluid.layers.data`) that the module being upgraded, or a module
of the tree it imports, makes may have a LoD level: a feed list the file does not show may hold it.

Read with CPython's parser: the module's own calls resolve through its imports (`refactors.scopes`),
another module's through the imports written in it (`refactors.tree_index.TreeIndex.imported_modules`
finds those modules and records what was read; one in Python 2 syntax is read through the upgrade's own
syntax pre-pass, `refactors.python2`, as its upgraded text will read). A data call counts where its
`lod_level` (by keyword, or by position in its signature) is not literally 0, or it passes
`*args`/`**kwargs`; a call of a name ending in `data` that resolves to nothing known counts where any
argument past the third could be a LoD level. The answer must not change once the modules are upgraded
(a second run changes nothing): the upgrade keeps `lod_level` and writes the arguments by keyword.
A module the tree index does not find (an installed package, a `sys.path` entry set at run time) is not
read; one it finds but cannot parse makes the answer unknown.
"""
from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Callable, Dict, Optional, Sequence, Tuple

from api_mapping.namespaces import DATA_VARIABLES
from refactors import tree_index
from refactors.engine import Context
from refactors.target_signatures import target_params
from refactors.tree_index import file_stat

STATIC_DATA = "paddle.static.data"  # what they become (a file upgraded before)
_UNKNOWN_FROM = 3  # a `data` call of no known signature: any argument from the fourth may be a LoD level


class _Call:
    """A call of a name ending in `data`: its dotted name, the variable's name, and for each way of
    giving `lod_level` why its value may be a LoD level (None: literally 0 there)."""

    __slots__ = ("chain", "variable", "star", "keyword", "positional")

    def __init__(self, call: ast.Call) -> None:
        self.chain = ast.unparse(call.func)
        name = next((k.value for k in call.keywords if k.arg == "name"), call.args[0] if call.args else None)
        self.variable = repr(name.value) if isinstance(name, ast.Constant) and isinstance(name.value, str) \
            else "a data variable"
        self.star = any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args)
        lod = next((k.value for k in call.keywords if k.arg == "lod_level"), None)
        self.keyword = _why(lod) if lod is not None else None
        self.positional = tuple(_why(arg) for arg in call.args)

    def lod(self, params: Optional[Sequence[str]]) -> bool:
        """Whether it may make a variable with a LoD level, given its parameters (None: not known)."""
        if self.star or self.keyword is not None:
            return True
        if params is None:
            return any(why is not None for why in self.positional[_UNKNOWN_FROM:])
        index = list(params).index("lod_level") if "lod_level" in params else len(self.positional)
        return index < len(self.positional) and self.positional[index] is not None


def _why(value: ast.expr) -> Optional[str]:
    try:
        return None if ast.literal_eval(value) == 0 else "a LoD level"
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return "a LoD level not a literal"


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
    paths = others.imported_modules(tree)
    for path in paths if paths is not None else [""]:  # ("": where they are not all known)
        stat = file_stat(path) if path else None
        read = _module_calls(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None
        if read is None:
            return "a data variable of a module it imports, which is not read,"
        calls, imports = read
        found = _first(ctx, calls, lambda chain: _qualname(imports, chain))
        if found is not None:
            return f"{found} of {os.path.relpath(path, here)}"
    return None


def _first(ctx: Context, calls: Tuple[_Call, ...], qualname: Callable[[str], Optional[str]]) -> Optional[str]:
    """The name of the first variable of `calls` that may have a LoD level."""
    for call in calls:
        name = qualname(call.chain)
        entry = ctx.entry_for(name) if name else None
        if name is None:
            params = None  # (a name of no import: any `data`)
        elif name == STATIC_DATA:
            params = target_params(STATIC_DATA)
        elif entry is not None and entry.name in DATA_VARIABLES:
            params = [p.name for p in entry.args_list]
        else:
            continue
        if call.lod(params):
            return call.variable
    return None


def _calls(tree: ast.AST) -> Tuple[_Call, ...]:
    """Each call of a dotted name whose last part is `data`."""
    found = []
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if last == "data" and isinstance(func, (ast.Name, ast.Attribute)) and \
                ast.unparse(func).replace(".", "").isidentifier():
            found.append(_Call(node))  # type: ignore[arg-type]
    return tuple(found)


@lru_cache(maxsize=4096)
def _module_calls(path: str, mtime_ns: int, size: int) -> Optional[Tuple[Tuple[_Call, ...], Dict[str, str]]]:
    """The data calls of another module of the tree and what its absolute imports bind (name -> module or
    member, qualified); None where it is not read."""
    read = tree_index.either_tree(path, mtime_ns, size)
    if read is None:
        return None
    tree = read[0]
    imports: Dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            imports.update((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*")
    return _calls(tree), imports


def _qualname(imports: Dict[str, str], chain: str) -> Optional[str]:
    head, _, rest = chain.partition(".")
    return imports[head] + ("." + rest if rest else "") if head in imports else None
