"""`initializer.MSRA` / `MSRAInitializer` (`initializer.py:571`): 2.x splits it into two classes.

`uniform=True` (the default) draws from U(-sqrt(6 / fan_in), sqrt(6 / fan_in)) (`initializer.py:657`),
which is `paddle.nn.initializer.KaimingUniform` (limit gain * sqrt(3 / fan_in), gain sqrt(2) for its
default relu); `uniform=False` draws from N(0, 2 / fan_in), untruncated (`initializer.py:672`), which is
`KaimingNormal` (std gain / sqrt(fan_in)). Both compute fan_in from the variable's shape as 1.8 did, and
both take `fan_in`. `uniform` must be a literal to choose the class; `seed` is the table's concern.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register

UNIFORM = "paddle.nn.initializer.KaimingUniform"
NORMAL = "paddle.nn.initializer.KaimingNormal"


@register("msra_kind")
def msra_kind(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    uniform = emit.value_of(ctx, node, "uniform", True)
    if not isinstance(uniform, bool):
        raise NeedsReview(f"uniform={uniform!r} is not a bool")
    node = call_args.remove(node, "uniform")
    return emit.converted(site, emit.finish(ctx, site, node, UNIFORM if uniform else NORMAL))
