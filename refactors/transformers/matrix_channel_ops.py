"""1.8 operators that no 2.x function computes alone, written as a small function of the module
(refactors/transformers/module_definitions.py) that composes them from 2.x functions with 1.8's rule.

- `layers.mul(x, y, x_num_col_dims=1, y_num_col_dims=1)` (`layers/nn.py:13369`, op `mul`) flattens x to a
  matrix at x_num_col_dims and y at y_num_col_dims, multiplies them, and gives the result the shape
  `x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:]`. `paddle.matmul` broadcasts batch dimensions
  instead, so the function flattens, multiplies and reshapes; a size known only at run time (a batch
  dimension of a static program) is read from `paddle.shape` then. The column counts may be any value:
  the function applies 1.8's rule to whatever they are.
- `layers.affine_channel(x, scale, bias, data_layout='NCHW', act=None)` (`layers/nn.py`, op
  `affine_channel`) is `x * scale + bias` per channel: axis 1 of NCHW input of any rank, the last axis of
  NHWC input. `data_layout` must be a literal (1.8 knows these two), `scale` and `bias` given (1.8's op
  requires both), and `act` is applied to the function's result as `layers.<act>` would.

`name` only named the output variable, and is dropped. Both checked on 1.8.5 and 3.3.1 (shapes [N, D] by
[D, E], [B, T, D] by [D, H, K] and [B, T, H, K] by [H, K, D] with B and T unknown; NCHW 4-D and 5-D, NHWC):
fixtures/legacy/matrix_channel_ops_static.py.
"""
from __future__ import annotations


import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, module_definitions, register

MUL = '''\
def {name}(x, y, x_num_col_dims=1, y_num_col_dims=1):
    """1.8's fluid.layers.mul (paddle-upgrade): x flattened to a matrix at x_num_col_dims and y at
    y_num_col_dims, multiplied, and shaped x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:]."""
    x_matrix = {paddle}.flatten({paddle}.flatten(x, start_axis=x_num_col_dims), stop_axis=x_num_col_dims - 1)
    y_matrix = {paddle}.flatten({paddle}.flatten(y, start_axis=y_num_col_dims), stop_axis=y_num_col_dims - 1)
    shape = []
    for tensor, axes in ((x, range(x_num_col_dims)), (y, range(y_num_col_dims, len(y.shape)))):
        for axis in axes:  # a size unknown when a static program is built is read when it runs
            shape.append(tensor.shape[axis] if tensor.shape[axis] >= 0 else {paddle}.shape(tensor)[axis])
    return {paddle}.reshape({paddle}.matmul(x_matrix, y_matrix), shape)
'''

AFFINE_CHANNEL = '''\
def {name}(x, scale, bias, data_layout="NCHW"):
    """1.8's fluid.layers.affine_channel (paddle-upgrade): x * scale + bias for each channel, axis 1 of
    NCHW input of any rank or the last axis of NHWC input."""
    if data_layout == "NCHW":
        shape = [1, -1] + [1] * (len(x.shape) - 2)
        scale, bias = {paddle}.reshape(scale, shape), {paddle}.reshape(bias, shape)
    return x * scale + bias
'''


@register("mul_matrices")
def mul_matrices(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("x", "y"):
        emit.required(node, arg)
    return module_definitions.call_definition_without_name(ctx, site, node, "fluid_mul", MUL)


@register("affine_channel")
def affine_channel(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for arg in ("x", "scale", "bias"):
        if emit.is_literal(ctx, emit.required(node, arg)):
            raise NeedsReview(f"`{arg}` is not a tensor (1.8's op requires one)")
    layout = emit.value_of(ctx, node, "data_layout", "NCHW")
    if layout not in ("NCHW", "NHWC"):
        raise NeedsReview(f"data_layout={layout!r} is not 'NCHW' or 'NHWC'")
    act = call_args.get(node, "act")
    apply = emit.activation(ctx, site, act.value if act is not None else None)
    if act is not None:
        node = call_args.remove(node, "act")
    if layout == "NCHW" and call_args.get(node, "data_layout") is not None:
        node = call_args.remove(node, "data_layout")
    return apply(module_definitions.call_definition_without_name(ctx, site, node, "fluid_affine_channel", AFFINE_CHANNEL))
