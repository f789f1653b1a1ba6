"""`nets.sequence_conv_pool` (`nets.py:252`): 1.8's `layers.sequence_conv` then `layers.sequence_pool`.

Written as the two `paddle.static.nn` calls it made, nested, so no statement is added:
`sequence_pool(sequence_conv(input, num_filters, filter_size, param_attr=..., bias_attr=..., act=...),
pool_type=...)`. The composite's own defaults are written out where the 2.x functions differ
(`act='sigmoid'`, where `sequence_conv` has None; `pool_type='max'`, which `sequence_pool` requires).
The same operators and the same parameter names (`sequence_conv_N.w_0`) give the same numbers; both
targets came in Paddle 2.2 and build only in legacy-IR programs, which the upgraded static file selects.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site
from refactors.transformers import emit, register

CONV, POOL = "paddle.static.nn.sequence_conv", "paddle.static.nn.sequence_pool"


def _given_or(node: cst.Call, arg: str, default: str) -> cst.BaseExpression:
    found = call_args.get(node, arg)
    return found.value if found is not None else cst.SimpleString(default)


@register("sequence_conv_pool")
def sequence_conv_pool(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    attrs = {}
    for arg in ("param_attr", "bias_attr"):
        found = call_args.get(node, arg)
        if found is not None:
            attrs[arg] = found.value
    conv = emit.call(ctx, site, CONV, emit.required(node, "input"), num_filters=emit.required(node, "num_filters"),
                     filter_size=emit.required(node, "filter_size"), **attrs,
                     act=_given_or(node, "act", "'sigmoid'"))
    pool = emit.call(ctx, site, POOL, conv, pool_type=_given_or(node, "pool_type", "'max'"))
    emit.report_warning(ctx, site)
    for target in (CONV, POOL):
        ctx.report_newer(site, target)
    return emit.converted(site, pool)
