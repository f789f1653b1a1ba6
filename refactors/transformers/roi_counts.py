"""`fluid.layers.roi_align` / `roi_pool` given `rois_lod`: 2.x `paddle.vision.ops.roi_align` / `roi_pool`
(Paddle >= 2.2) take the RoIs of each image as counts (`boxes_num`) where 1.8's `rois_lod` gave offsets
[0, n1, n1 + n2, ...]: the counts are `rois_lod[1:] - rois_lod[:-1]`, cast to the int32 that 3.3.1's
roi_pool reads (so rois_lod must be a name or the like). 1.8's roi_align is not aligned (no half-pixel
shift), so `aligned=False` is written; 2.x's default is True. Without `rois_lod` (or with a literal None)
the RoIs' own LoD says which image each belongs to, which no 2.x function reads: the call is left as it
is, for the shim. Checked on 1.8.5 and 3.3.1, values and the feature map's gradient, an adaptive and a
fixed sampling ratio, RoIs across the border: fixtures/legacy/roi_counts_static.py.
"""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from refactors import call_args
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register

SINCE = "2.2"  # paddle.vision.ops.roi_align / roi_pool: absent from the 2.0.2 wheel, in 3.3.1's
TARGETS = ("paddle.vision.ops.roi_align", "paddle.vision.ops.roi_pool")


def _counts(ctx: Context, site: Site, node: cst.Call) -> Optional[cst.BaseExpression]:
    """`rois_lod[1:] - rois_lod[:-1]` as int32, or None where the call gives no offsets. (`paddle.diff` of a tensor
    whose length a static program does not know gives one difference on Paddle 3.3.1.)"""
    found = call_args.get(node, "rois_lod")
    if found is None or emit.is_literal(ctx, found.value) and emit.value_of(ctx, node, "rois_lod") is None:
        return None
    if not emit.repeatable(ctx, site, found.value):
        raise NeedsReview("rois_lod is read twice (its offsets as counts); bind it to a name first")
    offsets = ctx.code(found.value).strip()
    counts = ctx.expr(f"{offsets}[1:] - {offsets}[:-1]")
    return emit.call(ctx, site, "paddle.cast", counts, cst.SimpleString("'int32'"))  # roi_pool reads int32


def _pooling(ctx: Context, site: Site, node: cst.Call, target: str, copied: Tuple[str, ...],
             **added: cst.BaseExpression) -> cst.BaseExpression:
    counts = _counts(ctx, site, node)
    if counts is None:
        return node
    size = cst.Tuple([cst.Element(found.value if found is not None else cst.Integer("1"))
                      for found in (call_args.get(node, arg) for arg in ("pooled_height", "pooled_width"))])
    kwargs = {"x": emit.required(node, "input"), "boxes": emit.required(node, "rois"), "boxes_num": counts,
              "output_size": size}
    for arg in copied:
        found = call_args.get(node, arg)
        if found is not None:
            kwargs[arg] = found.value
    ctx.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(site.name, target, SINCE), True)
    return emit.converted(site, emit.call(ctx, site, target, **kwargs, **added))


@register("roi_align_counts")
def roi_align_counts(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _pooling(ctx, site, node, "paddle.vision.ops.roi_align", ("spatial_scale", "sampling_ratio", "name"),
                    aligned=cst.Name("False"))


@register("roi_pool_counts")
def roi_pool_counts(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _pooling(ctx, site, node, "paddle.vision.ops.roi_pool", ("spatial_scale",))
