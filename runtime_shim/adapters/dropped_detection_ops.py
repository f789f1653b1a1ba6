"""1.8 detection operators Paddle 3.3.1 dropped, composed from 2.x operations as 1.8.5's kernels computed them.

Each runs in a legacy-IR program and in dygraph alike (`op`), and was checked against 1.8.5 by a
fixtures/legacy program.
"""
from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from runtime_shim.adapters import adapter
from runtime_shim.static_ops import op


def _size(value: Any, axis: int) -> Any:
    """One dimension of `value`: an int where the program fixes it, else read at run time."""
    known = value.shape[axis]
    return known if known >= 0 else op("paddle.shape")(value)[axis]


def _dim(value: Any, axis: int, dtype: Any) -> Any:
    """One dimension of `value` as a one-item tensor of `dtype`."""
    size = _size(value, axis)
    return op("paddle.full")([1], float(size), dtype) if isinstance(size, int) else op("paddle.cast")(size, dtype)


def _constant(values: Sequence[float], dtype: str) -> Any:
    return op("paddle.assign")(np.asarray(values, dtype=dtype))


@adapter("paddle.fluid.layers.density_prior_box", "prior boxes composed from 2.x operations as 1.8's kernel "
         "computed them (no 2.x API)")
def density_prior_box(input: Any, image: Any, densities: Any = None, fixed_sizes: Any = None,
                      fixed_ratios: Any = None, variance: Sequence[float] = (0.1, 0.1, 0.2, 0.2), clip: bool = False,
                      steps: Sequence[float] = (0.0, 0.0), offset: float = 0.5, flatten_to_2d: bool = False,
                      name: Optional[str] = None) -> Tuple[Any, Any]:
    """1.8 `layers.density_prior_box` (`layers/detection.py:1828`, op `density_prior_box`): (boxes, variances),
    [H, W, num_priors, 4] each ([H * W * num_priors, 4] with `flatten_to_2d`), no gradient.

    As the kernel: the step is the image size over the feature size on both axes unless both steps are
    nonzero; each fixed size s with density d, for each ratio r, puts d x d boxes of width s * sqrt(r) and
    height s / sqrt(r) around the cell centre (w + offset) * step, spaced shift = int(mean step) // d apart;
    corners are divided by the image size and cut at 0 (x1, y1) and 1 (x2, y2), all cut to [0, 1] with
    `clip`. Rounding follows the kernel: cell centres in the input's type, box centres and sizes in float,
    corners in double, stored back in the input's type. The ratios are taken in the order given: 1.8.5's
    kernel collected their square roots from OpenMP threads without a lock, and with several ratios an
    occasional run ordered them otherwise (fixtures/legacy/density_prior_box_static.py says how often)."""
    for given, what in ((densities, "densities"), (fixed_sizes, "fixed_sizes"), (fixed_ratios, "fixed_ratios")):
        if not isinstance(given, (list, tuple)):
            raise TypeError(f"The type of '{what}' in density_prior_box must be (list, tuple), but received "
                            f"{type(given)}.")
    if len(densities) != len(fixed_sizes):
        raise ValueError("densities and fixed_sizes length should be euqal.")
    if not (isinstance(steps, (list, tuple)) and len(steps) == 2):
        raise ValueError("steps should be a list or tuple with length 2, (step_width, step_height).")
    from paddle.base.data_feeder import convert_dtype

    from runtime_shim.mode import in_legacy_static

    dtype = convert_dtype(input.dtype)  # 'float32' or 'float64', for numpy as for paddle
    cast = op("paddle.cast")
    height, width = _size(input, 2), _size(input, 3)
    image_h, image_w = _dim(image, 2, "float64"), _dim(image, 3, "float64")
    step_w, step_h = (float(np.float32(step)) for step in steps)
    if step_w == 0 or step_h == 0:
        step_x = _dim(image, 3, dtype) / _dim(input, 3, dtype)
        step_y = _dim(image, 2, dtype) / _dim(input, 2, dtype)
    else:
        step_x, step_y = (op("paddle.full")([1], step, dtype) for step in (step_w, step_h))
    step_average = op("paddle.floor")((step_x + step_y) * 0.5)  # int(): the steps are positive
    # One entry per prior, in the kernel's order: fixed size, ratio, row di, column dj.
    density, column, row, half_w, half_h = [], [], [], [], []
    roots = [np.float32(math.sqrt(float(r))) for r in fixed_ratios]
    for size, dens in zip(fixed_sizes, densities):
        size, dens = np.float32(size), int(dens)
        for root in roots:
            for di in range(dens):
                for dj in range(dens):
                    density.append(dens)
                    column.append(dj)
                    row.append(di)
                    half_w.append(float(np.float32(size * root)) / 2)
                    half_h.append(float(np.float32(size / root)) / 2)
    shift = op("paddle.floor")(step_average / _constant(density, dtype))  # int / int
    shift_d = cast(shift, "float64")
    spread = -cast(step_average, "float64") / 2 + shift_d / 2

    def corners(cells: Any, step: Any, index: List[int], half: List[float], extent: Any) -> Tuple[Any, Any]:
        centre = cast((cast(op("paddle.arange")(0, cells, dtype="int64"), dtype) + float(offset)) * step, "float64")
        centre = op("paddle.reshape")(centre, [-1, 1])
        # the kernel's box centres are floats whatever the input's type
        grid = cast(cast(centre + spread, "float32") + cast(_constant(index, "float64") * shift_d, "float32"),
                    "float64")
        low = op("paddle.clip")((grid - _constant(half, "float64")) / extent, min=0.0)
        high = op("paddle.clip")((grid + _constant(half, "float64")) / extent, max=1.0)
        return cast(low, dtype), cast(high, dtype)

    x1, x2 = corners(width, step_x, column, half_w, image_w)      # [W, P]
    y1, y2 = corners(height, step_y, row, half_h, image_h)        # [H, P]
    x1, x2 = (op("paddle.unsqueeze")(v, [0]) for v in (x1, x2))
    y1, y2 = (op("paddle.unsqueeze")(v, [1]) for v in (y1, y2))
    zero_x, zero_y = x1 * 0, y1 * 0
    boxes = op("paddle.stack")([x1 + zero_y, y1 + zero_x, x2 + zero_y, y2 + zero_x], axis=-1)
    if clip:
        boxes = op("paddle.clip")(boxes, min=0.0, max=1.0)
    variances = boxes * 0 + _constant([float(v) for v in variance], dtype)
    if flatten_to_2d:
        boxes, variances = (op("paddle.reshape")(v, [-1, 4]) for v in (boxes, variances))
        if in_legacy_static():  # 1.8's shape inference left the row count open
            for value in (boxes, variances):
                value.desc.set_shape([-1, 4])
    boxes.stop_gradient = True
    variances.stop_gradient = True
    return boxes, variances


def _no_gradient(value: Any) -> Any:
    """`value` as the input of an operator without a gradient: later operators pass none back to it."""
    copy = op("paddle.assign")(value)
    copy.stop_gradient = True
    return copy


@adapter("paddle.fluid.layers.box_decoder_and_assign", "per-class decoding and the best foreground class's box, "
         "composed from 2.x operations as 1.8's kernel computed them (no 2.x API)")
def box_decoder_and_assign(prior_box: Any, prior_box_var: Any, target_box: Any, box_score: Any, box_clip: float,
                           name: Optional[str] = None) -> Tuple[Any, Any]:
    """1.8 `layers.box_decoder_and_assign` (`layers/detection.py:3608`, op `box_decoder_and_assign`):
    (decoded boxes [N, classes * 4], assigned boxes [N, 4]).

    As the kernel: each prior [x1, y1, x2, y2] has pixel size w = x2 - x1 + 1 and centre x1 + w / 2; each
    class's deltas are scaled by the four variances of `prior_box_var`, the size deltas cut at `box_clip`
    before exp, and the box is [cx - w / 2, cy - h / 2, cx + w / 2 - 1, cy + h / 2 - 1]. The assigned
    box is the decoded box of the best-scoring class other than 0 (the first on ties), the prior itself
    where no such class scores above -1 (a single class). The decoded boxes keep the deltas' LoD, the assigned
    ones the priors' (as 1.8's shape inference shared them; the element-wise operators pass their first
    operand's on, in a legacy-IR program); the operator had no gradient, so none flows back to the inputs."""
    prior, variances, deltas, scores = (_no_gradient(v) for v in (prior_box, prior_box_var, target_box, box_score))
    x1, y1, x2, y2 = op("paddle.split")(op("paddle.reshape")(prior, [-1, 1, 4]), 4, axis=2)  # [N, 1, 1] each
    v0, v1, v2, v3 = op("paddle.split")(op("paddle.reshape")(variances, [4]), 4)
    t0, t1, t2, t3 = op("paddle.split")(op("paddle.reshape")(deltas, [0, -1, 4]), 4, axis=2)  # [N, C, 1] each
    width, height = x2 - x1 + 1, y2 - y1 + 1
    centre_x, centre_y = x1 + width / 2, y1 + height / 2
    box_w = op("paddle.exp")(op("paddle.clip")(v2 * t2, max=float(box_clip))) * width
    box_h = op("paddle.exp")(op("paddle.clip")(v3 * t3, max=float(box_clip))) * height
    box_x = v0 * t0 * width + centre_x
    box_y = v1 * t1 * height + centre_y
    corners = [box_x - box_w / 2, box_y - box_h / 2, box_x + box_w / 2 - 1, box_y + box_h / 2 - 1]
    per_class = op("paddle.concat")(corners, axis=2)  # [N, C, 4]
    decoded = deltas * 0 + op("paddle.reshape")(per_class, [-1, target_box.shape[1]])  # the deltas' LoD
    classes = box_score.shape[1]
    if classes > 1 or classes < 0:
        foreground = scores[:, 1:]
        rows = op("paddle.arange")(0, op("paddle.shape")(scores)[0], dtype="int64")
        best = op("paddle.argmax")(foreground, axis=1) + 1
        chosen = op("paddle.gather_nd")(per_class, op("paddle.stack")([rows, best], axis=1))  # [N, 4]
        scored = op("paddle.max")(foreground, axis=1, keepdim=True) > -1.0
        chosen = op("paddle.where")(op("paddle.expand_as")(scored, chosen), chosen, prior)
    else:
        chosen = prior
    assigned = prior * 0 + chosen  # the priors' LoD
    for value in (decoded, assigned):  # as 1.8's outputs: stopped inputs do not stop them
        value.stop_gradient = False
    return decoded, assigned
