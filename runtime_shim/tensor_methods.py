"""1.8's dygraph tensor (`VarBase`) methods on Paddle 3 Tensors, while the legacy runtime is installed.

- `numpy()` returns a `numpy_compat.LegacyArray`: a shape-[1] result reads as a scalar under NumPy 2
  (`float(acc.numpy())`), as it did under NumPy 1.x;
- `backward(backward_strategy)`: 1.8 passed a `BackwardStrategy` where Paddle 3 takes `grad_tensor`;
  its one option, `sort_sum_gradient`, is Paddle 3's flag `FLAGS_sort_sum_gradient`.

`install()` serves them, `uninstall()` restores Paddle's own; `serve_names()` (coexistence) leaves the
Tensor class alone.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

_ORIGINAL: Dict[str, Callable[..., Any]] = {}


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


_SERVED = {"numpy": _numpy, "backward": _backward}


def serve() -> None:
    import paddle

    for name, make in _SERVED.items():
        if name not in _ORIGINAL:
            original = _ORIGINAL[name] = getattr(paddle.Tensor, name)
            served = make(original)
            served.__doc__ = original.__doc__
            setattr(paddle.Tensor, name, served)


def restore() -> None:
    import paddle

    for name, original in _ORIGINAL.items():
        setattr(paddle.Tensor, name, original)
    _ORIGINAL.clear()
