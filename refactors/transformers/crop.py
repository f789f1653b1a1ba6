"""`fluid.layers.crop(x, shape=y)`: 1.8 read a Variable `shape` as the tensor whose shape to crop to.

1.8.5 `layers/nn.py:9970` passes a Variable `shape` as the reference input `Y` of op `crop`; 2.x
`paddle.crop` reads a tensor `shape` as the values of the shape. So a `shape` the file shows to be a
paddle result (refactors.warning_evidence.argument_kind) becomes `paddle.shape(y)`; a literal or a
display converts as it is (both read a list or tuple alike, -1 included: checked on 1.8.5 and 3.3.1,
fixtures/legacy/crop_reference_static.py). When the file does not show which, the call is left to the
rename step, which reports the table's warning on `shape`.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site
from refactors.transformers import emit, register
from refactors.warning_evidence import NUMPY, TENSOR, argument_kind


@register("crop_reference")
def crop_reference(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    shape = call_args.get(node, "shape")
    kind = NUMPY if shape is None else argument_kind(ctx, site, "shape")
    if kind == TENSOR:
        node = call_args.set_value(node, "shape", emit.call(ctx, site, "paddle.shape", shape.value))
    elif kind != NUMPY:
        return node
    return emit.converted(site, emit.finish(ctx, site, node))
