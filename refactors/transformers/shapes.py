"""Results whose shape 2.x changed: tuples, trailing unit dimensions, full reductions.

- `argsort_pair`: 1.8 `argsort` returns `(sorted values, indices)` (`layers/tensor.py:1027`); 2.x
  `argsort` returns the indices only. Rewritten as `(paddle.sort(...), paddle.argsort(...))`, which
  writes the input twice, so it must be a plain name or attribute.
- `one_hot_squeeze`: 1.8 `layers.one_hot` replaces the trailing 1 of `[N, 1]` ids (`layers/nn.py:7136`,
  doc `:7154-7159`); 2.x `one_hot` appends. The ids are squeezed first.
- `embedding_squeeze`: 1.8 `layers.embedding` (op `lookup_table`, `layers/nn.py:1867`) requires the ids'
  last dimension to be 1 and replaces it; 2.x's embedding (`lookup_table_v2`) appends. Squeezed first.
- `embedding_layer`: 1.8 `dygraph.Embedding(size=[V, D])` becomes `nn.Embedding(V, D)`.
- `full_reduce_shape1`: a full reduction gives shape `[1]` in 1.8 (`layers/nn.py:5672`) and 0-D in
  Paddle >= 2.5, the idiomatic 2.x result; the 1.8 reads that index it (`loss.numpy()[0]`) are made
  scalar reads (`refactors.zero_d`).
- `all_finite`: 1.8 `isfinite` reduces to one bool; 2.x's is element-wise: `paddle.all(paddle.isfinite(x))`.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args, zero_d
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.transformers import emit, register


@register("argsort_pair")
def argsort_pair(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value != "name" and not emit.repeatable(ctx, site, arg.value):
            raise NeedsReview(f"`{arg.keyword.value}` would be written twice (values and indices); "
                              f"bind it to a name first")
    indices = emit.finish(ctx, site, node)
    values = indices.with_changes(func=emit.name(ctx, site, "paddle.sort"))
    values = call_args.remove(values, "name")
    return emit.converted(site, cst.Tuple(elements=[cst.Element(values, comma=cst.Comma(
        whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(indices)]))


def _squeezed(ctx: Context, site: Site, node: cst.Call, arg: str) -> cst.Call:
    ids = emit.required(node, arg)
    return call_args.set_value(node, arg, emit.call(ctx, site, "paddle.squeeze", ids, axis=ctx.expr("-1")))


@register("one_hot_squeeze")
def one_hot_squeeze(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return emit.converted(site, emit.finish(ctx, site, _squeezed(ctx, site, node, "input")))


@register("embedding_squeeze")
def embedding_squeeze(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return emit.converted(site, emit.finish(ctx, site, _squeezed(ctx, site, node, "input")))


@register("embedding_layer")
def embedding_layer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    size = call_args.get(node, "size")
    if size is None:
        raise NeedsReview("`size` is missing")
    if isinstance(size.value, (cst.List, cst.Tuple)) and len(size.value.elements) == 2 \
            and not any(isinstance(e, cst.StarredElement) for e in size.value.elements):
        rows, width = (e.value for e in size.value.elements)
    elif emit.pure(size.value):
        value = emit.receiver(size.value)
        rows, width = ctx.template("{size}[0]", size=value), ctx.template("{size}[1]", size=value)
    else:
        raise NeedsReview("`size` is neither a [rows, width] list nor a name; split it by hand")
    args = []
    for arg in node.args:
        if arg is size:
            args.append(call_args.keyword_arg("num_embeddings", rows))
            args.append(call_args.keyword_arg("embedding_dim", width))
        else:
            args.append(arg)
    return emit.converted(site, emit.finish(ctx, site, call_args.with_args(node, args)))


@register("full_reduce_shape1")
def full_reduce_shape1(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    dim = call_args.get(node, "dim")
    full = dim is None or same_literal(dim.value, "None", ctx) or same_literal(dim.value, "[]", ctx)
    if dim is not None and not full and not emit.is_literal(ctx, dim.value):
        raise NeedsReview(f"`dim={ctx.code(dim.value).strip()}` is not a literal: when it is None the 1.8 result "
                          f"has shape [1] and the 2.x one is 0-D")
    if full and dim is not None:
        node = call_args.remove(node, "dim")
    keep_dim = emit.value_of(ctx, node, "keep_dim", False) if full else False
    reduced = emit.finish(ctx, site, node)
    if not full or keep_dim is True:
        return emit.converted(site, reduced)
    if keep_dim is not False:
        raise NeedsReview("keep_dim is not a bool literal")
    zero_d.produced(ctx, site)
    return emit.converted(site, reduced)


@register("all_finite")
def all_finite(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """1.8 `layers.isfinite` (`layers/tensor.py:1250`, op `isfinite`) is one bool, whether every element is
    finite, shape [1]; 2.x `paddle.isfinite` is element-wise, so the result is `paddle.all` of it, 0-D like
    any full reduction (the reads that indexed the [1] are followed by `refactors.zero_d`)."""
    finite = emit.finish(ctx, site, node)
    zero_d.produced(ctx, site)
    return emit.converted(site, emit.call(ctx, site, "paddle.all", finite))
