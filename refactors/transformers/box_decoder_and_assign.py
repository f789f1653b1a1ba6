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

from api_mapping.kernels import BOX_DECODER_AND_ASSIGN
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register


@register("box_decoder_and_assign_rule")
def box_decoder_and_assign_rule(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("prior_box", "prior_box_var", "target_box", "box_score", "box_clip"):
        emit.required(node, arg)
    return module_definitions.call_definition_without_name(ctx, site, node, "box_decoder_and_assign",
                                                           BOX_DECODER_AND_ASSIGN)
