"""1.8 code reads shape-[1] results as scalars; NumPy 2 refuses that, so the shim's arrays allow it again.

1.8 returned full reductions and metrics with shape `[1]` (api_mapping/SEMANTICS.md 8), and 1.8 code reads them
both ways: `loss.numpy()[0]` and `float(acc.numpy())`, `'%f' % cost`, `int(count)`. NumPy 1.x converted
any one-element array to a Python scalar; NumPy 2 (which Paddle 3.3.1 installs) raises "only
0-dimensional arrays can be converted to Python scalars" for `ndim > 0`.

What the legacy runtime hands to 1.8 code (`Tensor.numpy()` while `runtime_shim.install()` is active,
see `runtime_shim.tensor_methods`, and the arrays `fluid.Executor.run` fetches) is a `LegacyArray`: an ndarray view of the same data that
also converts to a scalar when it holds one element, as NumPy 1.x did. NumPy itself is not changed:
a plain ndarray behaves as NumPy 2 says everywhere else, and a `LegacyArray` pickles as a plain ndarray.
"""
from __future__ import annotations

from typing import Any

import numpy as np


class LegacyArray(np.ndarray):
    """An ndarray that converts to a Python scalar when it holds exactly one element (NumPy 1.x rule)."""

    def _one(self) -> Any:
        if self.size != 1:
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        return np.asarray(self).reshape(())

    def __float__(self) -> float:
        return float(self._one())

    def __int__(self) -> int:
        return int(self._one())

    def __complex__(self) -> complex:
        return complex(self._one())

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False) -> Any:
        if return_scalar:  # a full reduction: the NumPy scalar a plain array gives
            return np.asarray(array)[()]
        return super().__array_wrap__(array, context, return_scalar)

    def __repr__(self) -> str:
        return repr(np.asarray(self))  # printed as 1.8 printed it: `array([...], dtype=float32)`

    def __reduce__(self) -> Any:
        return np.asarray(self).__reduce__()  # a pickle that does not need the shim to load


def legacy(value: Any) -> Any:
    """`value` as a `LegacyArray` when it is an ndarray (lists and tuples of them too); else unchanged."""
    if isinstance(value, np.ndarray) and not isinstance(value, LegacyArray):
        return value.view(LegacyArray)
    if isinstance(value, list):
        return [legacy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(legacy(v) for v in value)
    return value
