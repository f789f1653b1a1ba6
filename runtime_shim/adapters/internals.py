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
from typing import Any

from runtime_shim.adapters import adapter

# 1.8 main name -> where Paddle 3.3.1 keeps the same object
KEPT = {
    "paddle.fluid.layers.utils.map_structure": "paddle.utils.layers_utils.map_structure",
    "paddle.fluid.layers.utils.flatten": "paddle.utils.layers_utils.flatten",
    "paddle.fluid.layers.utils.pack_sequence_as": "paddle.utils.layers_utils.pack_sequence_as",
    "paddle.fluid.layers.utils.is_sequence": "paddle.utils.layers_utils.is_sequence",
    "paddle.fluid.layers.utils.assert_same_structure": "paddle.utils.layers_utils.assert_same_structure",
    "paddle.fluid.dygraph.layer_object_helper.LayerObjectHelper": "paddle.nn.layer.layers.LayerObjectHelper",
    "paddle.fluid.io.default_collate_fn": "paddle.io.dataloader.collate.default_collate_fn",
    "paddle.fluid.optimizer.ExponentialMovingAverage": "paddle.static.ExponentialMovingAverage",
    "paddle.fluid.optimizer.LarsMomentum": "paddle.incubate.optimizer.LarsMomentumOptimizer",
    "paddle.fluid.DistributeTranspiler": "paddle.distributed.transpiler.DistributeTranspiler",
    "paddle.fluid.DistributeTranspilerConfig": "paddle.distributed.transpiler.DistributeTranspilerConfig",
    "paddle.fluid.release_memory": "paddle.distributed.transpiler.release_memory",
    "paddle.fluid.memory_optimize": "paddle.distributed.transpiler.memory_optimize",
    "paddle.fluid.optimizer.RecomputeOptimizer": "paddle.incubate.optimizer.RecomputeOptimizer",
    "paddle.fluid.layers.autoincreased_step_counter": "paddle.optimizer.lr.autoincreased_step_counter",
    "paddle.fluid.layers.tensor_array_to_tensor": "paddle.tensor.manipulation.tensor_array_to_tensor",
}


def _import(dotted: str) -> Any:
    module, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _served(name: str, target: str) -> Any:
    kept = _import(target)
    short = name.rsplit(".", 1)[-1]
    doc = f"Paddle 1.8 `{name}`: Paddle 3's `{target}`."
    if inspect.isclass(kept):
        return type(short, (kept,), {"__module__": name.rsplit(".", 1)[0], "__doc__": doc})

    @functools.wraps(kept)
    def call(*args: Any, **kwargs: Any) -> Any:
        return kept(*args, **kwargs)

    call.__doc__ = doc
    return call


for _name, _target in KEPT.items():
    adapter(_name, _target)(_served(_name, _target))
