"""1.8's one-step GRU, `fluid.layers.gru_unit` and `fluid.dygraph.GRUUnit`, written out in the module.

Both take `size = 3 * hidden` and an input already projected to `[N, 3 * hidden]`, and read their
`[hidden, 3 * hidden]` weight as the 1.8 kernel reads its memory: the first `2 * hidden**2` values are
the update|reset matrix, the rest the candidate matrix (api_mapping/SEMANTICS.md 26). `paddle.nn.GRUCell`
owns its projection and has other weights, so a rename cannot carry a trained model; the step is
composed from 2.x operators instead, in a function or class written once per module
(refactors/transformers/module_definitions.py), called with the 1.8 arguments unchanged.

Checked on 1.8.5 (fixtures/legacy/gru_unit_static, gru_unit_dygraph): the static function computed tanh
and sigmoid whatever `activation` and `gate_activation` said, and honoured `origin_mode`; the dygraph
layer honoured both activations and never `origin_mode`. The static function names its parameters
as 1.8's `LayerHelper('gru_unit')` did (`gru_unit_N.w_0`, `.b_0`), so 1.8 checkpoints load by name.
"""
from __future__ import annotations

import libcst as cst

from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import module_definitions, register

GRU_UNIT = '''\
def {name}(input, hidden, size, param_attr=None, bias_attr=None, activation="tanh", gate_activation="sigmoid",
        origin_mode=False):
    """fluid.layers.gru_unit of Paddle 1.8 (paddle-upgrade): one GRU step, returning (hidden, reset_hidden_prev,
    gate). 1.8 applied tanh and sigmoid whatever `activation` and `gate_activation` said."""
    d = size // 3
    prefix = {paddle}.utils.unique_name.generate("gru_unit")

    def named(attr, suffix):  # 1.8's LayerHelper named a parameter <layer>_N.w_0 unless its attribute did
        if attr is None or attr is True or isinstance(attr, str):
            return {paddle}.ParamAttr(name=attr if isinstance(attr, str) else
                                    {paddle}.utils.unique_name.generate(prefix + suffix))
        if attr.name is None:
            attr = {copy}.copy(attr)
            attr.name = {paddle}.utils.unique_name.generate(prefix + suffix)
        return attr

    weight = {paddle}.static.create_parameter([d, 3 * d], input.dtype, attr=named(param_attr, ".w"))
    gate = input
    if bias_attr is not False:
        gate = input + {paddle}.static.create_parameter([1, 3 * d], input.dtype, attr=named(bias_attr, ".b"),
                                                       is_bias=True)
    flat = {paddle}.reshape(weight, [-1])
    update_reset = {paddle}.nn.functional.sigmoid(
        gate[:, :2 * d] + {paddle}.matmul(hidden, {paddle}.reshape(flat[:2 * d * d], [d, 2 * d])))
    u, r = update_reset[:, :d], update_reset[:, d:]
    reset_hidden_prev = r * hidden
    c = {paddle}.tanh(gate[:, 2 * d:] + {paddle}.matmul(reset_hidden_prev, {paddle}.reshape(flat[2 * d * d:], [d, d])))
    h = u * hidden + (1 - u) * c if origin_mode else u * (c - hidden) + hidden
    return h, reset_hidden_prev, {paddle}.concat([update_reset, c], axis=1)
'''

GRU_UNIT_LAYER = '''\
class {name}({paddle}.nn.Layer):
    """fluid.dygraph.GRUUnit of Paddle 1.8 (paddle-upgrade): one GRU step, returning (hidden,
    reset_hidden_prev, gate). 1.8 never applied `origin_mode` here: h = u * (c - h_prev) + h_prev."""

    _activations = {{"identity": lambda x: x, "sigmoid": {paddle}.nn.functional.sigmoid, "tanh": {paddle}.tanh,
                    "relu": {paddle}.nn.functional.relu}}

    def __init__(self, size, param_attr=None, bias_attr=None, activation="tanh", gate_activation="sigmoid",
                 origin_mode=False, dtype="float32"):
        super().__init__()
        self._activation = self._activations[activation]
        self._gate_activation = self._activations[gate_activation]
        self._hidden = d = size // 3
        self.weight = self.create_parameter([d, 3 * d], attr=param_attr, dtype=dtype)
        self.bias = self.create_parameter([1, 3 * d], attr=bias_attr, dtype=dtype, is_bias=True)

    def forward(self, input, hidden):
        d = self._hidden
        flat = {paddle}.reshape(self.weight, [-1])
        gate = input if self.bias is None else input + self.bias
        update_reset = self._gate_activation(
            gate[:, :2 * d] + {paddle}.matmul(hidden, {paddle}.reshape(flat[:2 * d * d], [d, 2 * d])))
        u, r = update_reset[:, :d], update_reset[:, d:]
        reset_hidden_prev = r * hidden
        c = self._activation(
            gate[:, 2 * d:] + {paddle}.matmul(reset_hidden_prev, {paddle}.reshape(flat[2 * d * d:], [d, d])))
        return u * (c - hidden) + hidden, reset_hidden_prev, {paddle}.concat([update_reset, c], axis=1)
'''


@register("gru_unit_function")
def gru_unit_function(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if ctx.in_dygraph_guard(node):
        raise NeedsReview("in a dygraph block 1.8 made new parameters on every call; keep a GRUUnit layer instead")
    return module_definitions.call_definition(ctx, site, node, "gru_unit", GRU_UNIT, stdlib=("copy",))


@register("gru_unit_layer")
def gru_unit_layer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return module_definitions.call_definition(ctx, site, node, "GRUUnit", GRU_UNIT_LAYER)
