"""`layers.relu6(x, threshold=6.0)` (`layers/nn.py:10393`) is `min(max(0, x), threshold)`; 2.x relu6 clips at 6
only. A threshold other than a literal 6 (PaddleRec's `threshold=10000000.0`, or a name) becomes
`paddle.clip(x, 0.0, threshold)`, which computes the same values and the same gradient (1 strictly between
the bounds, 0 elsewhere, in 1.8.5's relu6_grad and 3.3.1's clip_grad). Checked on 1.8.5 and 3.3.1:
fixtures/legacy/relu6_threshold_static.py.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site, same_literal
from refactors.transformers import emit, register


@register("relu6_threshold")
def relu6_threshold(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    threshold = call_args.get(node, "threshold")
    if threshold is None or same_literal(threshold.value, "6.0", ctx):
        return emit.converted(site, emit.finish(ctx, site, call_args.remove(node, "threshold")))
    args = []
    for arg in node.args:
        args.append(call_args.as_keyword(arg, "max") if arg is threshold else arg)
        if arg.keyword is not None and arg.keyword.value == "x":
            args.append(call_args.keyword_arg("min", cst.Float("0.0")))
    return emit.converted(site, emit.finish(ctx, site, call_args.with_args(node, args), "paddle.clip"))
