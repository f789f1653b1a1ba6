"""1.8 helpers that 2.0 did not make public but Paddle 3 still carries, with the same behaviour.

The table marks them "no 2.x equivalent" (true for the 2.0 API the upgrader targets); the shim runs on
Paddle 3.3.1, where they exist under another module, so legacy code that imports them keeps working.
"""
from __future__ import annotations

from typing import Any, Callable

from runtime_shim.adapters import adapter


def _layers_utils(name: str) -> Callable[..., Any]:
    from paddle.utils import layers_utils

    return getattr(layers_utils, name)


@adapter("paddle.fluid.layers.utils.map_structure", "paddle.utils.map_structure")
def map_structure(func: Callable[..., Any], *structure: Any) -> Any:
    """Apply `func` to every leaf of (several parallel) nested structures."""
    return _layers_utils("map_structure")(func, *structure)


@adapter("paddle.fluid.layers.utils.flatten", "paddle.utils.flatten")
def flatten(nest: Any) -> Any:
    """The leaves of a nested structure, in order."""
    return _layers_utils("flatten")(nest)


@adapter("paddle.fluid.layers.utils.pack_sequence_as", "paddle.utils.pack_sequence_as")
def pack_sequence_as(structure: Any, flat_sequence: Any) -> Any:
    """`flat_sequence` packed into the shape of `structure`."""
    return _layers_utils("pack_sequence_as")(structure, flat_sequence)


@adapter("paddle.fluid.dygraph.layer_object_helper.LayerObjectHelper",
         "paddle.nn.layer.layers.LayerObjectHelper (internal)")
def LayerObjectHelper(name: str) -> Any:
    """1.8's helper that dygraph layers used to create parameters; Paddle 3 keeps it in `nn.layer`."""
    from paddle.nn.layer.layers import LayerObjectHelper as Helper

    return Helper(name)
