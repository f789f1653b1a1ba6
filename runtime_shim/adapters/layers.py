"""`fluid.layers` functions whose 2.x counterparts compute something else when called the obvious way.

Each adapter takes the 1.8 signature and computes the 1.8 result in dygraph and in legacy-IR static
mode. The api_mapping/SEMANTICS.md entry it implements is named on each.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from api_mapping.namespaces import ACTIVATIONS, ACTIVATION_OPS
from runtime_shim import mode
from runtime_shim.adapters import adapter, for_transformer
from runtime_shim.resolve import CallTranslator, one_dim
from runtime_shim.static_ops import append_op, op
from runtime_shim.messages import LegacyArgumentError

# ------------------------------------------------------------------------------------------------
# act= (api_mapping/SEMANTICS.md 17)


def apply_act(x: Any, act: Optional[str]) -> Any:
    """Apply a 1.8 activation given by name, as 1.8's `LayerHelper.append_activation` did."""
    if act is None:
        return x
    if not isinstance(act, str):
        raise TypeError(f"act must be an activation name, got {act!r}")
    if mode.in_legacy_static():
        # 1.8 appended an operator of type `act` (X -> Out); those operators still exist.
        return append_op(act, {"X": x})
    if act not in ACTIVATION_OPS:
        raise ValueError(f'Operator "{act}" has not been registered.')  # 1.8's words, in its static graph
    from runtime_shim.resolve import default_resolver  # (resolve imports the adapters)

    # What the shim serves for `fluid.layers.<act>`: the 2.x activation with 1.8's default attributes
    # (leaky_relu's slope 0.02, brelu's bounds), as 1.8's operator ran with them.
    return default_resolver().resolve(ACTIVATIONS + act)(x)


@for_transformer("act_to_call")
def act_to_call(entry: Any, generic: Callable[..., Any]) -> Callable[..., Any]:
    """Any function with `act=`: the 2.x function without it, then the activation."""
    bind = CallTranslator(entry).bind

    def call(*args: Any, **kwargs: Any) -> Any:
        bound, extra = bind(args, kwargs)
        act = bound.pop("act", None)
        return apply_act(generic(*extra, **bound), act)

    _same_face(call, generic)
    return call


@for_transformer("full_reduce_shape1")
def full_reduce_shape1(entry: Any, generic: Callable[..., Any]) -> Callable[..., Any]:
    """Full reductions keep 1.8's shape [1] (api_mapping/SEMANTICS.md 8): the generic path already does that."""
    return generic


@for_transformer("shape_items")
def shape_items(entry: Any, generic: Callable[..., Any]) -> Callable[..., Any]:
    """`layers.shape` itself is served as it is; the upgrader's change is to how its items are read."""
    return generic


@for_transformer("int_division")
def int_division(entry: Any, generic: Callable[..., Any]) -> Callable[..., Any]:
    """`topk`/`argmax`/`argmin` are served as they are; the upgrader's change is to how their integer
    results are divided, which the full shim makes 1.8's for every integer tensor (tensor_methods)."""
    return generic


def _same_face(fn: Callable[..., Any], like: Callable[..., Any]) -> None:
    for attr in ("__name__", "__qualname__", "__module__", "__doc__", "__signature__", "__legacy_name__"):
        if hasattr(like, attr):
            setattr(fn, attr, getattr(like, attr))


# ------------------------------------------------------------------------------------------------
# elementwise_* axis (api_mapping/SEMANTICS.md 16)


def align_for_axis(x: Any, y: Any, axis: int) -> Any:
    """Reshape `y` so that numpy-style broadcasting lines it up with `x` from dimension `axis`."""
    x_rank, y_rank = len(x.shape), len(y.shape)
    if axis is None or axis == -1 or axis == x_rank - y_rank:
        return y
    if axis < 0 or axis + y_rank > x_rank:
        raise ValueError(f"elementwise axis={axis} does not fit shapes {list(x.shape)} and {list(y.shape)}")
    # Drop y's trailing 1s beyond x's rank first, as 1.8's kernel did (`trim_trailing_singular_dims`).
    lead = list(range(axis))
    trail = list(range(axis + y_rank, x_rank))
    if lead:
        y = op("paddle.unsqueeze")(y, lead)
    if trail:
        y = op("paddle.unsqueeze")(y, trail)
    return y


@for_transformer("elementwise_axis")
def elementwise_axis(entry: Any, generic: Callable[..., Any]) -> Callable[..., Any]:
    """`elementwise_*(x, y, axis, act)`: align `y` at `axis`, the 2.x op, then `act`."""
    bind = CallTranslator(entry).bind

    def call(*args: Any, **kwargs: Any) -> Any:
        bound, _ = bind(args, kwargs)
        axis = bound.pop("axis", -1)
        act = bound.pop("act", None)
        bound["y"] = align_for_axis(bound["x"], bound["y"], axis)
        return apply_act(generic(**bound), act)

    _same_face(call, generic)
    return call


# ------------------------------------------------------------------------------------------------
# Shapes: batch dimension, trailing 1s


@adapter("paddle.fluid.layers.data", "paddle.static.data(name, [-1] + shape)", semantics=(5,))
def data(name: str, shape: Sequence[Any], append_batch_size: bool = True, dtype: Any = "float32",
         lod_level: int = 0, type: Any = None, stop_gradient: bool = True) -> Any:
    """1.8 `layers.data` (`layers/io.py:42`): prepends -1 unless a dimension is None or negative."""
    import paddle

    shape = list(shape)
    for i, dim in enumerate(shape):
        if dim is None:
            shape[i] = -1
            append_batch_size = False
        elif dim < 0:
            append_batch_size = False
    if append_batch_size:
        shape = [-1] + shape
    var = paddle.static.data(name=name, shape=shape, dtype=dtype, lod_level=lod_level)
    var.stop_gradient = stop_gradient
    return var


@adapter("paddle.fluid.layers.embedding", "paddle.static.nn.embedding(paddle.squeeze(ids, -1), ...)",
         semantics=(6,))
def embedding(input: Any, size: Sequence[int], is_sparse: bool = False, is_distributed: bool = False,
              padding_idx: Optional[int] = None, param_attr: Any = None, dtype: Any = "float32") -> Any:
    """1.8 `layers.embedding` (op `lookup_table`, `layers/nn.py:1867`): ids `[..., 1]` -> `[..., D]`."""
    import paddle

    ids = op("paddle.squeeze")(input, [-1])
    if mode.in_dygraph():
        weight = paddle.create_parameter(list(size), dtype, attr=param_attr)
        if padding_idx is not None and padding_idx < 0:
            padding_idx += size[0]
        return paddle.nn.functional.embedding(ids, weight, padding_idx=padding_idx, sparse=is_sparse)
    return paddle.static.nn.embedding(ids, list(size), is_sparse=is_sparse, is_distributed=is_distributed,
                                      padding_idx=padding_idx, param_attr=param_attr, dtype=dtype)


@adapter("paddle.fluid.layers.relu6", "paddle.clip(x, 0.0, threshold)")
def relu6(x: Any, threshold: float = 6.0, name: Optional[str] = None) -> Any:
    """1.8 `layers.relu6` (`layers/nn.py:10393`): min(max(0, x), threshold); 2.x relu6 clips at 6 only."""
    return op("paddle.clip")(x, 0.0, float(threshold))


@adapter("paddle.fluid.layers.one_hot", "paddle.nn.functional.one_hot(paddle.squeeze(x, -1), depth)",
         semantics=(7,))
def one_hot(input: Any, depth: int, allow_out_of_range: bool = False) -> Any:
    """1.8 `layers.one_hot` (`layers/nn.py:7136`): `[N, 1]` ids -> `[N, depth]` float32."""
    import paddle

    if allow_out_of_range:
        raise LegacyArgumentError("paddle.fluid.layers.one_hot: allow_out_of_range=True (all-zero rows for "
                                  "out-of-range ids) has no Paddle 2.x equivalent")
    ids = input
    if len(ids.shape) >= 1 and ids.shape[-1] == 1:
        ids = op("paddle.squeeze")(ids, [-1])
    return paddle.nn.functional.one_hot(ids, depth)


# ------------------------------------------------------------------------------------------------
# Losses (api_mapping/SEMANTICS.md 1, 2)


@adapter("paddle.fluid.layers.cross_entropy",
         "paddle.nn.functional.cross_entropy(input, label, reduction='none', use_softmax=False)",
         semantics=(1,))
def cross_entropy(input: Any, label: Any, soft_label: bool = False, ignore_index: int = -100) -> Any:
    """1.8 `layers.cross_entropy` (`layers/loss.py:190`): `-log(input[label])` on probabilities, `[N, 1]`."""
    if mode.in_legacy_static():
        # The operators 1.8 appended (`loss.py:241` hard labels, `cross_entropy` for soft ones).
        if soft_label:
            return append_op("cross_entropy", {"X": input, "Label": label},
                             {"soft_label": True, "ignore_index": ignore_index}, outputs=("Y",))
        y, _, _ = append_op("cross_entropy2", {"X": input, "Label": label}, {"ignore_index": ignore_index},
                            outputs=("Y", "XShape", "MatchX"))
        return y
    import paddle.nn.functional as F

    return F.cross_entropy(input, label, soft_label=soft_label, ignore_index=ignore_index,
                           reduction="none", use_softmax=False)


@adapter("paddle.fluid.layers.softmax_with_cross_entropy",
         "paddle.nn.functional.cross_entropy(logits, label, reduction='none')", semantics=(2,))
def softmax_with_cross_entropy(logits: Any, label: Any, soft_label: bool = False, ignore_index: int = -100,
                               numeric_stable_mode: bool = True, return_softmax: bool = False,
                               axis: int = -1) -> Any:
    """1.8 `layers.softmax_with_cross_entropy` (`layers/loss.py:1156`): per-sample losses `[N, 1]`."""
    import paddle.nn.functional as F

    return F.softmax_with_cross_entropy(logits, label, soft_label=soft_label, ignore_index=ignore_index,
                                        numeric_stable_mode=numeric_stable_mode,
                                        return_softmax=return_softmax, axis=axis)


@adapter("paddle.fluid.layers.reshape", "paddle.reshape(x, actual_shape or shape), then the activation",
         semantics=(17,))
def reshape(x: Any, shape: Any, actual_shape: Any = None, act: Optional[str] = None, inplace: bool = False,
            name: Optional[str] = None) -> Any:
    """1.8 `layers.reshape` (`layers/nn.py:7293`): `actual_shape` (a tensor) wins over `shape`; `act` after."""
    return apply_act(op("paddle.reshape")(x, actual_shape if actual_shape is not None else shape), act)


# ------------------------------------------------------------------------------------------------
# Dropout (api_mapping/SEMANTICS.md 22, 23)

_MODES = {"downgrade_in_infer": "downscale_in_infer", "upscale_in_train": "upscale_in_train"}


def dropout_mode(implementation: str) -> str:
    """1.8's `dropout_implementation` spelled the 2.x way."""
    try:
        return _MODES[implementation]
    except KeyError:
        raise ValueError("dropout_implementation must be 'downgrade_in_infer' or 'upscale_in_train', "
                         f"got {implementation!r}") from None


def dygraph_train_mode() -> bool:
    """1.8's `_dygraph_tracer()._train_mode`.

    1.8 turned it off in `Layer.eval()` (`dygraph/layers.py:109`, which 3.3.1 still does) and inside
    `fluid.dygraph.no_grad()` (`dygraph/base.py:214-222`; 3.3.1's `no_grad` clears the grad flag
    instead), so both are read.
    """
    from paddle.base import core, framework

    tracer = framework._dygraph_tracer()
    return bool(getattr(tracer, "_train_mode", True)) and bool(core._has_grad())


@adapter("paddle.fluid.layers.dropout",
         "paddle.nn.functional.dropout(x, p, training=..., mode='downscale_in_infer')", semantics=(22, 23))
def dropout(x: Any, dropout_prob: float, is_test: bool = False, seed: Optional[int] = None,
            name: Optional[str] = None, dropout_implementation: str = "downgrade_in_infer") -> Any:
    """1.8 `layers.dropout` (`layers/nn.py:2294`).

    Default mode `downgrade_in_infer`: training `x * mask`, inference `x * (1 - p)`. In dygraph the
    tracer's train mode decides and `is_test` is ignored (`nn.py:2367`), as in 1.8.
    """
    if mode.in_legacy_static():
        out, _ = append_op("dropout", {"X": x}, {
            "dropout_prob": float(dropout_prob), "is_test": bool(is_test), "fix_seed": seed is not None,
            "seed": seed if seed is not None else 0, "dropout_implementation": dropout_implementation,
        }, outputs=("Out", "Mask"))
        return out
    import paddle.nn.functional as F

    return F.dropout(x, p=dropout_prob, training=dygraph_train_mode(), mode=dropout_mode(dropout_implementation))


# ------------------------------------------------------------------------------------------------
# matmul alpha (api_mapping/SEMANTICS.md 18), argsort pair (11), pooling stride (21)


@adapter("paddle.fluid.layers.matmul", "paddle.matmul(x, y, transpose_x, transpose_y) * alpha", semantics=(18,))
def matmul(x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False, alpha: float = 1.0,
           name: Optional[str] = None) -> Any:
    """1.8 `layers.matmul` (`layers/nn.py:6321`): the product scaled by `alpha`."""
    out = op("paddle.matmul")(x, y, transpose_x=transpose_x, transpose_y=transpose_y)
    if alpha != 1.0:
        out = op("paddle.scale")(out, scale=float(alpha))
    return one_dim(out)


@adapter("paddle.fluid.layers.argsort", "paddle.sort(x, axis, descending), paddle.argsort(x, axis, descending)",
         semantics=(11,))
def argsort(input: Any, axis: int = -1, descending: bool = False, name: Optional[str] = None) -> Any:
    """1.8 `layers.argsort` (`layers/tensor.py:942`) returns `(sorted_values, indices)`."""
    import paddle

    return (paddle.sort(input, axis=axis, descending=descending),
            paddle.argsort(input, axis=axis, descending=descending))


def pool(input: Any, pool_size: Any, pool_type: str, pool_stride: Any, pool_padding: Any, global_pooling: bool,
         ceil_mode: bool, exclusive: bool, data_format: str, dims: int) -> Any:
    """1.8 pooling with its defaults: stride 1 unless given, `global_pooling` adaptive to 1."""
    import paddle.nn.functional as F

    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool_type must be 'max' or 'avg', got {pool_type!r}")
    if global_pooling:
        fn = getattr(F, f"adaptive_{pool_type}_pool{dims}d")
        return fn(input, 1, data_format=data_format) if pool_type == "avg" else fn(input, 1)
    if pool_type == "max":
        fn = getattr(F, f"max_pool{dims}d")
        return fn(input, kernel_size=pool_size, stride=pool_stride, padding=pool_padding, ceil_mode=ceil_mode,
                  data_format=data_format)
    fn = getattr(F, f"avg_pool{dims}d")
    return fn(input, kernel_size=pool_size, stride=pool_stride, padding=pool_padding, ceil_mode=ceil_mode,
              exclusive=exclusive, data_format=data_format)


@adapter("paddle.fluid.layers.pool2d", "paddle.nn.functional.max_pool2d/avg_pool2d(x, kernel_size, stride=1)",
         semantics=(21,))
def pool2d(input: Any, pool_size: Any = -1, pool_type: str = "max", pool_stride: Any = 1, pool_padding: Any = 0,
           global_pooling: bool = False, use_cudnn: bool = True, ceil_mode: bool = False,
           name: Optional[str] = None, exclusive: bool = True, data_format: str = "NCHW") -> Any:
    """1.8 `layers.pool2d` (`layers/nn.py:3214`): `pool_stride` defaults to 1, not the kernel size."""
    return pool(input, pool_size, pool_type, pool_stride, pool_padding, global_pooling, ceil_mode, exclusive,
                data_format, 2)


@adapter("paddle.fluid.layers.pool3d", "paddle.nn.functional.max_pool3d/avg_pool3d(x, kernel_size, stride=1)",
         semantics=(21,))
def pool3d(input: Any, pool_size: Any = -1, pool_type: str = "max", pool_stride: Any = 1, pool_padding: Any = 0,
           global_pooling: bool = False, use_cudnn: bool = True, ceil_mode: bool = False,
           name: Optional[str] = None, exclusive: bool = True, data_format: str = "NCDHW") -> Any:
    """1.8 `layers.pool3d`: like `pool2d`, stride 1 by default."""
    return pool(input, pool_size, pool_type, pool_stride, pool_padding, global_pooling, ceil_mode, exclusive,
                data_format, 3)


@adapter("paddle.fluid.layers.cos_sim",
         "paddle.unsqueeze(paddle.nn.functional.cosine_similarity(X, Y, axis=1), axis=1)")
def cos_sim(X: Any, Y: Any) -> Any:
    """1.8 `layers.cos_sim` (`layers/nn.py`): row-wise cosine similarity, shape `[N, 1]`; Y may be `[1, D]`."""
    total = op("paddle.sum")
    sqrt = op("paddle.sqrt")
    dot = total(X * Y, axis=1, keepdim=True)
    x_norm = sqrt(total(X * X, axis=1, keepdim=True))
    y_norm = sqrt(total(Y * Y, axis=1, keepdim=True))
    return dot / (x_norm * y_norm)


# ------------------------------------------------------------------------------------------------
# pad2d paddings order, smooth_l1 weights and sigma, prior_box max_sizes

_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate"}


@adapter("paddle.fluid.layers.pad2d",
         "paddle.nn.functional.pad(x, [left, right, top, bottom], mode ('edge' is 'replicate'), value)")
def pad2d(input: Any, paddings: Any = [0, 0, 0, 0], mode: str = "constant", pad_value: float = 0.0,  # noqa: B006
          data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """1.8 `layers.pad2d` (`layers/nn.py:10253`): `paddings` is (top, bottom, left, right), or a Tensor.

    2.x `F.pad` on a 4-D input reads (left, right, top, bottom), and calls 'edge' 'replicate'.
    """
    import paddle

    from runtime_shim.mode import in_dygraph  # the parameter `mode` hides the module here

    if mode not in _PAD_MODES:
        raise ValueError("mode should be one of constant, reflect, edge.")  # 1.8 asserts it (nn.py:10342)
    if isinstance(paddings, (paddle.Tensor, paddle.base.framework.Variable)):
        if in_dygraph():
            paddings = paddings.numpy().tolist()  # as 1.8 did in dygraph (nn.py:10326)
        else:
            paddings = [paddings[2:4], paddings[0:2]]
            return paddle.nn.functional.pad(input, paddle.concat(paddings), mode=_PAD_MODES[mode],
                                            value=pad_value, data_format=data_format)
    top, bottom, left, right = paddings
    return paddle.nn.functional.pad(input, [left, right, top, bottom], mode=_PAD_MODES[mode], value=pad_value,
                                    data_format=data_format)


@adapter("paddle.fluid.layers.smooth_l1",
         "sigma**2 * F.smooth_l1_loss(x * iw, y * iw, reduction='none', delta=1 / sigma**2) * ow, summed per row")
def smooth_l1(x: Any, y: Any, inside_weight: Any = None, outside_weight: Any = None,
              sigma: Optional[float] = None) -> Any:
    """1.8 `layers.smooth_l1` (`layers/nn.py:7062`, op `smooth_l1_loss`), shape `[N, 1]`.

    d = inside_weight * (x - y); 0.5 * sigma**2 * d**2 where |d| < 1 / sigma**2, else |d| - 0.5 / sigma**2;
    times outside_weight; summed over every axis but the first. `sigma=None` is 1.0 (`nn.py:7132`).
    """
    import paddle

    sigma2 = float(1.0 if sigma is None else sigma) ** 2
    diff = x - y
    if inside_weight is not None:
        diff = diff * inside_weight
    magnitude = op("paddle.abs")(diff)
    quadratic = op("paddle.square")(diff) * (0.5 * sigma2)
    if sigma2 == 0.0:
        loss = quadratic  # 1.8's bound 1 / sigma**2 is infinite: every term is the (zero) quadratic one
    else:
        loss = paddle.where(magnitude < 1.0 / sigma2, quadratic, magnitude - 0.5 / sigma2)
    if outside_weight is not None:
        loss = loss * outside_weight
    rows = op("paddle.reshape")(loss, [0, -1])
    return op("paddle.sum")(rows, axis=1, keepdim=True)


@adapter("paddle.fluid.layers.prior_box", "paddle.vision.ops.prior_box(..., max_sizes only when max_sizes[0] > 0)")
def prior_box(input: Any, image: Any, min_sizes: Any, max_sizes: Any = None, aspect_ratios: Any = [1.0],  # noqa: B006
              variance: Any = [0.1, 0.1, 0.2, 0.2], flip: bool = False, clip: bool = False,  # noqa: B006
              steps: Any = [0.0, 0.0], offset: float = 0.5, name: Optional[str] = None,  # noqa: B006
              min_max_aspect_ratios_order: bool = False) -> Any:
    """1.8 `layers.prior_box` (`layers/detection.py:1670`): `(boxes, variances)` of op `prior_box`.

    1.8 passes `max_sizes` to the op only when `max_sizes[0] > 0` (`detection.py:1809`); 3.3.1's
    `paddle.vision.ops.prior_box` passes it in dynamic mode, where the op rejects max <= min. `name` and
    `min_max_aspect_ratios_order` swap places in 2.x, so every argument goes by keyword.
    """
    import paddle

    if not (max_sizes is not None and len(max_sizes) > 0 and max_sizes[0] > 0):
        max_sizes = None
    return paddle.vision.ops.prior_box(input, image, min_sizes, max_sizes=max_sizes, aspect_ratios=aspect_ratios,
                                       variance=variance, flip=flip, clip=clip, steps=steps, offset=offset,
                                       min_max_aspect_ratios_order=min_max_aspect_ratios_order, name=name)


# ------------------------------------------------------------------------------------------------
# resize_nearest's align_corners=True (refactors/transformers/nearest_corners.py)


@for_transformer("nearest_align_corners")
def nearest_align_corners(entry: Any, generic: Callable[..., Any]) -> Callable[..., Any]:
    """1.8 `resize_nearest`, whose default align_corners=True reads input row int((in-1)/(out-1)*i + 0.5).

    2.x `interpolate` refuses align_corners=True for nearest, but its operator still computes it: the call is
    made with False (the output size is the same), then the operator gets True: its attribute set in a static
    program, run again with it in dygraph. As in 1.8, `actual_shape` and then `out_shape` win over `scale`
    (2.x refuses a size with a scale).
    """
    bind = CallTranslator(entry).bind

    def call(*args: Any, **kwargs: Any) -> Any:
        bound, extra = bind(args, kwargs)
        corners = bound.pop("align_corners", True)
        if bound.get("actual_shape") is not None:
            bound["out_shape"] = bound.pop("actual_shape")
        if bound.get("out_shape") is not None:
            bound.pop("scale", None)
        out = generic(*extra, align_corners=False, **bound)
        if not corners:
            return out
        if mode.in_legacy_static():
            import paddle

            made = paddle.static.default_main_program().current_block().ops[-1]
            assert made.type == "nearest_interp_v2", made.type
            made._set_attr("align_corners", True)
            return out
        from paddle import _C_ops

        layout = bound.get("data_format", "NCHW")
        height, width = (out.shape[2], out.shape[3]) if layout == "NCHW" else (out.shape[1], out.shape[2])
        x = bound["input"]
        return _C_ops.nearest_interp(x, None, None, None, layout, -1, height, width, [], "nearest", True, 1)

    _same_face(call, generic)
    return call


# ------------------------------------------------------------------------------------------------
# image_resize / resize_bilinear / resize_trilinear given both out_shape and scale
# (refactors/transformers/resize_out_shape.py)


@for_transformer("resize_out_shape_first")
def resize_out_shape_first(entry: Any, generic: Callable[..., Any]) -> Callable[..., Any]:
    """1.8 reads `scale` only when `out_shape` is None, and `actual_shape` wins over both; 2.x `interpolate`
    refuses a size with a scale (api_mapping/SEMANTICS.md 53)."""
    bind = CallTranslator(entry).bind

    def call(*args: Any, **kwargs: Any) -> Any:
        bound, extra = bind(args, kwargs)
        if bound.get("actual_shape") is not None:
            bound["out_shape"] = bound.pop("actual_shape")
        if bound.get("out_shape") is not None:
            bound.pop("scale", None)
        return generic(*extra, **bound)

    _same_face(call, generic)
    return call


# ------------------------------------------------------------------------------------------------
# adaptive_pool2d/3d kind, fill_constant_batch_size_like


def _adaptive_pool(input: Any, pool_size: Any, pool_type: str, require_index: bool, dims: int) -> Any:
    import paddle.nn.functional as F

    if pool_type not in ("max", "avg"):
        raise ValueError(f"Unknown pool_type: '{pool_type}'. It can only be 'max' or 'avg'.")
    if pool_type == "avg":
        if require_index:  # 1.8 raises too (layers/nn.py:3760)
            raise ValueError("invalid setting 'require_index' true when 'pool_type' is 'avg'.")
        return getattr(F, f"adaptive_avg_pool{dims}d")(input, pool_size)
    return getattr(F, f"adaptive_max_pool{dims}d")(input, pool_size, return_mask=require_index)


@adapter("paddle.fluid.layers.adaptive_pool2d",
         "paddle.nn.functional.adaptive_max_pool2d/adaptive_avg_pool2d(x, output_size, return_mask)")
def adaptive_pool2d(input: Any, pool_size: Any, pool_type: str = "max", require_index: bool = False,
                    name: Optional[str] = None) -> Any:
    """1.8 `layers.adaptive_pool2d` (`layers/nn.py:3651`): one function for both kinds, NCHW."""
    return _adaptive_pool(input, pool_size, pool_type, require_index, 2)


@adapter("paddle.fluid.layers.adaptive_pool3d",
         "paddle.nn.functional.adaptive_max_pool3d/adaptive_avg_pool3d(x, output_size, return_mask)")
def adaptive_pool3d(input: Any, pool_size: Any, pool_type: str = "max", require_index: bool = False,
                    name: Optional[str] = None) -> Any:
    """1.8 `layers.adaptive_pool3d` (`layers/nn.py:3794`): as `adaptive_pool2d`, NCDHW."""
    return _adaptive_pool(input, pool_size, pool_type, require_index, 3)


@adapter("paddle.fluid.layers.fill_constant_batch_size_like",
         "paddle.full(shape with paddle.shape(input)[input_dim_idx] at output_dim_idx, value, dtype)")
def fill_constant_batch_size_like(input: Any, shape: Sequence[int], dtype: Any, value: float,
                                  input_dim_idx: int = 0, output_dim_idx: int = 0, force_cpu: bool = False) -> Any:
    """1.8 `layers.fill_constant_batch_size_like` (`layers/tensor.py:752`).

    The op sets `shape[output_dim_idx]` to `input.shape[input_dim_idx]` when it runs (a LoD input with
    `input_dim_idx=0` gives its number of sequences). A legacy-IR program gets that op itself, which
    Paddle 3.3.1 still registers, unless the shape has a 0 (3.3.1's op then fails when fetched, and the
    result is empty whatever the batch size: `paddle.full` with the input's runtime size gives it). Dygraph
    has no LoD, so `paddle.full` with the input's size is the same.
    """
    import paddle
    from paddle.base.data_feeder import convert_dtype

    full_shape: List[Any] = list(shape)
    if mode.in_legacy_static() and 0 in full_shape:
        full_shape[output_dim_idx] = paddle.shape(input)[input_dim_idx]
        return paddle.full(full_shape, value, dtype)
    if mode.in_legacy_static():
        name = convert_dtype(dtype)
        var_type = paddle.base.framework.convert_np_dtype_to_dtype_(name)
        # The attributes 1.8 set (layers/tensor.py:796).
        attrs = {"shape": list(shape), "dtype": var_type, "value": float(value),
                 "str_value": str(int(value)) if name in ("int64", "int32") else str(float(value)),
                 "input_dim_idx": input_dim_idx, "output_dim_idx": output_dim_idx, "force_cpu": force_cpu}
        out = append_op("fill_constant_batch_size_like", {"Input": input}, attrs, dtype=var_type)
        out.stop_gradient = True
        return out
    full_shape[output_dim_idx] = input.shape[input_dim_idx]
    return paddle.full(full_shape, value, dtype)


@adapter("paddle.fluid.layers.crop", "paddle.crop(x, shape=paddle.shape(y)) for a reference tensor y")
def crop(x: Any, shape: Any = None, offsets: Any = None, name: Optional[str] = None) -> Any:
    """1.8 `layers.crop` (`layers/nn.py:9970`): a Variable `shape` is the tensor whose shape to crop to
    (2.x would read its values as the shape); a list or tuple is the shape itself in both."""
    import paddle

    if isinstance(shape, (paddle.Tensor, paddle.base.framework.Variable)):
        shape = paddle.shape(shape)
    return op("paddle.crop")(x, shape=shape, offsets=offsets, name=name)
