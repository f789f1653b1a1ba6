"""`fluid.layers.sequence_unpad` under the shim, against NumPy readings of 1.8.5.

1.8.5 (`layers/sequence_lod.py:988`, op `sequence_unpad`): rows `x[i, :length[i]]` concatenated, shape
`[sum(length), ...]` (`[sum(length), 1]` for a 2-D input), LoD `[[0, l0, l0 + l1, ...]]`; dygraph
raises. Every test runs the real Paddle 3.3.1 in a legacy-IR program built through `paddle.fluid`.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

import numpy as np
import pytest

import shim_support

pytestmark = pytest.mark.paddle



def run_static(fluid: Any, build: Callable[[], Sequence[Any]], feed: Dict[str, np.ndarray]) -> List[Any]:
    """Fetched values as LoDTensors: values and LoD both readable."""
    return shim_support.run_static(fluid, build, feed, return_numpy=False)


def np_unpad(x: np.ndarray, length: np.ndarray) -> np.ndarray:
    rows = np.concatenate([x[i, :n] for i, n in enumerate(length)], axis=0)
    return rows.reshape(-1, 1) if x.ndim == 2 else rows


def np_lod(length: np.ndarray) -> List[List[int]]:
    return [[0] + np.cumsum(length).tolist()]


def unpad_program(fluid: Any, x: np.ndarray, width_known: bool = True) -> Callable[[], Sequence[Any]]:
    def build() -> Sequence[Any]:
        width = x.shape[1] if width_known else None
        xs = fluid.data("x", [None, width] + list(x.shape[2:]), str(x.dtype))
        length = fluid.data("length", [None], "int64")
        return [fluid.layers.sequence_unpad(xs, length)]

    return build


def test_documented_example(fluid):
    """The 1.8.5 docstring's case: lengths [2, 3, 4] of three rows padded to 5."""
    x = np.arange(1, 16, dtype="float32").reshape(3, 5)
    length = np.array([2, 3, 4], dtype="int64")
    out, = run_static(fluid, unpad_program(fluid, x), {"x": x, "length": length})
    np.testing.assert_array_equal(np.array(out), np.array([[1, 2, 6, 7, 8, 11, 12, 13, 14]], "float32").T)
    assert out.lod() == [[0, 2, 5, 9]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("lengths", [[3, 1, 4], [0, 4, 2], [4, 4, 4], [0, 0, 0]],
                         ids=["ragged", "empty-first", "full", "all-empty"])
def test_values_and_lod_of_3d_input(fluid, dtype, lengths):
    x = (np.arange(3 * 4 * 2) + 1).reshape(3, 4, 2).astype(dtype)
    length = np.array(lengths, dtype="int64")
    out, = run_static(fluid, unpad_program(fluid, x), {"x": x, "length": length})
    values = np.array(out)
    assert values.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(values, np_unpad(x, length))
    assert out.lod() == np_lod(length)


def test_padded_width_unknown_when_built(fluid):
    """`max_len` -1 in the program: the width comes from the fed tensor, not the declaration."""
    x = np.random.RandomState(0).rand(2, 6, 3, 2).astype("float32")
    length = np.array([5, 2], dtype="int64")
    out, = run_static(fluid, unpad_program(fluid, x, width_known=False), {"x": x, "length": length})
    np.testing.assert_array_equal(np.array(out), np_unpad(x, length))
    assert out.lod() == [[0, 5, 7]]


def test_compile_time_shape_and_lod_level(fluid):
    """1.8's InferShape: `[-1, 1]` for a 2-D input, `[-1, dims[2:]]` otherwise; an LoD output."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        length = fluid.data("length", [None], "int64")
        flat = fluid.layers.sequence_unpad(fluid.data("a", [None, 7], "float32"), length)
        deep = fluid.layers.sequence_unpad(fluid.data("b", [None, 7, 3, 5], "float32"), length)
    assert list(flat.shape) == [-1, 1] and list(deep.shape) == [-1, 3, 5]
    assert flat.lod_level == 1 and deep.lod_level == 1
    assert length.stop_gradient


def test_alias_serves_the_same_adapter(fluid):
    assert fluid.layers.sequence_lod.sequence_unpad is fluid.layers.sequence_unpad


@pytest.mark.parametrize("pool_type", ["sum", "average", "sqrt", "max", "first", "last"])
def test_lod_drives_the_sequence_pool_that_follows(fluid, pool_type):
    """Paddle 3.3.1's own `sequence_pool` (legacy IR) pools each sequence of the produced LoD."""
    import paddle

    x = np.random.RandomState(1).rand(3, 5, 4).astype("float32")
    length = np.array([2, 5, 3], dtype="int64")
    reduce = {"sum": lambda s: s.sum(0), "average": lambda s: s.mean(0), "sqrt": lambda s: s.sum(0) / np.sqrt(len(s)),
              "max": lambda s: s.max(0), "first": lambda s: s[0], "last": lambda s: s[-1]}[pool_type]
    expected = np.stack([reduce(x[i, :n]) for i, n in enumerate(length)])

    def build() -> Sequence[Any]:
        xs = fluid.data("x", [None, 5, 4], "float32")
        unpadded = fluid.layers.sequence_unpad(xs, fluid.data("length", [None], "int64"))
        return [paddle.static.nn.sequence_pool(unpadded, pool_type)]

    pooled, = run_static(fluid, build, {"x": x, "length": length})
    np.testing.assert_allclose(np.array(pooled), expected, rtol=1e-6)


def test_gradient_reaches_valid_steps_only(fluid):
    """1.8's `sequence_unpad_grad` padded the output gradient with zeros back to `x`'s shape."""
    import paddle

    x = np.random.RandomState(2).rand(3, 4, 2).astype("float32")
    length = np.array([1, 4, 2], dtype="int64")
    weight = np.arange(1, 1 + 7 * 2, dtype="float32").reshape(7, 2)

    def build() -> Sequence[Any]:
        xs = fluid.data("x", [None, 4, 2], "float32")
        xs.stop_gradient = False
        out = fluid.layers.sequence_unpad(xs, fluid.data("length", [None], "int64"))
        loss = paddle.static.nn.sequence_pool(out * fluid.data("w", [None, 2], "float32"), "sum")
        return paddle.static.gradients([loss], [xs])

    grad, = run_static(fluid, build, {"x": x, "length": length, "w": weight})
    expected = np.zeros_like(x)
    expected[np.arange(4)[None, :] < length[:, None]] = weight
    np.testing.assert_array_equal(np.array(grad), expected)


def test_trains_like_the_corpus_text_classifier(fluid):
    """embedding -> sequence_unpad -> sequence_pool -> fc -> SGD, as PaddleNLP's bow_net builds it."""
    import paddle

    rng = np.random.RandomState(3)
    feed = {"words": rng.randint(50, size=(4, 6)).astype("int64"),
            "length": np.array([6, 1, 3, 5], dtype="int64"),
            "label": rng.randint(2, size=(4, 1)).astype("int64")}
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        words = fluid.data("words", [None, 6], "int64")
        emb = fluid.embedding(words, size=[50, 8])
        emb = fluid.layers.sequence_unpad(emb, length=fluid.data("length", [None], "int64"))
        bow = paddle.static.nn.sequence_pool(emb, "sum")
        prediction = fluid.layers.fc(bow, size=2, act="softmax")
        cost = fluid.layers.mean(fluid.layers.cross_entropy(prediction, fluid.data("label", [None, 1], "int64")))
        fluid.optimizer.SGD(learning_rate=0.5).minimize(cost)
    losses = shim_support.train_losses(fluid, main, startup, feed, cost)
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]


def test_dygraph_raises_as_1_8(fluid):
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.ones((2, 3), "float32"))
        length = fluid.dygraph.to_variable(np.array([1, 2], "int64"))
        with pytest.raises(AssertionError, match="sequence layer is not supported in dygraph mode yet"):
            fluid.layers.sequence_unpad(x, length)


def test_rejects_what_1_8_rejected_when_built(fluid):
    def build(x_shape: List[Any], length_shape: List[Any], length_dtype: str = "int64") -> Callable[[], None]:
        def run() -> None:
            main, startup = fluid.Program(), fluid.Program()
            with fluid.program_guard(main, startup), fluid.unique_name.guard():
                fluid.layers.sequence_unpad(fluid.data("x", x_shape, "float32"),
                                            fluid.data("length", length_shape, length_dtype))
        return run

    with pytest.raises(TypeError, match="length"):
        build([None, 4], [None], "int32")()
    with pytest.raises(ValueError, match="rank of Input\\(X\\)"):
        build([None], [None])()
    with pytest.raises(ValueError, match="should be \\[batch_size\\]"):
        build([None, 4], [None, 1])()
    with pytest.raises(ValueError, match="same first dimension"):
        build([3, 4], [2])()


def test_length_beyond_padded_width_is_refused(fluid):
    """1.8 read past the sequence's rows (undefined); the shim's `lod_reset` stops instead."""
    x = np.zeros((2, 3, 2), "float32")
    with pytest.raises(ValueError, match="lod_reset|LoD|lod"):
        run_static(fluid, unpad_program(fluid, x), {"x": x, "length": np.array([1, 4], "int64")})


# ------------------------------------------------------------------------------------------------
# Layers whose 1.8 operator 3.3.1 still registers: sequence_pool, first/last step, softmax, conv,
# expand, and `fluid.nets.sequence_conv_pool`. Inputs are LoDTensors fed with sequence lengths.


def lod_feed(fluid: Any, data: np.ndarray, lengths: List[List[int]]) -> Any:
    return fluid.create_lod_tensor(data, lengths, fluid.CPUPlace())


def np_pool(x: np.ndarray, lengths: Sequence[int], pool_type: str, pad_value: float) -> np.ndarray:
    """1.8.5's `sequence_pool` per its docstring (`layers/sequence_lod.py:268-315`)."""
    reduce = {"sum": lambda s: s.sum(0), "average": lambda s: s.mean(0),
              "sqrt": lambda s: s.sum(0) / np.sqrt(len(s)), "max": lambda s: s.max(0),
              "first": lambda s: s[0], "last": lambda s: s[-1]}[pool_type]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(int)
    rows = [reduce(x[a:b]) if b > a else np.full(x.shape[1:], pad_value, x.dtype)
            for a, b in zip(offsets[:-1], offsets[1:])]
    return np.stack(rows)


POOL_TYPES = ["sum", "average", "sqrt", "max", "first", "last"]


@pytest.mark.parametrize("pool_type", POOL_TYPES)
@pytest.mark.parametrize("lengths,pad_value", [([3, 1, 4], None), ([2, 0, 3, 0], None), ([0, 3, 0], -3.5)],
                         ids=["ragged", "empty-default-pad", "empty-pad-value"])
def test_sequence_pool_values(fluid, pool_type, lengths, pad_value):
    """Every pool type; an empty sequence yields `pad_value` (1.8 default 0.0); the LoD is consumed.

    (1.8's kernel, like 3.3.1's, required at least as many rows as sequences, hence [0, 3, 0].)
    """
    x = np.random.RandomState(4).randn(sum(lengths), 3).astype("float32")

    def build() -> Sequence[Any]:
        xs = fluid.data("x", [None, 3], "float32", lod_level=1)
        if pad_value is None:
            return [fluid.layers.sequence_pool(xs, pool_type)]
        return [fluid.layers.sequence_pool(input=xs, pool_type=pool_type, pad_value=pad_value)]

    out, = run_static(fluid, build, {"x": lod_feed(fluid, x, [lengths])})
    expected = np_pool(x, lengths, pool_type, 0.0 if pad_value is None else pad_value)
    np.testing.assert_allclose(np.array(out), expected, rtol=1e-6, atol=1e-6)
    assert out.lod() == []


def test_sequence_pool_two_level_lod(fluid):
    """1.8.5's docstring case 2: pools the last level, keeps the outer level as the output's LoD."""
    x = np.array([[1.], [3.], [2.], [4.], [6.], [5.], [1.]], "float32")

    def build() -> Sequence[Any]:
        xs = fluid.data("x", [None, 1], "float32", lod_level=2)
        return [fluid.layers.sequence_pool(xs, "sum", pad_value=0.0)]

    out, = run_static(fluid, build, {"x": lod_feed(fluid, x, [[2, 0, 3], [1, 2, 1, 0, 3]])})
    np.testing.assert_array_equal(np.array(out), [[1.], [5.], [4.], [0.], [12.]])
    assert out.lod() == [[0, 2, 2, 5]]


@pytest.mark.parametrize("layer,pool_type", [("sequence_first_step", "first"), ("sequence_last_step", "last")])
def test_first_and_last_step(fluid, layer, pool_type):
    lengths = [2, 4, 1]
    x = np.random.RandomState(5).randn(7, 2).astype("float32")

    def build() -> Sequence[Any]:
        return [getattr(fluid.layers, layer)(fluid.data("x", [None, 2], "float32", lod_level=1))]

    out, = run_static(fluid, build, {"x": lod_feed(fluid, x, [lengths])})
    np.testing.assert_array_equal(np.array(out), np_pool(x, lengths, pool_type, 0.0))
    assert out.lod() == []


@pytest.mark.parametrize("call", [
    lambda fl, x: fl.layers.sequence_pool(x, "sum"),
    lambda fl, x: fl.layers.sequence_first_step(x),
    lambda fl, x: fl.layers.sequence_last_step(x),
], ids=["sequence_pool", "sequence_first_step", "sequence_last_step"])
def test_pooling_refuses_float64_as_1_8(fluid, call):
    """1.8.5's `sequence_pool` checked float32 only (`sequence_lod.py:343`); 3.3.1's also takes float64."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 2], "float64", lod_level=1)
        with pytest.raises(TypeError, match="'input' in sequence_pool must be .*float32"):
            call(fluid, x)


def test_sequence_softmax_documented_example(fluid):
    """1.8.5's docstring case (`layers/sequence_lod.py:196`): softmax within each sequence, LoD kept."""
    x = np.array([0.7, 1, 0.6, 1.5, 1.1, 1.2, 0.2, 0.6, 1.9, 3.1, 2.5, 0.8, 0.1, 2.4, 1.3], "float32")
    lengths = [3, 2, 4, 1, 2, 3]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    expected = np.concatenate([np.exp(x[a:b]) / np.exp(x[a:b]).sum() for a, b in zip(offsets[:-1], offsets[1:])])

    def build() -> Sequence[Any]:
        return [fluid.layers.sequence_softmax(fluid.data("x", [None, 1], "float32", lod_level=1))]

    out, = run_static(fluid, build, {"x": lod_feed(fluid, x.reshape(-1, 1), [lengths])})
    np.testing.assert_allclose(np.array(out).ravel(), expected, rtol=1e-6)
    np.testing.assert_allclose(np.array(out).ravel()[:3], [0.30724832, 0.41474187, 0.2780098], rtol=1e-6)
    assert out.lod() == [offsets.tolist()]


def test_sequence_expand_documented_cases(fluid):
    """1.8.5's docstring cases 1 and 2 (`layers/sequence_lod.py:637-676`).

    Case 2's `x` has no LoD: 1.8's kernel (sequence_expand_op.h) wrote an output LoD only when `x`
    had one, so the repeated rows come back without LoD.
    """
    def build() -> Sequence[Any]:
        x1 = fluid.data("x1", [None, 1], "float32", lod_level=1)
        y1 = fluid.data("y1", [None, 1], "float32", lod_level=2)
        x2 = fluid.data("x2", [None, 1], "int64")
        y2 = fluid.data("y2", [None, 1], "float32", lod_level=1)
        return [fluid.layers.sequence_expand(x=x1, y=y1, ref_level=0), fluid.layers.sequence_expand(x2, y2)]

    feed = {"x1": lod_feed(fluid, np.array([[1.], [2.], [3.], [4.]], "float32"), [[2, 2]]),
            "y1": lod_feed(fluid, np.zeros((8, 1), "float32"), [[2, 2], [3, 3, 1, 1]]),
            "x2": np.array([[1], [2], [3]], "int64"),
            "y2": lod_feed(fluid, np.zeros((5, 1), "float32"), [[2, 0, 3]])}
    case1, case2 = run_static(fluid, build, feed)
    np.testing.assert_array_equal(np.array(case1).ravel(), [1, 2, 1, 2, 3, 4, 3, 4])
    assert case1.lod() == [[0, 2, 4, 6, 8]]
    case2_values = np.array(case2)
    assert case2_values.dtype == np.int64
    np.testing.assert_array_equal(case2_values.ravel(), [1, 1, 3, 3, 3])
    assert case2.lod() == []


def np_sequence_conv(x: np.ndarray, lengths: Sequence[int], weight: np.ndarray, start: int,
                     length: int) -> np.ndarray:
    """1.8's context projection: step t sees rows t+start .. t+start+length-1 of its own sequence."""
    width = x.shape[1]
    rows = []
    offset = 0
    for n in lengths:
        seq = x[offset:offset + n]
        offset += n
        for t in range(n):
            context = np.zeros(length * width, x.dtype)
            for k in range(length):
                if 0 <= t + start + k < n:  # zeros outside the sequence (padding not trainable)
                    context[k * width:(k + 1) * width] = seq[t + start + k]
            rows.append(context @ weight)
    return np.array(rows, x.dtype).reshape(-1, weight.shape[1])


@pytest.mark.parametrize("filter_size,padding_start,expected_start", [
    (3, None, -1), (4, None, -2), (1, None, 0), (2, 0, 0), (3, -3, -3), (2, 1, 1),
], ids=["default-3", "default-4", "default-1", "start-0", "start-minus-3", "start-plus-1"])
def test_sequence_conv_against_numpy(fluid, filter_size, padding_start, expected_start):
    """Fixed weights and bias; 1.8 `padding_start` default `-(filter_size // 2)`; `act` after the bias."""
    rng = np.random.RandomState(6)
    lengths = [4, 1, 2, 5]
    x = rng.randn(sum(lengths), 3).astype("float32")
    weight = rng.randn(filter_size * 3, 2).astype("float32")
    bias = np.array([0.25, -0.5], "float32")

    def build() -> Sequence[Any]:
        init = fluid.initializer.NumpyArrayInitializer
        xs = fluid.data("x", [None, 3], "float32", lod_level=1)
        out = fluid.layers.sequence_conv(xs, 2, filter_size=filter_size, padding_start=padding_start,
                                         param_attr=fluid.ParamAttr(initializer=init(weight)),
                                         bias_attr=fluid.ParamAttr(initializer=init(bias)), act="tanh")
        return [out]

    out, = run_static(fluid, build, {"x": lod_feed(fluid, x, [lengths])})
    expected = np.tanh(np_sequence_conv(x, lengths, weight, expected_start, filter_size) + bias)
    np.testing.assert_allclose(np.array(out), expected, rtol=1e-5, atol=1e-6)
    assert out.lod() == [[0, 4, 5, 7, 12]]


def test_sequence_conv_without_bias_or_act(fluid):
    rng = np.random.RandomState(7)
    lengths = [3, 2]
    x = rng.randn(5, 2).astype("float32")
    weight = rng.randn(6, 4).astype("float32")

    def build() -> Sequence[Any]:
        xs = fluid.data("x", [None, 2], "float32", lod_level=1)
        attr = fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(weight))
        return [fluid.layers.sequence_conv(xs, 4, param_attr=attr, bias_attr=False)]

    out, = run_static(fluid, build, {"x": lod_feed(fluid, x, [lengths])})
    np.testing.assert_allclose(np.array(out), np_sequence_conv(x, lengths, weight, -1, 3), rtol=1e-5, atol=1e-6)


def appended_ops(fluid: Any, build: Callable[[Any], Any]) -> List[Any]:
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        build(fluid.data("x", [None, 4], "float32", lod_level=1))
    return [op for op in main.global_block().ops]


def op_summary(op: Any, attrs: Sequence[str]) -> Any:
    return op.type, {a: op.attr(a) for a in attrs}, sorted(op.input_names), sorted(op.output_names)


# What 1.8.5's code appends for each call (op type, the attributes it sets, input and output slots),
# read from `layers/sequence_lod.py` and `layer_helper.py` (append_bias_op axis 1, activation op).
APPENDED_BY_1_8 = {
    # `is_test` is left out here: see test_sequence_pool_is_test_changes_no_value.
    "sequence_pool": (lambda fl, x: fl.layers.sequence_pool(x, "max", True, 2.5), [
        ("sequence_pool", {"pooltype": "MAX", "pad_value": 2.5}, ["X"], ["MaxIndex", "Out"])]),
    "sequence_pool_defaults": (lambda fl, x: fl.layers.sequence_pool(x, "average"), [
        ("sequence_pool", {"pooltype": "AVERAGE", "is_test": False, "pad_value": 0.0}, ["X"], ["MaxIndex", "Out"])]),
    "sequence_first_step": (lambda fl, x: fl.layers.sequence_first_step(x), [
        ("sequence_pool", {"pooltype": "FIRST", "is_test": False, "pad_value": 0.0}, ["X"], ["MaxIndex", "Out"])]),
    "sequence_last_step": (lambda fl, x: fl.layers.sequence_last_step(x), [
        ("sequence_pool", {"pooltype": "LAST", "is_test": False, "pad_value": 0.0}, ["X"], ["MaxIndex", "Out"])]),
    "sequence_softmax": (lambda fl, x: fl.layers.sequence_softmax(x, use_cudnn=False), [
        ("sequence_softmax", {"use_cudnn": False}, ["X"], ["Out"])]),
    "sequence_expand": (lambda fl, x: fl.layers.sequence_expand(x, x, ref_level=0), [
        ("sequence_expand", {"ref_level": 0}, ["X", "Y"], ["Out"])]),
    "sequence_conv": (lambda fl, x: fl.layers.sequence_conv(x, 5, filter_size=4, act="relu"), [
        ("sequence_conv", {"contextStride": 1, "contextStart": -2, "contextLength": 4},
         ["Filter", "PaddingData", "X"], ["Out"]),
        ("elementwise_add", {"axis": 1}, ["X", "Y"], ["Out"]),
        ("relu", {}, ["X"], ["Out"])]),
    "sequence_conv_pool": (lambda fl, x: fl.nets.sequence_conv_pool(x, 6, 3), [
        ("sequence_conv", {"contextStride": 1, "contextStart": -1, "contextLength": 3},
         ["Filter", "PaddingData", "X"], ["Out"]),
        ("elementwise_add", {"axis": 1}, ["X", "Y"], ["Out"]),
        ("sigmoid", {}, ["X"], ["Out"]),
        ("sequence_pool", {"pooltype": "MAX", "is_test": False, "pad_value": 0.0}, ["X"], ["MaxIndex", "Out"])]),
}


@pytest.mark.parametrize("case", sorted(APPENDED_BY_1_8))
def test_appends_the_1_8_operators(fluid, case):
    build, expected = APPENDED_BY_1_8[case]
    ops = appended_ops(fluid, lambda x: build(fluid, x))
    assert [op_summary(op, attrs) for op, (_, attrs, _, _) in zip(ops, expected)] == expected
    assert len(ops) == len(expected)


def test_max_index_gradient_stopped_for_max_only(fluid):
    """1.8.5 `sequence_lod.py:362`: `MaxIndex` of a max pool has `stop_gradient`."""
    def build(x: Any) -> None:
        x.stop_gradient = False  # as an embedding's output; 3.3.1 passes a stopped input's flag on
        fluid.layers.sequence_pool(x, "max")
        fluid.layers.sequence_pool(x, "sum")

    ops = appended_ops(fluid, build)
    block = ops[0].block
    max_index = [block.var(op.output("MaxIndex")[0]) for op in ops]
    assert [v.stop_gradient for v in max_index] == [True, False]


def test_sequence_pool_is_test_changes_no_value(fluid):
    """`is_test=True` reaches the op, but 3.3.1 declares it an extra attribute of `sequence_pool` and its
    attribute check puts the default (False) back. In 1.8 it only spared the CPU kernel recording
    `MaxIndex` for a max pool: the pooled values are the same either way.
    """
    lengths = [2, 3]
    x = np.random.RandomState(10).randn(5, 2).astype("float32")

    def build() -> Sequence[Any]:
        xs = fluid.data("x", [None, 2], "float32", lod_level=1)
        return [fluid.layers.sequence_pool(xs, "max", is_test=flag) for flag in (True, False)]

    test_mode, train_mode = run_static(fluid, build, {"x": lod_feed(fluid, x, [lengths])})
    np.testing.assert_array_equal(np.array(test_mode), np_pool(x, lengths, "max", 0.0))
    np.testing.assert_array_equal(np.array(test_mode), np.array(train_mode))


def test_sequence_conv_parameters_as_1_8(fluid):
    """Shapes `[filter_size * D, num_filters]` and `[num_filters]`, named after the layer (or `name`)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 4], "float32", lod_level=1)
        fluid.layers.sequence_conv(x, 5)
        fluid.layers.sequence_conv(x, 3, filter_size=2, bias_attr=False, name="ctx")
        fluid.layers.sequence_conv(x, 2, param_attr=fluid.ParamAttr(name="my_w"))
    params = {p.name: list(p.shape) for p in main.all_parameters()}
    assert params == {"sequence_conv_0.w_0": [12, 5], "sequence_conv_0.b_0": [5], "ctx.w_0": [8, 3],
                      "my_w": [12, 2], "sequence_conv_1.b_0": [2]}


def test_sequence_conv_stride_other_than_one_is_refused(fluid):
    """1.8's op accepted `contextStride` 1 only, checked when the op was appended."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 4], "float32", lod_level=1)
        with pytest.raises(ValueError, match="contextStride"):
            fluid.layers.sequence_conv(x, 2, filter_stride=2)


@pytest.mark.parametrize("act,pool_type", [(None, "max"), ("tanh", "average")], ids=["defaults", "tanh-average"])
def test_sequence_conv_pool_end_to_end(fluid, act, pool_type):
    """`nets.sequence_conv_pool`: conv with bias, `act` (1.8 default sigmoid), then a pool per sequence."""
    rng = np.random.RandomState(8)
    lengths = [3, 1, 5]
    x = rng.randn(9, 4).astype("float32")
    weight = rng.randn(12, 3).astype("float32")
    bias = np.array([0.1, -0.2, 0.3], "float32")

    def build() -> Sequence[Any]:
        init = fluid.initializer.NumpyArrayInitializer
        xs = fluid.data("x", [None, 4], "float32", lod_level=1)
        kwargs = {} if act is None else {"act": act, "pool_type": pool_type}
        return [fluid.nets.sequence_conv_pool(xs, 3, 3, param_attr=fluid.ParamAttr(initializer=init(weight)),
                                              bias_attr=fluid.ParamAttr(initializer=init(bias)), **kwargs)]

    out, = run_static(fluid, build, {"x": lod_feed(fluid, x, [lengths])})
    activate = (lambda v: 1 / (1 + np.exp(-v))) if act is None else np.tanh
    conv = activate(np_sequence_conv(x, lengths, weight, -1, 3) + bias)
    np.testing.assert_allclose(np.array(out), np_pool(conv, lengths, pool_type, 0.0), rtol=1e-5, atol=1e-6)


def test_sequence_conv_pool_trains_like_the_corpus_cnn(fluid):
    """PaddleRec text_classification's cnn_net: embedding -> sequence_unpad -> sequence_conv_pool -> fc."""
    rng = np.random.RandomState(9)
    feed = {"words": rng.randint(30, size=(6, 5)).astype("int64"),
            "length": np.array([5, 1, 3, 4, 2, 5], dtype="int64"),
            "label": rng.randint(2, size=(6, 1)).astype("int64")}
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        emb = fluid.embedding(fluid.data("words", [None, 5], "int64"), size=[30, 8])
        emb = fluid.layers.sequence_unpad(emb, length=fluid.data("length", [None], "int64"))
        conv = fluid.nets.sequence_conv_pool(input=emb, num_filters=16, filter_size=3, act="tanh", pool_type="max")
        prediction = fluid.layers.fc(input=[conv], size=2, act="softmax")
        cost = fluid.layers.mean(fluid.layers.cross_entropy(prediction, fluid.data("label", [None, 1], "int64")))
        fluid.optimizer.SGD(learning_rate=0.5).minimize(cost)
    losses = shim_support.train_losses(fluid, main, startup, feed, cost)
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]


def test_delegation_adds_no_paddle_deprecation_warning(fluid):
    """3.3.1's `@deprecated` wrappers would warn at every call; the shim warns once per legacy API itself."""
    import warnings

    from paddle.utils.deprecated import VisibleDeprecationWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        appended_ops(fluid, lambda x: [build(fluid, x) for build, _ in APPENDED_BY_1_8.values()])
    assert not [w for w in caught if issubclass(w.category, VisibleDeprecationWarning)]


@pytest.mark.parametrize("name", ["sequence_pool", "sequence_first_step", "sequence_last_step", "sequence_softmax",
                                  "sequence_conv", "sequence_expand"])
def test_sequence_lod_alias_serves_the_same_adapter(fluid, name):
    assert getattr(fluid.layers.sequence_lod, name) is getattr(fluid.layers, name)


@pytest.mark.parametrize("call", [
    lambda fl, x: fl.layers.sequence_pool(x, "sum"),
    lambda fl, x: fl.layers.sequence_first_step(x),
    lambda fl, x: fl.layers.sequence_last_step(x),
    lambda fl, x: fl.layers.sequence_softmax(x),
    lambda fl, x: fl.layers.sequence_conv(x, 2),
    lambda fl, x: fl.layers.sequence_expand(x, x),
    lambda fl, x: fl.nets.sequence_conv_pool(x, 2, 3),
], ids=["sequence_pool", "sequence_first_step", "sequence_last_step", "sequence_softmax", "sequence_conv",
        "sequence_expand", "sequence_conv_pool"])
def test_every_layer_refuses_dygraph_as_1_8(fluid, call):
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.ones((3, 2), "float32"))
        with pytest.raises(AssertionError, match="sequence layer is not supported in dygraph mode yet"):
            call(fluid, x)
