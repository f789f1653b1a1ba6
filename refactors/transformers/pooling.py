"""`pool2d` / `Pool2D` (and `pool3d`): one 1.8 API for max, average and global pooling, with `pool_stride=1` by
default.

2.x has one function (layer) per kind, and its stride defaults to the kernel size, so the 1.8 stride is
always written out (`stride=1` when 1.8 left it out; `layers/nn.py:3217`, `dygraph/nn.py:802`).
`global_pooling=True` ignores size, stride and padding in 1.8 and becomes adaptive pooling to 1x1.
The kind (`pool_type`) and `global_pooling` must be literals, or names always holding one value
(refactors.value_sets): they choose the 2.x function.
"""
from __future__ import annotations

from typing import Dict, List

import libcst as cst

from refactors import call_args, value_sets
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register

# 1.8 keyword -> 2.x keyword, for the arguments that keep their meaning.
_RENAMES = {
    "input": "x",
    "pool_size": "kernel_size",
    "pool_stride": "stride",
    "pool_padding": "padding",
    "ceil_mode": "ceil_mode",
    "exclusive": "exclusive",
    "data_format": "data_format",
    "name": "name",
}
# What each 2.x target accepts (checked against 2.0.2 and 3.3.1).
_ACCEPTS = {
    "max": {"x", "kernel_size", "stride", "padding", "ceil_mode", "data_format", "name"},
    "avg": {"x", "kernel_size", "stride", "padding", "ceil_mode", "exclusive", "data_format", "name"},
    "adaptive_max": {"x", "name"},
    "adaptive_avg": {"x", "data_format", "name"},
}
_FUNCTIONS = {"max": "paddle.nn.functional.max_pool2d", "avg": "paddle.nn.functional.avg_pool2d",
              "adaptive_max": "paddle.nn.functional.adaptive_max_pool2d",
              "adaptive_avg": "paddle.nn.functional.adaptive_avg_pool2d"}
_FUNCTIONS_3D = {"max": "paddle.nn.functional.max_pool3d", "avg": "paddle.nn.functional.avg_pool3d",
                 "adaptive_max": "paddle.nn.functional.adaptive_max_pool3d",
                 "adaptive_avg": "paddle.nn.functional.adaptive_avg_pool3d"}
_LAYERS = {"max": "paddle.nn.MaxPool2D", "avg": "paddle.nn.AvgPool2D",
           "adaptive_max": "paddle.nn.AdaptiveMaxPool2D", "adaptive_avg": "paddle.nn.AdaptiveAvgPool2D"}
# Arguments 1.8 accepted that do not change the result (cuDNN is an implementation choice).
_NO_EFFECT = {"use_cudnn"}


def _given(ctx: Context, site: Site, node: cst.Call, arg: str, default: object) -> object:
    """The value of `arg`: a literal, or a name always holding one value (refactors.value_sets)."""
    given = call_args.get(node, arg)
    if given is None or emit.is_literal(ctx, given.value):
        return emit.value_of(ctx, node, arg, default)
    try:
        return value_sets.the_value(ctx, site, given.value)
    except NeedsReview as why:
        raise NeedsReview(f"`{arg}={ctx.code(given.value).strip()}` is not a literal ({why}), and the 2.x form "
                          f"depends on its value") from None


def _kind(ctx: Context, site: Site, node: cst.Call) -> str:
    pool_type = _given(ctx, site, node, "pool_type", "max")
    if pool_type not in ("max", "avg"):
        raise NeedsReview(f"pool_type={pool_type!r} is not 'max' or 'avg'")
    if _given(ctx, site, node, "global_pooling", False) is True:
        return "adaptive_" + pool_type  # type: ignore[operator]
    size = call_args.get(node, "pool_size")
    if size is None or (emit.is_literal(ctx, size.value) and emit.value_of(ctx, node, "pool_size") == -1):
        raise NeedsReview("pool_size is required unless global_pooling=True (1.8 raises without it)")
    return pool_type  # type: ignore[return-value]


def _arguments(ctx: Context, node: cst.Call, kind: str, layout: str = "NCHW") -> List[cst.Arg]:
    accepts = _ACCEPTS[kind]
    if "data_format" not in accepts:  # (where 2.x takes it, it means what 1.8's did, whatever its value)
        data_format = emit.value_of(ctx, node, "data_format", layout)
        if data_format != layout:
            raise NeedsReview(f"{kind} pooling in 2.x has no data_format={data_format!r}")
    args: List[cst.Arg] = []
    for arg in node.args:
        old = arg.keyword.value if arg.keyword is not None else ""
        new = _RENAMES.get(old)
        if old in _NO_EFFECT or old in ("pool_type", "global_pooling"):
            continue
        if new is None:
            raise NeedsReview(f"unexpected argument `{old}`")
        if new in accepts:
            args.append(call_args.as_keyword(arg, new))
    if kind.startswith("adaptive"):
        args.append(call_args.keyword_arg("output_size", cst.Integer("1")))
    elif call_args.get(node, "pool_stride") is None:
        args.append(call_args.keyword_arg("stride", cst.Integer("1")))
    return args


def _rewrite(ctx: Context, site: Site, node: cst.Call, targets: Dict[str, str]) -> cst.BaseExpression:
    kind = _kind(ctx, site, node)
    new = call_args.with_args(node, _arguments(ctx, node, kind, "NCDHW" if targets is _FUNCTIONS_3D else "NCHW"))
    if "x" not in emit.keyword_names(new) and targets is not _LAYERS:
        raise NeedsReview("`input` is missing")
    if targets is _LAYERS:
        new = call_args.remove(new, "x")
    return emit.converted(site, emit.finish(ctx, site, new, targets[kind]))


def function_call(ctx: Context, site: Site, node: cst.Call) -> cst.Call:
    """The 2.x pooling function for a 1.8 `pool2d` call written with 1.8 keywords (no table entry applied):
    for a composite that pools, such as `nets.simple_img_conv_pool`."""
    kind = _kind(ctx, site, node)
    return call_args.with_args(node, _arguments(ctx, node, kind)).with_changes(
        func=emit.name(ctx, site, _FUNCTIONS[kind]))


@register("pool2d")
def pool2d(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _rewrite(ctx, site, node, _FUNCTIONS)


@register("pool3d")
def pool3d(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """`layers.pool3d` (`layers/nn.py:3427`): the same rule over NCDHW input, to the 3-D functions."""
    return _rewrite(ctx, site, node, _FUNCTIONS_3D)


@register("pool2d_layer")
def pool2d_layer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _rewrite(ctx, site, node, _LAYERS)
