"""Adapters for `pad2d`, `smooth_l1`, `prior_box` and `initializer.MSRA`, against NumPy readings of 1.8.

Each runs through `paddle.fluid` as the shim serves it on Paddle 3.3.1, in a legacy-IR static program
and in dygraph. The expected values are the 1.8.5 formulas (cited on each adapter) computed in NumPy.
"""
from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np
import pytest

from shim_support import initialized_weight, run_static

pytestmark = pytest.mark.paddle



# -- pad2d (layers/nn.py:10253): paddings are (top, bottom, left, right) ----------------------------

IMAGE = np.arange(2 * 3 * 3 * 4, dtype="float32").reshape(2, 3, 3, 4)
NP_MODE = {"constant": "constant", "reflect": "reflect", "edge": "edge"}


def np_pad2d(x: np.ndarray, paddings: Sequence[int], mode: str, value: float, nhwc: bool = False) -> np.ndarray:
    top, bottom, left, right = paddings
    widths = [(0, 0), (top, bottom), (left, right), (0, 0)] if nhwc else [(0, 0), (0, 0), (top, bottom), (left, right)]
    extra = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x, widths, mode=NP_MODE[mode], **extra)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad2d_reads_top_bottom_left_right(fluid, mode):
    paddings = [1, 0, 2, 1]  # unequal on every side: a swapped order cannot match
    expected = np_pad2d(IMAGE, paddings, mode, 7.0)
    static, = run_static(fluid, lambda: [fluid.layers.pad2d(fluid.data("x", [2, 3, 3, 4], "float32"), paddings,
                                                            mode, 7.0)], {"x": IMAGE})
    np.testing.assert_array_equal(static, expected)
    with fluid.dygraph.guard():
        dynamic = fluid.layers.pad2d(fluid.dygraph.to_variable(IMAGE), paddings, mode, 7.0).numpy()
    np.testing.assert_array_equal(dynamic, expected)


def test_pad2d_nhwc_and_tensor_paddings(fluid):
    nhwc = IMAGE.transpose(0, 2, 3, 1)
    static, = run_static(fluid, lambda: [fluid.layers.pad2d(fluid.data("x", [2, 3, 4, 3], "float32"), [1, 0, 2, 1],
                                                            "edge", data_format="NHWC")], {"x": nhwc})
    np.testing.assert_array_equal(static, np_pad2d(nhwc, [1, 0, 2, 1], "edge", 0.0, nhwc=True))

    def build() -> List[Any]:
        x = fluid.data("x", [2, 3, 3, 4], "float32")
        paddings = fluid.data("p", [4], "int32")
        return [fluid.layers.pad2d(x, paddings, "constant", 7.0)]

    static, = run_static(fluid, build, {"x": IMAGE, "p": np.array([1, 0, 2, 1], "int32")})
    np.testing.assert_array_equal(static, np_pad2d(IMAGE, [1, 0, 2, 1], "constant", 7.0))


def test_pad2d_refuses_an_unknown_mode(fluid):
    with fluid.dygraph.guard():
        with pytest.raises(ValueError, match="constant, reflect, edge"):
            fluid.layers.pad2d(fluid.dygraph.to_variable(IMAGE), [1, 1, 1, 1], "replicate")


# -- smooth_l1 (layers/nn.py:7062, op smooth_l1_loss) ----------------------------------------------

RNG = np.random.RandomState(0)
X = RNG.randn(4, 3, 2).astype("float32")
Y = RNG.randn(4, 3, 2).astype("float32")
INSIDE = RNG.rand(4, 3, 2).astype("float32")
OUTSIDE = RNG.rand(4, 3, 2).astype("float32")


def np_smooth_l1(x, y, inside=None, outside=None, sigma=None):
    sigma2 = (1.0 if sigma is None else sigma) ** 2
    d = (x - y) * (1.0 if inside is None else inside)
    loss = np.where(np.abs(d) < 1.0 / sigma2, 0.5 * sigma2 * d * d, np.abs(d) - 0.5 / sigma2)
    loss = loss * (1.0 if outside is None else outside)
    return loss.reshape(len(x), -1).sum(axis=1, keepdims=True)


@pytest.mark.parametrize("sigma", [None, 0.5, 3.0])
def test_smooth_l1_weights_sigma_and_rows(fluid, sigma):
    def build() -> List[Any]:
        x, y, inside, outside = (fluid.data(n, [4, 3, 2], "float32") for n in "xyio")
        return [fluid.layers.smooth_l1(x, y, inside, outside, sigma), fluid.layers.smooth_l1(x, y, sigma=sigma)]

    weighted, plain = run_static(fluid, build, {"x": X, "y": Y, "i": INSIDE, "o": OUTSIDE})
    assert weighted.shape == (4, 1)
    np.testing.assert_allclose(weighted, np_smooth_l1(X, Y, INSIDE, OUTSIDE, sigma), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(plain, np_smooth_l1(X, Y, sigma=sigma), rtol=1e-5, atol=1e-6)
    with fluid.dygraph.guard():
        v = fluid.dygraph.to_variable
        dynamic = fluid.layers.smooth_l1(v(X), v(Y), v(INSIDE), v(OUTSIDE), sigma).numpy()
    np.testing.assert_allclose(dynamic, np_smooth_l1(X, Y, INSIDE, OUTSIDE, sigma), rtol=1e-5, atol=1e-6)


# -- prior_box (layers/detection.py:1670) ----------------------------------------------------------

FEATURE = np.zeros([1, 8, 2, 3], "float32")  # H=2, W=3
PICTURE = np.zeros([1, 3, 8, 12], "float32")  # steps 12/3 = 4 and 8/2 = 4


def np_prior_box(min_size: float, max_size: Any) -> np.ndarray:
    """prior_box_op.h for aspect_ratios [1.0], offset 0.5, no clip: the min box, then the max box."""
    boxes = np.zeros([2, 3, 2 if max_size else 1, 4], "float32")
    for h in range(2):
        for w in range(3):
            cx, cy = (w + 0.5) * 4, (h + 0.5) * 4
            halves = [min_size / 2] + ([np.sqrt(min_size * max_size) / 2] if max_size else [])
            for k, half in enumerate(halves):
                boxes[h, w, k] = [(cx - half) / 12, (cy - half) / 8, (cx + half) / 12, (cy + half) / 8]
    return boxes


@pytest.mark.parametrize("max_sizes,max_size", [([4.0], 4.0), ([0.0], None), (None, None)])
def test_prior_box_uses_max_sizes_only_when_positive(fluid, max_sizes, max_size):
    expected = np_prior_box(2.0, max_size)

    def build() -> List[Any]:
        feature = fluid.data("f", [1, 8, 2, 3], "float32")
        image = fluid.data("i", [1, 3, 8, 12], "float32")
        return list(fluid.layers.prior_box(feature, image, [2.0], max_sizes))

    boxes, variances = run_static(fluid, build, {"f": FEATURE, "i": PICTURE})
    np.testing.assert_allclose(boxes, expected, rtol=1e-6)
    np.testing.assert_allclose(variances, np.broadcast_to([0.1, 0.1, 0.2, 0.2], expected.shape))
    with fluid.dygraph.guard():
        v = fluid.dygraph.to_variable
        boxes, _ = fluid.layers.prior_box(v(FEATURE), v(PICTURE), [2.0], max_sizes)
        np.testing.assert_allclose(boxes.numpy(), expected, rtol=1e-6)


# -- initializer.MSRA (initializer.py:571) ---------------------------------------------------------

def msra_weight(fluid: Any, **kwargs: Any) -> np.ndarray:
    return initialized_weight(fluid, fluid.initializer.MSRA(**kwargs))


def test_msra_uniform_and_normal_with_fan_in_from_the_shape(fluid):
    limit = np.sqrt(6.0 / 400)  # fan_in of an fc weight [400, 300] is 400
    uniform = msra_weight(fluid, seed=7)
    assert uniform.shape == (400, 300)
    assert np.abs(uniform).max() <= limit and np.abs(uniform).max() > 0.99 * limit
    assert uniform.std() == pytest.approx(limit / np.sqrt(3), rel=0.02)
    normal = msra_weight(fluid, uniform=False, seed=7)
    assert normal.std() == pytest.approx(np.sqrt(2.0 / 400), rel=0.02)
    assert np.abs(normal).max() > limit  # untruncated: tails beyond the uniform's bound
    given = msra_weight(fluid, uniform=False, fan_in=100, seed=7)
    assert given.std() == pytest.approx(np.sqrt(2.0 / 100), rel=0.02)


def test_msra_seed_fixes_the_values(fluid):
    np.testing.assert_array_equal(msra_weight(fluid, seed=11), msra_weight(fluid, seed=11))
    assert not np.array_equal(msra_weight(fluid, seed=11), msra_weight(fluid, seed=12))
    assert fluid.initializer.MSRAInitializer is fluid.initializer.MSRA
