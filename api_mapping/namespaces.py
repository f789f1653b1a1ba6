"""Families of 1.8 APIs that some rewrites recognise as a whole (facts of the 1.8.5 layout).

A transformer that moves `act=` into a Layer's `forward`, or tells an optimizer's state dict from a
layer's, needs to know which table entries are Layers, optimizers or activation ops. Those facts
live here, beside the table, so that no refactor spells a 1.8 API name.
"""
LAYER_BASE = "paddle.fluid.dygraph.Layer"  # the table's main name of 1.8's dygraph Layer base class
OPTIMIZERS = "paddle.fluid.optimizer."  # the 1.8 namespace of the optimizer classes
ACTIVATIONS = "paddle.fluid.layers."  # 1.8's `act='relu'` appends the op `relu`: `fluid.layers.relu`
# The operators 1.8.5 registers as activations (operators/activation_op.cc, gelu_op, selu_op, mish_op, softmax_op,
# erf_op): an `act=` known only at run time may name any of them, each run with its default attributes.
ACTIVATION_OPS = (
    "abs", "acos", "asin", "atan", "brelu", "ceil", "cos", "elu", "erf", "exp", "floor", "gelu", "hard_shrink",
    "hard_sigmoid", "hard_swish", "leaky_relu", "log", "log1p", "logsigmoid", "mish", "pow", "reciprocal", "relu",
    "relu6", "round", "rsqrt", "selu", "sigmoid", "sign", "sin", "soft_relu", "softmax", "softplus", "softshrink",
    "softsign", "sqrt", "square", "stanh", "swish", "tanh", "tanh_shrink", "thresholded_relu",
)
DATA_VARIABLES = ("paddle.fluid.data", "paddle.fluid.layers.data")  # 1.8's functions making a feed variable
EOF_EXCEPTIONS = ("paddle.fluid.core.EOFException", "paddle.framework.core.EOFException")  # 1.8's, its 2.x name
