"""`fluid.layers.box_clip(input, im_info)`: no 2.x function clips boxes per image.

1.8.5 (`layers/detection.py`, op `box_clip`) takes boxes with a LoD by image (the last axis xmin, ymin,
xmax, ymax; it fails without a LoD) and im_info rows (height, width, scale); each image's boxes are
clipped to x in [0, round(width / scale) - 1] and y in [0, round(height / scale) - 1] (C's round, which
rounds halves away from zero where `paddle.round` rounds them to even); the result has
the input's LoD and no gradient (the op has none). The call goes to a function written once in the module
that gives each box its image's row with `paddle.static.nn.sequence_expand` (by the input's LoD, the
level the op read) and clips by broadcasting, min then max as the kernel did; the element-wise operators
pass the input's LoD on. `sequence_expand` needs the legacy IR, which the upgrade selects in a file that
builds static graphs (the table's warning says so where it does not). `name` only named the output, and
is dropped. Checked on 1.8.5 and 3.3.1, [R, 4] and [R, C, 4] boxes, a half-way width / scale:
fixtures/legacy/box_clip_static.py.
"""
from __future__ import annotations

import libcst as cst

from refactors import findings as F
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register

SEQUENCE_EXPAND, SINCE = "paddle.static.nn.sequence_expand", "2.2"  # what the function calls, and since when

BOX_CLIP = '''\
def {name}(input, im_info):
    """fluid.layers.box_clip of Paddle 1.8 (paddle-upgrade): the boxes of each image of input's LoD
    (xmin, ymin, xmax, ymax in the last axis) clipped to [0, round(width / scale) - 1] and
    [0, round(height / scale) - 1] of the image's im_info row (height, width, scale); input's LoD, and no
    gradient, as 1.8's operator."""
    rows = {paddle}.static.nn.sequence_expand(im_info, input)  # each box's image, by input's LoD
    height, width, scale = {paddle}.split(rows, 3, axis=1)
    bounds = []
    for ratio in (width / scale, height / scale):  # C's round(), halves away from 0 (paddle.round: to even)
        size = {paddle}.abs(ratio)
        whole = {paddle}.floor(size)
        bounds.append({paddle}.sign(ratio) * (whole + {paddle}.cast(size - whole >= 0.5, ratio.dtype)) - 1)
    width, height = bounds
    bounds = {paddle}.reshape({paddle}.concat([width, height, width, height], axis=1),
                              [-1] + [1] * (len(input.shape) - 2) + [4])
    out = {paddle}.clip({paddle}.minimum(input, bounds), min=0.0)
    out.stop_gradient = True
    return out
'''


@register("box_clip_per_image")
def box_clip_per_image(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("input", "im_info"):
        emit.required(node, arg)
    converted = module_definitions.call_definition_without_name(ctx, site, node, "box_clip", BOX_CLIP)
    ctx.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(site.name, SEQUENCE_EXPAND, SINCE), True)
    return converted
