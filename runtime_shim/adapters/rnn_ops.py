"""`fluid.layers.dynamic_lstm`, `dynamic_gru` and `gru_unit`: 1.8 RNN layers whose operators 3.3.1 still runs.

Each 1.8 layer created its parameters with a `LayerHelper` and appended one operator (`lstm`, `gru`,
`gru_unit`). Paddle 3.3.1 still registers the three, with the 1.8 inputs, outputs and attributes, and
its `LayerHelper` creates parameters the way 1.8's did (same names, `<layer>_N.w_0` / `.b_0`, Xavier
weights and zero biases unless an attribute says otherwise). So each adapter is the 1.8 function:
the 1.8 checks, the 1.8 parameter shapes, the 1.8 operator. The 1.8 weight layouts (the gate order,
`gru_unit`'s `[D, 3D]` weight read as two row-major blocks, api_mapping/SEMANTICS.md 26) come with
the operators' kernels, which are the 1.8 kernels.

`dynamic_lstm`/`dynamic_gru` read the LoD of their input, as in 1.8; 1.8 refused them in dygraph, and
so does this. `gru_unit` ran in both modes in 1.8 (a new parameter per call in dygraph, as here).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from runtime_shim import mode
from runtime_shim.adapters import adapter
from runtime_shim.adapters.sequence_lod import require_legacy_static
from runtime_shim.static_ops import run_op

# `gru_unit`'s integer codes of its activation attributes (1.8.5 `layers/rnn.py:2798`).
_GRU_UNIT_ACTIVATIONS = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


def _check_state(value: Any, name: str, api: str) -> None:
    from paddle.base.data_feeder import check_type, check_variable_and_dtype
    from paddle.base.framework import Variable

    check_type(value, name, (Variable, type(None)), api)
    if isinstance(value, Variable):
        check_variable_and_dtype(value, name, ["float32", "float64"], api)


def _check_state_shape(state: Any, batch_size: int, size: int, name: str) -> None:
    """1.8's `assert h_0.shape == (batch_size, size)` (shapes were tuples in 1.8, lists in 3.x)."""
    assert tuple(state.shape) == (batch_size, size), f"The shape of {name} should be (batch_size, {size})"


@adapter("paddle.fluid.layers.dynamic_lstm",
         "paddle.nn.LSTM on padded input with sequence_length (other weight layout, no peepholes)")
def dynamic_lstm(input: Any, size: int, h_0: Any = None, c_0: Any = None, param_attr: Any = None,
                 bias_attr: Any = None, use_peepholes: bool = True, is_reverse: bool = False,
                 gate_activation: str = "sigmoid", cell_activation: str = "tanh",
                 candidate_activation: str = "tanh", dtype: str = "float32",
                 name: Optional[str] = None) -> Tuple[Any, Any]:
    """1.8 `layers.dynamic_lstm` (`layers/rnn.py:1938`, op `lstm`): an LSTM over each sequence of the LoD.

    `input` is the `[T, 4D]` projection, `size` is 4D. Weight `[D, 4D]`, bias `[1, 7D]` with peepholes
    (`[1, 4D]` without); returns `(hidden, cell)`, both `[T, D]` with the input's LoD.
    """
    from paddle.base.data_feeder import check_variable_and_dtype
    from paddle.base.layer_helper import LayerHelper

    require_legacy_static("paddle.fluid.layers.dynamic_lstm", "please use lstm instead of dynamic_lstm in dygraph mode!")
    assert bias_attr is not False, "bias_attr should not be False in dynamic_lstm."
    check_variable_and_dtype(input, "input", ["float32", "float64"], "dynamic_lstm")
    _check_state(h_0, "h_0", "dynamic_lstm")
    _check_state(c_0, "c_0", "dynamic_lstm")

    helper = LayerHelper("lstm", param_attr=param_attr, bias_attr=bias_attr, name=name)
    size = size // 4
    weight = helper.create_parameter(attr=helper.param_attr, shape=[size, 4 * size], dtype=dtype)
    bias = helper.create_parameter(attr=helper.bias_attr, shape=[1, (7 if use_peepholes else 4) * size],
                                   dtype=dtype, is_bias=True)
    inputs = {"Input": input, "Weight": weight, "Bias": bias}
    if h_0 is not None:
        _check_state_shape(h_0, input.shape[0], size, "h0")
        inputs["H0"] = h_0
    if c_0 is not None:
        _check_state_shape(c_0, input.shape[0], size, "c0")
        inputs["C0"] = c_0
    outputs = {slot: helper.create_variable_for_type_inference(dtype)
               for slot in ("Hidden", "Cell", "BatchGate", "BatchCellPreAct")}
    helper.append_op(type="lstm", inputs=inputs, outputs=outputs,
                     attrs={"use_peepholes": use_peepholes, "is_reverse": is_reverse,
                            "gate_activation": gate_activation, "cell_activation": cell_activation,
                            "candidate_activation": candidate_activation})
    return outputs["Hidden"], outputs["Cell"]


@adapter("paddle.fluid.layers.dynamic_gru",
         "paddle.nn.GRU on padded input with sequence_length (other weight layout)")
def dynamic_gru(input: Any, size: int, param_attr: Any = None, bias_attr: Any = None, is_reverse: bool = False,
                gate_activation: str = "sigmoid", candidate_activation: str = "tanh", h_0: Any = None,
                origin_mode: bool = False) -> Any:
    """1.8 `layers.dynamic_gru` (`layers/rnn.py:2509`, op `gru`): a GRU over each sequence of the LoD.

    `input` is the `[T, 3D]` projection, `size` is D (not 3D, unlike `gru_unit`). Weight `[D, 3D]`,
    bias `[1, 3D]`; returns the hidden states `[T, D]` with the input's LoD.
    """
    from paddle.base.data_feeder import check_variable_and_dtype
    from paddle.base.layer_helper import LayerHelper

    require_legacy_static("paddle.fluid.layers.dynamic_gru", "please use gru instead of dynamic_gru in dygraph mode!")
    check_variable_and_dtype(input, "input", ["float32", "float64"], "dynamic_gru")
    _check_state(h_0, "h_0", "dynamic_gru")

    helper = LayerHelper("gru", param_attr=param_attr, bias_attr=bias_attr)
    dtype = input.dtype
    weight = helper.create_parameter(attr=helper.param_attr, shape=[size, 3 * size], dtype=dtype)
    bias = helper.create_parameter(attr=helper.bias_attr, shape=[1, 3 * size], dtype=dtype, is_bias=True)
    inputs = {"Input": input, "Weight": weight, "Bias": bias}
    if h_0 is not None:
        _check_state_shape(h_0, input.shape[0], size, "h0")
        inputs["H0"] = h_0
    outputs = {slot: helper.create_variable_for_type_inference(dtype)
               for slot in ("Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden")}
    helper.append_op(type="gru", inputs=inputs, outputs=outputs,
                     attrs={"is_reverse": is_reverse, "gate_activation": gate_activation,
                            "activation": candidate_activation, "origin_mode": origin_mode})
    return outputs["Hidden"]


@adapter("paddle.fluid.layers.gru_unit",
         "an explicit GRU step (paddle.nn.GRUCell owns its projection and has another weight layout)",
         semantics=(26,))
def gru_unit(input: Any, hidden: Any, size: int, param_attr: Any = None, bias_attr: Any = None,
             activation: str = "tanh", gate_activation: str = "sigmoid",
             origin_mode: bool = False) -> Tuple[Any, Any, Any]:
    """1.8 `layers.gru_unit` (`layers/rnn.py:2671`, op `gru_unit`): one GRU step on a projected input.

    `input` is `[N, 3D]`, `hidden` `[N, D]`, `size` 3D. Weight `[D, 3D]`; bias `[1, 3D]` unless
    `bias_attr` is False. Returns `(hidden, reset_hidden_prev, gate)`. 1.8.5 checked `activation` and
    `gate_activation` against its table, then appended the op with tanh and sigmoid whatever they were
    (`rnn.py:2826`); so does this.
    """
    from paddle.base.data_feeder import check_type, check_variable_and_dtype
    from paddle.base.layer_helper import LayerHelper

    check_variable_and_dtype(input, "input", ["float32", "float64"], "gru_unit")
    check_variable_and_dtype(hidden, "hidden", ["float32", "float64"], "gru_unit")
    check_type(size, "size", (int), "gru_unit")
    for name in (activation, gate_activation):
        if name not in _GRU_UNIT_ACTIVATIONS:
            raise KeyError(name)  # 1.8 looked both up in its table before ignoring them

    helper = LayerHelper("gru_unit", param_attr=param_attr, bias_attr=bias_attr)
    dtype = input.dtype
    size = size // 3
    weight = helper.create_parameter(attr=helper.param_attr, shape=[size, 3 * size], dtype=dtype)
    bias = None
    if helper.bias_attr:
        bias = helper.create_parameter(attr=helper.bias_attr, shape=[1, 3 * size], dtype=dtype, is_bias=True)
    elif mode.in_dygraph():
        import paddle

        # 3.3.1's eager `gru_unit` crashes (SIGSEGV) without its optional Bias; adding zeros is exact.
        bias = paddle.zeros([1, 3 * size], dtype=dtype)
    updated, reset_hidden_prev, gate = run_op(
        "gru_unit", {"Input": input, "HiddenPrev": hidden, "Weight": weight, "Bias": bias},
        {"activation": _GRU_UNIT_ACTIVATIONS["tanh"], "gate_activation": _GRU_UNIT_ACTIVATIONS["sigmoid"],
         "origin_mode": origin_mode},
        outputs=("Hidden", "ResetHiddenPrev", "Gate"))
    return updated, reset_hidden_prev, gate
