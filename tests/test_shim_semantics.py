"""Each api_mapping/SEMANTICS.md entry the shim serves, checked against a NumPy reading of the 1.8 behaviour.

The shim is installed in this process for the module (and removed after it); every test runs the 1.8
API through `paddle.fluid` as served by the shim, in dygraph (inside `fluid.dygraph.guard()`) and/or in
a static legacy-IR program run by `fluid.Executor`. Test names carry the api_mapping/SEMANTICS.md entry number.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Sequence

import numpy as np
import pytest

pytestmark = pytest.mark.paddle

runtime_shim = pytest.importorskip("runtime_shim")

RTOL = 1e-5
ATOL = 1e-6


@pytest.fixture(scope="module", autouse=True)
def fluid():
    with runtime_shim.installed(warnings="off"):
        import paddle.fluid as fluid

        yield fluid


def close(actual: Any, expected: Any) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=RTOL, atol=ATOL)


def run_static(fluid: Any, build: Callable[[], Sequence[Any]], feed: Dict[str, np.ndarray],
               runs: int = 1, program: str = "main") -> List[List[np.ndarray]]:
    """Build a fresh legacy-IR program, run its startup once and the main program `runs` times."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        fetches = list(build())
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        return [exe.run(main, feed=feed, fetch_list=fetches) for _ in range(runs)]


def attr(fluid: Any, value: np.ndarray) -> Any:
    return fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(value))


PROBS = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]], dtype="float32")
LABELS = np.array([[3], [0], [2]], dtype="int64")
LOGITS = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype="float32")


# --------------------------------------------------------------------------------------------------
# H. Execution model (35), names (33), IR (24, 38)


def test_35_static_by_default_and_dygraph_inside_guard(fluid):
    import paddle

    assert not paddle.in_dynamic_mode()
    assert not fluid.in_dygraph_mode()
    with fluid.dygraph.guard(fluid.CPUPlace()):
        assert paddle.in_dynamic_mode()
        assert fluid.dygraph.enabled()
    assert not paddle.in_dynamic_mode()
    fluid.enable_dygraph()
    assert paddle.in_dynamic_mode()
    fluid.disable_dygraph()
    assert not paddle.in_dynamic_mode()


def test_38_the_shim_builds_legacy_ir_programs(fluid):
    import paddle

    assert type(fluid.default_main_program()) is paddle.base.framework.Program
    assert not paddle.base.framework.in_pir_mode()


def test_33_a_new_guard_restarts_parameter_names(fluid):
    names = []
    for _ in range(2):
        with fluid.dygraph.guard():
            layer = fluid.dygraph.Linear(3, 2)
            names.append([p.name for p in layer.parameters()])
    assert names[0] == names[1] == ["linear_0.w_0", "linear_0.b_0"]


def test_38_legacy_ops_for_2x_functions_that_only_accept_pir_values(fluid):
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], dtype="float32")
    y = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]], dtype="float32")

    def build():
        xv = fluid.layers.data("x", [3], dtype="float32")
        yv = fluid.layers.data("y", [3, 2], append_batch_size=False, dtype="float32")
        layers = fluid.layers
        return [layers.sigmoid(xv), layers.tanh(xv), layers.exp(xv), layers.reduce_sum(xv),
                layers.reduce_sum(xv, dim=1, keep_dim=True), layers.matmul(xv, yv), layers.argmax(xv, axis=1),
                layers.elementwise_mul(xv, xv)]

    (sig, tanh, exp, total, rows, prod, arg, mul), = run_static(fluid, build, {"x": x, "y": y})
    close(sig, 1 / (1 + np.exp(-x)))
    close(tanh, np.tanh(x))
    close(exp, np.exp(x))
    assert total.shape == (1,)
    close(total, [x.sum()])
    close(rows, x.sum(axis=1, keepdims=True))
    close(prod, x @ y)
    np.testing.assert_array_equal(arg, x.argmax(axis=1))
    close(mul, x * x)


def test_24_clone_for_test_switches_batch_norm_and_dropout_to_inference(fluid):
    x = np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 1.0]], dtype="float32")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        xv = fluid.layers.data("x", [2], dtype="float32")
        bn = fluid.layers.batch_norm(xv)
        out = fluid.layers.dropout(bn, dropout_prob=0.5)
        test_program = main.clone(for_test=True)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        test_out, = exe.run(test_program, feed={"x": x}, fetch_list=[out])
    # Moving mean 0 and variance 1 at start: batch_norm is x / sqrt(1 + eps); dropout scales by 1 - p.
    close(test_out, x / np.sqrt(1 + 1e-5) * 0.5)


# --------------------------------------------------------------------------------------------------
# A. Losses (1, 2, 3)


def test_1_cross_entropy_takes_probabilities_and_does_not_reduce(fluid):
    expected = -np.log(PROBS[np.arange(3), LABELS[:, 0]])[:, None]
    with fluid.dygraph.guard():
        out = fluid.layers.cross_entropy(fluid.dygraph.to_variable(PROBS), fluid.dygraph.to_variable(LABELS))
        assert list(out.shape) == [3, 1]
        close(out.numpy(), expected)

    def build():
        p = fluid.layers.data("p", [4], dtype="float32")
        label = fluid.layers.data("label", [1], dtype="int64")
        return [fluid.layers.cross_entropy(p, label)]

    (static_out,), = run_static(fluid, build, {"p": PROBS, "label": LABELS})
    assert static_out.shape == (3, 1)
    close(static_out, expected)


def test_2_softmax_with_cross_entropy_returns_per_sample_losses(fluid):
    labels = np.array([[1], [2]], dtype="int64")
    shifted = LOGITS - LOGITS.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    expected = -log_softmax[np.arange(2), labels[:, 0]][:, None]
    with fluid.dygraph.guard():
        out = fluid.layers.softmax_with_cross_entropy(fluid.dygraph.to_variable(LOGITS),
                                                      fluid.dygraph.to_variable(labels))
        assert list(out.shape) == [2, 1]
        close(out.numpy(), expected)


def test_3_square_error_cost_is_elementwise(fluid):
    a = np.array([[1.0], [2.0]], dtype="float32")
    b = np.array([[0.5], [4.0]], dtype="float32")
    with fluid.dygraph.guard():
        out = fluid.layers.square_error_cost(fluid.dygraph.to_variable(a), fluid.dygraph.to_variable(b))
        close(out.numpy(), (a - b) ** 2)


# --------------------------------------------------------------------------------------------------
# B. Shapes (5-13)


def test_5_layers_data_prepends_the_batch_dimension(fluid):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        assert tuple(fluid.layers.data("a", [13]).shape) == (-1, 13)
        assert tuple(fluid.layers.data("b", [None, 13]).shape) == (-1, 13)
        assert tuple(fluid.layers.data("c", [-1, 5]).shape) == (-1, 5)
        assert tuple(fluid.layers.data("d", [2, 3], append_batch_size=False).shape) == (2, 3)
        assert tuple(fluid.data("e", [4, 5]).shape) == (4, 5)
        assert fluid.layers.data("f", [1]).stop_gradient


def test_6_layers_embedding_replaces_the_trailing_1(fluid):
    table = np.arange(12, dtype="float32").reshape(4, 3)
    ids = np.array([[2], [0], [3]], dtype="int64")

    def build():
        v = fluid.layers.data("ids", [1], dtype="int64")
        return [fluid.layers.embedding(v, size=[4, 3], param_attr=attr(fluid, table)),
                fluid.layers.embedding(v, size=[4, 3], padding_idx=-1, param_attr=attr(fluid, table))]

    (out, padded), = run_static(fluid, build, {"ids": ids})
    assert out.shape == (3, 3)
    close(out, table[ids[:, 0]])
    close(padded, np.where(ids == 3, 0.0, table[ids[:, 0]]))


def test_6_dygraph_embedding_appends_a_dimension(fluid):
    table = np.arange(12, dtype="float32").reshape(4, 3)
    ids = np.array([[2, 1], [0, 3]], dtype="int64")
    with fluid.dygraph.guard():
        emb = fluid.dygraph.Embedding(size=[4, 3], param_attr=attr(fluid, table))
        out = emb(fluid.dygraph.to_variable(ids))
        assert list(out.shape) == [2, 2, 3]
        close(out.numpy(), table[ids])


def test_7_one_hot_replaces_the_trailing_1(fluid):
    ids = np.array([[1], [0], [3]], dtype="int64")
    with fluid.dygraph.guard():
        out = fluid.layers.one_hot(fluid.dygraph.to_variable(ids), depth=4)
        assert list(out.shape) == [3, 4]
        close(out.numpy(), np.eye(4)[ids[:, 0]])


def test_8_full_reductions_have_shape_1(fluid):
    x = np.array([[1.0, 2.0], [3.0, 5.0]], dtype="float32")
    with fluid.dygraph.guard():
        v = fluid.dygraph.to_variable(x)
        for out, value in [(fluid.layers.mean(v), x.mean()), (fluid.layers.reduce_sum(v), x.sum()),
                           (fluid.layers.reduce_max(v), x.max()), (fluid.layers.reduce_mean(v), x.mean())]:
            assert list(out.shape) == [1]
            assert out.numpy()[0] == pytest.approx(value)

    def build():
        xv = fluid.layers.data("x", [2], dtype="float32")
        return [fluid.layers.mean(xv)]

    (mean,), = run_static(fluid, build, {"x": x})
    assert mean.shape == (1,)
    assert mean[0] == pytest.approx(x.mean())


def test_9_split_splits_the_last_dimension_by_default(fluid):
    x = np.arange(12, dtype="float32").reshape(2, 6)
    with fluid.dygraph.guard():
        parts = fluid.layers.split(fluid.dygraph.to_variable(x), 3)
        assert [list(p.shape) for p in parts] == [[2, 2]] * 3
        for part, expected in zip(parts, np.split(x, 3, axis=-1)):
            close(part.numpy(), expected)


def test_10_argmax_reduces_axis_0_by_default(fluid):
    x = np.array([[1.0, 9.0, 3.0], [4.0, 2.0, 8.0]], dtype="float32")
    with fluid.dygraph.guard():
        out = fluid.layers.argmax(fluid.dygraph.to_variable(x))
        np.testing.assert_array_equal(out.numpy(), x.argmax(axis=0))


def test_11_argsort_returns_values_and_indices(fluid):
    x = np.array([[3.0, 1.0, 2.0], [0.5, 2.5, 1.5]], dtype="float32")
    with fluid.dygraph.guard():
        values, indices = fluid.layers.argsort(fluid.dygraph.to_variable(x), axis=1, descending=True)
        close(values.numpy(), -np.sort(-x, axis=1))
        np.testing.assert_array_equal(indices.numpy(), np.argsort(-x, axis=1))


def test_12_where_returns_coordinates(fluid):
    cond = np.array([[True, False], [False, True], [True, True]])
    with fluid.dygraph.guard():
        out = fluid.layers.where(fluid.dygraph.to_variable(cond))
        np.testing.assert_array_equal(out.numpy(), np.argwhere(cond))


# --------------------------------------------------------------------------------------------------
# C. Arguments (14-20)


def test_14_fill_constant_positional_order(fluid):
    with fluid.dygraph.guard():
        out = fluid.layers.fill_constant([2, 3], "float32", 1.5)
        close(out.numpy(), np.full((2, 3), 1.5))


def test_15_softmax_second_positional_is_use_cudnn(fluid):
    x = np.array([[1.0, 2.0], [3.0, 0.0]], dtype="float32")
    with fluid.dygraph.guard():
        out = fluid.layers.softmax(fluid.dygraph.to_variable(x), False, None, 0)
    e = np.exp(x - x.max(axis=0))
    close(out.numpy(), e / e.sum(axis=0))


def test_16_elementwise_axis_aligns_y_from_that_dimension(fluid):
    x = np.arange(24, dtype="float32").reshape(2, 3, 2, 2)
    y = np.array([1.0, 10.0, 100.0], dtype="float32")
    with fluid.dygraph.guard():
        xv, yv = fluid.dygraph.to_variable(x), fluid.dygraph.to_variable(y)
        added = fluid.layers.elementwise_add(xv, yv, axis=1)
        multiplied = fluid.layers.elementwise_mul(xv, yv, axis=1, act="relu")
    close(added.numpy(), x + y.reshape(1, 3, 1, 1))
    close(multiplied.numpy(), np.maximum(x * y.reshape(1, 3, 1, 1), 0))

    def build():
        xs = fluid.layers.data("x", [3, 2, 2], dtype="float32")
        ys = fluid.layers.data("y", [3], append_batch_size=False, dtype="float32")
        return [fluid.layers.elementwise_sub(xs, ys, axis=1)]

    (sub,), = run_static(fluid, build, {"x": x, "y": y})
    close(sub, x - y.reshape(1, 3, 1, 1))


def test_17_act_on_layers_and_functions(fluid):
    w = np.array([[0.5, -1.0], [1.0, 0.25], [-0.5, 2.0]], dtype="float32")
    b = np.array([0.1, -0.2], dtype="float32")
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], dtype="float32")
    expected = 1 / (1 + np.exp(-(x @ w + b)))
    with fluid.dygraph.guard():
        linear = fluid.dygraph.Linear(3, 2, param_attr=attr(fluid, w), bias_attr=attr(fluid, b), act="sigmoid")
        close(linear(fluid.dygraph.to_variable(x)).numpy(), expected)

    def build():
        xv = fluid.layers.data("x", [3], dtype="float32")
        return [fluid.layers.fc(xv, 2, param_attr=attr(fluid, w), bias_attr=attr(fluid, b), act="sigmoid")]

    (out,), = run_static(fluid, build, {"x": x})
    close(out, expected)


def test_17_20_conv2d_positional_constructor_and_act(fluid):
    x = np.arange(32, dtype="float32").reshape(1, 2, 4, 4) / 10.0 - 1.0
    w = np.linspace(-1, 1, 2 * 2 * 3 * 3).reshape(2, 2, 3, 3).astype("float32")
    with fluid.dygraph.guard():
        conv = fluid.dygraph.Conv2D(2, 2, 3, 1, 1, 1, None, attr(fluid, w), False, True, "relu")
        out = conv(fluid.dygraph.to_variable(x)).numpy()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    expected = np.zeros((1, 2, 4, 4))
    for o in range(2):
        for i in range(4):
            for j in range(4):
                expected[0, o, i, j] = (padded[0, :, i:i + 3, j:j + 3] * w[o]).sum()
    close(out, np.maximum(expected, 0))


def test_18_matmul_alpha_scales_the_product(fluid):
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32")
    y = np.array([[0.5, 1.0], [-1.0, 2.0]], dtype="float32")
    with fluid.dygraph.guard():
        out = fluid.layers.matmul(fluid.dygraph.to_variable(x), fluid.dygraph.to_variable(y), False, True, 2.5)
        close(out.numpy(), 2.5 * x @ y.T)

    def build():
        xv = fluid.layers.data("x", [2, 2], append_batch_size=False, dtype="float32")
        yv = fluid.layers.data("y", [2, 2], append_batch_size=False, dtype="float32")
        return [fluid.layers.matmul(xv, yv, transpose_x=True, alpha=0.5)]

    (out,), = run_static(fluid, build, {"x": x, "y": y})
    close(out, 0.5 * x.T @ y)


def test_19_reduce_dim_keep_dim_and_axes_arguments(fluid):
    x = np.arange(6, dtype="float32").reshape(2, 3)
    with fluid.dygraph.guard():
        v = fluid.dygraph.to_variable(x)
        close(fluid.layers.reduce_sum(v, dim=1, keep_dim=True).numpy(), x.sum(axis=1, keepdims=True))
        assert list(fluid.layers.unsqueeze(v, axes=[0]).shape) == [1, 2, 3]
        close(fluid.layers.transpose(v, perm=[1, 0]).numpy(), x.T)
        close(fluid.layers.scale(v, scale=2.0, bias=1.0).numpy(), 2 * x + 1)


def test_20_batch_norm_constructor_and_training_statistics(fluid):
    x = np.array([[[[1.0]], [[2.0]]], [[[3.0]], [[6.0]]], [[[5.0]], [[1.0]]]], dtype="float32")  # N=3, C=2
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))  # biased, as the kernel (api_mapping/SEMANTICS.md 25)
    with fluid.dygraph.guard():
        bn = fluid.dygraph.BatchNorm(2, act="relu", is_test=True)  # 1.8 ignores is_test: trains
        out = bn(fluid.dygraph.to_variable(x)).numpy()
        normalised = (x - mean.reshape(1, 2, 1, 1)) / np.sqrt(var.reshape(1, 2, 1, 1) + 1e-5)
        close(out, np.maximum(normalised, 0))
        close(bn._mean.numpy(), 0.1 * mean)  # moving = 0.9 * 0 + 0.1 * batch
        close(bn._variance.numpy(), 0.9 * 1 + 0.1 * var)
        bn.eval()
        evaluated = bn(fluid.dygraph.to_variable(x)).numpy()
        moving = (x - 0.1 * mean.reshape(1, 2, 1, 1)) / np.sqrt((0.9 + 0.1 * var).reshape(1, 2, 1, 1) + 1e-5)
        close(evaluated, np.maximum(moving, 0))


# --------------------------------------------------------------------------------------------------
# D. Pooling and dropout (21-23)


def test_21_pool2d_strides_1_by_default(fluid):
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    windows = np.array([[x[0, 0, i:i + 2, j:j + 2] for j in range(3)] for i in range(3)])
    with fluid.dygraph.guard():
        v = fluid.dygraph.to_variable(x)
        out = fluid.layers.pool2d(v, pool_size=2)
        assert list(out.shape) == [1, 1, 3, 3]
        close(out.numpy()[0, 0], windows.max(axis=(2, 3)))
        avg = fluid.dygraph.Pool2D(pool_size=2, pool_type="avg")(v)
        close(avg.numpy()[0, 0], windows.mean(axis=(2, 3)))
        glob = fluid.layers.pool2d(v, pool_type="avg", global_pooling=True)
        close(glob.numpy(), x.mean(axis=(2, 3), keepdims=True))
        strided = fluid.dygraph.Pool2D(pool_size=2, pool_stride=2)(v)
        close(strided.numpy()[0, 0], x[0, 0].reshape(2, 2, 2, 2).max(axis=(1, 3)))


def test_22_dropout_default_mode_downgrade_in_infer(fluid):
    x = np.arange(1, 41, dtype="float32").reshape(4, 10)

    def build():
        xv = fluid.layers.data("x", [10], dtype="float32")
        return [fluid.layers.dropout(xv, 0.3, is_test=True),
                fluid.layers.dropout(xv, 0.3, is_test=True, dropout_implementation="upscale_in_train"),
                fluid.layers.dropout(xv, 0.5)]

    (infer, upscale, train), = run_static(fluid, build, {"x": x})
    close(infer, x * 0.7)
    close(upscale, x)
    assert np.all((train == 0) | (train == x)), "downgrade_in_infer does not rescale in training"
    assert 0 < np.count_nonzero(train) < x.size


def test_23_dygraph_dropout_follows_the_tracer_not_is_test(fluid):
    x = np.arange(1, 201, dtype="float32").reshape(2, 100)
    with fluid.dygraph.guard():
        v = fluid.dygraph.to_variable(x)
        outside = fluid.layers.dropout(v, 0.5, is_test=True).numpy()
        assert np.all((outside == 0) | (outside == x)) and np.count_nonzero(outside) < x.size
        with fluid.dygraph.no_grad():
            inside = fluid.layers.dropout(v, 0.5, is_test=True).numpy()
        close(inside, x * 0.5)
        layer = fluid.dygraph.Dropout(p=0.25, is_test=True)  # is_test unused: .train()/.eval() decide
        trained = layer(v).numpy()
        assert np.count_nonzero(trained) < x.size
        layer.eval()
        close(layer(v).numpy(), x * 0.75)


# --------------------------------------------------------------------------------------------------
# E. GRUUnit (26)


def _gru_numpy(x: np.ndarray, h: np.ndarray, w: np.ndarray, b: np.ndarray):
    d = h.shape[1]
    flat = w.reshape(-1)
    w_ur, w_c = flat[: 2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
    g = x + b
    ur = 1 / (1 + np.exp(-(g[:, : 2 * d] + h @ w_ur)))
    u, r = ur[:, :d], ur[:, d:]
    c = np.tanh(g[:, 2 * d:] + (r * h) @ w_c)
    return u * (c - h) + h, r * h, np.concatenate([u, r, c], axis=1)


def test_26_gru_unit_reads_its_weight_as_two_row_major_blocks(fluid):
    d = 2
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (3, 3 * d)).astype("float32")
    h = rng.uniform(-1, 1, (3, d)).astype("float32")
    w = rng.uniform(-1, 1, (d, 3 * d)).astype("float32")
    b = rng.uniform(-1, 1, (1, 3 * d)).astype("float32")
    expected = _gru_numpy(x, h, w, b)
    with fluid.dygraph.guard():
        unit = fluid.dygraph.GRUUnit(3 * d, param_attr=attr(fluid, w), bias_attr=attr(fluid, b))
        outs = unit(fluid.dygraph.to_variable(x), fluid.dygraph.to_variable(h))
        for got, want in zip(outs, expected):
            close(got.numpy(), want)
    # The 1.8 kernel itself (legacy op `gru_unit`) agrees with this reading.
    from runtime_shim.static_ops import append_op

    def build():
        xs = fluid.layers.data("x", [3 * d], dtype="float32")
        hs = fluid.layers.data("h", [d], dtype="float32")
        ws = fluid.layers.create_parameter([d, 3 * d], "float32", attr=attr(fluid, w))
        bs = fluid.layers.create_parameter([1, 3 * d], "float32", attr=attr(fluid, b))
        gate, _, hidden = append_op("gru_unit", {"Input": xs, "HiddenPrev": hs, "Weight": ws, "Bias": bs},
                                    {"activation": 2, "gate_activation": 1, "origin_mode": False},
                                    outputs=("Gate", "ResetHiddenPrev", "Hidden"))
        return [hidden]

    (kernel_hidden,), = run_static(fluid, build, {"x": x, "h": h})
    close(kernel_hidden, expected[0])


# --------------------------------------------------------------------------------------------------
# F. Optimizers, schedules, clipping (27-30)


def _linear_grads(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """d mean(x @ w) / dw: every output element weighs 1 / (N * out)."""
    return np.repeat(x.sum(axis=0)[:, None], w.shape[1], axis=1) / (x.shape[0] * w.shape[1])


def test_27_dygraph_optimizer_with_parameter_list_and_l2_regularization(fluid):
    w = np.array([[0.5, -1.0], [1.0, 0.25]], dtype="float32")
    x = np.array([[1.0, 2.0], [3.0, -1.0]], dtype="float32")
    with fluid.dygraph.guard():
        linear = fluid.dygraph.Linear(2, 2, param_attr=attr(fluid, w), bias_attr=False)
        opt = fluid.optimizer.SGD(learning_rate=0.1, parameter_list=linear.parameters(),
                                  regularization=fluid.regularizer.L2Decay(regularization_coeff=0.5))
        loss = fluid.layers.mean(linear(fluid.dygraph.to_variable(x)))
        loss.backward()
        opt.minimize(loss)
        linear.clear_gradients()
        close(linear.weight.numpy(), w - 0.1 * (_linear_grads(x, w) + 0.5 * w))
        with pytest.raises(TypeError):
            fluid.optimizer.SGD(learning_rate=1, parameter_list=linear.parameters())  # 1.8: float only


def test_27_adam_and_momentum_updates(fluid):
    w = np.array([[0.5, -1.0], [1.0, 0.25]], dtype="float32")
    x = np.array([[1.0, 2.0], [3.0, -1.0]], dtype="float32")
    g = _linear_grads(x, w)
    with fluid.dygraph.guard():
        for name in ("Adam", "Momentum"):
            linear = fluid.dygraph.Linear(2, 2, param_attr=attr(fluid, w), bias_attr=False)
            if name == "Adam":
                opt = fluid.optimizer.Adam(learning_rate=0.01, parameter_list=linear.parameters())
            else:
                opt = fluid.optimizer.Momentum(learning_rate=0.01, momentum=0.9,
                                               parameter_list=linear.parameters())
            for _ in range(2):
                loss = fluid.layers.mean(linear(fluid.dygraph.to_variable(x)))
                loss.backward()
                opt.minimize(loss)
                linear.clear_gradients()
            if name == "Adam":
                p, m, v = w.astype("float64"), 0.0, 0.0
                for t in (1, 2):
                    m = 0.9 * m + 0.1 * g
                    v = 0.999 * v + 0.001 * g * g
                    lr_t = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
                    p = p - lr_t * m / (np.sqrt(v) + 1e-8 * np.sqrt(1 - 0.999 ** t))
            else:
                velocity = g
                p = w - 0.01 * g
                velocity = 0.9 * velocity + g
                p = p - 0.01 * velocity
            close(linear.weight.numpy(), p)


def test_28_dygraph_decay_advances_on_every_minimize(fluid):
    w = np.array([[1.0], [2.0]], dtype="float32")
    x = np.array([[1.0, 1.0]], dtype="float32")
    with fluid.dygraph.guard():
        linear = fluid.dygraph.Linear(2, 1, param_attr=attr(fluid, w), bias_attr=False)
        decay = fluid.dygraph.PiecewiseDecay([2], [0.1, 0.01], 0)
        opt = fluid.optimizer.SGD(learning_rate=decay, parameter_list=linear.parameters())
        seen = []
        for _ in range(3):
            loss = fluid.layers.mean(linear(fluid.dygraph.to_variable(x)))
            loss.backward()
            seen.append(opt.current_step_lr())
            opt.minimize(loss)
            linear.clear_gradients()
        # current_step_lr() is the rate the last minimize used (api_mapping/SEMANTICS.md 42, checked on 1.8.5)
        assert seen == pytest.approx([0.1, 0.1, 0.1])
        assert opt.current_step_lr() == pytest.approx(0.01)
        close(linear.weight.numpy(), w - (0.1 + 0.1 + 0.01) * x.T)


def test_28_dygraph_exponential_decay_formula(fluid):
    decay = fluid.dygraph.ExponentialDecay(learning_rate=0.5, decay_steps=4, decay_rate=0.5, staircase=True)
    values = []
    with fluid.dygraph.guard():
        for _ in range(6):
            values.append(float(decay().numpy()[0]))
    assert values == pytest.approx([0.5 * 0.5 ** (s // 4) for s in range(6)])


def test_29_static_decay_counts_runs_from_0(fluid):
    x = np.ones((2, 3), dtype="float32")

    def build():
        xv = fluid.layers.data("x", [3], dtype="float32")
        loss = fluid.layers.mean(fluid.layers.fc(xv, 1))
        lr = fluid.layers.exponential_decay(learning_rate=0.4, decay_steps=2, decay_rate=0.5, staircase=False)
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
        stair = fluid.layers.exponential_decay(0.4, 2, 0.5, staircase=True)
        return [lr, stair]

    runs = run_static(fluid, build, {"x": x}, runs=4)
    close([r[0][0] for r in runs], [0.4 * 0.5 ** (s / 2) for s in range(4)])
    close([r[1][0] for r in runs], [0.4 * 0.5 ** (s // 2) for s in range(4)])


def test_29_static_optimizer_uses_the_decayed_rate(fluid):
    x = np.array([[1.0, 2.0]], dtype="float32")
    w = np.array([[0.5], [0.5]], dtype="float32")

    def build():
        xv = fluid.layers.data("x", [2], dtype="float32")
        out = fluid.layers.fc(xv, 1, param_attr=attr(fluid, w), bias_attr=False)
        loss = fluid.layers.mean(out)
        lr = fluid.layers.piecewise_decay([1], [0.1, 0.01])
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
        return [out]

    runs = run_static(fluid, build, {"x": x}, runs=3)
    # out_k = x @ w_k; w_1 = w - 0.1 x^T, w_2 = w_1 - 0.01 x^T.
    close([r[0][0, 0] for r in runs], [(x @ w)[0, 0], (x @ (w - 0.1 * x.T))[0, 0],
                                       (x @ (w - 0.11 * x.T))[0, 0]])


def test_30_gradient_clip_by_global_norm(fluid):
    w = np.array([[1.0], [2.0]], dtype="float32")
    x = np.array([[3.0, 4.0]], dtype="float32")  # grad of sum(x @ w) is x^T: norm 5
    with fluid.dygraph.guard():
        linear = fluid.dygraph.Linear(2, 1, param_attr=attr(fluid, w), bias_attr=False)
        opt = fluid.optimizer.SGD(learning_rate=1.0, parameter_list=linear.parameters(),
                                  grad_clip=fluid.clip.GradientClipByGlobalNorm(clip_norm=1.0))
        loss = fluid.layers.reduce_sum(linear(fluid.dygraph.to_variable(x)))
        loss.backward()
        opt.minimize(loss)
        close(linear.weight.numpy(), w - x.T / 5.0)


# --------------------------------------------------------------------------------------------------
# G. Checkpoints (32, 34)


def test_32_save_dygraph_suffixes_and_load_dygraph_tuple(fluid, tmp_path):
    prefix = str(tmp_path / "new_dir" / "model")
    with fluid.dygraph.guard():
        linear = fluid.dygraph.Linear(2, 2)
        opt = fluid.optimizer.Adam(learning_rate=0.1, parameter_list=linear.parameters())
        loss = fluid.layers.mean(linear(fluid.dygraph.to_variable(np.ones((1, 2), "float32"))))
        loss.backward()
        opt.minimize(loss)
        fluid.save_dygraph(linear.state_dict(), prefix)
        params, opt_state = fluid.load_dygraph(prefix)
        assert os.path.exists(prefix + ".pdparams") and opt_state is None
        fluid.save_dygraph(opt.state_dict(), prefix)
        assert os.path.exists(prefix + ".pdopt")
        params, opt_state = fluid.load_dygraph(prefix + ".pdparams")
        assert isinstance(params["weight"], np.ndarray)
        close(params["weight"], linear.weight.numpy())
        assert opt_state is not None and any(k.endswith("moment1_0") for k in opt_state)
        fresh = fluid.dygraph.Linear(2, 2)
        fresh.set_dict(params)
        close(fresh.weight.numpy(), linear.weight.numpy())


def test_34_static_persistables_round_trip(fluid, tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        xv = fluid.layers.data("x", [2], dtype="float32")
        out = fluid.layers.fc(xv, 1)
    exe = fluid.Executor(fluid.CPUPlace())
    x = np.array([[1.0, 2.0]], dtype="float32")
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        before, = exe.run(main, feed={"x": x}, fetch_list=[out])
        fluid.io.save_persistables(exe, str(tmp_path / "persist"), main)
        fluid.io.save_inference_model(str(tmp_path / "infer"), ["x"], [out], exe, main_program=main)
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)  # fresh random weights
        fluid.io.load_persistables(exe, str(tmp_path / "persist"), main)
        after, = exe.run(main, feed={"x": x}, fetch_list=[out])
        program, feed_names, fetch_targets = fluid.io.load_inference_model(str(tmp_path / "infer"), exe)
        inferred, = exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch_targets)
    close(after, before)
    close(inferred, before)


# --------------------------------------------------------------------------------------------------
# H / I. Variables (36) and expand (40)


def test_36_to_variable_keeps_values_and_stops_gradient(fluid):
    x = np.array([[1.5, -2.0]], dtype="float32")
    with fluid.dygraph.guard():
        v = fluid.dygraph.to_variable(x)
        close(v.numpy(), x)
        assert v.stop_gradient


def test_40_expand_tiles(fluid):
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype="float32")
    with fluid.dygraph.guard():
        out = fluid.layers.expand(fluid.dygraph.to_variable(x), expand_times=[1, 2])
        close(out.numpy(), np.tile(x, (1, 2)))


def test_a_parallel_executor_shares_the_variables_of_one_the_upgrade_made_an_executor(fluid):
    """Coexistence: `test_exe = fluid.ParallelExecutor(..., share_vars_from=train_exe)` left to the shim while
    the upgrade made `train_exe` a `paddle.static.Executor`; on one device both run in the global scope."""
    import paddle

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[-1, 2], dtype="float32")
        out = fluid.layers.scale(x, scale=3.0)
    train_exe = paddle.static.Executor(paddle.CPUPlace())
    train_exe.run(startup)
    test_exe = fluid.ParallelExecutor(use_cuda=False, main_program=main, share_vars_from=train_exe)
    got, = test_exe.run(fetch_list=[out.name], feed={"x": np.ones([2, 2], dtype="float32")})
    close(got, np.full([2, 2], 3.0))


def test_34_an_inference_model_saved_by_the_upgraded_code_loads_through_the_shim(fluid, tmp_path):
    """Coexistence: the upgrader writes save_inference_model(dir, ..., model_filename='model.pdmodel') as
    paddle.static.save_inference_model(os.path.join(dir, 'model'), ...); a load_inference_model the
    upgrade left (served by the shim) with the same arguments reads those files."""
    import paddle

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[-1, 2], dtype="float32")
        out = fluid.layers.scale(x, scale=2.0, bias=1.0)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    paddle.static.save_inference_model(os.path.join(str(tmp_path), "model"), [x], [out], exe, program=main)
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe, model_filename="model.pdmodel",
                                                                params_filename="params.pdparams")
        got, = exe.run(program, feed={feeds[0]: np.ones([1, 2], dtype="float32")}, fetch_list=fetches)
    close(got, np.full([1, 2], 3.0))


# --------------------------------------------------------------------------------------------------
# I. Operators between static Variables (54)

BOXES = (np.arange(48, dtype="float32").reshape(4, 3, 4) + 1) * 0.5
PER_IMAGE = np.array([1.0, 2.0, 4.0, 8.0], dtype="float32")


def test_54_static_operands_with_a_batch_first_dimension_line_up_with_dimension_0(fluid):
    """Batch 4 beside 4 box coordinates: Paddle 3's trailing alignment would run and pair the wrong ones."""
    def build():
        boxes = fluid.data(name="boxes", shape=[-1, 3, 4], dtype="float32")
        scale = fluid.data(name="scale", shape=[-1], dtype="float32")
        rows = fluid.data(name="rows", shape=[-1, 3], dtype="float32")
        counts = fluid.data(name="counts", shape=[-1, 3, 4], dtype="int64")
        steps = fluid.data(name="steps", shape=[-1], dtype="int64")
        return [boxes / scale, boxes * scale, boxes + scale, boxes - scale, boxes > scale, boxes ** scale,
                scale - boxes, rows + boxes, counts / steps, counts // steps, counts % steps]

    counts = np.arange(48, dtype="int64").reshape(4, 3, 4) * 7
    steps = np.array([2, 3, 5, 7], dtype="int64")
    rows = np.arange(12, dtype="float32").reshape(4, 3) * 10
    got, = run_static(fluid, build, {"boxes": BOXES, "scale": PER_IMAGE, "rows": rows, "counts": counts,
                                     "steps": steps})
    s, k = PER_IMAGE[:, None, None], steps[:, None, None]
    expected = [BOXES / s, BOXES * s, BOXES + s, BOXES - s, BOXES > s, BOXES ** s, s - BOXES,
                rows[:, :, None] + BOXES, counts // k, counts // k, counts % k]
    for actual, want in zip(got, expected):
        assert np.shape(actual) == want.shape
        close(actual, want)
    assert np.asarray(got[8]).dtype == np.int64


def test_54_a_declared_first_dimension_or_equal_ranks_keep_the_trailing_alignment(fluid):
    def build():
        boxes = fluid.data(name="boxes", shape=[-1, 3, 4], dtype="float32")
        fixed = fluid.data(name="fixed", shape=[4], dtype="float32")
        same = fluid.data(name="same", shape=[-1, 1, 4], dtype="float32")
        return [boxes + fixed, boxes * same]

    same = np.arange(16, dtype="float32").reshape(4, 1, 4)
    got, = run_static(fluid, build, {"boxes": BOXES, "fixed": PER_IMAGE, "same": same})
    close(got[0], BOXES + PER_IMAGE)
    close(got[1], BOXES * same)


def test_54_dygraph_operators_keep_the_trailing_alignment(fluid):
    """1.8's dygraph passed axis=-1 always (dygraph/math_op_patch.py:196)."""
    with fluid.dygraph.guard():
        out = fluid.dygraph.to_variable(BOXES) / fluid.dygraph.to_variable(PER_IMAGE)
        close(out.numpy(), BOXES / PER_IMAGE)
