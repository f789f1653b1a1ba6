"""1.8 objects that 2.0 did not make public but Paddle 3 still carries, with the same signature and behaviour.

The table marks them "no 2.x equivalent" (true for the 2.0 API the upgrader targets); the shim runs on
Paddle 3.3.1, where they exist under another name, so legacy code that uses them keeps working. Each is
served as a thin subclass (classes) or wrapper (functions) of the Paddle 3 object, so that the use is
reported and Paddle's own object stays untouched.
"""
from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any, Callable

from runtime_shim.adapters import adapter

# 1.8 main name -> where Paddle 3.3.1 keeps the same object
KEPT = {
    "paddle.fluid.layers.utils.map_structure": "paddle.utils.layers_utils.map_structure",
    "paddle.fluid.layers.utils.flatten": "paddle.utils.layers_utils.flatten",
    "paddle.fluid.layers.utils.pack_sequence_as": "paddle.utils.layers_utils.pack_sequence_as",
    "paddle.fluid.layers.utils.is_sequence": "paddle.utils.layers_utils.is_sequence",
    "paddle.fluid.layers.utils.assert_same_structure": "paddle.utils.layers_utils.assert_same_structure",
    "paddle.fluid.clip.set_gradient_clip": "paddle.nn.clip.set_gradient_clip",  # 1.8's rule (SEMANTICS 30)
    "paddle.fluid.dygraph.layer_object_helper.LayerObjectHelper": "paddle.nn.layer.layers.LayerObjectHelper",
    "paddle.fluid.io.default_collate_fn": "paddle.io.dataloader.collate.default_collate_fn",
    "paddle.fluid.optimizer.LarsMomentum": "paddle.incubate.optimizer.LarsMomentumOptimizer",
    "paddle.fluid.DistributeTranspiler": "paddle.distributed.transpiler.DistributeTranspiler",
    "paddle.fluid.DistributeTranspilerConfig": "paddle.distributed.transpiler.DistributeTranspilerConfig",
    "paddle.fluid.release_memory": "paddle.distributed.transpiler.release_memory",
    "paddle.fluid.memory_optimize": "paddle.distributed.transpiler.memory_optimize",
    "paddle.fluid.optimizer.RecomputeOptimizer": "paddle.incubate.optimizer.RecomputeOptimizer",
    "paddle.fluid.layers.autoincreased_step_counter": "paddle.optimizer.lr.autoincreased_step_counter",
    "paddle.fluid.layers.tensor_array_to_tensor": "paddle.tensor.manipulation.tensor_array_to_tensor",
    "paddle.fluid.LoDTensorArray": "paddle.base.core.DenseTensorArray",
    **{f"paddle.fluid.contrib.layers.{name}": f"paddle.incubate.layers.{name}"
       for name in ("shuffle_batch", "partial_concat", "partial_sum", "rank_attention", "tdm_child", "tdm_sampler")},
}

# 1.8 names whose rebinding 1.8's own helpers saw (`utils.is_sequence = f` changes what flatten and
# map_structure take for a leaf) -> the module global Paddle 3's same helpers read; LegacyModule
# forwards an assignment there
REBOUND_GLOBALS = {
    "paddle.fluid.layers.utils.is_sequence": "paddle.utils.layers_utils.is_sequence",
}


def _import(dotted: str) -> Any:
    module, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _served(name: str, target: str) -> Any:
    """Paddle 3's object under its 1.8 name, taking the 1.8 parameters (passed on by name: Paddle 3 added
    parameters and, in places, reordered them)."""
    from api_mapping import load_table
    from runtime_shim.resolve import legacy_signature

    kept = _import(target)
    short = name.rsplit(".", 1)[-1]
    doc = f"Paddle 1.8 `{name}`: Paddle 3's `{target}`."
    entry = load_table().lookup(name)
    signature = legacy_signature(entry.args_list) if entry is not None and entry.args_list is not None else None

    star = signature is not None and any(
        p.kind is inspect.Parameter.VAR_POSITIONAL for p in signature.parameters.values())

    def by_name(args: Any, kwargs: Any) -> Any:
        if signature is None:
            return args, kwargs
        bound = signature.bind(*args, **kwargs)
        if star:  # `map_structure(func, *structure)`: what comes before a *args goes by position
            return bound.args, bound.kwargs
        return (), dict(bound.arguments)

    if inspect.isclass(kept):
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            positional, named = by_name(args, kwargs)
            kept.__init__(self, *positional, **named)

        if signature is not None:
            __init__.__signature__ = signature.replace(  # type: ignore[attr-defined]
                parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                            *signature.parameters.values()])
        return type(short, (kept,), {"__init__": __init__, "__module__": name.rsplit(".", 1)[0], "__doc__": doc})

    @functools.wraps(kept)
    def call(*args: Any, **kwargs: Any) -> Any:
        positional, named = by_name(args, kwargs)
        return kept(*positional, **named)

    call.__doc__ = doc
    if signature is not None:
        call.__signature__ = signature  # type: ignore[attr-defined]
    return call


for _name, _target in KEPT.items():
    adapter(_name, _target)(_served(_name, _target))


@adapter("paddle.fluid.annotations.deprecated", "paddle.utils.deprecated(update_to, since, reason)")
def deprecated(since: str, instead: str, extra_message: str = "") -> Callable[[Callable[..., Any]], Any]:
    """1.8 `annotations.deprecated(since, instead, extra_message)`: a decorator printing to stderr, on each
    call, that `func` is deprecated and what to use instead."""
    import sys

    def decorator(func: Callable[..., Any]) -> Any:
        message = f"API {func.__name__} is deprecated since {since}. Please use {instead} instead."
        if extra_message:
            message += "\n" + extra_message

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            print(message, file=sys.stderr)
            return func(*args, **kwargs)

        wrapper.__doc__ += "\n    " + message  # a TypeError without a docstring, as in 1.8.5
        return wrapper

    return decorator
