"""`nets.simple_img_conv_pool` (`nets.py:29`): 1.8's `layers.conv2d` then `layers.pool2d`.

Written as the two calls it made, nested, so no statement is added: the pooling function of 2.x that
`pool2d` becomes (`pooling.function_call`: the kind from the literal `pool_type`/`global_pooling`, 1.8's
stride written out) over `paddle.static.nn.conv2d`, which keeps 1.8's signature, `act` included. The
composite's `conv_*` arguments are conv2d's `stride`, `padding`, `dilation` and `groups`; its `pool_*`
arguments and `global_pooling` are pool2d's; `use_cudnn` (an implementation choice) goes to the
convolution. The same operators and parameter names give the same numbers (checked on 1.8.5 and on 3.3.1
under the legacy IR the upgraded static file selects: fixtures/legacy/img_conv_pool_static.py).

The pooling arguments are evaluated after the convolution's in the nested form: each must be a literal or
a plain name (`pure`), so that nothing they compute moves past the convolution's arguments.
"""
from __future__ import annotations

from typing import List, Sequence

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, pooling, register

CONV = "paddle.static.nn.conv2d"
# simple_img_conv_pool keyword -> conv2d keyword
_CONV_ARGS = {"input": "input", "num_filters": "num_filters", "filter_size": "filter_size", "conv_stride": "stride",
              "conv_padding": "padding", "conv_dilation": "dilation", "conv_groups": "groups",
              "param_attr": "param_attr", "bias_attr": "bias_attr", "act": "act", "use_cudnn": "use_cudnn"}
_POOL_ARGS = ("pool_size", "pool_stride", "pool_padding", "pool_type", "global_pooling")


@register("simple_img_conv_pool")
def simple_img_conv_pool(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs")
    conv_args, pool_args = [], []
    for arg in node.args:
        keyword = arg.keyword.value if arg.keyword is not None else ""
        if keyword in _CONV_ARGS:
            conv_args.append(call_args.as_keyword(arg, _CONV_ARGS[keyword]))
        elif keyword in _POOL_ARGS:
            if not (emit.is_literal(ctx, arg.value) or emit.pure(arg.value)):
                raise NeedsReview(f"`{keyword}={ctx.code(arg.value).strip()}` would be evaluated after the "
                                  f"convolution's arguments; bind it to a name first")
            pool_args.append(arg)
        else:
            raise NeedsReview(f"unexpected argument `{keyword}`")
    conv = call_args.with_args(cst.Call(func=emit.name(ctx, site, CONV)), _first_positional(conv_args, "input"))
    pool = call_args.with_args(node, [call_args.keyword_arg("input", conv), *pool_args])
    pooled = pooling.function_call(ctx, site, pool)
    pooled = pooled.with_changes(args=_first_positional(pooled.args, "x"))
    emit.report_warning(ctx, site)
    return emit.converted(site, pooled)


def _first_positional(args: Sequence[cst.Arg], keyword: str) -> List[cst.Arg]:
    """The tensor goes first in both 2.x calls: written positionally when it is the first argument. The
    arguments are laid out on one line (the composite's line breaks no longer fit two nested calls), but a
    comment after one stays with it."""
    args = [arg if call_args.has_comment(arg.comma) else
            arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace(""))
            for arg in args]
    if args and args[0].keyword is not None and args[0].keyword.value == keyword:
        args[0] = args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
    return args
