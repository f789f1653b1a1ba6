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

from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register

SIGMOID_FOCAL_LOSS = '''\
def {name}(x, label, fg_num, gamma=2.0, alpha=0.25):
    """fluid.layers.sigmoid_focal_loss of Paddle 1.8 (paddle-upgrade): with p = sigmoid(x) and
    fg = max(fg_num, 1), -alpha / fg * (1 - p)**gamma * log(p) in the column of the row's label (class c
    in column c - 1), -(1 - alpha) / fg * p**gamma * log(1 - p) in the others, 0 where the label is -1;
    log(p) floored at log(FLT_MIN) with the gradient 1 - p, as 1.8's kernels computed them."""
    tiny = 1.1754943508222875e-38  # FLT_MIN
    columns = x.shape[-1] if x.shape[-1] >= 0 else {paddle}.shape(x)[-1]
    classes = {paddle}.arange(1, columns + 1, dtype=label.dtype)
    positive = {paddle}.cast(label == classes, x.dtype)
    negative = {paddle}.cast({paddle}.logical_and(label != -1, label != classes), x.dtype)
    fg = {paddle}.cast({paddle}.maximum(fg_num, {paddle}.ones_like(fg_num)), x.dtype)
    p = {paddle}.nn.functional.sigmoid(x)
    nonnegative = {paddle}.cast(x >= 0, x.dtype)
    log_1mp = -x * nonnegative - {paddle}.log1p({paddle}.exp(x - 2 * x * nonnegative))
    log_p = log_1mp + x
    floored = {paddle}.log({paddle}.clip(p, min=tiny))
    floor = floored - log_p  # the floor's value, without a gradient (Tensor.detach fails in static programs)
    floor.stop_gradient = True
    log_p = log_p + floor
    term_pos = {paddle}.pow({paddle}.clip(1 - p, min=tiny), gamma) * log_p
    term_neg = {paddle}.pow({paddle}.clip(p, min=tiny), gamma) * log_1mp
    return -positive * term_pos * (alpha / fg) - negative * term_neg * ((1 - alpha) / fg)
'''


@register("sigmoid_focal_loss_rule")
def sigmoid_focal_loss_rule(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("x", "label", "fg_num"):
        emit.required(node, arg)
    return module_definitions.call_definition(ctx, site, node, "sigmoid_focal_loss", SIGMOID_FOCAL_LOSS)
