"""`layers.increment(x, value, in_place)` (`layers/control_flow.py:1251`): in place by default, as 2.x's
`paddle.increment` is in a static graph; with `in_place=False` 1.8 wrote `x + value` into a new variable
of x's dtype and left x alone. 2.x: increment a copy, `paddle.increment(paddle.assign(x), value)`.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register


@register("increment_copy")
def increment_copy(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    in_place = emit.value_of(ctx, node, "in_place", True)
    if not isinstance(in_place, bool):
        raise NeedsReview("in_place is not a bool: 1.8 wrote into x only when it was True")
    node = call_args.remove(node, "in_place")
    if not in_place:
        copy = emit.call(ctx, site, "paddle.assign", emit.required(node, "x"))
        node = call_args.set_value(node, "x", copy)
    return emit.converted(site, emit.finish(ctx, site, node))
