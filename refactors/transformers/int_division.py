"""`/` of an integer index tensor keeps 1.8's integer division.

1.8 divided an integer tensor by `/` in its own dtype (math_op_patch.py:190, the "hot fix for release
1.6": `elementwise_div` of two int64 tensors, the divisor cast to the dividend's dtype, C++ division that
truncates); Paddle 3 promotes it to float32 and divides exactly (api_mapping/SEMANTICS.md 51).
PaddleDetection 0.4's TTFNet turns top-k indices into rows by `topk_inds / width`, and got fractional rows.

Only a tensor the file shows to be integer is followed: the indices `layers.topk` returns as the second
item of `values, indices = ...`, and the result of `argmax`/`argmin` bound to a name. Each `<name> / d`
after that statement in the same block, up to the statement that binds the name again (its own value
read first), becomes `<name> // d`. Indices are not negative, so flooring and 1.8's truncation agree
for a positive divisor: exact for a positive integer literal; for any other divisor (`width`, a
parameter) a warning says what the rewrite assumes. (3.x's `paddle.divide(..., rounding_mode="trunc")`
would be exact for every divisor, but 2.0 has no such argument.)
Checked on 1.8.5: fixtures/legacy/int_division_static.py.
"""
from __future__ import annotations

from typing import Iterator, List, Optional

import libcst as cst

from refactors.engine import Context, Site
from refactors.local_values import assigned_name, assigned_targets, block_holding, expressions
from refactors.scopes import bound_names
from refactors.transformers import SCOPE, emit, register

# the item of the call's result that is an integer tensor: None for the whole result
_INDICES = {"topk": 1, "argmax": None, "argmin": None}


@register("int_division", reads=(SCOPE,))
def int_division(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    result = emit.converted(site, emit.finish(ctx, site, node))
    stmt = ctx.statements[-1] if ctx.statements else None
    name = _bound_index(site, stmt)
    if name is None:
        return result
    owner = ctx.statements[-2] if len(ctx.statements) > 1 else site.scope.node
    block = block_holding(owner, stmt) if owner is not None else None
    if block is None:
        return result
    for division in _divisions(block, stmt, name):
        exact = _positive_integer(division.right)
        shown = ctx.code(division).strip()
        if exact is None:
            ctx.report(site, "int-division", "warning", f"`{shown}` divides integers in 1.8, truncating: now `//`, "
                       "which floors, the same for a positive divisor (api_mapping/SEMANTICS.md 51)", True)
        ctx.replace(division, lambda updated, exact=exact: _floor_division(updated, exact))
    return result


def _bound_index(site: Site, stmt: Optional[cst.CSTNode]) -> Optional[str]:
    """The name the statement binds to the call's integer tensor: `_, name = topk(...)`, `name = argmax(...)`."""
    if stmt is None or site.call is None or site.entry is None:
        return None
    short = site.entry.name.rsplit(".", 1)[-1]
    if short not in _INDICES:
        return None
    item = _INDICES[short]
    if item is None:
        whole = assigned_name(stmt)
        return whole[0] if whole is not None and whole[1] is site.call else None
    targets = assigned_targets(stmt)
    if targets is None or targets[1] is not site.call or len(targets[0]) != 2:
        return None
    return targets[0][item]  # type: ignore[index]


def _divisions(block: List[cst.BaseStatement], stmt: cst.CSTNode, name: str) -> Iterator[cst.BinaryOperation]:
    """The `name / d` that read the binding `stmt` makes: in the statements after it in its block, up
    to (and in the value of) the first statement that binds `name` again."""
    after = False
    for other in block:
        if other is stmt:
            after = True
            continue
        if not after:
            continue
        rebinds = name in bound_names(other)
        if rebinds and not isinstance(other, cst.SimpleStatementLine):
            return  # a loop or branch that binds it: which binding a read sees is not plain
        parts = [getattr(small, "value", None) for small in other.body] if rebinds else [other]  # type: ignore
        for part in parts:
            for node in expressions(part) if part is not None else ():
                if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide) \
                        and isinstance(node.left, cst.Name) and node.left.value == name:
                    yield node
        if rebinds:
            return


def _positive_integer(node: cst.BaseExpression) -> Optional[int]:
    """The value of a positive integer literal, or of a float literal that is one (`2.0`; 1.8 refused
    any other float divisor of an integer tensor)."""
    if isinstance(node, (cst.Integer, cst.Float)):
        value = node.evaluated_value
        if value > 0 and value == int(value):
            return int(value)
    return None


def _floor_division(updated: cst.BinaryOperation, exact: Optional[int]) -> cst.BinaryOperation:
    operator = cst.FloorDivide(whitespace_before=updated.operator.whitespace_before,
                               whitespace_after=updated.operator.whitespace_after)
    right = updated.right if exact is None else cst.Integer(str(exact))
    return updated.with_changes(operator=operator, right=right)
