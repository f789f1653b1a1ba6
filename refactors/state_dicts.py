"""Values the file shows to be state dicts: what 1.8's `load_dygraph` (either element of its pair) or
2.x's `paddle.load` returned, followed through the names they are assigned to.

Such a value, or a dict display of a layer's parameters by name, is evidence of the method it is
passed to: `x.set_dict(params)` with `params, _ = fluid.load_dygraph(path)`, or `x.set_dict({"weight":
w})`, is the `set_dict` of a Layer or an optimizer (`refactors.methods`), whatever `x` is.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from refactors.engine import Context
from refactors.local_values import binding_statements
from refactors.scopes import Scope, dotted, normal

_PAIR_LOADERS = ("paddle.fluid.dygraph.load_dygraph",)  # table names: (params, optimizer state or None)
_LOADERS = ("paddle.load", "paddle.framework.load")  # 2.x: the object saved, a state dict here
_DEPTH = 4  # how many assignments a value is followed through
# The structured names of the parameters of 1.8's dygraph layers (`dygraph/nn.py`: Linear, Conv2D,
# Embedding, LayerNorm, BatchNorm, ... name theirs `weight` and `bias`).
_PARAMETER_NAMES = ("'weight'", '"weight"', "'bias'", '"bias"')


def loaded(ctx: Context, expr: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
    """Whether `expr`, read in `scope`, is a state dict a loader returned."""
    if scope is None or depth > _DEPTH:
        return False
    if isinstance(expr, cst.Call):
        return _loader(ctx, expr, scope) == "state"
    if isinstance(expr, cst.Subscript):
        return _pair_element(expr) and _loader(ctx, expr.value, scope) == "pair"
    if not isinstance(expr, cst.Name):
        return False
    name = normal(expr.value)
    owner = ctx.resolver.binding_scope(name, scope)
    found = binding_statements(owner, name) if owner is not None else None
    if not found:
        return False
    for stmt, index in found:
        if not isinstance(stmt, cst.Assign):
            return False
        if index is None and not loaded(ctx, stmt.value, owner, depth + 1):
            return False
        if index is not None and (index > 1 or _loader(ctx, stmt.value, owner) != "pair"):
            return False
    return True


def parameters_by_name(expr: cst.BaseExpression) -> bool:
    """`expr` is a dict display of a Layer's own parameters by their structured names (`{"weight": w,
    "bias": b}`), the state dict 1.8 code writes out to load one layer's weights."""
    return isinstance(expr, cst.Dict) and bool(expr.elements) and all(
        isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) and e.key.value in _PARAMETER_NAMES
        for e in expr.elements)


def _pair_element(node: cst.Subscript) -> bool:
    """`[0]` or `[1]`."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return False
    index = node.slice[0].slice.value
    return isinstance(index, cst.Integer) and index.value in ("0", "1")


def _loader(ctx: Context, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
    """"pair" for a call of 1.8's load_dygraph, "state" for one of 2.x's paddle.load, else None."""
    if not isinstance(node, cst.Call):
        return None
    chain = dotted(node.func)
    qualname = ctx.resolver.qualname(chain, scope) if chain is not None else None
    if qualname is None:
        return None
    if qualname in _LOADERS:
        return "state"
    matched = ctx.entry_of_chain(qualname)
    return "pair" if matched is not None and not matched[1] and matched[0].name in _PAIR_LOADERS else None
