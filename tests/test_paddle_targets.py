"""Every 2.x target of the table resolves in the installed Paddle and accepts the emitted keywords.

The signature-index tests prove this statically for 2.0.2 and 3.3.1; this one asks the real
`paddlepaddle` (3.3.1 in CI) by importing it, so an index that misread a source cannot hide a break.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any, Optional, Tuple

import pytest

from numpy_1_8 import adaptive_pool2d as adaptive_pool2d_1_8
from test_table_valid import emitted_keywords, emitted_names

paddle = pytest.importorskip("paddle")
pytestmark = pytest.mark.paddle


def resolve(dotted: str) -> Tuple[bool, Any]:
    """Follow `dotted` the way emitted code does after `import paddle`: attribute by attribute.

    A submodule that the package does not import itself is imported on the way (as the upgrader's
    `import paddle.x` would); an attribute always wins over a submodule of the same name
    (`paddle.batch` is the function, not the module `paddle/batch.py`).
    """
    parts = dotted.split(".")
    try:
        obj: Any = importlib.import_module(parts[0])
    except ImportError:
        return False, None
    for i, part in enumerate(parts[1:], start=1):
        if not hasattr(obj, part):
            try:
                importlib.import_module(".".join(parts[:i + 1]))
            except ImportError:
                return False, None
            if not hasattr(obj, part):
                return False, None
        obj = getattr(obj, part)
    return True, obj


def _signature(obj: Any) -> Optional[inspect.Signature]:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):  # compiled callables without text signatures
        return None


def _accepts(sig: inspect.Signature, keyword: str) -> bool:
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return True
        if p.name == keyword and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return True
    return False


@pytest.fixture(scope="module")
def table():
    from refactors import table as registered_table

    return registered_table()


def test_installed_paddle_is_the_target_version():
    assert paddle.__version__.startswith("3."), paddle.__version__


def test_every_emitted_name_resolves(table):
    failures = []
    for name, entry in sorted(table.entries.items()):
        for emitted in sorted(emitted_names(entry)):
            found, _ = resolve(emitted)
            if not found:
                failures.append(f"{name}: {emitted} does not resolve in paddle {paddle.__version__}")
    assert not failures, f"{len(failures)} unresolved targets:\n  " + "\n  ".join(failures)


def test_every_emitted_keyword_is_accepted(table):
    failures = []
    for name, entry in sorted(table.entries.items()):
        words = emitted_keywords(entry)
        if entry.update_to is None or not words:
            continue
        found, target = resolve(entry.update_to)
        if not found:
            continue  # reported by test_every_emitted_name_resolves
        sig = _signature(target)
        if sig is None:
            failures.append(f"{name}: {entry.update_to} has no inspectable signature to accept {sorted(words)}")
            continue
        for word in sorted(words):
            if not _accepts(sig, word):
                failures.append(f"{name}: {entry.update_to}({word}=...) is rejected by paddle {paddle.__version__}")
    assert not failures, f"{len(failures)} rejected keywords:\n  " + "\n  ".join(failures)


def test_resolve_follows_attributes_like_emitted_code():
    assert resolve("paddle.batch") == (True, paddle.batch)  # the function, not paddle/batch.py
    assert resolve("paddle.nn.functional.relu")[1] is paddle.nn.functional.relu
    assert resolve("paddle.no_such_api") == (False, None)
    assert resolve("paddle.nn.NoSuchLayer") == (False, None)


# -- the rewrites of APIs whose 2.x form is not a rename compute the 1.8 values ---------------------------------
# The NumPy references below are the 1.8 formulas (each checked against paddlepaddle 1.8.5 itself when the
# entries were written); the upgraded code runs on the installed Paddle in dynamic and in PIR static mode.

HEADER = "import paddle.fluid as fluid\n"


def _run(legacy: str, mode: str, unknown_batch: bool = False, **inputs):
    """Upgrade `y = ...` written against 1.8, run it on the installed Paddle, return y as NumPy.

    In static mode the inputs are declared with their shapes, or with -1 as the first dimension when
    `unknown_batch` (so that the program must read the batch size when it runs). `y` may be a tuple.
    """
    from refactors import upgrade_code

    code = upgrade_code(HEADER + legacy).code
    assert "fluid" not in code, code
    if mode == "dynamic":
        namespace = {k: paddle.to_tensor(v) for k, v in inputs.items()}
        exec(compile(code, "<upgraded>", "exec"), namespace)
        y = namespace["y"]
        return tuple(t.numpy() for t in y) if isinstance(y, tuple) else y.numpy()
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            namespace = {k: paddle.static.data(k, [-1] * unknown_batch + list(v.shape)[unknown_batch:], str(v.dtype))
                         for k, v in inputs.items()}
            exec(compile(code, "<upgraded>", "exec"), namespace)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        y = namespace["y"]
        fetched = exe.run(main, feed=inputs, fetch_list=list(y) if isinstance(y, tuple) else [y])
        return tuple(fetched) if isinstance(y, tuple) else fetched[0]
    finally:
        paddle.disable_static()


MODES = ["dynamic", "static"]


def _cos_sim_1_8(x, y):
    """op cos_sim: rows flattened, each squared norm clamped at 1e-8, Y broadcast when it has one row."""
    import numpy as np

    xf, yf = x.reshape(len(x), -1), y.reshape(len(y), -1)
    xx = np.maximum((xf * xf).sum(1, keepdims=True), 1e-8)
    yy = np.maximum((yf * yf).sum(1, keepdims=True), 1e-8)
    return (xf * yf).sum(1, keepdims=True) / (np.sqrt(xx) * np.sqrt(yy))


@pytest.mark.parametrize("mode", MODES)
def test_cos_sim_rows_give_1_8_values(mode):
    import numpy as np

    rng = np.random.RandomState(0)
    for xs, ys in [((4, 3), (4, 3)), ((4, 3), (1, 3)), ((2, 3, 5), (2, 3, 5)), ((2, 3, 5), (1, 3, 5))]:
        x, z = rng.randn(*xs).astype("float32"), rng.randn(*ys).astype("float32")
        got = _run("y = fluid.layers.cos_sim(x, z)\n", mode, x=x, z=z)
        assert got.shape == (xs[0], 1)
        np.testing.assert_allclose(got, _cos_sim_1_8(x, z), rtol=1e-5, atol=1e-6)
    # Norms below 1e-4: 1.8 clamps each one, the 2.x form does not (its table note: that clamp, written
    # as normalize's epsilon, enters 3.3.1's gradient); a zero row stays 0 in both.
    tiny = np.array([[0, 0, 0], [1e-5, 0, 0], [1, 2, 3]], "float32")
    other = np.array([[1, 2, 3], [1, 0, 0], [1e-5, 1e-5, 0]], "float32")
    got = _run("y = fluid.layers.cos_sim(x, z)\n", mode, x=tiny, z=other)
    assert _cos_sim_1_8(tiny, other)[1, 0] == pytest.approx(0.1) and got[1, 0] == pytest.approx(1.0)
    unit = lambda a: a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    np.testing.assert_allclose(got, (unit(tiny) * unit(other)).sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pad_mode, numpy_mode", [("constant", "constant"), ("reflect", "reflect"), ("edge", "edge")])
@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_pad2d_order_gives_1_8_values(mode, pad_mode, numpy_mode, data_format):
    import numpy as np

    x = np.random.RandomState(1).randn(2, 3, 5, 6).astype("float32")
    top, bottom, left, right = 1, 2, 3, 4
    spatial = ((top, bottom), (left, right))
    widths = ((0, 0), (0, 0), *spatial) if data_format == "NCHW" else ((0, 0), *spatial, (0, 0))
    extra = {"constant_values": 2.5} if numpy_mode == "constant" else {}
    got = _run(f"y = fluid.layers.pad2d(x, [{top}, {bottom}, {left}, {right}], mode='{pad_mode}', pad_value=2.5, "
               f"data_format='{data_format}')\n", mode, x=x)
    np.testing.assert_array_equal(got, np.pad(x, widths, mode=numpy_mode, **extra))


def _smooth_l1_1_8(x, y, inside=None, outside=None, sigma=1.0):
    """op smooth_l1_loss: per element on d = inside * (x - y), times outside, summed per row to [N, 1]."""
    import numpy as np

    s2 = sigma * sigma
    d = (x - y) * (1 if inside is None else inside)
    e = np.where(np.abs(d) < 1.0 / s2, 0.5 * d * d * s2, np.abs(d) - 0.5 / s2) * (1 if outside is None else outside)
    return e.reshape(len(e), -1).sum(1, keepdims=True)


@pytest.mark.parametrize("mode", MODES)
def test_smooth_l1_rows_give_1_8_values(mode):
    import numpy as np

    rng = np.random.RandomState(2)
    x, t = (rng.randn(4, 3) * 2).astype("float32"), (rng.randn(4, 3) * 2).astype("float32")
    w_in, w_out = np.abs(rng.randn(4, 3)).astype("float32"), np.abs(rng.randn(4, 3)).astype("float32")
    np.testing.assert_allclose(_run("y = fluid.layers.smooth_l1(x, t)\n", mode, x=x, t=t),
                               _smooth_l1_1_8(x, t), rtol=1e-5)
    np.testing.assert_allclose(_run("y = fluid.layers.smooth_l1(x, t, sigma=3.0)\n", mode, x=x, t=t),
                               _smooth_l1_1_8(x, t, sigma=3.0), rtol=1e-5)
    got = _run("y = fluid.layers.smooth_l1(x, t, inside_weight=w_in, outside_weight=w_out, sigma=0.5)\n", mode,
               x=x, t=t, w_in=w_in, w_out=w_out)
    np.testing.assert_allclose(got, _smooth_l1_1_8(x, t, w_in, w_out, 0.5), rtol=1e-5)
    x3, t3 = (rng.randn(2, 3, 4) * 2).astype("float32"), (rng.randn(2, 3, 4) * 2).astype("float32")
    got = _run("y = fluid.layers.smooth_l1(x, t, sigma=2.0)\n", mode, x=x3, t=t3)
    assert got.shape == (2, 1)
    np.testing.assert_allclose(got, _smooth_l1_1_8(x3, t3, sigma=2.0), rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_sequence_mask_gives_1_8_values(mode):
    import numpy as np

    lengths = np.array([3, 1, 0, 5], "int64")
    got = _run("y = fluid.layers.sequence_mask(x)\n", mode, x=lengths)
    np.testing.assert_array_equal(got, (np.arange(5) < lengths[:, None]).astype("int64"))
    got = _run("y = fluid.layers.sequence_mask(x, maxlen=7, dtype='float32')\n", mode, x=lengths)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, (np.arange(7) < lengths[:, None]).astype("float32"))


@pytest.mark.parametrize("mode", MODES)
def test_prior_box_gives_1_8_boxes(mode):
    """One min size, aspect ratio 1, explicit steps: 1.8's box centred on each cell, normalised, no clip."""
    import numpy as np

    feat = np.zeros((1, 4, 3, 3), "float32")
    image = np.zeros((1, 3, 12, 12), "float32")
    got = _run("y = fluid.layers.prior_box(x, image, min_sizes=[16.], steps=[4.] * 2, aspect_ratios=[1.], "
               "clip=False, flip=True, offset=0.5)[0]\n", mode, x=feat, image=image)
    centres = (np.arange(3) + 0.5) * 4.0
    cx, cy = np.meshgrid(centres, centres)
    want = np.stack([(cx - 8) / 12, (cy - 8) / 12, (cx + 8) / 12, (cy + 8) / 12], -1)[:, :, None, :]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_msra_normal_draws_the_1_8_distribution():
    """MSRA(uniform=False) draws N(0, 2 / fan_in) in 1.8 (`initializer.py:672`), unbounded unlike the uniform."""
    import numpy as np
    from refactors import upgrade_code

    code = upgrade_code(HEADER + "init = fluid.initializer.MSRA(uniform=False)\n").code
    namespace: dict = {}
    exec(compile(code, "<upgraded>", "exec"), namespace)
    paddle.seed(3)
    layer = paddle.nn.Linear(400, 300, weight_attr=paddle.ParamAttr(initializer=namespace["init"]))
    weights = layer.weight.numpy()
    assert weights.std() == pytest.approx(np.sqrt(2 / 400), rel=0.02)
    assert abs(weights.mean()) < 1e-3
    assert np.abs(weights).max() > np.sqrt(6 / 400)  # beyond the uniform variant's limit


@pytest.mark.parametrize("mode", MODES)
def test_fill_constant_batch_size_like_takes_the_batch_when_run(mode):
    """Op fill_constant_batch_size_like (`layers/tensor.py:752`): shape[output_dim_idx] = input.shape[input_dim_idx]."""
    import numpy as np

    x = np.zeros((4, 5), "float32")
    got = _run("y = fluid.layers.fill_constant_batch_size_like(x, [-1, 3], 'int64', 7)\n", mode, True, x=x)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.full((4, 3), 7, "int64"))
    got = _run("y = fluid.layers.fill_constant_batch_size_like(input=x, shape=[2, -1, 0], dtype='float32', value=0.5, "
               "input_dim_idx=1, output_dim_idx=1)\n", mode, True, x=x)
    assert got.shape == (2, 5, 0)
    got = _run("y = fluid.layers.fill_constant_batch_size_like(input=x, shape=[1], value=1, dtype='float32')\n",
               mode, True, x=np.zeros((6, 2, 3), "float32"))
    np.testing.assert_array_equal(got, np.ones(6, "float32"))


@pytest.mark.parametrize("mode", MODES)
def test_adaptive_pool2d_gives_1_8_values(mode):
    import numpy as np

    x = np.random.RandomState(4).randn(2, 3, 5, 7).astype("float32")  # uneven bins: 5 -> 3, 7 -> 4
    avg, _ = adaptive_pool2d_1_8(x, 3, 4, "avg")
    np.testing.assert_allclose(_run("y = fluid.layers.adaptive_pool2d(x, [3, 4], 'avg')\n", mode, x=x), avg,
                               rtol=1e-6)
    top, mask = adaptive_pool2d_1_8(x, 3, 4, "max")
    np.testing.assert_array_equal(_run("y = fluid.layers.adaptive_pool2d(x, (3, 4))\n", mode, x=x), top)
    got, got_mask = _run("y = tuple(fluid.layers.adaptive_pool2d(x, [3, 4], 'max', True))\n", mode, x=x)
    np.testing.assert_array_equal(got, top)
    np.testing.assert_array_equal(got_mask, mask)
    square, _ = adaptive_pool2d_1_8(x, 1, 1, "avg")
    np.testing.assert_allclose(_run("y = fluid.layers.adaptive_pool2d(x, 1, pool_type='avg')\n", mode, x=x), square,
                               rtol=1e-5)


def _xavier_weights(legacy: str, fan_in: int = 400, fan_out: int = 300):
    """The weights an upgraded 1.8 initializer gives a Linear layer's [fan_in, fan_out] weight."""
    from refactors import upgrade_code

    code = upgrade_code(HEADER + f"init = {legacy}\n").code
    assert "fluid" not in code, code
    namespace: dict = {}
    exec(compile(code, "<upgraded>", "exec"), namespace)
    paddle.seed(5)
    layer = paddle.nn.Linear(fan_in, fan_out, weight_attr=paddle.ParamAttr(initializer=namespace["init"]))
    return layer.weight.numpy()


@pytest.mark.parametrize("legacy, uniform, fans", [
    ("fluid.initializer.Xavier()", True, 700),
    ("fluid.initializer.Xavier(uniform=False)", False, 700),
    ("fluid.initializer.XavierInitializer(False, 100, 60)", False, 160),
    ("fluid.initializer.Xavier(fan_out=0)", True, 400),  # 3.x XavierUniform(fan_out=0) is all zeros
    ("fluid.initializer.Xavier(uniform=False, fan_out=0)", False, 400),
    ("fluid.initializer.Xavier(False, 0, 50)", False, 50),
    ("fluid.initializer.Xavier(fan_in=80, fan_out=0)", True, 80),
])
def test_xavier_draws_the_1_8_distribution(legacy, uniform, fans):
    """1.8 Xavier: U(+-sqrt(6 / fans)) (`initializer.py:530`) or N(0, 2 / fans) (`:545`), fans = fan_in + fan_out."""
    import numpy as np

    weights = _xavier_weights(legacy)
    assert abs(weights.mean()) < 2e-3
    if uniform:
        limit = np.sqrt(6.0 / fans)
        assert np.abs(weights).max() <= limit and np.abs(weights).max() > 0.99 * limit
        assert weights.std() == pytest.approx(limit / np.sqrt(3), rel=0.02)
    else:
        assert weights.std() == pytest.approx(np.sqrt(2.0 / fans), rel=0.02)
        assert np.abs(weights).max() > np.sqrt(6.0 / fans)  # untruncated: beyond the uniform variant's bound
