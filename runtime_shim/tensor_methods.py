"""1.8's dygraph tensor (`VarBase`) methods on Paddle 3 Tensors, while the legacy runtime is installed.

- `numpy()` returns a `numpy_compat.LegacyArray`: a shape-[1] result reads as a scalar under NumPy 2
  (`float(acc.numpy())`), as it did under NumPy 1.x;
- `backward(backward_strategy)`: 1.8 passed a `BackwardStrategy` where Paddle 3 takes `grad_tensor`;
  its one option, `sort_sum_gradient`, is Paddle 3's flag `FLAGS_sort_sum_gradient`;
- indexing (`x[0]`, dygraph tensors and static variables alike): an item that Paddle 3 gives as 0-D has
  1.8's shape [1] (1.8 had no 0-D tensors; `layers.concat([shape_[0], shape_[1]])` takes no 0-D input);
- `/` of an integer tensor divides integers, truncating, the divisor cast to the dividend's dtype, as
  1.8's `elementwise_div` did; Paddle 3 divides exactly in float32 (api_mapping/SEMANTICS.md 51);
- `a <op> b` between static (legacy IR) variables where `b`'s first dimension is the batch (-1) and the
  ranks differ: the lower-rank operand lines up with dimension 0, as 1.8's `axis=0` did; Paddle 3 lines
  it up with the last (SEMANTICS 54). 1.8's dygraph had no such rule, so Tensors are left alone.

`install()` serves them, `uninstall()` restores Paddle's own; `serve_names()` (coexistence) leaves the
Tensor class alone.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List

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


def _aligned_from_batch_axis(original: Callable[..., Any]) -> Callable[..., Any]:
    """1.8's static `self <op> other` passed `axis=0` when `other.shape[0] == -1`
    (layers/math_op_patch.py:241): the operand of lower rank lined up with dimension 0 of the other.
    Trailing 1s make Paddle 3's trailing alignment do the same."""

    def method(self: Any, other: Any) -> Any:
        from paddle.base.framework import Variable
        from runtime_shim.adapters.layers import align_for_axis  # elementwise_*(axis=0)'s alignment

        if isinstance(other, Variable) and len(other.shape) > 0 and other.shape[0] == -1:
            missing = len(self.shape) - len(other.shape)
            if missing > 0:
                other = align_for_axis(self, other, 0)
            elif missing < 0 and len(self.shape) > 0:
                self = align_for_axis(other, self, 0)
        return original(self, other)

    return method


_SERVED = {"numpy": _numpy, "backward": _backward}
_BOTH = {"__getitem__": _getitem, "__truediv__": _truediv, "__rtruediv__": _rtruediv}  # on dygraph tensors and on static (legacy IR) variables
# 1.8's static operators that took `axis=0` from a batch-first right operand; the reflected ones
# (`__rsub__`, ...) only ever met a number there, which 1.8 made a tensor of self's shape.
_STATIC_BINARY = ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__mod__", "__floordiv__",
                  "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")


def _makers() -> Dict[Any, List[Callable[..., Any]]]:
    """(class, method name) -> what wraps Paddle's own method, innermost first."""
    import paddle
    from paddle.base.framework import Variable

    makers: Dict[Any, List[Callable[..., Any]]] = {}
    for name, make in _SERVED.items():
        makers[(paddle.Tensor, name)] = [make]
    for name, make in _BOTH.items():
        makers[(paddle.Tensor, name)] = [make]
        makers[(Variable, name)] = [make]
    for name in _STATIC_BINARY:
        makers.setdefault((Variable, name), []).append(_aligned_from_batch_axis)
    return makers


def serve() -> None:
    for key, makes in _makers().items():
        owner, name = key
        if key not in _ORIGINAL:
            _ORIGINAL[key] = owner.__dict__.get(name)  # None: inherited, deleted again on restore
            original = served = getattr(owner, name)
            for make in makes:
                served = make(served)
            served.__doc__ = original.__doc__
            setattr(owner, name, served)


def restore() -> None:
    for (owner, name), original in _ORIGINAL.items():
        if original is None:
            delattr(owner, name)
        else:
            setattr(owner, name, original)
    _ORIGINAL.clear()
