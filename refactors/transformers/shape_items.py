"""An item of `layers.shape(x)` read by an integer index keeps 1.8's shape [1]: `s[i]` becomes `s[i:i + 1]`.

1.8 had no 0-D tensors: indexing the 1-D result of `shape` by an integer gave a tensor of shape [1]; Paddle
>= 2.5 gives a 0-D one (api_mapping/SEMANTICS.md 50; 8 is the same change for reductions). Code that puts such
items together, `layers.concat([shape_[0], shape_[1], h * w])` as PaddleDetection 0.4's FCOS head builds
a new shape, then fails on Paddle 3 (concat takes no 0-D input), and `stack` gives another shape. A
one-item slice has shape [1] in both, so every later use sees what 1.8 gave it.

Rewritten: the index applied to the call itself, and, when the call's statement is `name = layers.shape(x)`
and the scope binds `name` only there, every `name[<integer>]` read in that scope's own code (not in
nested functions, which may bind it again). Checked on 1.8.5: fixtures/legacy/shape_items_static.py.
"""
from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from refactors.engine import Context, Site
from refactors.local_values import assigned_name, bound_once, expressions, statements
from refactors.scopes import descendants
from refactors.transformers import SCOPE, emit, register


@register("shape_items", reads=(SCOPE,))
def shape_items(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    result = emit.converted(site, emit.finish(ctx, site, node))
    stmt = ctx.statements[-1] if ctx.statements else None
    if stmt is None or site.call is None:
        return result
    for item in _items(stmt, lambda value: value is site.call):
        ctx.replace(item, _one_item_slice)
    assigned = assigned_name(stmt)
    if assigned is not None and assigned[1] is site.call and bound_once(site.scope, assigned[0]) \
            and site.scope.node is not None:
        name = assigned[0]
        for other in statements(site.scope.node):
            for item in _items(other, lambda value: isinstance(value, cst.Name) and value.value == name):
                ctx.replace(item, _one_item_slice)
    return result


def _items(stmt: cst.CSTNode, indexed) -> Iterator[cst.Subscript]:
    """The reads `<value>[<integer>]` in `stmt`'s own expressions whose value `indexed` accepts."""
    stored = set()
    for node in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()):
        for target in [t.target for t in getattr(node, "targets", ())] + [getattr(node, "target", None)]:
            if target is not None:
                stored.update(id(n) for n in descendants(target) if isinstance(n, cst.Subscript))
    heads = [stmt] if isinstance(stmt, cst.SimpleStatementLine) else _heads(stmt)
    for head in heads:
        for node in expressions(head):
            if isinstance(node, cst.Subscript) and id(node) not in stored and indexed(node.value) \
                    and _integer(node) is not None:
                yield node


def _heads(stmt: cst.CSTNode) -> list:
    """The expressions a compound statement evaluates itself (its test, iterable, items), not its blocks."""
    return [part for part in (getattr(stmt, "test", None), getattr(stmt, "iter", None)) if part is not None] \
        + [item.item for item in getattr(stmt, "items", ())]


def _integer(node: cst.Subscript) -> Optional[int]:
    """The index of `x[<integer literal>]` (a negative one too), else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    index = node.slice[0].slice.value
    negative = isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus)
    number = index.expression if negative else index
    if not isinstance(number, cst.Integer):
        return None
    value = int(number.evaluated_value)
    return -value if negative else value


def _one_item_slice(updated: cst.Subscript) -> cst.Subscript:
    index = _integer(updated)
    assert index is not None
    upper = None if index == -1 else cst.Integer(str(index + 1)) if index >= 0 else \
        cst.UnaryOperation(cst.Minus(), cst.Integer(str(-index - 1)))
    lower = updated.slice[0].slice.value
    return updated.with_changes(slice=[cst.SubscriptElement(cst.Slice(lower=lower, upper=upper))])
