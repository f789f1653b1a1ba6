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

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.transformers import emit, module_definitions, register

DENSITY_PRIOR_BOX = '''\
def {name}(input, image, densities=None, fixed_sizes=None, fixed_ratios=None,
        variance=[0.1, 0.1, 0.2, 0.2], clip=False, steps=[0.0, 0.0], offset=0.5, flatten_to_2d=False):
    """fluid.layers.density_prior_box of Paddle 1.8 (paddle-upgrade): (boxes, variances), [H, W, priors, 4]
    each: per feature cell, d x d boxes per fixed size (density d) and ratio, spaced int(mean step) // d
    apart around the cell centre, normalized by the image size, rounded as 1.8's kernel; no gradient."""
    if len(densities) != len(fixed_sizes):
        raise ValueError("densities and fixed_sizes length should be equal.")
    dtype = input.dtype

    def dim(value, axis, kind):  # one size, fixed by the program or read at run time
        if value.shape[axis] >= 0:
            return {paddle}.full([1], float(value.shape[axis]), kind)
        return {paddle}.cast({paddle}.shape(value)[axis], kind)

    def constant(values, kind):
        return {paddle}.cast({paddle}.assign({numpy}.asarray(values, "float64")), kind)

    image_h, image_w = dim(image, 2, "float64"), dim(image, 3, "float64")
    step_w, step_h = (float({numpy}.float32(step)) for step in steps)
    if step_w == 0 or step_h == 0:
        step_x, step_y = dim(image, 3, dtype) / dim(input, 3, dtype), dim(image, 2, dtype) / dim(input, 2, dtype)
    else:
        step_x, step_y = {paddle}.full([1], step_w, dtype), {paddle}.full([1], step_h, dtype)
    step_average = {paddle}.floor((step_x + step_y) * 0.5)
    density, column, row, half_w, half_h = [], [], [], [], []  # per prior: size, ratio, row, column
    roots = [{numpy}.float32({numpy}.sqrt(float(ratio))) for ratio in fixed_ratios]
    for size, count in zip(fixed_sizes, densities):
        size, count = {numpy}.float32(size), int(count)
        for root in roots:
            for i in range(count):
                for j in range(count):
                    density.append(count)
                    row.append(i)
                    column.append(j)
                    half_w.append(float({numpy}.float32(size * root)) / 2)
                    half_h.append(float({numpy}.float32(size / root)) / 2)
    shift = {paddle}.cast({paddle}.floor(step_average / constant(density, dtype)), "float64")
    spread = -{paddle}.cast(step_average, "float64") / 2 + shift / 2

    def corners(axis, step, index, half, extent):
        cells = input.shape[axis] if input.shape[axis] >= 0 else {paddle}.shape(input)[axis]
        centre = ({paddle}.cast({paddle}.arange(0, cells, dtype="int64"), dtype) + float(offset)) * step
        centre = {paddle}.reshape({paddle}.cast(centre, "float64"), [-1, 1])
        # the kernel's box centres are floats whatever the input's type
        offsets = {paddle}.cast(constant(index, "float64") * shift, "float32")
        grid = {paddle}.cast({paddle}.cast(centre + spread, "float32") + offsets, "float64")
        low = {paddle}.clip((grid - constant(half, "float64")) / extent, min=0.0)
        high = {paddle}.clip((grid + constant(half, "float64")) / extent, max=1.0)
        return {paddle}.cast(low, dtype), {paddle}.cast(high, dtype)

    x1, x2 = ({paddle}.unsqueeze(v, [0]) for v in corners(3, step_x, column, half_w, image_w))
    y1, y2 = ({paddle}.unsqueeze(v, [1]) for v in corners(2, step_y, row, half_h, image_h))
    zero_x, zero_y = x1 * 0, y1 * 0
    boxes = {paddle}.stack([x1 + zero_y, y1 + zero_x, x2 + zero_y, y2 + zero_x], axis=-1)
    if clip:
        boxes = {paddle}.clip(boxes, min=0.0, max=1.0)
    variances = boxes * 0 + constant([float(v) for v in variance], dtype)
    if flatten_to_2d:
        boxes, variances = {paddle}.reshape(boxes, [-1, 4]), {paddle}.reshape(variances, [-1, 4])
    boxes.stop_gradient = True
    variances.stop_gradient = True
    return boxes, variances
'''


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
