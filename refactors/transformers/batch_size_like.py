"""`layers.fill_constant_batch_size_like` (`layers/tensor.py:752`) becomes `paddle.full`.

The op (`fill_constant_batch_size_like`, attrs at `layers/tensor.py:796`) fills a tensor of the given
`shape` with `value`, except that dimension `output_dim_idx` of the shape is replaced by dimension
`input_dim_idx` of `input`, read when the program runs. 2.x has no such op; `paddle.full` takes a shape
list whose elements may be tensors, so the batch dimension is written as
`paddle.shape(input)[input_dim_idx]` in place of `shape[output_dim_idx]`, which gives the runtime size
in dynamic and in static mode alike. The output does not take gradients in either (`:812`).

Both indices must be literal non-negative ints (the op rejects negative ones), or `input_dim_idx` a name
whose value is read where the literal would be (which a negative value would index from the end, where
1.8 raised). A shape known only at run
time (`shape=self.pred.shape`) is spliced: `[paddle.shape(input)[0], *shape[1:]]`. A shape written in the
call as a list or tuple has the replaced element known from the text; the replaced
element is dropped, so it must not be a call, and `input` moves into the shape, so it must be a name when
earlier entries are calls. 1.8 gave a LoD input with `input_dim_idx=0` its number of
sequences rather than its row count; 2.x has no LoD tensors, and the table's warning says so.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register

# Consumed here: the shape's batch dimension comes from them.
_CONSUMED = ("input", "input_dim_idx", "output_dim_idx")


def _input_index(ctx: Context, node: cst.Call) -> cst.BaseExpression:
    """`input_dim_idx` as the index of `paddle.shape(input)`: its literal, or a name holding it at run
    time (written once, where the literal would be; 1.8's op rejected a negative one)."""
    given = call_args.get(node, "input_dim_idx")
    if given is not None and isinstance(given.value, cst.Name) and not emit.is_literal(ctx, given.value):
        return given.value
    return cst.Integer(str(_index(ctx, node, "input_dim_idx")))


def _index(ctx: Context, node: cst.Call, arg: str) -> int:
    value = emit.value_of(ctx, node, arg, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise NeedsReview(f"{arg}={value!r} is not a non-negative int (1.8's op requires one)")
    return value


@register("full_batch_size_like")
def full_batch_size_like(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return emit.converted(site, emit.finish(ctx, site, _value_before_dtype(ctx, _batch_shape(ctx, site, node))))


@register("uniform_batch_size_like")
def uniform_batch_size_like(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """`uniform_random_batch_size_like` (`layers/nn.py`, op of the same name) draws like `uniform_random`
    over the same shape rule: `paddle.uniform` with the batch dimension in its place."""
    return emit.converted(site, emit.finish(ctx, site, _batch_shape(ctx, site, node)))


def _batch_shape(ctx: Context, site: Site, node: cst.Call) -> cst.Call:
    """The call with `shape` holding `paddle.shape(input)[input_dim_idx]` at `output_dim_idx`, and the
    arguments that said so removed."""
    source = emit.required(node, "input")
    shape = emit.required(node, "shape")
    input_dim, output_dim = _input_index(ctx, node), _index(ctx, node, "output_dim_idx")
    if not isinstance(shape, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement)
                                                            for e in shape.elements):
        node = call_args.set_value(node, "shape", _spliced(ctx, site, source, shape, input_dim, output_dim))
    else:
        node = call_args.set_value(node, "shape", _written(ctx, site, source, shape, input_dim, output_dim))
    for arg in _CONSUMED:
        node = call_args.remove(node, arg)
    return node


def _written(ctx: Context, site: Site, source: cst.BaseExpression, shape: cst.BaseExpression,
             input_dim: cst.BaseExpression, output_dim: int) -> cst.BaseExpression:
    """A shape written in the call as a list or tuple, with the batch dimension in place of its entry."""
    if output_dim >= len(shape.elements):
        raise NeedsReview(f"output_dim_idx={output_dim} is outside `shape` (1.8's op rejects it)")
    replaced = shape.elements[output_dim].value
    if not (emit.is_literal(ctx, replaced) or emit.pure(replaced)):
        raise NeedsReview(f"`{ctx.code(replaced).strip()}` at output_dim_idx would no longer be evaluated; "
                          f"bind it to a name first")
    before = [e.value for e in shape.elements[:output_dim]]
    if not emit.pure(source) and not all(emit.is_literal(ctx, e) or emit.pure(e) for e in before):
        raise NeedsReview("`input` would be evaluated after the shape entries before it; bind it to a name first")
    batch = cst.Subscript(value=emit.call(ctx, site, "paddle.shape", source),
                          slice=[cst.SubscriptElement(slice=cst.Index(value=input_dim))])
    elements = [e.with_changes(value=batch) if i == output_dim else e for i, e in enumerate(shape.elements)]
    if elements and isinstance(shape, cst.Tuple) and len(elements) == 1:
        elements = [elements[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return cst.List(elements=elements, lbracket=cst.LeftSquareBracket(), rbracket=cst.RightSquareBracket())


def _spliced(ctx: Context, site: Site, source: cst.BaseExpression, shape: cst.BaseExpression,
             input_dim: cst.BaseExpression, output_dim: int) -> cst.BaseExpression:
    """`[*shape[:o], paddle.shape(input)[i], *shape[o + 1:]]` for a shape known only at run time (a name,
    an attribute such as `self.pred.shape`): read twice over, so it must be `pure`, and `input` too when
    the shape's head is read before it."""
    if emit.pure(shape) and output_dim and not emit.pure(source):
        raise NeedsReview("`input` would be evaluated after the shape entries before it; bind it to a name first")
    if not emit.pure(shape):
        raise NeedsReview(f"`shape={ctx.code(shape).strip()}` is neither a list written in the call nor a name "
                          f"or attribute: the batch dimension cannot be put in its place; write the 2.x call "
                          f"with paddle.shape(input)[input_dim_idx] at output_dim_idx by hand")
    batch = ctx.template("{shape_of}[{i}]", shape_of=emit.call(ctx, site, "paddle.shape", source),
                         i=input_dim)
    if output_dim == 0:
        return ctx.template("[{batch}, *{shape}[1:]]", batch=batch, shape=shape)
    return ctx.template(f"[*{{shape}}[:{output_dim}], {{batch}}, *{{shape}}[{output_dim + 1}:]]",
                        batch=batch, shape=shape)


def _value_before_dtype(ctx: Context, node: cst.Call) -> cst.Call:
    """1.8 takes (shape, dtype, value), `paddle.full` (shape, fill_value, dtype): put `value` first so that
    arguments given by position can go back to positions. Only when moving it changes no evaluation order."""
    names = emit.keyword_names(node)
    if "value" not in names or "dtype" not in names or names.index("value") < names.index("dtype"):
        return node
    value, dtype = call_args.get(node, "value"), call_args.get(node, "dtype")
    assert value is not None and dtype is not None
    if not all(emit.is_literal(ctx, a.value) or emit.pure(a.value) for a in (value, dtype)):
        return node
    args = [a for a in node.args if a is not value]
    at = args.index(dtype)
    return call_args.with_args(node, [*args[:at], value.with_changes(comma=cst.MaybeSentinel.DEFAULT), *args[at:]])


@register("normal_batch_size_like")
def normal_batch_size_like(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """`gaussian_random_batch_size_like` (`layers/nn.py`, op of the same name) draws like `gaussian_random`
    over the same shape rule: `paddle.normal(mean, std, shape)`, which draws float32 (the default dtype)
    from the global generator, so only `dtype='float32'` and `seed=0` (1.8's: no fixed seed) are taken."""
    if emit.value_of(ctx, node, "dtype", "float32") != "float32":
        raise NeedsReview("dtype is not 'float32', the only dtype paddle.normal draws by default")
    if emit.value_of(ctx, node, "seed", 0) != 0:
        raise NeedsReview("a seed fixed this op's draws in 1.8; paddle.normal has no seed: use paddle.seed()")
    for arg in ("dtype", "seed"):
        node = call_args.remove(node, arg)
    return emit.converted(site, emit.finish(ctx, site, _batch_shape(ctx, site, node)))
