"""The calls of a function of this module, and what each passes for a parameter.

Rewrites that follow a value into the function it is passed to, or out to the code that calls the
function it is made in (a learning-rate schedule whose optimizer is stepped elsewhere), need every call
of that function. They are known only for a plain function (no decorator, not a method) whose name is
bound once and is only ever called, directly, in this module; calls from other modules cannot be seen,
which is the one assumption beyond the file. A part of the file the fast way left unparsed that says
the function's name is parsed first (`Context.reads`).
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Tuple, Union

import libcst as cst

from refactors import loader_across
from refactors.engine import Context
from refactors.scopes import Scope, descendants

MISSING = object()  # the call does not pass the parameter: it has its default
Passed = Union[cst.BaseExpression, object]


def calls_of(ctx: Context, function: cst.FunctionDef) -> Optional[List[Tuple[cst.Call, Scope]]]:
    """Every call of `function` in the module, with the scope it is in; None when the function may be
    called in a way the file does not show."""
    name = function.name.value
    if function.decorators or function.asynchronous is not None:
        return None
    defined_in = _scope_of_definition(ctx, function)
    if defined_in is None or defined_in.is_class or len(defined_in.bindings.get(name, ())) != 1:
        return None
    ctx.reads(ctx.module, words=(name,))
    callees = _callees(ctx)
    found: List[Tuple[cst.Call, Scope]] = []
    for ref in ctx.resolver.chains.values():
        if ref.dotted.partition(".")[0] != name or ctx.resolver.binding_scope(name, ref.scope) is not defined_in:
            continue
        call = callees.get(id(ref.node))
        if call is None or ref.dotted != name:
            return None  # passed around, or an attribute read: cannot tell where it is called
        found.append((call, ref.scope))
    return found


def named_elsewhere(ctx: Context, name: str, own: Optional[Callable[[Optional[ast.Module], str], bool]] = None) -> bool:
    """Whether another module of the tree around the file says `name` (`loader_across.named_elsewhere`; `own`:
    what counts as its own use of the name)."""
    index = ctx.other_modules
    return index is not None and loader_across.named_elsewhere(index, name, own)  # no path: a text alone


def passed(function: cst.FunctionDef, call: cst.Call, param: str) -> Optional[Passed]:
    """The expression `call` passes for `param`, MISSING when it passes none, None when it cannot be
    told (`*args`, `**kwargs`)."""
    if any(arg.star for arg in call.args):
        return None
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    for i, arg in enumerate(call.args):
        if arg.keyword is None and i < len(positional) and positional[i] == param:
            return arg.value
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    return MISSING


def default(function: cst.FunctionDef, param: str) -> Optional[cst.BaseExpression]:
    for p in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params):
        if p.name.value == param:
            return p.default
    return None


def definition(ctx: Context, scope: Scope, name: str) -> Optional[cst.FunctionDef]:
    """The function `name` denotes in `scope`, when it is a `def` bound once, in the module or a function."""
    found = ctx.resolver.binding_scope(name, scope)
    if found is None or len(found.bindings[name]) != 1:
        return None
    for node in descendants(found.node):
        if isinstance(node, cst.FunctionDef) and node.name.value == name and node is not found.node \
                and ctx.resolver.scopes.get(id(node)) is not None \
                and ctx.resolver.scopes[id(node)].parent is found:
            return node
    return None


def _scope_of_definition(ctx: Context, function: cst.FunctionDef) -> Optional[Scope]:
    scope = ctx.resolver.scopes.get(id(function))
    return scope.parent if scope is not None else None


def _callees(ctx: Context) -> Dict[int, cst.Call]:
    known = ctx.memo.get("callers: callees")
    if known is None:
        known = ctx.memo["callers: callees"] = {id(n.func): n for n in descendants(ctx.module) if isinstance(n, cst.Call)}
    return known  # type: ignore[return-value]
