"""1.8 detection operators Paddle 3.3.1 dropped, composed from 2.x operations as 1.8.5's kernels computed them.

Each runs the upgrade's kernel (api_mapping.kernels), in a legacy-IR program and in dygraph alike (`op`), after
1.8's checks of its arguments; each was checked against 1.8.5 by a fixtures/legacy program.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from api_mapping.kernels import BOX_DECODER_AND_ASSIGN, DENSITY_PRIOR_BOX
from runtime_shim.adapters import adapter
from runtime_shim.mode import in_legacy_static
from runtime_shim.static_ops import kernel


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
    boxes, variances = kernel(DENSITY_PRIOR_BOX, "density_prior_box")(
        input, image, densities, fixed_sizes, fixed_ratios, variance, clip, steps, offset, flatten_to_2d)
    if flatten_to_2d and in_legacy_static():  # 1.8's shape inference left the row count open
        for value in (boxes, variances):
            value.desc.set_shape([-1, 4])
    return boxes, variances


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
    return kernel(BOX_DECODER_AND_ASSIGN, "box_decoder_and_assign")(prior_box, prior_box_var, target_box,
                                                                    box_score, box_clip)
