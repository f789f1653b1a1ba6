"""`softmax_with_cross_entropy` (`layers/loss.py:1156`): per-sample losses `[N, 1]`, and optionally the softmax.

The loss itself is table data (`F.cross_entropy(..., reduction='none')`, which keeps the `[N, 1]`
shape for a `[N, 1]` label). What data cannot say: `return_softmax=True` made 1.8 return the pair
`(loss, softmax(logits))`, written here as a tuple of the two 2.x calls.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register


@register("softmax_cross_entropy")
def softmax_cross_entropy(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    pair = emit.value_of(ctx, node, "return_softmax", False)
    if not isinstance(pair, bool):
        raise NeedsReview("return_softmax is not a bool")
    node = call_args.remove(node, "return_softmax")
    loss = emit.finish(ctx, site, node)
    if not pair:
        return emit.converted(site, loss)
    logits, axis = emit.required(node, "logits"), call_args.get(node, "axis")
    if not emit.pure(logits) or (axis is not None and not emit.pure(axis.value)):
        raise NeedsReview("return_softmax=True writes the logits twice; bind them to a name first")
    extra = {"axis": axis.value} if axis is not None else {}
    softmax = emit.call(ctx, site, "paddle.nn.functional.softmax", logits, **extra)
    return emit.converted(site, cst.Tuple(elements=[
        cst.Element(loss, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(softmax)]))
