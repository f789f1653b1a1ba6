"""Adapters for `adaptive_pool2d`, `fill_constant_batch_size_like` and `initializer.Xavier`, against NumPy
readings of 1.8.

Each runs through `paddle.fluid` as the shim serves it on Paddle 3.3.1, in a legacy-IR static program
(batch size unknown until the program runs) and in dygraph. The expected values are the 1.8.5 formulas
cited on each adapter, computed in NumPy.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

import numpy as np
import pytest

from numpy_1_8 import adaptive_pool2d as np_adaptive_pool
from shim_support import initialized_weight, run_static

pytestmark = pytest.mark.paddle

def run_on_x(fluid: Any, build: Callable[[Any], Sequence[Any]], x: np.ndarray) -> List[np.ndarray]:
    """`build(x)` in a legacy-IR program whose input `x` has an unknown first dimension."""
    return run_static(fluid, lambda: build(fluid.data("x", [-1, *x.shape[1:]], str(x.dtype))), {"x": x})


def run_both(fluid: Any, build: Callable[[Any], Sequence[Any]], x: np.ndarray) -> List[List[np.ndarray]]:
    static = run_on_x(fluid, build, x)
    with fluid.dygraph.guard():
        dynamic = [t.numpy() for t in build(fluid.dygraph.to_variable(x))]
    return [static, dynamic]


# -- adaptive_pool2d (layers/nn.py:3651) -------------------------------------------------------------

def test_adaptive_pool2d_picks_the_kind(fluid):
    x = np.random.RandomState(0).randn(2, 3, 5, 7).astype("float32")  # uneven bins: 5 -> 3, 7 -> 4
    avg, _ = np_adaptive_pool(x, 3, 4, "avg")
    top, mask = np_adaptive_pool(x, 3, 4, "max")

    def build(t):
        return [fluid.layers.adaptive_pool2d(t, [3, 4], "avg"), fluid.layers.adaptive_pool2d(t, (3, 4)),
                *fluid.layers.adaptive_pool2d(t, [3, 4], pool_type="max", require_index=True)]

    for got in run_both(fluid, build, x):
        np.testing.assert_allclose(got[0], avg, rtol=1e-6)
        np.testing.assert_array_equal(got[1], top)
        np.testing.assert_array_equal(got[2], top)
        np.testing.assert_array_equal(got[3], mask)


def test_adaptive_pool2d_refuses_what_1_8_refused(fluid):
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.zeros((1, 1, 4, 4), "float32"))
        with pytest.raises(ValueError, match="require_index"):
            fluid.layers.adaptive_pool2d(x, 2, "avg", require_index=True)
        with pytest.raises(ValueError, match="pool_type"):
            fluid.layers.adaptive_pool2d(x, 2, "min")


# -- fill_constant_batch_size_like (layers/tensor.py:752) --------------------------------------------

def test_fill_constant_batch_size_like_reads_the_size_when_run(fluid):
    x = np.zeros((3, 4, 5), "float32")

    def build(t):
        return [fluid.layers.fill_constant_batch_size_like(t, [-1, 2], "int64", 7),
                fluid.layers.fill_constant_batch_size_like(input=t, shape=[6, -1, 0], dtype="float32", value=0.5,
                                                           input_dim_idx=2, output_dim_idx=1)]

    for got in run_both(fluid, build, x):
        assert got[0].dtype == np.int64
        np.testing.assert_array_equal(got[0], np.full((3, 2), 7, "int64"))
        assert got[1].shape == (6, 5, 0) and got[1].dtype == np.float32


# -- initializer.Xavier (initializer.py:437) ---------------------------------------------------------

def xavier_weight(fluid: Any, **kwargs: Any) -> np.ndarray:
    return initialized_weight(fluid, fluid.initializer.Xavier(**kwargs))


@pytest.mark.parametrize("kwargs, fans", [
    ({}, 700), ({"fan_in": 0}, 300), ({"fan_out": 0}, 400), ({"fan_in": 100, "fan_out": 60}, 160),
])
def test_xavier_uniform_bounds(fluid, kwargs: Dict[str, Any], fans: int):
    weight = xavier_weight(fluid, seed=3, **kwargs)
    limit = np.sqrt(6.0 / fans)  # initializer.py:530, fan_in + fan_out with the given ones
    assert np.abs(weight).max() <= limit and np.abs(weight).max() > 0.99 * limit


@pytest.mark.parametrize("kwargs, fans", [({}, 700), ({"fan_in": 0}, 300), ({"fan_out": 0, "fan_in": 50}, 50)])
def test_xavier_normal_spread(fluid, kwargs: Dict[str, Any], fans: int):
    weight = xavier_weight(fluid, uniform=False, seed=3, **kwargs)
    assert weight.std() == pytest.approx(np.sqrt(2.0 / fans), rel=0.02)  # initializer.py:545


def test_xavier_seed_and_alias(fluid):
    np.testing.assert_array_equal(xavier_weight(fluid, seed=11), xavier_weight(fluid, seed=11))
    assert not np.array_equal(xavier_weight(fluid, seed=11), xavier_weight(fluid, seed=12))
    assert fluid.initializer.XavierInitializer is fluid.initializer.Xavier
    with pytest.raises(ZeroDivisionError):
        xavier_weight(fluid, fan_in=0, fan_out=0)
