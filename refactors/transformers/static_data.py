"""`fluid.layers.data` prepended the batch dimension; `paddle.static.data` takes the shape as written.

1.8 (`layers/io.py:117-124`): `shape=[13]` became `[-1, 13]` unless `append_batch_size=False` or an entry
is `None` or negative. The rewrite writes the final shape, so the shape must be a literal (which
entries are negative decides it). `stop_gradient` (always True for data in 2.x) and `type` have no
2.x argument: a different value is left for review.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.transformers import emit, register


def _shape_source(shape) -> str:
    return "[" + ", ".join("None" if d is None else repr(d) for d in shape) + "]"


@register("data_batch_dim")
def data_batch_dim(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    try:
        shape = emit.value_of(ctx, node, "shape")
    except NeedsReview:
        raise NeedsReview("shape is not a literal: 1.8 prepends -1 unless an entry is None or negative; write "
                          "paddle.static.data(name, [-1] + shape) when every entry is positive") from None
    if not isinstance(shape, (list, tuple)) or not all(d is None or isinstance(d, int) for d in shape):
        raise NeedsReview("shape is not a list of ints")
    append = emit.value_of(ctx, node, "append_batch_size", True)
    if not isinstance(append, bool):
        raise NeedsReview("append_batch_size is not a bool")
    if any(d is None or d < 0 for d in shape):
        append = False  # 1.8 takes such a shape as written
    stop_gradient = call_args.get(node, "stop_gradient")
    if stop_gradient is not None and not same_literal(stop_gradient.value, "True", ctx):
        raise NeedsReview("stop_gradient=False has no 2.x argument; set `.stop_gradient` on the result")
    if call_args.get(node, "type") is not None:
        raise NeedsReview("type= has no 2.x argument")
    new = call_args.remove(call_args.remove(node, "stop_gradient"), "append_batch_size")
    final = ([-1] if append else []) + list(shape)
    new = call_args.set_value(new, "shape", ctx.expr(_shape_source(final)))
    if call_args.get(new, "dtype") is None:
        # 1.8's default, independent of 2.x's settable default dtype.
        new = call_args.add(new, "dtype", cst.SimpleString("'float32'"))
    return emit.converted(site, emit.finish(ctx, site, new))
