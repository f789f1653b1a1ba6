"""`layers.adaptive_pool2d` / `adaptive_pool3d` (`layers/nn.py:3651`, `:3794`): one 1.8 API for max and
average adaptive pooling; 2.x has one function per kind.

1.8 runs op `max_pool2d_with_index` for 'max' and op `pool2d` with `adaptive=True` for 'avg' (`:3766`);
`F.adaptive_max_pool2d` and `F.adaptive_avg_pool2d` run the same ops with the same bins (start
floor(i * H / out), end ceil((i + 1) * H / out)), NCHW / NCDHW in both. `require_index=True` returns
`(out, mask)` in 1.8 as `return_mask=True` does in 2.x; with 'avg' 1.8 raises (`:3760`), so that call is
left for review. The kind must be a literal: it chooses the function.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register

_MAX, _AVG = "adaptive_max_pool", "adaptive_avg_pool"


@register("adaptive_pool_kind")
def adaptive_pool_kind(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    target = site.entry.update_to if site.entry is not None else None
    if target is None or _MAX not in target:
        raise NeedsReview("the table gives no adaptive max-pooling target")
    pool_type = emit.value_of(ctx, node, "pool_type", "max")
    if pool_type not in ("max", "avg"):
        raise NeedsReview(f"pool_type={pool_type!r} is not 'max' or 'avg' (1.8 raises)")
    node = call_args.remove(node, "pool_type")
    if pool_type == "avg":
        if call_args.get(node, "require_index") is not None:
            if emit.value_of(ctx, node, "require_index") is not False:
                raise NeedsReview("require_index with pool_type='avg' raises in 1.8; 2.x average pooling returns "
                                  "no mask")
            node = call_args.remove(node, "require_index")
        target = target.replace(_MAX, _AVG)
    return emit.converted(site, emit.finish(ctx, site, node, target))
