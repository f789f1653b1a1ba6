"""What a function of the module returns, for analyses that follow a value into the call that made it
(`opt = make_optimizer()`, `net, opt = build()`)."""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from refactors.engine import Context
from refactors.local_values import bound_once, statements
from refactors.scopes import Scope


def returned(ctx: Context, scope: Scope, name: str, index: Optional[int]) -> Optional[Tuple[Scope, List[Optional[cst.BaseExpression]]]]:
    """The scope of the module's function `name`, called in `scope`, and what each of its `return`
    statements gives (element `index` of the tuple returned, None where it is not one); None when
    `name` there is not a function of the module bound once."""
    module = ctx.resolver.module_scope
    if ctx.resolver.binding_scope(name, scope) is not module or not bound_once(module, name):
        return None  # (a part left unparsed that binds the name is parsed by then)
    function = next((stmt for stmt in ctx.module.body if isinstance(stmt, cst.FunctionDef)
                     and stmt.name.value == name), None)
    inner = ctx.resolver.scopes.get(id(function)) if function is not None else None
    if inner is None:
        return None
    ctx.reads(function, into_definitions=False)  # type: ignore[arg-type]
    values: List[Optional[cst.BaseExpression]] = []
    for stmt in statements(function):  # type: ignore[arg-type]
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Return):
                values.append(small.value if index is None else _element(small.value, index))
    return inner, values


def _element(value: Optional[cst.BaseExpression], index: int) -> Optional[cst.BaseExpression]:
    elements = value.elements if isinstance(value, cst.Tuple) else ()
    if index >= len(elements) or any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    return elements[index].value
