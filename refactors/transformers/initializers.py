"""1.8 initializers that 2.x splits into one class per distribution; `uniform` must be a literal to choose
the class, and `seed` is the table's concern.

- `msra_kind`: `initializer.MSRA` / `MSRAInitializer` (`initializer.py:571`). `uniform=True` (the
  default) draws from U(-sqrt(6 / fan_in), sqrt(6 / fan_in)) (`:657`), which is
  `paddle.nn.initializer.KaimingUniform` (limit gain * sqrt(3 / fan_in), gain sqrt(2) for its default
  relu); `uniform=False` draws from N(0, 2 / fan_in), untruncated (`:672`), which is `KaimingNormal`
  (std gain / sqrt(fan_in)). Both compute fan_in from the variable's shape as 1.8 did, and take `fan_in`.
- `xavier_kind`: `initializer.Xavier` / `XavierInitializer` (`initializer.py:437`): limit
  sqrt(6 / (fan_in + fan_out)) when uniform (`:530`), else N(0, 2 / (fan_in + fan_out)) untruncated
  (`:545`), each fan from the variable's shape unless given (`:509`); 2.x `XavierUniform` /
  `XavierNormal` compute the same, except that Paddle 3 draws zeros when a fan is 0
  (`nn/initializer/xavier.py:153` in 3.3.1). A literal 0 fan is 1.8's way of using the other fan alone,
  which is Kaiming's formula: sqrt(6 / f) = sqrt(2) * sqrt(3 / f) and sqrt(2 / f) = sqrt(2) / sqrt(f),
  with f the other fan as written, or fan_in from the shape. fan_out from the shape (fan_in=0 alone) is
  Kaiming's `mode='fan_out'`, which Paddle 3.1 added: that rewrite says it needs Paddle >= 3.1. Both
  computations of the fans from the shape agree with 1.8's (std and bounds checked on 1.8.5 and 3.3.1 for
  conv and fc shapes, `fixtures/legacy/xavier_fan_out_static.py`).
"""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from refactors import call_args, findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register

UNIFORM = "paddle.nn.initializer.KaimingUniform"
NORMAL = "paddle.nn.initializer.KaimingNormal"


def _uniform(ctx: Context, node: cst.Call) -> Tuple[bool, cst.Call]:
    """1.8's `uniform=` flag (default True), and the call without it: 2.x names the kind in the class."""
    uniform = emit.value_of(ctx, node, "uniform", True)
    if not isinstance(uniform, bool):
        raise NeedsReview(f"uniform={uniform!r} is not a bool")
    return uniform, call_args.remove(node, "uniform")


@register("msra_kind")
def msra_kind(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    uniform, node = _uniform(ctx, node)
    return emit.converted(site, emit.finish(ctx, site, node, UNIFORM if uniform else NORMAL))


# -- Xavier -----------------------------------------------------------------------------------------------------

XAVIER = {True: "paddle.nn.initializer.XavierUniform", False: "paddle.nn.initializer.XavierNormal"}
KAIMING = {True: UNIFORM, False: NORMAL}
FAN_OUT_MODE = "3.1"  # first Paddle with KaimingUniform/KaimingNormal(mode='fan_out') (PR 73347, not in 3.0)


def _zero(ctx: Context, node: cst.Call, arg: str) -> bool:
    """True for a literal 0 fan; NeedsReview never (a fan that is not a literal is passed on as written)."""
    found = call_args.get(node, arg)
    if found is None or not emit.is_literal(ctx, found.value):
        return False
    value = emit.value_of(ctx, node, arg)
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value == 0


def _other_fan(ctx: Context, node: cst.Call, arg: str) -> Optional[cst.BaseExpression]:
    """The fan that is not 0: its expression, or None when 1.8 takes it from the shape."""
    found = call_args.get(node, arg)
    if found is None or (emit.is_literal(ctx, found.value) and emit.value_of(ctx, node, arg) is None):
        return None
    value = emit.value_of(ctx, node, arg)  # NeedsReview unless a literal: None would mean "from the shape"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NeedsReview(f"{arg}={value!r} is not a number")
    return found.value


@register("xavier_kind")
def xavier_kind(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    uniform, node = _uniform(ctx, node)
    zero_in, zero_out = _zero(ctx, node, "fan_in"), _zero(ctx, node, "fan_out")
    if not (zero_in or zero_out):
        return emit.converted(site, emit.finish(ctx, site, node, XAVIER[uniform]))
    if zero_in and zero_out:
        raise NeedsReview("fan_in=0 and fan_out=0 divide by zero in 1.8")
    other = _other_fan(ctx, node, "fan_out" if zero_in else "fan_in")
    node = call_args.remove(call_args.remove(node, "fan_in"), "fan_out")
    target = KAIMING[uniform]
    if other is not None:
        node = call_args.with_args(node, [call_args.keyword_arg("fan_in", other), *node.args])
    elif zero_in:
        # Kaiming takes fan_out from the shape only with mode='fan_out', which Paddle 2.0 lacks.
        node = call_args.with_args(node, [*node.args, call_args.keyword_arg("mode", cst.SimpleString("'fan_out'"))])
        ctx.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(site.name, f"{target}(mode='fan_out')",
                                                                FAN_OUT_MODE), True)
    return emit.converted(site, emit.finish(ctx, site, node, target))
