"""1.8's dygraph tensor (`VarBase`) methods on Paddle 3 Tensors, while the legacy runtime is installed.

- `numpy()` returns a `numpy_compat.LegacyArray`: a shape-[1] result reads as a scalar under NumPy 2
  (`float(acc.numpy())`), as it did under NumPy 1.x;
- `backward(backward_strategy)`: 1.8 passed a `BackwardStrategy` where Paddle 3 takes `grad_tensor`;
  its one option, `sort_sum_gradient`, is Paddle 3's flag `FLAGS_sort_sum_gradient`;
- indexing (`x[0]`, dygraph tensors and static variables alike): an item that Paddle 3 gives as 0-D has
  1.8's shape [1] (1.8 had no 0-D tensors; `layers.concat([shape_[0], shape_[1]])` takes no 0-D input);
- `/` of an integer tensor divides integers, truncating, the divisor cast to the dividend's dtype, as
  1.8's `elementwise_div` did; Paddle 3 divides exactly in float32 (api_mapping/SEMANTICS.md 51).

`install()` serves them, `uninstall()` restores Paddle's own; `serve_names()` (coexistence) leaves the
Tensor class alone.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

_ORIGINAL: Dict[Any, Any] = {}  # (class, method name) -> Paddle's own, None when inherited


def _numpy(original: Callable[..., Any]) -> Callable[..., Any]:
    from runtime_shim.numpy_compat import legacy

    def numpy(self: Any, *args: Any, **kwargs: Any) -> Any:
        return legacy(original(self, *args, **kwargs))

    return numpy


def _backward(original: Callable[..., Any]) -> Callable[..., Any]:
    def backward(self: Any, *args: Any, **kwargs: Any) -> Any:
        strategy = kwargs.pop("backward_strategy", None)
        if strategy is None and args and hasattr(args[0], "sort_sum_gradient"):
            strategy, args = args[0], args[1:]
        if strategy is not None:
            import paddle

            paddle.set_flags({"FLAGS_sort_sum_gradient": bool(strategy.sort_sum_gradient)})
            return original(self, None, *args, **kwargs)
        return original(self, *args, **kwargs)

    return backward


def _getitem(original: Callable[..., Any]) -> Callable[..., Any]:
    def __getitem__(self: Any, item: Any) -> Any:
        got = original(self, item)
        if len(got.shape) == 0 and len(self.shape) > 0:
            from runtime_shim.static_ops import op

            return op("paddle.reshape")(got, [1])
        return got

    return __getitem__


_INTEGERS = ("uint8", "int8", "int16", "int32", "int64")


def _integer_division(dividend: Any, divisor: Any) -> Any:
    """`dividend / divisor` as 1.8 computed it for an integer `dividend` (math_op_patch.py:190)."""
    import paddle
    from runtime_shim.static_ops import op

    if isinstance(divisor, (paddle.Tensor, paddle.base.framework.Variable)):
        divisor = divisor.astype(dividend.dtype)
    else:
        divisor = op("paddle.full_like")(dividend, divisor)
    return op("paddle.divide")(dividend, divisor, rounding_mode="trunc")


def _is_integer(x: Any) -> bool:
    from paddle.base.data_feeder import convert_dtype

    return convert_dtype(x.dtype) in _INTEGERS


def _truediv(original: Callable[..., Any]) -> Callable[..., Any]:
    def __truediv__(self: Any, other: Any) -> Any:
        return _integer_division(self, other) if _is_integer(self) else original(self, other)

    return __truediv__


def _rtruediv(original: Callable[..., Any]) -> Callable[..., Any]:
    def __rtruediv__(self: Any, other: Any) -> Any:
        from runtime_shim.static_ops import op

        if _is_integer(self) and isinstance(other, (int, float)):  # a number made a tensor of self's dtype
            return _integer_division(op("paddle.full_like")(self, other), self)
        return original(self, other)

    return __rtruediv__


_SERVED = {"numpy": _numpy, "backward": _backward}
_BOTH = {"__getitem__": _getitem, "__truediv__": _truediv, "__rtruediv__": _rtruediv}  # on dygraph tensors and on static (legacy IR) variables


def _classes() -> Dict[str, Any]:
    import paddle
    from paddle.base.framework import Variable

    return {**{name: (paddle.Tensor,) for name in _SERVED}, **{name: (paddle.Tensor, Variable) for name in _BOTH}}


def serve() -> None:
    for name, owners in _classes().items():
        make = {**_SERVED, **_BOTH}[name]
        for owner in owners:
            key = (owner, name)
            if key not in _ORIGINAL:
                _ORIGINAL[key] = owner.__dict__.get(name)  # None: inherited, deleted again on restore
                original = getattr(owner, name)
                served = make(original)
                served.__doc__ = original.__doc__
                setattr(owner, name, served)


def restore() -> None:
    for (owner, name), original in _ORIGINAL.items():
        if original is None:
            delattr(owner, name)
        else:
            setattr(owner, name, original)
    _ORIGINAL.clear()
