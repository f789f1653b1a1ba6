"""`fluid.nets`: 1.8's composite helpers, which 2.x removed, composed from the shim's own 1.8 layers.

Each is what 1.8's `nets.py` built, from the served `fluid.layers` functions (so their 1.8 defaults and
`act=` hold); `sequence_conv_pool` is with the LoD sequence adapters (`sequence_lod`).
"""
from __future__ import annotations

from typing import Any, Sequence

from api_mapping.kernels import IMG_CONV_GROUP
from runtime_shim.adapters import adapter
from runtime_shim.static_ops import kernel


def _layer(name: str) -> Any:
    from runtime_shim.resolve import default_resolver

    return default_resolver().resolve(f"paddle.fluid.layers.{name}")


@adapter("paddle.fluid.nets.simple_img_conv_pool", "paddle.nn.Conv2D then paddle.nn.MaxPool2D/AvgPool2D")
def simple_img_conv_pool(input: Any, num_filters: int, filter_size: Any, pool_size: Any, pool_stride: Any,
                         pool_padding: Any = 0, pool_type: str = "max", global_pooling: bool = False,
                         conv_stride: Any = 1, conv_padding: Any = 0, conv_dilation: Any = 1, conv_groups: int = 1,
                         param_attr: Any = None, bias_attr: Any = None, act: Any = None,
                         use_cudnn: bool = True) -> Any:
    """1.8 `nets.simple_img_conv_pool` (`nets.py:29`): `layers.conv2d`, then `layers.pool2d`."""
    conv = _layer("conv2d")(input=input, num_filters=num_filters, filter_size=filter_size, stride=conv_stride,
                            padding=conv_padding, dilation=conv_dilation, groups=conv_groups,
                            param_attr=param_attr, bias_attr=bias_attr, act=act, use_cudnn=use_cudnn)
    return _layer("pool2d")(input=conv, pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride,
                            pool_padding=pool_padding, global_pooling=global_pooling, use_cudnn=use_cudnn)


@adapter("paddle.fluid.nets.img_conv_group", "paddle.static.nn.conv2d (+ batch_norm, dropout) for each filter "
         "count, then max_pool2d/avg_pool2d")
def img_conv_group(input: Any, conv_num_filter: Sequence[int], pool_size: Any, conv_padding: Any = 1,
                   conv_filter_size: Any = 3, conv_act: Any = None, param_attr: Any = None,
                   conv_with_batchnorm: Any = False, conv_batchnorm_drop_rate: Any = 0.0, pool_stride: Any = 1,
                   pool_type: str = "max", use_cudnn: bool = True) -> Any:
    """1.8 `nets.img_conv_group` (`nets.py:139`): convolutions (each optionally batch-normed with `conv_act`
    after the norm, and dropped out), then one pooling. The upgrade's kernel (api_mapping.kernels), run here."""
    return kernel(IMG_CONV_GROUP, "img_conv_group")(
        input, conv_num_filter, pool_size, conv_padding, conv_filter_size, conv_act, param_attr,
        conv_with_batchnorm, conv_batchnorm_drop_rate, pool_stride, pool_type, use_cudnn)


@adapter("paddle.fluid.nets.glu", "a, b = paddle.split(input, 2, axis=dim); a * paddle.nn.functional.sigmoid(b)")
def glu(input: Any, dim: int = -1) -> Any:
    """1.8 `nets.glu` (`nets.py:322`): the gated linear unit, halves split along `dim`."""
    first, second = _layer("split")(input, num_or_sections=2, dim=dim)
    return _layer("elementwise_mul")(x=first, y=_layer("sigmoid")(x=second))


@adapter("paddle.fluid.nets.scaled_dot_product_attention",
         "paddle.nn.functional.softmax(q @ k.T / sqrt(d)) @ v, per head (paddle.nn.MultiHeadAttention has "
         "output projections)")
def scaled_dot_product_attention(queries: Any, keys: Any, values: Any, num_heads: int = 1,
                                 dropout_rate: float = 0.0) -> Any:
    """1.8 `nets.scaled_dot_product_attention` (`nets.py:364`): with several heads, q, k and v first go
    through their own `fc` (with a bias, 1.8's default), then split into heads."""
    for name, value in (("queries", queries), ("keys", keys), ("values", values)):
        if len(value.shape) != 3:
            raise ValueError(f"Inputs queries, keys and values should all be 3-D tensors. {name} is not.")
    if queries.shape[-1] != keys.shape[-1]:
        raise ValueError("The hidden size of queries and keys should be the same.")
    if keys.shape[-2] != values.shape[-2]:
        raise ValueError("The max sequence length in value batch and in key batch should be the same.")
    if keys.shape[-1] % num_heads or values.shape[-1] % num_heads:
        raise ValueError("The hidden size of keys and values must be divisible by the number of attention heads.")
    fc, reshape, transpose = _layer("fc"), _layer("reshape"), _layer("transpose")

    def split_heads(x: Any) -> Any:
        if num_heads == 1:
            return x
        hidden = x.shape[-1]
        return transpose(x=reshape(x=x, shape=list(x.shape[:-1]) + [num_heads, hidden // num_heads]),
                         perm=[0, 2, 1, 3])

    q, k, v = queries, keys, values
    if num_heads != 1:
        q = fc(input=queries, size=queries.shape[-1], num_flatten_dims=2)
        k = fc(input=keys, size=keys.shape[-1], num_flatten_dims=2)
        v = fc(input=values, size=values.shape[-1], num_flatten_dims=2)
    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    scaled = _layer("scale")(x=q, scale=(keys.shape[-1] // num_heads) ** -0.5)
    product = _layer("matmul")(x=scaled, y=k, transpose_y=True)
    weights = reshape(x=reshape(x=product, shape=[-1, product.shape[-1]], act="softmax"), shape=product.shape)
    if dropout_rate:
        weights = _layer("dropout")(weights, dropout_prob=dropout_rate, is_test=False)
    context = _layer("matmul")(weights, v)
    if len(context.shape) == 3:
        return context
    merged = transpose(context, perm=[0, 2, 1, 3])
    return reshape(x=merged, shape=[int(merged.shape[0]), int(merged.shape[1]),
                                    int(merged.shape[2] * merged.shape[3])])
