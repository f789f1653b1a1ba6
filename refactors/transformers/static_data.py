"""`fluid.layers.data` prepended the batch dimension; `paddle.static.data` takes the shape as written.

1.8 (`layers/io.py:117-124`): `shape=[13]` became `[-1, 13]` unless `append_batch_size=False` or an entry
is `None` or negative. The rewrite writes the final shape, so it must know which rule applies: from a
literal, or from what the file fixes (refactors.constants: `shape=image_shape` with `image_shape =
[3, 224, 224]` becomes `shape=[-1] + image_shape`, `[3, SIZE, SIZE]` becomes `[-1, 3, SIZE, SIZE]`). A
shape with a known `None` or negative entry, or `append_batch_size=False`, is passed as written, whatever
its other entries (`[-1, args.max_len]`, `[-1] + list(v.shape)`). `stop_gradient` (always True for data
in 2.x) and `type` have no 2.x argument: a different value is left for review.
"""
from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from refactors import call_args
from refactors.constants import Some
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.transformers import emit, register


def _shape_source(shape) -> str:
    return "[" + ", ".join("None" if d is None else repr(d) for d in shape) + "]"


@register("data_batch_dim")
def data_batch_dim(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    shape_node = emit.required(node, "shape")
    append = emit.value_of(ctx, node, "append_batch_size", True)
    if not isinstance(append, bool):
        raise NeedsReview("append_batch_size is not a bool")
    stop_gradient = call_args.get(node, "stop_gradient")
    if stop_gradient is not None and not same_literal(stop_gradient.value, "True", ctx):
        raise NeedsReview("stop_gradient=False has no 2.x argument; set `.stop_gradient` on the result")
    if call_args.get(node, "type") is not None:
        raise NeedsReview("type= has no 2.x argument")
    shape = _final_shape(ctx, shape_node, append)
    new = call_args.remove(call_args.remove(node, "stop_gradient"), "append_batch_size")
    new = call_args.set_value(new, "shape", shape)
    if call_args.get(new, "dtype") is None:
        # 1.8's default, independent of 2.x's settable default dtype.
        new = call_args.add(new, "dtype", cst.SimpleString("'float32'"))
    return emit.converted(site, emit.finish(ctx, site, new))


def _final_shape(ctx: Context, shape: cst.BaseExpression, append: bool) -> cst.BaseExpression:
    """The shape 1.8 gave the variable, as 2.x text."""
    written = _written(ctx, shape)
    if written is not None:
        value = written.value  # written as a literal: normalised as before
        if not isinstance(value, (list, tuple)) or not all(d is None or _int(d) for d in value):
            raise NeedsReview("shape is not a list of ints")
        return ctx.expr(_shape_source(([-1] if append and not _as_written(value) else []) + list(value)))
    if not append:
        return shape
    value = ctx.value(shape)
    if not isinstance(value, (list, tuple)):
        raise NeedsReview(_UNKNOWN)
    if _as_written(value):
        return shape
    if isinstance(value, Some) or not all(_int(d) for d in value):
        raise NeedsReview(_UNKNOWN)
    minus_one = cst.Element(cst.UnaryOperation(cst.Minus(), cst.Integer("1")))
    if isinstance(shape, (cst.List, cst.Tuple)):
        return cst.List([minus_one, *shape.elements])
    if isinstance(value, list):
        chained = isinstance(shape, cst.BinaryOperation) and isinstance(shape.operator, cst.Add)
        return ctx.template("[-1] + {shape}", shape=shape if chained else emit.parenthesized(shape))
    return cst.List([minus_one, cst.StarredElement(shape)])


def _written(ctx: Context, node: cst.BaseExpression) -> Optional[ast.Constant]:
    """The value of a shape written as a literal (not only known to the file), wrapped; else None."""
    try:
        return ast.Constant(ast.literal_eval(ctx.code(node).strip()))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _as_written(entries) -> bool:
    """1.8 takes the shape as written when an entry is None or negative."""
    return any(d is None or _int(d) and d < 0 for d in entries)


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_UNKNOWN = ("shape is not a literal: 1.8 prepends -1 unless an entry is None or negative; write "
            "paddle.static.data(name, [-1] + shape) when every entry is positive")
