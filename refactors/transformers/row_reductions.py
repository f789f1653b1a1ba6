"""1.8 ops that reduce all non-batch dimensions of each row to one column, shape `[N, 1]`.

Both ops view their input as `[N, prod(other dims)]`, whatever its rank; the 2.x forms flatten the
input from axis 1 and keep the reduced axis, so they give the same `[N, 1]` for any rank >= 2.

- `cos_sim_rows`: `layers.cos_sim(X, Y)` (`layers/nn.py:2259`, op `cos_sim`) is the cosine of each row
  of X with the same row of Y, or with Y's only row when Y has batch size 1. Written as
  `sum(normalize(flatten(X)) * normalize(flatten(Y)), axis=1, keepdim=True)`, so X and Y appear once,
  with normalize's own epsilon (1e-12): the op clamps each squared norm at 1e-8 (`cos_sim_functor.h`),
  which `F.normalize(epsilon=1e-4)` copies in the forward pass, but in Paddle 3.3.1 that epsilon also
  enters normalize's gradient (p_norm's), off by 5e-5 on rows of unit size, and a program trained through
  it leaves 1.8.5's numbers; with 1e-12 the gradient is exact, and only rows whose norm is below 1e-4
  differ from 1.8.
- `smooth_l1_rows`: `layers.smooth_l1(x, y, inside_weight, outside_weight, sigma)` (`layers/nn.py:7062`,
  op `smooth_l1_loss`) computes d = inside_weight * (x - y), then per element
  0.5 * sigma**2 * d**2 if |d| < 1 / sigma**2 else |d| - 0.5 / sigma**2, times outside_weight, summed
  per row. That element-wise term is sigma**2 * Huber(d, delta=1 / sigma**2), and 2.x
  `F.smooth_l1_loss(input, label, reduction='none', delta=...)` is Huber. The inside weight multiplies
  both operands (so it is written twice and must be a plain name); sigma is a literal, since the 2.x
  form's constants depend on its value. Where sigma is known at run time only (a detector's configured
  `self.sigma`), is 0, or the inside weight is an expression, the call goes to a function written once
  in the module that reads sigma as 1.8's op did (None is 1.0; 0 gives zero everywhere, where
  `delta=1 / sigma**2` has no value) around the same Huber form.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, module_definitions, register

SMOOTH_L1 = '''\
def {name}(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """fluid.layers.smooth_l1 of Paddle 1.8 (paddle-upgrade): d = inside_weight * (x - y), per element
    0.5 * sigma**2 * d**2 if |d| < 1 / sigma**2 else |d| - 0.5 / sigma**2, times outside_weight, summed
    per row to [N, 1]; sigma None is 1.0, and sigma 0 makes every term 0."""
    sigma2 = 1.0 if sigma is None else float(sigma) ** 2
    if inside_weight is not None:
        x, y = x * inside_weight, y * inside_weight
    if sigma2 == 0.0:
        loss = {paddle}.nn.functional.smooth_l1_loss(x, y, reduction='none') * 0.0
    else:
        loss = {paddle}.nn.functional.smooth_l1_loss(x, y, reduction='none', delta=1.0 / sigma2) * sigma2
    if outside_weight is not None:
        loss = loss * outside_weight
    return {paddle}.sum({paddle}.flatten(loss, start_axis=1), axis=1, keepdim=True)
'''


def _rows(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` viewed as [N, prod(other dims)]."""
    return emit.call(ctx, site, "paddle.flatten", node, start_axis=ctx.expr("1"))


def _row_sum(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.Call:
    return emit.call(ctx, site, "paddle.sum", node, axis=ctx.expr("1"), keepdim=cst.Name("True"))


def _times(left: cst.BaseExpression, right: cst.BaseExpression) -> cst.BinaryOperation:
    """`left * right`; a product on the left needs no parentheses (`*` groups from the left)."""
    chained = isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Multiply) and not left.lpar
    return cst.BinaryOperation(left=left if chained else emit.parenthesized(left), operator=cst.Multiply(),
                               right=emit.parenthesized(right))


@register("cos_sim_rows")
def cos_sim_rows(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    normalized = [emit.call(ctx, site, "paddle.nn.functional.normalize", _rows(ctx, site, emit.required(node, arg)))
                  for arg in ("X", "Y")]
    return emit.converted(site, _row_sum(ctx, site, _times(*normalized)))


def _given(ctx: Context, node: cst.Call, arg: str) -> Optional[cst.BaseExpression]:
    """The argument's expression, or None when it is missing or a literal None."""
    found = call_args.get(node, arg)
    if found is None or (emit.is_literal(ctx, found.value) and emit.value_of(ctx, node, arg) is None):
        return None
    return found.value


def _sigma_squared(ctx: Context, node: cst.Call) -> Optional[float]:
    """sigma**2 where the file fixes a nonzero sigma, None where the module's function must read it."""
    given = call_args.get(node, "sigma")
    if given is not None and not emit.is_literal(ctx, given.value):
        return None
    sigma = emit.value_of(ctx, node, "sigma", None)
    if sigma is None:
        return 1.0  # the op's default (`layers/nn.py:7132`)
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)):
        raise NeedsReview(f"sigma={sigma!r} is not a number")
    if sigma == 0:
        return None
    return float(sigma) * float(sigma)


@register("smooth_l1_rows")
def smooth_l1_rows(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    x, y = emit.required(node, "x"), emit.required(node, "y")
    sigma2 = _sigma_squared(ctx, node)
    inside, outside = _given(ctx, node, "inside_weight"), _given(ctx, node, "outside_weight")
    if sigma2 is None or inside is not None and not emit.repeatable(ctx, site, inside):
        return module_definitions.call_definition(ctx, site, node, "smooth_l1", SMOOTH_L1)
    if inside is not None:
        x, y = _times(x, inside), _times(y, inside)
    extra = {} if sigma2 == 1.0 else {"delta": ctx.expr(f"1.0 / {sigma2!r}")}
    loss: cst.BaseExpression = emit.call(ctx, site, "paddle.nn.functional.smooth_l1_loss", x, y,
                                         reduction=cst.SimpleString("'none'"), **extra)
    if sigma2 != 1.0:
        loss = _times(loss, ctx.expr(repr(sigma2)))
    if outside is not None:
        loss = _times(loss, outside)
    return emit.converted(site, _row_sum(ctx, site, _rows(ctx, site, loss)))
