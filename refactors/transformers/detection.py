"""`layers.prior_box` (`layers/detection.py:1670`) becomes `paddle.vision.ops.prior_box` (Paddle >= 2.4).

Same operator and attributes, with one difference: 1.8 ignores `max_sizes` unless its first value is
positive (`layers/detection.py:1809`), while 3.x passes any `max_sizes` to the operator in dynamic and
PIR mode, which rejects a value that is not larger than the matching min size. So the call is
converted when `max_sizes` is absent, None, empty, or a literal list whose first value is positive,
and left for review otherwise.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register


def _used_as_in_1_8(ctx: Context, node: cst.Call) -> bool:
    """True when 3.x reads `max_sizes` as 1.8 did: absent, None, empty, or starting with a positive number."""
    if call_args.get(node, "max_sizes") is None:
        return True
    try:
        sizes = emit.value_of(ctx, node, "max_sizes")
    except NeedsReview:
        return False
    if sizes is None:
        return True
    if not isinstance(sizes, (list, tuple)):
        return False
    if not sizes:
        return True
    first = sizes[0]
    return isinstance(first, (int, float)) and not isinstance(first, bool) and first > 0


@register("prior_box_max_sizes")
def prior_box_max_sizes(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if not _used_as_in_1_8(ctx, node):
        found = call_args.get(node, "max_sizes")
        assert found is not None
        raise NeedsReview(f"`max_sizes={ctx.code(found.value).strip()}`: 1.8 ignored max_sizes unless its first "
                          f"value is a positive number; 3.x uses (and checks) any value; pass it only when it "
                          f"is positive")
    return emit.converted(site, emit.finish(ctx, site, node))
