"""`nets.img_conv_group` (`nets.py:139`): VGG's block of 1.8, convolutions then one pooling.

No 2.x function builds it. The call goes to a function written once in the module
(`api_mapping.kernels.IMG_CONV_GROUP`) that makes the layers 1.8's composite made, in its order and with
its rule for per-convolution arguments: `paddle.static.nn.conv2d` (1.8's signature, `act` included), with
batch norm `paddle.static.nn.batch_norm` carrying the activation and a dropout in 1.8's default mode
(`downscale_in_infer`) where the rate is not 0, then max or average pooling with 1.8's stride and no
padding. The same operators and parameter names give the same numbers (checked on 1.8.5 and on 3.3.1
under the legacy IR: fixtures/legacy/img_conv_group_static.py). The shim runs the same function.
"""
from __future__ import annotations

import libcst as cst

from api_mapping.kernels import IMG_CONV_GROUP
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register


@register("img_conv_group")
def img_conv_group(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("input", "conv_num_filter", "pool_size"):
        emit.required(node, arg)
    emit.report_warning(ctx, site)
    return module_definitions.call_definition(ctx, site, node, "img_conv_group", IMG_CONV_GROUP)
