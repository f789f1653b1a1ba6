"""The 1.8 API families some rewrites recognise (api_mapping.namespaces) are what the table holds."""
from __future__ import annotations

import refactors
from api_mapping.namespaces import ACTIVATIONS, LAYER_BASE, OPTIMIZERS


def test_layer_base_is_the_table_entry_of_the_dygraph_layer() -> None:
    entry = refactors.table().lookup(LAYER_BASE)
    assert entry is not None and entry.name == LAYER_BASE and entry.kind == "class"
    assert refactors.table().lookup("paddle.fluid.dygraph.layers.Layer").name == LAYER_BASE


def test_the_optimizer_namespace_holds_the_1_8_optimizer_classes() -> None:
    names = [name for name in refactors.table().all_names() if name.startswith(OPTIMIZERS)]
    assert {OPTIMIZERS + c for c in ("SGD", "Momentum", "Adam", "AdamOptimizer")} <= set(names)


def test_activation_strings_name_table_entries() -> None:
    for op in ("relu", "sigmoid", "tanh", "softmax", "leaky_relu"):
        assert refactors.table().lookup(ACTIVATIONS + op) is not None, op
