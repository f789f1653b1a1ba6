"""1.8's dygraph `Layer` methods on Paddle 3 Layers, while the legacy runtime is installed.

- `sublayers(include_sublayers=...)`: 1.8.5 (`dygraph/layers.py:309`, `:395-409`) returned every
  sublayer for True and, for False, an empty list (its generator yields the sublayers only under
  `if include_sublayers:`); Paddle 3's `sublayers(include_self=False)` has no such keyword. Only the
  keyword is served: a positional argument means `include_self` to the 2.x code that shares the class.

`serve()` installs them, `restore()` puts Paddle's own back.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

_ORIGINAL: Dict[str, Callable[..., Any]] = {}


def _sublayers(original: Callable[..., Any]) -> Callable[..., Any]:
    def sublayers(self: Any, *args: Any, **kwargs: Any) -> Any:
        if "include_sublayers" in kwargs:
            return original(self, *args, **kwargs) if kwargs.pop("include_sublayers") else []
        return original(self, *args, **kwargs)

    return sublayers


_SERVED = {"sublayers": _sublayers}


def serve() -> None:
    import paddle

    for name, make in _SERVED.items():
        if name not in _ORIGINAL:
            original = _ORIGINAL[name] = getattr(paddle.nn.Layer, name)
            served = make(original)
            served.__doc__ = original.__doc__
            setattr(paddle.nn.Layer, name, served)


def restore() -> None:
    import paddle

    for name, original in _ORIGINAL.items():
        setattr(paddle.nn.Layer, name, original)
    _ORIGINAL.clear()
