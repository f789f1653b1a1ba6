"""`fluid.layers.box_decoder_and_assign(prior_box, prior_box_var, target_box, box_score, box_clip)`: no 2.x
function computes it (Paddle 3.3.1 has no `box_decoder_and_assign` operator).

1.8.5 (`layers/detection.py`, op `box_decoder_and_assign`): each prior [x1, y1, x2, y2] has pixel size
w = x2 - x1 + 1 and centre x1 + w / 2; each class's deltas are scaled by the four variances of the tensor
`prior_box_var`, the size deltas cut at `box_clip` before exp, the box being [cx - w / 2, cy - h / 2,
cx + w / 2 - 1, cy + h / 2 - 1] ([N, classes * 4]); the assigned box [N, 4] is the decoded box of the
best-scoring class other than 0 (the first on ties), or the prior where none scores above -1 (one
class). The decoded boxes have the deltas' LoD, the assigned ones the priors' (1.8's shape inference
shared them: the class-aware Cascade R-CNN expands im_info by the decoded boxes' LoD); the op has no
gradient. The call goes to a function written once in the module with the kernel's operations in its
order (the same float32 values); in a legacy-IR program the element-wise operators pass those LoDs on
(the deltas and the priors are the first operands of the last ones), and the inputs are read through
copies that stop the gradient. `name` only named the outputs, and is dropped. Checked on 1.8.5 and 3.3.1
with LoD priors and deltas, a background-best row, tied scores, deltas past the clip and one class:
fixtures/legacy/box_decoder_and_assign_static.py.
The shim serves the call with the same rule.
"""
from __future__ import annotations

import libcst as cst

from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register

BOX_DECODER_AND_ASSIGN = '''\
def {name}(prior_box, prior_box_var, target_box, box_score, box_clip):
    """fluid.layers.box_decoder_and_assign of Paddle 1.8 (paddle-upgrade): the boxes decoded per class from
    the priors [N, 4] (pixel sizes, +1), the variance tensor and the deltas [N, classes * 4], the size
    deltas cut at box_clip; and the box of the best class other than 0 (the prior where none scores
    above -1). The decoded boxes have the deltas' LoD, the assigned ones the priors'; no gradient, as 1.8's
    operator."""
    copies = []
    for value in (prior_box, prior_box_var, target_box, box_score):
        copies.append({paddle}.assign(value))
        copies[-1].stop_gradient = True
    prior, variances, deltas, scores = copies
    x1, y1, x2, y2 = {paddle}.split({paddle}.reshape(prior, [-1, 1, 4]), 4, axis=2)
    v0, v1, v2, v3 = {paddle}.split({paddle}.reshape(variances, [4]), 4)
    t0, t1, t2, t3 = {paddle}.split({paddle}.reshape(deltas, [0, -1, 4]), 4, axis=2)
    width, height = x2 - x1 + 1, y2 - y1 + 1
    centre_x, centre_y = x1 + width / 2, y1 + height / 2
    box_w = {paddle}.exp({paddle}.clip(v2 * t2, max=float(box_clip))) * width
    box_h = {paddle}.exp({paddle}.clip(v3 * t3, max=float(box_clip))) * height
    box_x = v0 * t0 * width + centre_x
    box_y = v1 * t1 * height + centre_y
    corners = [box_x - box_w / 2, box_y - box_h / 2, box_x + box_w / 2 - 1, box_y + box_h / 2 - 1]
    per_class = {paddle}.concat(corners, axis=2)
    decoded = deltas * 0 + {paddle}.reshape(per_class, [-1, target_box.shape[1]])  # the deltas' LoD
    chosen = prior
    if box_score.shape[1] != 1:
        foreground = scores[:, 1:]
        rows = {paddle}.arange(0, {paddle}.shape(scores)[0], dtype="int64")
        best = {paddle}.argmax(foreground, axis=1) + 1
        chosen = {paddle}.gather_nd(per_class, {paddle}.stack([rows, best], axis=1))  # [N, 4]
        scored = {paddle}.max(foreground, axis=1, keepdim=True) > -1.0
        chosen = {paddle}.where({paddle}.expand_as(scored, chosen), chosen, prior)
    assigned = prior * 0 + chosen  # the priors' LoD
    decoded.stop_gradient = False  # as 1.8's outputs: stopped inputs do not stop them
    assigned.stop_gradient = False
    return decoded, assigned
'''


@register("box_decoder_and_assign_rule")
def box_decoder_and_assign_rule(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("prior_box", "prior_box_var", "target_box", "box_score", "box_clip"):
        emit.required(node, arg)
    return module_definitions.call_definition_without_name(ctx, site, node, "box_decoder_and_assign",
                                                           BOX_DECODER_AND_ASSIGN)
