"""`fluid.layers` sequence (LoD) functions whose 1.8 operator Paddle 3.3.1 no longer registers.

1.8's `sequence_*` layers (`layers/sequence_lod.py`) were static-graph only. Paddle 3.3.1 still runs
LoD tensors in legacy-IR programs (`lod_reset`, `sequence_pool`, `sequence_conv`, ... are registered),
so an adapter here composes the missing operator from ones it still has, giving the 1.8 values and
the 1.8 LoD, and refuses dygraph as 1.8 did.
"""
from __future__ import annotations

from typing import Any, Optional

from runtime_shim import mode
from runtime_shim.adapters import adapter
from runtime_shim.static_ops import append_op

# 1.8's message for every sequence layer called in dygraph (`layers/sequence_lod.py:1041`).
DYGRAPH_MESSAGE = "sequence layer is not supported in dygraph mode yet."


def _require_legacy_static(api: str) -> None:
    """1.8's `assert not in_dygraph_mode()`; PIR programs cannot hold LoD at all."""
    assert not mode.in_dygraph(), DYGRAPH_MESSAGE
    if not mode.in_legacy_static():
        raise RuntimeError(f"{api} builds LoD tensors, which only legacy-IR programs hold on Paddle 3.x: "
                           "set FLAGS_enable_pir_api=0 (the runtime shim does so when installed)")


def _fill_int64_zero() -> Any:
    """A `[1]` int64 tensor holding 0 (op `fill_constant`, which has no input to take a dtype from)."""
    import paddle
    from paddle.base.layer_helper import LayerHelper

    helper = LayerHelper("fill_constant")
    out = helper.create_variable_for_type_inference(dtype=paddle.int64)
    helper.append_op(type="fill_constant", outputs={"Out": out},
                     attrs={"shape": [1], "dtype": out.dtype, "value": 0.0})
    out.stop_gradient = True
    return out


def _lod_offsets(length: Any) -> Any:
    """LoD level-0 offsets `[0, l0, l0 + l1, ...]` as int32, the form `lod_reset` reads from input Y."""
    import paddle

    total = append_op("cumsum", {"X": length}, {"axis": 0, "exclusive": False, "reverse": False,
                                                 "flatten": False})
    offsets = append_op("concat", {"X": [_fill_int64_zero(), total]}, {"axis": 0}, dtype=paddle.int64)
    return append_op("cast", {"X": offsets}, {"in_dtype": offsets.dtype, "out_dtype": paddle.int32},
                     dtype=paddle.int32)


@adapter("paddle.fluid.layers.sequence_unpad",
         "padded tensors with a length mask (paddle.nn.functional.sequence_mask); LoD tensors are gone in 2.x")
def sequence_unpad(x: Any, length: Any, name: Optional[str] = None) -> Any:
    """1.8 `layers.sequence_unpad` (`layers/sequence_lod.py:988`, op `sequence_unpad`).

    `x` is padded `[batch, max_len, ...]`, `length` int64 `[batch]`. The result holds the rows
    `x[i, :length[i]]` of every `i` in order, shape `[sum(length), ...]` (`[sum(length), 1]` for a 2-D
    `x`), with LoD `[[0, l0, l0 + l1, ...]]`. The op is gone in 3.3.1; the same rows come from
    `gather_nd` at the `where_index` of the `sequence_mask` of `length` (row-major order is sequence
    order), and `lod_reset` sets the LoD from the running sum of `length`. Gradients reach `x` through
    `gather_nd` (zeros at padded steps, as 1.8's `sequence_unpad_grad`).

    A length above `max_len` made 1.8 read past its sequence's rows; here `lod_reset` refuses it
    (its last offset exceeds the rows gathered).
    """
    from paddle.base.data_feeder import check_variable_and_dtype

    _require_legacy_static("paddle.fluid.layers.sequence_unpad")
    check_variable_and_dtype(x, "x", ["float32", "float64", "int32", "int64"], "fluid.layers.sequence_unpad")
    check_variable_and_dtype(length, "length", ["int64"], "fluid.layers.sequence_unpad")
    # The checks 1.8's InferShape made when the op was appended (sequence_unpad_op.cc).
    if len(x.shape) < 2:
        raise ValueError("The rank of Input(X) can't be less than 2.")
    if len(length.shape) != 1:
        raise ValueError("The shape of Input(Length) should be [batch_size].")
    if x.shape[0] >= 0 and length.shape[0] >= 0 and x.shape[0] != length.shape[0]:
        raise ValueError("Input(X) and Input(Length) should have the same first dimension.")

    import paddle

    length.stop_gradient = True  # as 1.8 (`sequence_lod.py:1051`)
    # max_len read at run time: the padded width may be -1 when the program is built.
    shape = append_op("shape", {"Input": x}, dtype=paddle.int32)
    max_len = append_op("slice", {"Input": shape}, {"axes": [0], "starts": [1], "ends": [2],
                                                    "decrease_axis": []})
    valid = append_op("sequence_mask", {"X": length, "MaxLenTensor": max_len}, {"out_dtype": paddle.bool},
                      outputs=("Y",), dtype=paddle.bool)
    positions = append_op("where_index", {"Condition": valid}, dtype=paddle.int64)
    positions.stop_gradient = True
    rows = append_op("gather_nd", {"X": x, "Index": positions})
    if len(x.shape) == 2:
        # 1.8 gave a 2-D input's steps a trailing dimension of 1 (sequence_unpad_op.cc InferShape).
        rows, _ = append_op("reshape2", {"X": rows}, {"shape": [-1, 1]}, outputs=("Out", "XShape"))
    return append_op("lod_reset", {"X": rows, "Y": _lod_offsets(length)}, {"target_lod": [], "append": False})
