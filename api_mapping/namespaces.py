"""Families of 1.8 APIs that some rewrites recognise as a whole (facts of the 1.8.5 layout).

A transformer that moves `act=` into a Layer's `forward`, or tells an optimizer's state dict from a
layer's, needs to know which table entries are Layers, optimizers or activation ops. Those facts
live here, beside the table, so that no refactor spells a 1.8 API name.
"""
LAYER_BASE = "paddle.fluid.dygraph.Layer"  # the table's main name of 1.8's dygraph Layer base class
OPTIMIZERS = "paddle.fluid.optimizer."  # the 1.8 namespace of the optimizer classes
ACTIVATIONS = "paddle.fluid.layers."  # 1.8's `act='relu'` appends the op `relu`: `fluid.layers.relu`
DATA_VARIABLES = ("paddle.fluid.data", "paddle.fluid.layers.data")  # 1.8's functions making a feed variable
EOF_EXCEPTIONS = ("paddle.fluid.core.EOFException", "paddle.framework.core.EOFException")  # 1.8's, its 2.x name
