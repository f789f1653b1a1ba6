"""`elementwise_*(x, y, axis=k, act=...)` and `matmul(..., alpha=...)`.

- `axis` (`layers/nn.py:12368`, example `:12409`): 1.8 aligns `y` with `x` starting at dimension `k`;
  2.x broadcasts from the trailing dimension. For `k >= 0`, `y` gets trailing unit dimensions up to
  `x`'s rank, after which trailing broadcasting is 1.8's alignment:
  `paddle.unsqueeze(y, list(range(len(y.shape), len(x.shape) - k)))` (no new dimension when
  `k == rank(x) - rank(y)`). `x` and `y` are written twice: an operand that is not a plain name or
  attribute is first bound to a fresh name, in a statement inserted before (`bind.py`).
- `act` (`:12368`): applied to the result, see `act.py`.
- `alpha` (`layers/nn.py:6321`): 2.x matmul has none; the product is scaled: `paddle.scale(matmul, alpha)`.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.transformers import bind, emit, register


def _aligned(ctx: Context, site: Site, node: cst.Call, axis: int) -> cst.Call:
    operands = {k: emit.required(node, k) for k in ("x", "y")}
    once = [(a.keyword.value, a.value) for a in node.args if a.keyword is not None
            and a.keyword.value in operands and not emit.repeatable(ctx, site, a.value)]
    if once:  # evaluated once, into fresh names bound first
        why = f"axis={axis} broadcasting needs `x` and `y` written twice; bind them to names first"
        for (keyword, _), name in zip(once, bind.first(ctx, site, once, why)):
            operands[keyword] = name
            node = call_args.set_value(node, keyword, name)
    x, y = operands["x"], operands["y"]
    axes = ctx.template(f"list(range(len({{y}}.shape), len({{x}}.shape){f' - {axis}' if axis else ''}))",
                        x=emit.receiver(x), y=emit.receiver(y))
    return call_args.set_value(node, "y", emit.call(ctx, site, "paddle.unsqueeze", y, axes))


@register("elementwise_axis")
def elementwise_axis(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    act = call_args.get(node, "act")
    apply = emit.activation(ctx, site, act.value if act else None)
    node = call_args.remove(node, "act")
    if call_args.get(node, "axis") is not None:
        axis = emit.value_of(ctx, node, "axis")
        if not isinstance(axis, int) or isinstance(axis, bool) or axis < -1:
            raise NeedsReview(f"axis={axis!r} is not -1 or a dimension index")
        node = call_args.remove(node, "axis")
        if axis != -1:
            node = _aligned(ctx, site, node, axis)
    return emit.converted(site, apply(emit.finish(ctx, site, node)))


@register("matmul_alpha")
def matmul_alpha(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    alpha = call_args.get(node, "alpha")
    product = emit.finish(ctx, site, call_args.remove(node, "alpha"))
    if alpha is None or same_literal(alpha.value, "1.0", ctx):
        return emit.converted(site, product)
    return emit.converted(site, emit.call(ctx, site, "paddle.scale", product, scale=alpha.value))
