"""`layers.image_resize` and its `resize_*` forms read `scale` only when `out_shape` is None (`layers/nn.py:8638`:
the scale branch is the `else` of `if out_shape is not None`), so a call may pass both, as PaddleDetection 0.4's
HRFPN does (`resize_bilinear(body_input, scale=scale, out_shape=out_shape)`). 2.x `interpolate` raises
ValueError when both `size` and `scale_factor` are given (api_mapping/SEMANTICS.md 53). With both given:

- a literal None on either side is dropped;
- an `out_shape` written as a list or tuple is never None: `scale` is dropped;
- an `out_shape` held in a name: `scale_factor` becomes `<scale> if <name> is None else None`, 1.8's rule;
- any other `out_shape` expression is left for review (writing it twice could run it twice).
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register


@register("resize_out_shape_first")
def resize_out_shape_first(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return emit.converted(site, emit.finish(ctx, site, out_shape_first(node)))


def out_shape_first(node: cst.Call) -> cst.Call:
    """The call with at most one of `out_shape` and `scale` left, as 1.8 chose between them."""
    out_shape = call_args.get(node, "out_shape")
    scale = call_args.get(node, "scale")
    if out_shape is None or scale is None:
        return node
    if _is_none(out_shape.value):
        return call_args.remove(node, "out_shape")
    if _is_none(scale.value) or isinstance(out_shape.value, (cst.List, cst.Tuple)):
        return call_args.remove(node, "scale")
    if isinstance(out_shape.value, cst.Name):
        chosen = cst.IfExp(
            test=cst.Comparison(left=out_shape.value, comparisons=[
                cst.ComparisonTarget(operator=cst.Is(), comparator=cst.Name("None"))]),
            body=_parenthesized(scale.value),
            orelse=cst.Name("None"))
        return call_args.set_value(node, "scale", chosen)
    raise NeedsReview("1.8 ignored `scale` whenever `out_shape` was not None, and 2.x interpolate refuses both "
                      "`size` and `scale_factor`: keep the one 1.8 used")


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` in parentheses where it binds looser than a conditional's branch (a lambda, a conditional)."""
    if isinstance(node, (cst.IfExp, cst.Lambda, cst.NamedExpr)) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node
