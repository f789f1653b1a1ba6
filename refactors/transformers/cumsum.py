"""`fluid.layers.cumsum(x, axis, exclusive, reverse)`: 2.x `paddle.cumsum` has neither mode.

1.8.5 (`layers/ops.py:138`, op `cumsum`): `exclusive` leaves each element out of its own sum (the first
is 0), `reverse` sums from the end. Where the call sets either (to anything but a literal False/None),
it calls a function written once in the module that computes both modes from 2.x operators: the flip
and the shift by one are exact, so the sums are those 1.8 added up, in its order (checked on 1.8.5,
fixtures/legacy/cumsum_modes_dygraph.py). Otherwise the call is plain `paddle.cumsum` with 1.8's
default axis, the last, written out.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register

CUMSUM = '''\
def {name}(x, axis=None, exclusive=None, reverse=None):
    """fluid.layers.cumsum of Paddle 1.8 (paddle-upgrade): `exclusive` leaves each element out of its own
    sum, `reverse` sums from the end; the axis defaults to the last."""
    axis = -1 if axis is None else axis
    if reverse:
        x = {paddle}.flip(x, [axis])
    out = {paddle}.cumsum(x, axis)
    if exclusive:
        out = {paddle}.concat([{paddle}.zeros_like({paddle}.slice(x, [axis], [0], [1])),
                             {paddle}.slice(out, [axis], [0], [-1])], axis)
    return {paddle}.flip(out, [axis]) if reverse else out
'''


@register("cumsum_modes")
def cumsum_modes(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    modes = [call_args.get(node, mode) for mode in ("exclusive", "reverse")]
    if all(arg is None or emit.is_literal(ctx, arg.value) and not emit.value_of(ctx, node, name)
           for arg, name in zip(modes, ("exclusive", "reverse"))):
        for name in ("exclusive", "reverse"):
            node = call_args.remove(node, name)
        return emit.converted(site, emit.finish(ctx, site, node))  # with 1.8's default axis
    return module_definitions.call_definition(ctx, site, node, "cumsum", CUMSUM)
