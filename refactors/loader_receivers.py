"""What the code holding a loader does with it once its source is set, where the upgrade makes it a 2.x
`paddle.io.DataLoader` over an IterableDataset.

1.8's loader was truthy and had `start()`, `reset()`, `queue`, `__next__`; a 2.x DataLoader has none of
these, and `bool()` of one calls `len()`, which raises `ValueError` for an IterableDataset (checked on
3.3.1). So the rewrite holds only where each use of the name is one both loaders serve alike: iterated
(`for b in loader`, `for b in loader()`, in a comprehension, through `enumerate`/`zip`/`list`/...), compared
by identity, or passed to a function in sight (a top-level `def` of the module, or one it imports from a
module of the tree) whose parameter is used the same way, followed through `_DEPTH` calls. Anything
else (`if not loader:`, `loader and ...`, `next(loader)`, an attribute, a method or a library function it is
passed to, a container or attribute it is kept in, a `return`) is Left, naming the use. A logged
`loader.queue.size()` (refactors.queue_size) is served, where the rewrite makes it 0: in the code of the scope
that holds the loader (not in a function it is passed to or defined there), inside a `for` loop that iterates
it (1.8 made an iterable loader's queue when it was iterated: `queue` was None before, and `size()` raised).
"""
from __future__ import annotations

import ast
import os
from typing import Callable, Dict, List, Optional, Set, Tuple

from refactors import queue_size
from refactors.cpython import NESTED, bindings, own_nodes, written_by_upgrade
from refactors.tree_index import TreeIndex

_DEPTH = 4  # how many functions a loader passed on is followed through
# Builtins that only iterate what they are given (both loaders iterate alike); `next` only of `loader()`.
_ITERATING = frozenset({"enumerate", "iter", "zip", "map", "filter"})
# ...and those that ask the length first: a 2.x DataLoader over an IterableDataset raises there, the
# iterator `loader()` gives does not (both checked on 3.3.1).
_SIZING = frozenset({"list", "tuple", "sorted"})

# path -> (text, tree) of a module of the tree, recording what it read (loader_across._source).
Source = Callable[[str], Optional[Tuple[str, ast.Module]]]
# (path, module, function name, index of the returned tuple or None) -> each (path, module, scope, name) the
# modules of the tree bind what the function returns to; Misused where a use of the function is out of sight
# (loader_across.returned_to).
Returned = Callable[[str, ast.Module, str, Optional[int]], List[Tuple[str, ast.Module, ast.AST, str]]]


class Misused(Exception):
    """A use of the loader a 2.x DataLoader does not serve as 1.8's did (the message names it)."""


def check(scope: ast.AST, loader: str, skip: Set[int], path: str, module: ast.Module, source: Source,
          returned: Optional[Returned] = None, depth: int = 0, seen: Optional[Set[Tuple[str, int, str]]] = None,
          rewritten: bool = False) -> None:
    """Misused unless every read of `loader` in the own code of `scope` (a function or module of the module
    at `path`), other than the nodes `skip` (ids: the setter's), is one a 2.x DataLoader serves alike;
    `rewritten`: the scope is the one whose `loader.queue.size()` calls the rewrite makes 0."""
    seen = set() if seen is None else seen
    parents: Dict[int, ast.AST] = {}
    for parent in [scope] + list(own_nodes(scope)):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    logged = queue_size.names(scope, loader) if rewritten else set()
    for node in own_nodes(scope):
        if isinstance(node, ast.Name) and node.id == loader and isinstance(node.ctx, ast.Load) and \
                id(node) not in skip and not (id(node) in logged and _in_loop_over(node, parents, scope, loader)):
            _use(node, parents, scope, loader, path, module, source, returned, depth, seen)


def _in_loop_over(node: ast.AST, parents: Dict[int, ast.AST], scope: ast.AST, loader: str) -> bool:
    """`node` is in the body of a `for` loop of the scope that iterates the loader (`for b in loader`,
    `loader()`, or either through `enumerate`/`zip`/...)."""
    child, parent = node, parents.get(id(node))
    while parent is not None and parent is not scope:
        if isinstance(parent, (ast.For, ast.AsyncFor)) and child in parent.body and _iterates(parent.iter, loader):
            return True
        child, parent = parent, parents.get(id(parent))
    return False


def _iterates(node: ast.AST, loader: str) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ITERATING and \
            not node.keywords:
        return any(_iterates(arg, loader) for arg in node.args)
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
    return isinstance(node, ast.Name) and node.id == loader


def _use(name: ast.Name, parents: Dict[int, ast.AST], scope: ast.AST, loader: str, path: str, module: ast.Module,
         source: Source, returned: Optional[Returned], depth: int, seen: Set[Tuple[str, int, str]]) -> None:
    parent = parents.get(id(name))
    where = _place(scope, path)  # (no line: the message goes into a TODO comment, which must not change)
    if _iterated(name, parent):
        return
    if isinstance(parent, ast.Call) and parent.func is name and not parent.args and not parent.keywords:
        if _iterated(parent, parents.get(id(parent)), calls=True):  # `loader()`: 1.8's generator, 2.x's iterator
            return
        raise Misused(f"`{loader}()` is used other than to iterate it ({where})")
    if isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
        return
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is name or \
            isinstance(parent, ast.BoolOp) or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not) or isinstance(parent, ast.Call) and \
            isinstance(parent.func, ast.Name) and parent.func.id == "bool":
        raise Misused(f"`{loader}` is tested for truth (`{_snippet(parent)}`, {where}): `bool()` of a 2.x DataLoader over an "
                      f"IterableDataset raises, 1.8's loader was true")
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _SIZING:
        raise Misused(f"`{loader}` is passed to `{parent.func.id}` ({where}), which asks its length: a 2.x "
                      f"DataLoader over an IterableDataset raises, 1.8's loader had none to ask")
    if isinstance(parent, ast.keyword):  # passed by keyword: the call is the keyword's parent
        parent = parents.get(id(parent))
    if isinstance(parent, ast.Call) and name in parent.args + [k.value for k in parent.keywords]:
        _passed(parent, name, scope, loader, path, module, source, returned, depth, seen, where)
        return
    if isinstance(parent, (ast.Tuple, ast.List)) and isinstance(parents.get(id(parent)), ast.Return) and \
            not any(isinstance(e, ast.Starred) for e in parent.elts):
        _returned(scope, parent.elts.index(name), loader, path, module, source, returned, depth, seen, where)
        return
    if isinstance(parent, ast.Return):
        _returned(scope, None, loader, path, module, source, returned, depth, seen, where)
        return

    if isinstance(parent, ast.Attribute) and _resets_after_eof(parent, parents):
        return
    if isinstance(parent, ast.Attribute):
        raise Misused(f"`{loader}.{parent.attr}` is used ({where}), which paddle.io.DataLoader does not have")
    raise Misused(f"`{loader}` is kept, returned or used in an expression ({where}), out of sight of the rewrite")


def _place(scope: ast.AST, path: str) -> str:
    """Where a use is, for a finding: `in `f`` or `at the top`, and the module when its path is known."""
    own = f"in `{scope.name}`" if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else "at the top"
    return f"{own} of {os.path.basename(path)}" if os.path.isabs(path) else own


def _snippet(node: ast.AST) -> str:
    heads = {ast.If: "if", ast.While: "while", ast.Assert: "assert"}
    text = f"{heads[type(node)]} {ast.unparse(node.test)}" if type(node) in heads else ast.unparse(node)  # type: ignore
    text = text.splitlines()[0]
    return text if len(text) <= 40 else text[:37] + "..."


def _iterated(node: ast.AST, parent: Optional[ast.AST], calls: bool = False) -> bool:
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return True
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
        parent.func.id in (_ITERATING | (_SIZING | {"next"} if calls else set())) and node in parent.args


def _passed(call: ast.Call, name: ast.Name, scope: ast.AST, loader: str, path: str, module: ast.Module, source: Source,
            returned: Optional[Returned], depth: int, seen: Set[Tuple[str, int, str]], where: str) -> None:
    """The loader is an argument of `call`: followed into the function called, when it is in sight."""
    shown = ast.unparse(call.func)
    found = _callee(call.func, scope, path, module, source)
    if found is None or written_by_upgrade(found[2]):
        # A builtin (`next`) is named; another function is not: a 1.8 one the upgrade writes into the module
        # (`distributed_batch_reader`) is called by another name on a second run, whose finding must read the same.
        if isinstance(call.func, ast.Name) and not bindings(module, call.func.id):
            raise Misused(f"`{loader}` is passed to `{shown}` ({where}), whose use of it is out of sight")
        raise Misused(f"`{loader}` is passed to a function ({where}) whose use of it is out of sight")
    callee_path, callee_module, function = found
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise Misused(f"`{loader}` is passed to `{shown}` with *args/**kwargs ({where})")
    params = function.args.posonlyargs + function.args.args
    if name in call.args:
        at = call.args.index(name)
        param = params[at].arg if at < len(params) else None
    else:
        keyword = next(k.arg for k in call.keywords if k.value is name)
        param = keyword if keyword in [p.arg for p in function.args.args + function.args.kwonlyargs] else None
    if param is None:
        raise Misused(f"`{loader}` is passed to `{shown}` ({where}) as *args or **kwargs")
    key = (callee_path, function.lineno, param)
    if key in seen:
        return
    if depth >= _DEPTH:
        raise Misused(f"`{loader}` is passed on through more than {_DEPTH} functions ({where})")
    seen.add(key)
    nested = [n for n in own_nodes(function) if isinstance(n, NESTED)]
    if any(isinstance(n, (ast.Name,)) and n.id == param and not isinstance(n.ctx, ast.Load) for n in own_nodes(function)) \
            or any(isinstance(n, (ast.Global, ast.Nonlocal)) and param in n.names for n in own_nodes(function)) or \
            any(isinstance(n, ast.Name) and n.id == param for d in nested for n in ast.walk(d)):
        raise Misused(f"`{function.name}` ({os.path.basename(callee_path)}), which `{loader}` is passed to "
                      f"({where}), rebinds `{param}` or uses it in a nested function")
    try:
        check(function, param, set(), callee_path, callee_module, source, returned, depth + 1, seen)
    except Misused as inner:
        raise Misused(f"`{loader}` is passed to `{function.name}` ({where}), where {inner}") from None


def _returned(scope: ast.AST, index: Optional[int], loader: str, path: str, module: ast.Module, source: Source,
              returned: Optional[Returned], depth: int, seen: Set[Tuple[str, int, str]], where: str) -> None:
    """The loader is returned (alone, or element `index` of a tuple): followed to where the modules of the
    tree bind what the function returns, when it is a top-level function."""
    if returned is None or not (isinstance(scope, ast.FunctionDef) and scope in module.body):
        raise Misused(f"`{loader}` is returned ({where}) other than by a top-level function, so its use is out "
                      f"of sight")
    key = (path, scope.lineno, "return")
    if key in seen:
        return
    if depth >= _DEPTH:
        raise Misused(f"`{loader}` is handed on through more than {_DEPTH} functions ({where})")
    seen.add(key)
    try:
        for other_path, other_module, other_scope, name in returned(path, module, scope.name, index):
            _checked(other_scope, name, lambda _: False, other_path, other_module, source, returned, depth + 1, seen)
    except Misused as inner:
        raise Misused(f"`{loader}` is returned {where.replace('in ', 'by ', 1)}, and {inner}") from None


def _resets_after_eof(attribute: ast.Attribute, parents: Dict[int, ast.AST]) -> bool:
    """`loader.reset()` alone in a handler of `EOFException` (1.8's idiom for a loader the program reads): an
    iterable loader never raised it (its end is StopIteration), so neither version runs the handler for it."""
    call = parents.get(id(attribute))
    statement = parents.get(id(call))
    handler = parents.get(id(statement))
    return attribute.attr == "reset" and isinstance(call, ast.Call) and call.func is attribute and \
        not call.args and not call.keywords and isinstance(statement, ast.Expr) and \
        isinstance(handler, ast.ExceptHandler) and handler.type is not None and \
        ast.unparse(handler.type).split(".")[-1] == "EOFException"


def _callee(func: ast.AST, scope: ast.AST, path: str, module: ast.Module, source: Source
            ) -> Optional[Tuple[str, ast.Module, ast.FunctionDef]]:
    """The function `func` (a name or `module.name`) called in `scope` denotes: one defined once in that
    function, or a top-level one of this module or imported at its top from a module of the tree; None when
    it is not in sight."""
    if isinstance(func, ast.Name) and scope is not module:
        local = [n for n in own_nodes(scope) if isinstance(n, ast.FunctionDef) and n.name == func.id]
        binds = sum(isinstance(n, ast.Name) and n.id == func.id and not isinstance(n.ctx, ast.Load) or
                    isinstance(n, ast.arg) and n.arg == func.id or
                    isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == func.id or
                    isinstance(n, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)) and func.id in
                    [a if isinstance(a, str) else (a.asname or a.name.split(".")[0]) for a in n.names]
                    for n in own_nodes(scope))  # (its parameters are among its own nodes)
        if binds:
            return (path, module, local[0]) if len(local) == 1 and binds == 1 and not local[0].decorator_list else None
    if isinstance(func, ast.Name):
        own = _function(module, func.id)
        if own is not None and bindings(module, func.id) == 1:
            return path, module, own
        imported = _imported(module, func.id)
        if imported is None or imported[1] is None:
            return None
        dotted, member, level = imported
        return _in_module(path, dotted, level, member, source)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        imported = _imported(module, func.value.id)
        if imported is None:
            return None
        dotted, member, level = imported
        return _in_module(path, f"{dotted}.{member}" if dotted and member else member or dotted, level, func.attr, source)
    return None


def _in_module(path: str, dotted: str, level: int, name: str, source: Source
               ) -> Optional[Tuple[str, ast.Module, ast.FunctionDef]]:
    other = TreeIndex(path, lambda _: None).module_path(os.path.abspath(path), dotted, level)
    read = source(other) if other is not None else None
    if read is None:
        return None
    function = _function(read[1], name)
    return (other, read[1], function) if function is not None and bindings(read[1], name) == 1 else None


def _function(module: ast.Module, name: str) -> Optional[ast.FunctionDef]:
    found = [s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == name]
    return found[0] if len(found) == 1 and not found[0].decorator_list else None


def _imported(module: ast.Module, name: str) -> Optional[Tuple[str, Optional[str], int]]:
    """(module, member, level) of the one top-level import binding `name`."""
    found: List[Tuple[str, Optional[str], int]] = []
    for stmt in module.body:
        if isinstance(stmt, ast.Import):
            found += [(a.name, None, 0) for a in stmt.names if (a.asname or a.name) == name and
                      (a.asname or "." not in a.name)]
        elif isinstance(stmt, ast.ImportFrom):
            found += [(stmt.module or "", a.name, stmt.level) for a in stmt.names if (a.asname or a.name) == name]
    return found[0] if len(found) == 1 and bindings(module, name) == 1 else None


def check_in_scope_at(tree: ast.Module, line: int, loader: str, is_setter: Callable[[ast.stmt], bool], path: str,
                      source: Source, returned: Optional[Returned]) -> None:
    """`check` for the loader named `loader` in the innermost function of `tree` around `line` (the module
    when none), its setter statements (`is_setter`) aside; Misused as well where a nested definition reads it."""
    scope: ast.AST = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.body[0].lineno <= line <= (node.end_lineno or node.lineno) and node.lineno > getattr(scope, "lineno", 0):
            scope = node
    _checked(scope, loader, is_setter, path, tree, source, returned, rewritten=True)


def check_callers(tree: ast.Module, function: str, index: Optional[int],
                  is_setter: Callable[[str], Callable[[ast.stmt], bool]], path: str, source: Source,
                  returned: Optional[Returned]) -> None:
    """`check` for each loader bound to what the top-level `function` of `tree` returns (alone, or element
    `index` of its tuple) where the module calls it, in the caller's scope."""
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for node in own_nodes(scope):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) and
                    isinstance(node.value.func, ast.Name) and node.value.func.id == function):
                continue
            target = node.targets[0]
            if index is not None:
                target = target.elts[index] if isinstance(target, (ast.Tuple, ast.List)) and \
                    index < len(target.elts) else None
            if isinstance(target, ast.Name):
                _checked(scope, target.id, is_setter(target.id), path, tree, source, returned, rewritten=True)


def _checked(scope: ast.AST, loader: str, is_setter: Callable[[ast.stmt], bool], path: str, tree: ast.Module,
             source: Source, returned: Optional[Returned], depth: int = 0,
             seen: Optional[Set[Tuple[str, int, str]]] = None, rewritten: bool = False) -> None:
    """`check` of the scope (`rewritten`: the one the rewrite changes), and of the definitions in it that read
    the name from it (its reads are of this loader), the setter statements (`is_setter`) aside."""
    seen = set() if seen is None else seen
    skip = {id(n) for s in own_nodes(scope) if isinstance(s, ast.stmt) and is_setter(s) for n in ast.walk(s)}
    check(scope, loader, skip, path, tree, source, returned, depth, seen, rewritten)
    for nested in own_nodes(scope):
        if isinstance(nested, NESTED) and not _binds(nested, loader):
            _checked(nested, loader, is_setter, path, tree, source, returned, depth, seen)


def _binds(definition: ast.AST, name: str) -> bool:
    """Whether a nested definition has `name` of its own (a parameter or a local) rather than the loader."""
    arguments = getattr(definition, "args", None)
    params = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs] + \
        [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None] if arguments is not None else []
    return name in params or any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                                 for n in own_nodes(definition))
