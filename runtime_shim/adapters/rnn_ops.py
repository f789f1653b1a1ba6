"""`fluid.layers.dynamic_lstm`, `dynamic_gru`, `gru_unit` and `lstm_unit`: 1.8 RNN layers and their operators.

Each 1.8 layer created its parameters with a `LayerHelper` and appended one operator (`lstm`, `gru`,
`gru_unit`). Paddle 3.3.1 still registers the three, with the 1.8 inputs, outputs and attributes, and
its `LayerHelper` creates parameters the way 1.8's did (same names, `<layer>_N.w_0` / `.b_0`, Xavier
weights and zero biases unless an attribute says otherwise). So each adapter is the 1.8 function:
the 1.8 checks, the 1.8 parameter shapes, the 1.8 operator. The 1.8 weight layouts (the gate order,
`gru_unit`'s `[D, 3D]` weight read as two row-major blocks, api_mapping/SEMANTICS.md 26) come with
the operators' kernels, which are the 1.8 kernels.

`dynamic_lstm`/`dynamic_gru` read the LoD of their input, as in 1.8; 1.8 refused them in dygraph, and
so does this. `gru_unit` ran in both modes in 1.8 (a new parameter per call in dygraph, as here).
`lstm_unit`'s operator is gone: its kernel's few lines are composed from elementwise operators.
"""
from __future__ import annotations

import inspect
from typing import Any, Optional, Tuple

from runtime_shim import mode
from runtime_shim.adapters import adapter
from runtime_shim.adapters.sequence_lod import require_legacy_static
from runtime_shim.static_ops import append_op, run_op

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

    require_legacy_static("paddle.fluid.layers.dynamic_lstm",
                          "please use lstm instead of dynamic_lstm in dygraph mode!")
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
        outputs=("Hidden", "ResetHiddenPrev", "Gate"), helper=helper)
    return updated, reset_hidden_prev, gate


@adapter("paddle.fluid.layers.lstm_unit",
         "paddle.nn.LSTMCell(input_size, hidden_size) (separate input/hidden weights, no forget_bias)")
def lstm_unit(x_t: Any, hidden_t_prev: Any, cell_t_prev: Any, forget_bias: float = 0.0, param_attr: Any = None,
              bias_attr: Any = None, name: Optional[str] = None) -> Tuple[Any, Any]:
    """1.8 `layers.lstm_unit` (`layers/rnn.py:3061`): one LSTM step, `(h, c)`.

    `fc(concat([x_t, hidden_t_prev], 1), 4D)` (parameters `fc_N.w_0`/`.b_0`, a bias unless
    `bias_attr` is False), then op `lstm_unit`, gone in 3.3.1, composed here from its kernel: the
    four `[N, D]` blocks are the input, forget, output and candidate gates,
    `c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g)`, `h = sigmoid(o) * tanh(c)`.
    Built in static programs only, as the shim serves it.
    """
    import paddle
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.lstm_unit",
                          "the runtime shim serves this 1.8 layer in static programs only")
    for value, label in ((x_t, "x_t"), (hidden_t_prev, "hidden_t_prev"), (cell_t_prev, "cell_t_prev")):
        check_variable_and_dtype(value, label, ["float32", "float64"], "lstm_unit")
        if len(value.shape) != 2:
            raise ValueError(f"Rank of {label} must be 2.")
    if x_t.shape[0] != hidden_t_prev.shape[0] or x_t.shape[0] != cell_t_prev.shape[0]:
        raise ValueError("The 1st dimensions of x_t, hidden_t_prev and cell_t_prev must be the same.")
    if hidden_t_prev.shape[1] != cell_t_prev.shape[1]:
        raise ValueError("The 2nd dimensions of hidden_t_prev and cell_t_prev must be the same.")
    if bias_attr is None:
        bias_attr = paddle.ParamAttr()
    size = cell_t_prev.shape[1]
    joined = append_op("concat", {"X": [x_t, hidden_t_prev]}, {"axis": 1})
    gates = inspect.unwrap(paddle.static.nn.fc)(joined, size=4 * size, weight_attr=param_attr, bias_attr=bias_attr)

    def block(k: int) -> Any:
        return append_op("slice", {"Input": gates}, {"axes": [1], "starts": [k * size], "ends": [(k + 1) * size],
                                                     "decrease_axis": []})

    forget = append_op("scale", {"X": block(1)}, {"scale": 1.0, "bias": float(forget_bias), "bias_after_scale": True})
    i, f, o = (append_op("sigmoid", {"X": gate}) for gate in (block(0), forget, block(2)))
    candidate = append_op("tanh", {"X": block(3)})
    c = append_op("elementwise_add", {"X": append_op("elementwise_mul", {"X": f, "Y": cell_t_prev}, {"axis": -1}),
                                      "Y": append_op("elementwise_mul", {"X": i, "Y": candidate}, {"axis": -1})},
                  {"axis": -1})
    h = append_op("elementwise_mul", {"X": o, "Y": append_op("tanh", {"X": c})}, {"axis": -1})
    return h, c
