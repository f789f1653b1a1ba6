"""`fluid.layers.iou_similarity(x, y, box_normalized=True)`: no 2.x function computes it (Paddle 3.3.1 has
no `iou_similarity` operator).

1.8.5 (`layers/detection.py`, op `iou_similarity`): x [N, 4] and y [M, 4] boxes (xmin, ymin, xmax, ymax)
give the [N, M] intersection over union of each pair, sizes counted with one pixel more when
`box_normalized` is False; the result has x's LoD, and no gradient (the op has none). The call goes to a
function written once in the module that computes each pair by broadcasting x's columns against y's
rows, in the kernel's order of operations (`name` only named the output, and is dropped) (so the same float32 values). In a legacy-IR program x's LoD
reaches the result as in 1.8: split and the element-wise operators pass their first operand's LoD on, and
x is that operand down to the division. Checked on 1.8.5 and 3.3.1 with a LoD x (its LoD and values),
normalized and pixel boxes, disjoint and nested pairs: fixtures/legacy/iou_similarity_static.py.
"""
from __future__ import annotations

import libcst as cst

from api_mapping.kernels import IOU_SIMILARITY
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register


@register("iou_similarity_pairs")
def iou_similarity_pairs(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("x", "y"):
        emit.required(node, arg)
    return module_definitions.call_definition_without_name(ctx, site, node, "iou_similarity", IOU_SIMILARITY)
