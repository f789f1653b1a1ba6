"""`fluid.layers.sequence_unpad` under the shim, against NumPy readings of 1.8.5.

1.8.5 (`layers/sequence_lod.py:988`, op `sequence_unpad`): rows `x[i, :length[i]]` concatenated, shape
`[sum(length), ...]` (`[sum(length), 1]` for a 2-D input), LoD `[[0, l0, l0 + l1, ...]]`; dygraph
raises. Every test runs the real Paddle 3.3.1 in a legacy-IR program built through `paddle.fluid`.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

import numpy as np
import pytest

pytestmark = pytest.mark.paddle

runtime_shim = pytest.importorskip("runtime_shim")


@pytest.fixture(scope="module")
def fluid():
    with runtime_shim.installed(warnings="off"):
        import paddle.fluid as fluid

        yield fluid


def run_static(fluid: Any, build: Callable[[], Sequence[Any]], feed: Dict[str, np.ndarray]) -> List[Any]:
    """Build with `build`, run once; fetched values as LoDTensors (values and LoD both readable)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        fetches = list(build())
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        return exe.run(main, feed=feed, fetch_list=fetches, return_numpy=False)


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
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        losses = [float(np.asarray(exe.run(main, feed=feed, fetch_list=[cost])[0]).reshape(())) for _ in range(5)]
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
