"""`fluid.layers.sigmoid_focal_loss(x, label, fg_num, gamma, alpha)`: 2.x's function of that name takes
one-hot float labels, has no ignored label, and computes log(p) from the logits where 1.8 floored p.

1.8.5 (`layers/detection.py`, op `sigmoid_focal_loss`): x [N, C] logits, label [N, 1] int32 (class c is
column c - 1, 0 the background, -1 ignored), fg_num int32 read as max(fg_num, 1). With p = sigmoid(x),
each element is -alpha / fg * (1 - p)**gamma * log(max(p, FLT_MIN)) in the label's column and
-(1 - alpha) / fg * p**gamma * log(1 - p) in the others, 0 in an ignored row. Its gradient kernel is
written by hand: it takes log(p)'s derivative as 1 - p also where the value is floored. The call goes to
a function written once in the module that computes these terms from 2.x operators, log(1 - p) as the
kernel wrote it (stable for any x), log(p) with the floored value and the kernel's gradient; the bases of
the powers are floored at FLT_MIN, which changes no value (the power of a base below it underflows or is
multiplied by a zero log) but keeps a gamma below 1 from an infinite gradient at p = 0 or 1, where 1.8's
kernel gave a finite one. Checked on 1.8.5 and 3.3.1, values and gradients, logits saturating both ways:
fixtures/legacy/sigmoid_focal_loss_static.py.
"""
from __future__ import annotations

import libcst as cst

from api_mapping.kernels import SIGMOID_FOCAL_LOSS
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register


@register("sigmoid_focal_loss_rule")
def sigmoid_focal_loss_rule(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("x", "label", "fg_num"):
        emit.required(node, arg)
    return module_definitions.call_definition(ctx, site, node, "sigmoid_focal_loss", SIGMOID_FOCAL_LOSS)
