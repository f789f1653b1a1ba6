"""`fluid.dygraph` layer classes: subclasses of the 2.x layers with the 1.8 constructor and forward.

Where 1.8 took `act=`, the activation is applied in `forward` (api_mapping/SEMANTICS.md 17); where a 1.8 layer's
mode came from `.train()`/`.eval()` and not from its `is_test` argument, so does the adapter's (23).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from runtime_shim.adapters import adapter, for_transformer
from runtime_shim.adapters.layers import apply_act, dropout_mode, pool
from runtime_shim.resolve import import_dotted, legacy_subclass


def _nn() -> Any:
    import paddle.nn as nn

    return nn


# ------------------------------------------------------------------------------------------------
# Any 2.x layer whose 1.8 constructor took act= (table transformer `layer_act`)


@for_transformer("layer_act")
def layer_act(entry: Any, generic: Any) -> type:
    """A subclass of the 2.x layer: the table's argument changes, then `act` applied in `forward`."""
    target = import_dotted(entry.update_to)

    def forward(self: Any, *inputs: Any, **kwargs: Any) -> Any:
        return apply_act(target.forward(self, *inputs, **kwargs), self._legacy_act)

    return legacy_subclass(entry, target, members={"forward": forward},
                           attributes=lambda bound: {"_legacy_act": bound.pop("act", None)},
                           doc=", with `act` applied in forward")


# ------------------------------------------------------------------------------------------------
# Layers whose 1.8 meaning needs more than renames


@adapter("paddle.fluid.dygraph.Pool2D", "paddle.nn.MaxPool2D/AvgPool2D(kernel_size, stride=1)", semantics=(21,))
class Pool2D(_nn().Layer):
    """1.8 `dygraph.Pool2D` (`dygraph/nn.py:799`): max pooling, stride 1, unless told otherwise."""

    def __init__(self, pool_size: Any = -1, pool_type: str = "max", pool_stride: Any = 1, pool_padding: Any = 0,
                 global_pooling: bool = False, use_cudnn: bool = True, ceil_mode: bool = False,
                 exclusive: bool = True) -> None:
        super().__init__()
        if pool_type not in ("max", "avg"):
            raise ValueError(f"Unknown pool_type: {pool_type!r}, it can only be 'max' or 'avg'")
        self._pool_size = pool_size
        self._pool_type = pool_type
        self._pool_stride = pool_stride
        self._pool_padding = pool_padding
        self._global_pooling = global_pooling
        self._ceil_mode = ceil_mode
        self._exclusive = exclusive

    def forward(self, input: Any) -> Any:
        return pool(input, self._pool_size, self._pool_type, self._pool_stride, self._pool_padding,
                    self._global_pooling, self._ceil_mode, self._exclusive, "NCHW", 2)


@adapter("paddle.fluid.dygraph.Dropout", "paddle.nn.Dropout(p, mode='downscale_in_infer')", semantics=(22, 23))
class Dropout(_nn().Layer):
    """1.8 `dygraph.Dropout` (`dygraph/nn.py:1337`): mode from `.train()`/`.eval()`, not `is_test`."""

    def __init__(self, p: float = 0.5, seed: Optional[int] = None,
                 dropout_implementation: str = "downgrade_in_infer", is_test: bool = False) -> None:
        super().__init__()
        self._dropout_prob = p
        self._seed = seed
        self._mode = dropout_mode(dropout_implementation)

    def forward(self, input: Any) -> Any:
        import paddle.nn.functional as F

        return F.dropout(input, p=self._dropout_prob, training=self.training, mode=self._mode)


@adapter("paddle.fluid.dygraph.BatchNorm", "paddle.nn.BatchNorm2D(num_features, momentum=0.9, epsilon=1e-5)",
         semantics=(17, 23, 25))
class BatchNorm(_nn().BatchNorm):
    """1.8 `dygraph.BatchNorm` (`dygraph/nn.py:1103`): `.train()`/`.eval()` decide the statistics used.

    2.x `nn.BatchNorm` keeps the 1.8 signature but starts in eval mode when `is_test=True`; 1.8 ignored
    `is_test` (`nn.py:1282` reads `not self.training`).
    """

    def __init__(self, num_channels: int, act: Optional[str] = None, is_test: bool = False,
                 momentum: float = 0.9, epsilon: float = 1e-05, param_attr: Any = None, bias_attr: Any = None,
                 dtype: Any = "float32", data_layout: str = "NCHW", in_place: bool = False,
                 moving_mean_name: Optional[str] = None, moving_variance_name: Optional[str] = None,
                 do_model_average_for_mean_and_var: bool = True, use_global_stats: bool = False,
                 trainable_statistics: bool = False) -> None:
        super().__init__(num_channels, act=None, is_test=False, momentum=momentum, epsilon=epsilon,
                         param_attr=param_attr, bias_attr=bias_attr, dtype=dtype, data_layout=data_layout,
                         in_place=in_place, moving_mean_name=moving_mean_name,
                         moving_variance_name=moving_variance_name,
                         do_model_average_for_mean_and_var=do_model_average_for_mean_and_var,
                         use_global_stats=use_global_stats, trainable_statistics=trainable_statistics)
        self._legacy_act = act

    def forward(self, input: Any) -> Any:
        self._is_test = not self.training  # the legacy-IR path reads `_is_test`
        return apply_act(super().forward(input), self._legacy_act)


@adapter("paddle.fluid.dygraph.Embedding", "paddle.nn.Embedding(num_embeddings, embedding_dim, padding_idx, "
         "sparse, weight_attr)", semantics=(6, 20))
class Embedding(_nn().Embedding):
    """1.8 `dygraph.Embedding` (`dygraph/nn.py:1446`, op `lookup_table_v2`): ids `[N, T]` -> `[N, T, D]`."""

    def __init__(self, size: Sequence[int], is_sparse: bool = False, is_distributed: bool = False,
                 padding_idx: Optional[int] = None, param_attr: Any = None, dtype: Any = "float32") -> None:
        super().__init__(size[0], size[1], padding_idx=padding_idx, sparse=is_sparse, weight_attr=param_attr)
        self._size = list(size)


@adapter("paddle.fluid.dygraph.LayerNorm", "paddle.nn.LayerNorm(normalized_shape, epsilon, weight_attr, bias_attr)",
         semantics=(17, 20))
class LayerNorm(_nn().LayerNorm):
    """1.8 `dygraph.LayerNorm`: `scale=False`/`shift=False` mean no weight/no bias; `act` after."""

    def __init__(self, normalized_shape: Any, scale: bool = True, shift: bool = True, epsilon: float = 1e-05,
                 param_attr: Any = None, bias_attr: Any = None, act: Optional[str] = None,
                 dtype: Any = "float32") -> None:
        super().__init__(normalized_shape, epsilon=epsilon,
                         weight_attr=param_attr if scale else False,
                         bias_attr=bias_attr if shift else False)
        self._legacy_act = act

    def forward(self, input: Any) -> Any:
        return apply_act(super().forward(input), self._legacy_act)


@adapter("paddle.fluid.dygraph.GRUUnit", "an explicit GRU step (nn.GRUCell has other weights and gates)",
         semantics=(26,))
class GRUUnit(_nn().Layer):
    """1.8 `dygraph.GRUUnit` (`dygraph/nn.py:1772`): one GRU step on an already projected input.

    `size` is 3 * hidden. The `[D, 3D]` weight is read as the 1.8 kernel reads its memory: the first
    2*D*D values are the `[D, 2D]` update|reset matrix, the last D*D the `[D, D]` candidate matrix.
    Dygraph 1.8 never passed `origin_mode`, so `h = u * (c - h_prev) + h_prev` always.
    """

    def __init__(self, size: int, param_attr: Any = None, bias_attr: Any = None, activation: str = "tanh",
                 gate_activation: str = "sigmoid", origin_mode: bool = False, dtype: Any = "float32") -> None:
        super().__init__()
        hidden = size // 3
        self._hidden = hidden
        self._activation = activation
        self._gate_activation = gate_activation
        self.weight = self.create_parameter(attr=param_attr, shape=[hidden, 3 * hidden], dtype=dtype)
        self.bias = self.create_parameter(attr=bias_attr, shape=[1, 3 * hidden], dtype=dtype, is_bias=True)

    def forward(self, input: Any, hidden: Any) -> Tuple[Any, Any, Any]:
        import paddle

        d = self._hidden
        flat = paddle.reshape(self.weight, [-1])
        w_update_reset = paddle.reshape(flat[: 2 * d * d], [d, 2 * d])
        w_candidate = paddle.reshape(flat[2 * d * d:], [d, d])
        g = input + self.bias if self.bias is not None else input
        ur = g[:, : 2 * d] + paddle.matmul(hidden, w_update_reset)
        ur = _gru_act(ur, self._gate_activation)
        u, r = ur[:, :d], ur[:, d:]
        reset_hidden_prev = r * hidden
        c = _gru_act(g[:, 2 * d:] + paddle.matmul(reset_hidden_prev, w_candidate), self._activation)
        h = u * (c - hidden) + hidden
        gate = paddle.concat([u, r, c], axis=1)
        return h, reset_hidden_prev, gate


def _gru_act(x: Any, name: str) -> Any:
    if name == "identity":
        return x
    return apply_act(x, name)


@adapter("paddle.fluid.dygraph.PRelu", "paddle.nn.PReLU(num_parameters, init, weight_attr)", semantics=(20,))
class PRelu(_nn().Layer):
    """1.8 `dygraph.PRelu(mode, channel, input_shape, param_attr)`: one slope (weight [1]), one per channel
    ([1, C, 1, 1]) or one per element ([1] + input_shape[1:]), the shapes 1.8.5 gives its weight."""

    def __init__(self, mode: str, channel: Optional[int] = None, input_shape: Any = None, param_attr: Any = None,
                 dtype: Any = "float32") -> None:
        super().__init__()
        import paddle

        if mode == "all":
            shape = [1]
        elif mode == "channel":
            shape = [1, channel, 1, 1]
        elif mode == "element":
            shape = [1] + list(input_shape[1:])
        else:
            raise ValueError("mode should be one of all, channel, element.")
        self._mode = mode
        self.weight = self.create_parameter(attr=param_attr, shape=shape, dtype=dtype, is_bias=False,
                                            default_initializer=paddle.nn.initializer.Constant(1.0))

    def forward(self, input: Any) -> Any:
        import paddle

        if self._mode == "all":
            return paddle.nn.functional.prelu(input, self.weight)
        zero = paddle.zeros_like(input)
        return paddle.maximum(input, zero) + self.weight * paddle.minimum(input, zero)
