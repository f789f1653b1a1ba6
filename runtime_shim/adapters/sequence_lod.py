"""`fluid.layers` sequence (LoD) layers and `fluid.nets.sequence_conv_pool`, served in legacy-IR programs.

1.8's `sequence_*` layers (`layers/sequence_lod.py`) were static-graph only. Paddle 3.3.1 still runs
LoD tensors in legacy-IR programs, which are what the shim builds. Three kinds of adapter live here:

- the layer's 1.8 operator is still registered and 3.3.1's `paddle.static.nn.sequence_*` appends it
  with the attributes 1.8.5 set (`sequence_pool`, `sequence_conv`, `sequence_softmax`,
  `sequence_expand`; `sequence_first_step`/`sequence_last_step` through `sequence_pool`): the adapter
  keeps the 1.8 signature and the 1.8 build-time checks, then delegates;
- the operator is still registered but no 2.x function appends it (`lod_reset`, `lod_append`): the
  adapter appends it as 1.8 did;
- the operator is gone (`sequence_unpad`, `sequence_pad`, `sequence_reshape`): the adapter composes it
  from operators 3.3.1 still has, giving the 1.8 values and the 1.8 LoD.

Every one refuses dygraph with 1.8's AssertionError. The upgrader converts the delegated ones to
`paddle.static.nn.sequence_*` (the upgraded static file selects the legacy IR; under PIR 3.3.1's
sequence layers refuse to build) and leaves the others, which this module serves.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

from runtime_shim import mode
from runtime_shim.adapters import adapter
from runtime_shim.static_ops import append_op

# 1.8's message for every sequence layer called in dygraph (`layers/sequence_lod.py:1041`).
DYGRAPH_MESSAGE = "sequence layer is not supported in dygraph mode yet."


def require_legacy_static(api: str, dygraph_message: str = DYGRAPH_MESSAGE) -> None:
    """1.8's `assert not in_dygraph_mode()` (or, for a layer 1.8 did not guard so, the shim's own
    refusal); PIR programs cannot hold LoD at all."""
    assert not mode.in_dygraph(), dygraph_message
    if not mode.in_legacy_static():
        raise RuntimeError(f"{api} builds LoD tensors, which only legacy-IR programs hold on Paddle 3.x: "
                           "set FLAGS_enable_pir_api=0 (the runtime shim does so when installed)")


def _fill_int64(value: int) -> Any:
    """A `[1]` int64 tensor holding `value`."""
    import paddle
    from paddle.base.layer_helper import LayerHelper

    helper = LayerHelper("fill_constant")
    out = helper.create_variable_for_type_inference(dtype=paddle.int64)
    helper.append_op(type="fill_constant", outputs={"Out": out},
                     attrs={"shape": [1], "dtype": out.dtype, "value": float(value)})
    out.stop_gradient = True
    return out


def lod_offsets(length: Any) -> Any:
    """LoD level-0 offsets `[0, l0, l0 + l1, ...]` as int32, the form `lod_reset` reads from input Y."""
    import paddle

    total = append_op("cumsum", {"X": length}, {"axis": 0, "exclusive": False, "reverse": False,
                                                 "flatten": False})
    offsets = append_op("concat", {"X": [_fill_int64(0), total]}, {"axis": 0}, dtype=paddle.int64)
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

    require_legacy_static("paddle.fluid.layers.sequence_unpad")
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
    return append_op("lod_reset", {"X": rows, "Y": lod_offsets(length)}, {"target_lod": [], "append": False})


def _static_nn(name: str) -> Callable[..., Any]:
    """3.3.1's `paddle.static.nn.<name>` without its `@deprecated` wrapper.

    The wrapper only adds a VisibleDeprecationWarning about PIR at every call; the shim already warns
    once per legacy API, naming the 2.x replacement.
    """
    import paddle

    return inspect.unwrap(getattr(paddle.static.nn, name))


# Replacement named in the shim's warning for the pooling family.
_POOL_REPLACEMENT = ("padded tensors with a length mask (paddle.nn.functional.sequence_mask) reduced over time; "
                     "paddle.static.nn.sequence_pool only in legacy-IR programs")


@adapter("paddle.fluid.layers.sequence_pool", _POOL_REPLACEMENT)
def sequence_pool(input: Any, pool_type: str, is_test: bool = False, pad_value: float = 0.0) -> Any:
    """1.8 `layers.sequence_pool` (`layers/sequence_lod.py:257`, op `sequence_pool`).

    Pools each sequence of the last LoD level: `sum`, `average`, `sqrt` (sum / sqrt(length)), `max`,
    `first`, `last`; an empty sequence gives `pad_value`. 3.3.1's `paddle.static.nn.sequence_pool`
    appends the same op with the same attributes (`pooltype` upper-cased, `is_test`, `pad_value`)
    and stops the gradient of `MaxIndex` for `max`, as 1.8.5 did (`sequence_lod.py:349-363`).

    1.8.5 accepted float32 only (`sequence_lod.py:343`, though its docstring says float64 too);
    3.3.1 also takes float64, so the 1.8 check comes first. `is_test` is passed on, but 3.3.1 made it
    an extra attribute of this op that its attribute check resets to False; in 1.8 it only spared the
    CPU kernel recording `MaxIndex` for `max`, so the pooled values are the same.
    """
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.sequence_pool")
    check_variable_and_dtype(input, "input", ["float32"], "sequence_pool")
    return _static_nn("sequence_pool")(input, pool_type, is_test=is_test, pad_value=pad_value)


@adapter("paddle.fluid.layers.sequence_first_step", _POOL_REPLACEMENT)
def sequence_first_step(input: Any) -> Any:
    """1.8 `layers.sequence_first_step` (`layers/sequence_lod.py:431`): `sequence_pool(input, "first")`.

    Its own check admits float64, which 1.8's `sequence_pool` then refused; so does this.
    """
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.sequence_first_step")
    check_variable_and_dtype(input, "input", ["float32", "float64"], "sequence_first_step")
    return sequence_pool(input=input, pool_type="first")


@adapter("paddle.fluid.layers.sequence_last_step", _POOL_REPLACEMENT)
def sequence_last_step(input: Any) -> Any:
    """1.8 `layers.sequence_last_step` (`layers/sequence_lod.py:485`): `sequence_pool(input, "last")`."""
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.sequence_last_step")
    check_variable_and_dtype(input, "input", ["float32", "float64"], "sequence_last_step")
    return sequence_pool(input=input, pool_type="last")


@adapter("paddle.fluid.layers.sequence_softmax",
         "paddle.nn.functional.softmax over padded tensors with masked steps; "
         "paddle.static.nn.sequence_softmax only in legacy-IR programs")
def sequence_softmax(input: Any, use_cudnn: bool = False, name: Optional[str] = None) -> Any:
    """1.8 `layers.sequence_softmax` (`layers/sequence_lod.py:175`, op `sequence_softmax`).

    Softmax within each sequence of an `[N, 1]` or `[N]` input; the output keeps the input's LoD.
    3.3.1's `paddle.static.nn.sequence_softmax` appends the same op with the same `use_cudnn`.
    """
    require_legacy_static("paddle.fluid.layers.sequence_softmax")
    return _static_nn("sequence_softmax")(input, use_cudnn=use_cudnn, name=name)


@adapter("paddle.fluid.layers.sequence_conv",
         "paddle.nn.Conv1D over padded tensors (zero the padded steps); "
         "paddle.static.nn.sequence_conv only in legacy-IR programs")
def sequence_conv(input: Any, num_filters: int, filter_size: int = 3, filter_stride: int = 1,
                  padding: bool = True, padding_start: Optional[int] = None, bias_attr: Any = None,
                  param_attr: Any = None, act: Optional[str] = None, name: Optional[str] = None) -> Any:
    """1.8 `layers.sequence_conv` (`layers/sequence_lod.py:44`, op `sequence_conv`).

    Step `t` of a sequence sees its rows `t + padding_start ... t + padding_start + filter_size - 1`
    (zeros outside the sequence), concatenated and multiplied by the `[filter_size * D, num_filters]`
    filter; `padding_start` defaults to `-(filter_size // 2)`, and `padding` was never read. Then a
    bias `[num_filters]` (`elementwise_add`, axis 1) unless `bias_attr` is False, then `act` as its
    own operator. Parameters are named `<name or sequence_conv_N>.w_0` / `.b_0`. 3.3.1's
    `paddle.static.nn.sequence_conv` appends these same operators with the same attributes
    (`contextStride`, `contextStart`, `contextLength`); the op, as in 1.8, runs only with
    `filter_stride` 1.
    """
    require_legacy_static("paddle.fluid.layers.sequence_conv")
    return _static_nn("sequence_conv")(input, num_filters, filter_size=filter_size, filter_stride=filter_stride,
                                       padding=padding, padding_start=padding_start, bias_attr=bias_attr,
                                       param_attr=param_attr, act=act, name=name)


@adapter("paddle.fluid.layers.sequence_expand",
         "paddle.repeat_interleave over padded tensors; "
         "paddle.static.nn.sequence_expand only in legacy-IR programs")
def sequence_expand(x: Any, y: Any, ref_level: int = -1, name: Optional[str] = None) -> Any:
    """1.8 `layers.sequence_expand` (`layers/sequence_lod.py:626`, op `sequence_expand`).

    Sequence `i` of `x` (row `i` when `x` has no LoD) is repeated as many times as `y`'s level
    `ref_level` (-1: its last) has elements in sequence `i`. 3.3.1's `paddle.static.nn.sequence_expand`
    appends the same op with the same `ref_level`, in `x`'s dtype.
    """
    require_legacy_static("paddle.fluid.layers.sequence_expand")
    return _static_nn("sequence_expand")(x, y, ref_level=ref_level, name=name)


@adapter("paddle.fluid.nets.sequence_conv_pool",
         "paddle.nn.Conv1D then a max (or other reduction) over the valid steps of padded tensors")
def sequence_conv_pool(input: Any, num_filters: int, filter_size: int, param_attr: Any = None,
                       act: str = "sigmoid", pool_type: str = "max", bias_attr: Any = None) -> Any:
    """1.8 `nets.sequence_conv_pool` (`nets.py:252`): `sequence_conv` (with `act`) then `sequence_pool`.

    Note the 1.8 default `act="sigmoid"`, applied before pooling.
    """
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.nets.sequence_conv_pool")
    check_variable_and_dtype(input, "input", ["float32", "float64"], "input")
    conv_out = sequence_conv(input=input, num_filters=num_filters, filter_size=filter_size,
                             param_attr=param_attr, bias_attr=bias_attr, act=act)
    return sequence_pool(input=conv_out, pool_type=pool_type)


@adapter("paddle.fluid.layers.lod_reset", "padded tensors with explicit lengths; LoD tensors are gone in 2.x")
def lod_reset(x: Any, y: Any = None, target_lod: Any = None) -> Any:
    """1.8 `layers.lod_reset` (`layers/nn.py:7628`, op `lod_reset`): `x`'s values with a new LoD.

    The LoD is `y`'s when `y` has one, else the offsets `y` holds (int32), else `target_lod` (offsets
    of level 0); neither given is 1.8's ValueError. 3.3.1 registers the same op and kernel. In
    dygraph 1.8.5 failed too (its eager InferVarType refuses the op).
    """
    from paddle.base.data_feeder import check_type, check_variable_and_dtype
    from paddle.base.framework import Variable

    require_legacy_static("paddle.fluid.layers.lod_reset")
    check_variable_and_dtype(x, "x", ["float32", "float64", "int32", "int64"], "lod_reset")
    if y is not None:
        check_type(y, "y", (Variable), "lod_reset")
        return append_op("lod_reset", {"X": x, "Y": y})
    if target_lod is not None:
        return append_op("lod_reset", {"X": x}, {"target_lod": target_lod})
    raise ValueError("y and target_lod should not be both none.")


@adapter("paddle.fluid.layers.lod_append", "padded tensors with explicit lengths; LoD tensors are gone in 2.x")
def lod_append(x: Any, level: Any) -> Any:
    """1.8 `layers.lod_append` (`layers/nn.py:7730`): op `lod_reset` with `append=True`, so `level`
    (offsets, a list or a Variable) becomes a new innermost LoD level of `x`."""
    from collections.abc import Iterable

    from paddle.base.data_feeder import check_variable_and_dtype
    from paddle.base.framework import Variable

    if x is None:
        raise ValueError("Input(x) can't be None.")
    if not isinstance(level, (Iterable, Variable)):
        raise ValueError("Input(level) must be list, tuple or Variable.")
    require_legacy_static("paddle.fluid.layers.lod_append")
    check_variable_and_dtype(x, "x", ["float32", "float64", "int32", "int64"], "lod_append")
    if isinstance(level, Variable):
        return append_op("lod_reset", {"X": x, "Y": level}, {"append": True})
    return append_op("lod_reset", {"X": x}, {"append": True, "target_lod": list(level)})


def _sequence_lengths(x: Any) -> Any:
    """The length of every sequence of `x`'s last LoD level, int64 `[N]`, read at run time: the `sum`
    `sequence_pool` of a column of ones carrying `x`'s LoD (an empty sequence sums to 0)."""
    import paddle

    rows, _ = append_op("reshape2", {"X": x}, {"shape": [0, -1]}, outputs=("Out", "XShape"))
    column = append_op("slice", {"Input": rows}, {"axes": [1], "starts": [0], "ends": [1], "decrease_axis": []})
    ones = append_op("fill_any_like", {"X": column}, {"value": 1.0, "dtype": paddle.float32}, dtype=paddle.float32)
    ones = append_op("lod_reset", {"X": ones, "Y": x}, {"target_lod": [], "append": False})
    counts, _ = append_op("sequence_pool", {"X": ones}, {"pooltype": "SUM", "is_test": True, "pad_value": 0.0},
                          outputs=("Out", "MaxIndex"), dtype=[paddle.float32, paddle.int32])
    counts = append_op("cast", {"X": counts}, {"in_dtype": counts.dtype, "out_dtype": paddle.int64},
                       dtype=paddle.int64)
    lengths, _ = append_op("reshape2", {"X": counts}, {"shape": [-1]}, outputs=("Out", "XShape"))
    lengths.stop_gradient = True
    return lengths


def _step_size(x: Any, api: str) -> int:
    """The number of values in one step of `x` (`prod(x.shape[1:])`), which must be known when built."""
    size = 1
    for dim in x.shape[1:]:
        if dim < 0:
            raise ValueError(f"{api}: the runtime shim needs the step shape of its input when the program is "
                             f"built, got {list(x.shape)}")
        size *= dim
    return size


@adapter("paddle.fluid.layers.sequence_pad",
         "keep the data padded from the reader (paddle.io.DataLoader) with explicit lengths")
def sequence_pad(x: Any, pad_value: Any, maxlen: Optional[int] = None, name: Optional[str] = None) -> Any:
    """1.8 `layers.sequence_pad` (`layers/sequence_lod.py:830`, op `sequence_pad`, gone in 3.3.1).

    Returns `(out, length)`: `out[i, :length[i]]` the steps of sequence `i` of `x`'s LoD, the rest
    `pad_value` (one value, or one step's shape), padded to `maxlen` (default: the longest sequence),
    and `length` int64 `[N]`. Composed: the lengths from the LoD (`_sequence_lengths`), then one
    `gather_nd` from `x`'s steps followed by a row holding `pad_value`, at the index `offset[i] + j`
    for valid steps and that last row elsewhere. Gradients reach `x`; `pad_value` and `length` stop them,
    as in 1.8. A `maxlen` below the longest sequence, which 1.8 refused when run, truncates here.
    """
    import paddle
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.sequence_pad")
    kinds = ["float32", "float64", "int32", "int64"]
    check_variable_and_dtype(x, "x", kinds, "fluid.layers.sequence_pad")
    check_variable_and_dtype(pad_value, "pad_value", kinds, "fluid.layers.sequence_pad")
    pad_value.stop_gradient = True
    step = _step_size(x, "fluid.layers.sequence_pad")
    lengths = _sequence_lengths(x)
    if maxlen is None:
        longest = append_op("reduce_max", {"X": lengths}, {"dim": [0], "keep_dim": True, "reduce_all": True})
    else:
        longest = _fill_int64(maxlen)
    longest = append_op("cast", {"X": longest}, {"in_dtype": longest.dtype, "out_dtype": paddle.int32},
                        dtype=paddle.int32)  # what sequence_mask reads
    valid = append_op("sequence_mask", {"X": lengths, "MaxLenTensor": longest}, {"out_dtype": paddle.int64},
                      outputs=("Y",), dtype=paddle.int64)  # [N, maxlen], 1 at real steps
    total = append_op("cumsum", {"X": lengths}, {"axis": 0, "exclusive": True, "reverse": False, "flatten": False})
    starts, _ = append_op("reshape2", {"X": total}, {"shape": [-1, 1]}, outputs=("Out", "XShape"))
    ones = append_op("fill_any_like", {"X": valid}, {"value": 1.0, "dtype": paddle.int64}, dtype=paddle.int64)
    step_index = append_op("cumsum", {"X": ones}, {"axis": 1, "exclusive": True, "reverse": False,
                                                   "flatten": False})  # j, as [N, maxlen]
    index = append_op("elementwise_add", {"X": step_index, "Y": starts}, {"axis": -1})
    rows, _ = append_op("reshape2", {"X": x}, {"shape": [-1, step]}, outputs=("Out", "XShape"))
    count = append_op("slice", {"Input": append_op("shape", {"Input": rows}, dtype=paddle.int32)},
                      {"axes": [0], "starts": [0], "ends": [1], "decrease_axis": []})
    count = append_op("cast", {"X": count}, {"in_dtype": count.dtype, "out_dtype": paddle.int64}, dtype=paddle.int64)
    # index * valid + count * (1 - valid): the padding row (number `count`) at every padded step.
    padding = append_op("elementwise_mul", {"X": append_op("scale", {"X": valid}, {"scale": -1.0, "bias": 1.0,
                                                                                    "bias_after_scale": True}),
                                            "Y": count}, {"axis": -1})
    index = append_op("elementwise_add", {"X": append_op("elementwise_mul", {"X": index, "Y": valid}, {"axis": -1}),
                                          "Y": padding}, {"axis": -1})
    index.stop_gradient = True
    pad_row, _ = append_op("reshape2", {"X": pad_value}, {"shape": [1, -1]}, outputs=("Out", "XShape"))
    pad_row = append_op("expand_v2", {"X": pad_row}, {"shape": [1, step]})
    table = append_op("concat", {"X": [rows, pad_row]}, {"axis": 0})
    index, _ = append_op("unsqueeze2", {"X": index}, {"axes": [2]}, outputs=("Out", "XShape"))
    out = append_op("gather_nd", {"X": table, "Index": index})  # [N, maxlen, step]
    out, _ = append_op("reshape2", {"X": out}, {"shape": [0, 0] + list(x.shape[1:])}, outputs=("Out", "XShape"))
    return out, lengths


@adapter("paddle.fluid.layers.sequence_reshape", "paddle.reshape of the padded tensor")
def sequence_reshape(input: Any, new_dim: int) -> Any:
    """1.8 `layers.sequence_reshape` (`layers/sequence_lod.py:1074`, op `sequence_reshape`, gone in 3.3.1).

    The `[T, D]` steps read as `[T * D / new_dim, new_dim]`, each sequence keeping its values, so its
    length becomes `length * D / new_dim`. Composed: `reshape2`, then `lod_reset` to the running sum of
    the scaled lengths. 1.8 refused a sequence whose `length * D` is no multiple of `new_dim`; so does
    this: a length rounded down leaves the offsets short of the rows, which `lod_reset` refuses.
    """
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.sequence_reshape")
    check_variable_and_dtype(input, "input", ["float32", "float64", "int32", "int64"],
                             "fluid.layers.sequence_reshape")
    width = _step_size(input, "fluid.layers.sequence_reshape")
    lengths = _sequence_lengths(input)
    values = append_op("scale", {"X": lengths}, {"scale": float(width), "bias": 0.0, "bias_after_scale": True})
    scaled = append_op("elementwise_floordiv", {"X": values, "Y": _fill_int64(new_dim)}, {"axis": -1})
    rows, _ = append_op("reshape2", {"X": input}, {"shape": [-1, new_dim]}, outputs=("Out", "XShape"))
    return append_op("lod_reset", {"X": rows, "Y": lod_offsets(scaled)}, {"target_lod": [], "append": False})
