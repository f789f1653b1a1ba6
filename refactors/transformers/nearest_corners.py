"""`layers.resize_nearest` defaults to align_corners=True (`layers/nn.py:9059`): output row i reads input row
int((in - 1) / (out - 1) * i + 0.5). 2.x `interpolate(mode='nearest')` raises for align_corners=True and reads
int(i / scale) (align_corners=False), so only two kinds of call convert:

- align_corners=False, as 1.8 computed it (of `out_shape` and `scale`, the one 1.8 used: resize_out_shape.py);
- a `scale` the file fixes at 2 (or 1), with no out_shape or actual_shape: then out = 2 * in, and
  (in - 1) / (2 * in - 1) * i differs from i / 2 by less than 1/2 in the direction that rounds to the same row,
  so both modes read the same rows for every input size (checked on 1.8.5:
  fixtures/legacy/resize_nearest_scale2_static.py). Not so for 3, 1.5 or a given out_shape.

Any other call with align_corners=True goes to a function written once in the module
(api_mapping/kernels.py RESIZE_NEAREST_CORNERS) that picks 1.8's rows and columns by `index_select`, with the
kernel's float ratio and rounding and 1.8's choice of the output size (actual_shape, out_shape, then
int(in * scale) in float); `name` only named the output (api_mapping/SEMANTICS.md 49; checked on 1.8.5:
resize_nearest_scale2_static.py, resize_nearest_corners_static.py). The runtime shim sets the operator's own
align_corners attribute instead.
"""
from __future__ import annotations

import ast

import libcst as cst

from api_mapping.kernels import RESIZE_NEAREST_CORNERS
from refactors import call_args, findings as F
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.transformers import emit, module_definitions, register
from refactors.transformers.resize_out_shape import out_shape_first

_SAME_ROWS = (1, 2)  # scales for which align_corners=True and False read the same rows


@register("nearest_align_corners")
def nearest_align_corners(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    corners = call_args.get(node, "align_corners")
    if corners is not None:
        if _value(ctx, corners.value) is False:
            return emit.converted(site, emit.finish(ctx, site, out_shape_first(node)))
        if _value(ctx, corners.value) is not True:
            raise NeedsReview(f"`align_corners={ctx.code(corners.value).strip()}` is not a literal; 2.x nearest "
                              "interpolation takes False only")
    scale = call_args.get(node, "scale")
    value = None if scale is None else _value(ctx, scale.value)
    if call_args.get(node, "out_shape") is None and call_args.get(node, "actual_shape") is None \
            and not isinstance(value, bool) and value in _SAME_ROWS:
        return emit.converted(site, emit.finish(ctx, site, call_args.remove(node, "align_corners")))
    if len([arg for arg in node.args if not arg.keyword]) > 3:
        raise NeedsReview("arguments after `name` given by position")
    node = call_args.remove(node, "align_corners")
    result = module_definitions.call_definition_without_name(ctx, site, node, "resize_nearest_corners",
                                                             RESIZE_NEAREST_CORNERS)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {ctx.code(result.func)}, 1.8's "
                              "align_corners=True rows and columns picked by index_select", True)
    return result


def _value(ctx: Context, node: cst.BaseExpression):
    """The value the file fixes for `node`, seen through a builtin `float(...)`/`int(...)`; None if unknown."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("float", "int") \
            and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
            and not _rebinds(ctx, node.func.value):
        inner = _value(ctx, node.args[0].value)
        return None if isinstance(inner, bool) or not isinstance(inner, (int, float)) \
            else {"float": float, "int": int}[node.func.value](inner)
    try:
        return literal(node, ctx)
    except ValueError:
        return None


def _rebinds(ctx: Context, name: str) -> bool:
    """Whether the file binds `name` anywhere (then `name(...)` may not be the builtin)."""
    tree = ctx.python_tree()
    if tree is None:
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) \
                or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name \
                or isinstance(node, ast.arg) and node.arg == name \
                or isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) in (name, "*"):
            return True
    return False
