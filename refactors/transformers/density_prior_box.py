"""`fluid.layers.density_prior_box(input, image, densities, fixed_sizes, fixed_ratios, ...)`: no 2.x function
computes it (Paddle 3.3.1 has no `density_prior_box` operator).

1.8.5 (`layers/detection.py`, op `density_prior_box`): per cell of the feature map, for each fixed size s
with density d and each ratio r, d x d boxes of width s * sqrt(r) and height s / sqrt(r) (in float)
around the cell centre (w + offset) * step, spaced shift = int(mean step) // d apart; the step is the
image size over the feature size unless both `steps` are nonzero; corners divided by the image size and
cut at 0 (x1, y1) and 1 (x2, y2), all cut to [0, 1] with `clip`; variances repeated per box; [H, W,
priors, 4] each, no gradient. The call goes to a function written once in the module that computes the
same grid by broadcasting, rounding where the kernel stored values (cell centres in the input's type,
box centres and sizes in float, corners in double, stored back in the input's type), sizes read at run
time where the program leaves them open. With `flatten_to_2d` the boxes are the same, but 1.8 left the
flattened row count open (-1) where the 2.x reshape fixes it, so such calls are left for the shim, which
keeps 1.8's shape. The ratios are taken in the order given, which 1.8.5's kernel did not always keep
with several ratios (it collected their square roots from OpenMP threads without a lock: an occasional
run ordered them otherwise). `name` only named the outputs, and is dropped. Checked on 1.8.5 and 3.3.1 (FaceBoxes'
densities, steps from the sizes, several ratios, clip, offsets, run-time sizes):
fixtures/legacy/density_prior_box_static.py.
"""
from __future__ import annotations

import libcst as cst

from api_mapping.kernels import DENSITY_PRIOR_BOX
from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.transformers import emit, module_definitions, register


@register("density_prior_box_grid")
def density_prior_box_grid(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("input", "image", "densities", "fixed_sizes", "fixed_ratios"):
        emit.required(node, arg)
    flatten = call_args.get(node, "flatten_to_2d")
    if flatten is not None:
        try:
            flat = literal(flatten.value, ctx)
        except ValueError:
            flat = True
        if flat is not False:
            raise NeedsReview("flatten_to_2d: 1.8 left the flattened boxes' row count open (-1) where the 2.x "
                              "reshape fixes it; left for the shim, which keeps 1.8's shape")
    return module_definitions.call_definition_without_name(ctx, site, node, "density_prior_box", DENSITY_PRIOR_BOX)
