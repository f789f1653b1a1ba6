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
  scalar reads (`refactors.zero_d`). Where `dim` or `keep_dim` is known at run time only, or the
  result is an item of a list (to be concatenated or stacked), it is wrapped in `paddle.atleast_1d`,
  which is 1.8's shape rule (never 0-D).
- `all_finite`: 1.8 `isfinite` reduces to one bool; 2.x's is element-wise: `paddle.all(paddle.isfinite(x))`.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args, findings as F, zero_d
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.scopes import descendants
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
        return _shape_kept(ctx, site, node)
    if full and dim is not None:
        node = call_args.remove(node, "dim")
    keep = call_args.get(node, "keep_dim")
    if full and keep is not None and not emit.is_literal(ctx, keep.value):
        return _shape_kept(ctx, site, node)
    keep_dim = emit.value_of(ctx, node, "keep_dim", False) if full else False
    reduced = emit.finish(ctx, site, node)
    if not full or keep_dim is True:
        return emit.converted(site, reduced)
    if keep_dim is not False:
        raise NeedsReview("keep_dim is not a bool literal")
    if _listed(ctx, site):
        ctx.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(site.name, ATLEAST_1D, ATLEAST_1D_SINCE), True)
        return emit.converted(site, emit.call(ctx, site, ATLEAST_1D, reduced))
    zero_d.produced(ctx, site)
    return emit.converted(site, reduced)


def _listed(ctx: Context, site: Site) -> bool:
    """Whether the reduction is an item of a list written here, or what a list comprehension or generator
    makes: such lists go to `concat` (BERT's fp16.py: `concat([reduce_sum(g) for [_, g] in pairs])`) or
    `stack`, which 3.3.1 refuses for 0-D tensors or stacks to another shape, so 1.8's [1] is kept."""
    statement = ctx.statements[-1] if ctx.statements else None
    if statement is None or site.call is None:
        return False
    for node in descendants(statement):
        if isinstance(node, cst.List) and any(e.value is site.call for e in node.elements):
            return True
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)) and node.elt is site.call:
            return True
    return False


ATLEAST_1D, ATLEAST_1D_SINCE = "paddle.atleast_1d", "2.6"  # absent from the 2.0.2 wheel, in 2.6's and 3.3.1's


def _shape_kept(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """`dim` or `keep_dim` known at run time only. With `keep_dim=True` both versions keep every axis,
    whatever `dim` is; otherwise 1.8's result is never 0-D (a reduction of every axis has shape [1])
    where 2.x's is: `paddle.atleast_1d` gives back 1.8's [1] and leaves every other shape alone (both
    checked on 1.8.5 and 3.3.1). One value of `dim` has no faithful rewrite: a list of every axis of a
    tensor of rank >= 2, which 1.8.5 reduces wrongly (api_mapping/SEMANTICS.md 47; reduce_all is set for
    None and [] only). Written as `range(len(x.shape))`, it is left; a value known at run time only is
    rewritten for the values 1.8.5 computes right."""
    dim = call_args.get(node, "dim")
    if dim is not None and _every_axis(dim.value):
        raise NeedsReview(f"`dim={ctx.code(dim.value).strip()}` lists every axis, which 1.8.5 reduces wrongly "
                          f"for a tensor of rank >= 2 (api_mapping/SEMANTICS.md 47): no rewrite keeps its "
                          f"numbers; dim=None reduces every axis")
    keep = call_args.get(node, "keep_dim")
    reduced = emit.finish(ctx, site, node)
    if keep is not None and same_literal(keep.value, "True", ctx):
        return emit.converted(site, reduced)
    ctx.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(site.name, ATLEAST_1D, ATLEAST_1D_SINCE), True)
    return emit.converted(site, emit.call(ctx, site, ATLEAST_1D, reduced))


def _every_axis(dim: cst.BaseExpression) -> bool:
    """`range(len(x.shape))`, or `list(...)` of it: every axis of `x`."""
    if isinstance(dim, cst.Call) and isinstance(dim.func, cst.Name) and dim.func.value == "list" \
            and len(dim.args) == 1:
        dim = dim.args[0].value
    if not (isinstance(dim, cst.Call) and isinstance(dim.func, cst.Name) and dim.func.value == "range"
            and len(dim.args) == 1 and not dim.args[0].star):
        return False
    size = dim.args[0].value
    return isinstance(size, cst.Call) and isinstance(size.func, cst.Name) and size.func.value == "len" \
        and len(size.args) == 1 and isinstance(size.args[0].value, cst.Attribute) \
        and size.args[0].value.attr.value == "shape"


@register("all_finite")
def all_finite(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """1.8 `layers.isfinite` (`layers/tensor.py:1250`, op `isfinite`) is one bool, whether every element is
    finite, shape [1]; 2.x `paddle.isfinite` is element-wise, so the result is `paddle.all` of it, 0-D like
    any full reduction (the reads that indexed the [1] are followed by `refactors.zero_d`)."""
    finite = emit.finish(ctx, site, node)
    zero_d.produced(ctx, site)
    return emit.converted(site, emit.call(ctx, site, "paddle.all", finite))
