"""`fluid.layers` functions 2.x removed without a replacement, computed on Paddle 3.x with their 1.8 meaning.

The table marks them no-equivalent (the upgrader has no 2.x spelling to write); the shim still computes
them: with the 1.8 operator where Paddle 3.3.1 still registers it (`run_op`, in a legacy-IR program and
in dygraph alike), else from 2.x functions. Each was checked against Paddle 1.8.5
(`fixtures/shim/removed_layers_*.py`).
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from api_mapping.kernels import IOU_SIMILARITY, SIGMOID_FOCAL_LOSS
from runtime_shim import mode
from runtime_shim.adapters import adapter
from runtime_shim.adapters.layers import apply_act
from runtime_shim.resolve import one_dim
from runtime_shim.static_ops import kernel, op, run_op


def _dtype(name: Any) -> Any:
    from paddle.base.framework import convert_np_dtype_to_dtype_

    return convert_np_dtype_to_dtype_(name)


@adapter("paddle.fluid.layers.clip_by_norm", "x * max_norm / max(paddle.linalg.norm(x), max_norm)")
def clip_by_norm(x: Any, max_norm: float, name: Optional[str] = None) -> Any:
    """1.8 `layers.clip_by_norm` (`nn.py:13257`, op `clip_by_norm`): x scaled down to L2 norm `max_norm`."""
    return run_op("clip_by_norm", {"X": x}, {"max_norm": float(max_norm)})


@adapter("paddle.fluid.layers.mul", "paddle.matmul(paddle.flatten(x, x_num_col_dims), "
         "paddle.flatten(y, y_num_col_dims))")
def mul(x: Any, y: Any, x_num_col_dims: int = 1, y_num_col_dims: int = 1, name: Optional[str] = None) -> Any:
    """1.8 `layers.mul` (op `mul`): x and y flattened to 2-D at their `*_num_col_dims`, multiplied."""
    return run_op("mul", {"X": x, "Y": y}, {"x_num_col_dims": x_num_col_dims, "y_num_col_dims": y_num_col_dims})


@adapter("paddle.fluid.layers.affine_channel", "x * scale + bias, scale and bias reshaped per channel")
def affine_channel(x: Any, scale: Any = None, bias: Any = None, data_layout: str = "NCHW",
                   name: Optional[str] = None, act: Optional[str] = None) -> Any:
    """1.8 `layers.affine_channel` (op `affine_channel`): per-channel `x * scale + bias`, then `act`."""
    return apply_act(run_op("affine_channel", {"X": x, "Scale": scale, "Bias": bias},
                            {"data_layout": data_layout}), act)


@adapter("paddle.fluid.layers.sigmoid_focal_loss", "1.8's rule from 2.x operators (paddle.nn.functional."
         "sigmoid_focal_loss takes one-hot labels and does not floor log(p))")
def sigmoid_focal_loss(x: Any, label: Any, fg_num: Any, gamma: float = 2.0, alpha: float = 0.25) -> Any:
    """1.8 `layers.sigmoid_focal_loss` (op `sigmoid_focal_loss`, which Paddle 3.3.1 dropped): with p = sigmoid(x)
    and fg = max(fg_num, 1), -alpha / fg * (1 - p)**gamma * log(p) in the column of the row's int32 label
    (class c in column c - 1), -(1 - alpha) / fg * p**gamma * log(1 - p) in the others, 0 where the label
    is -1. log(p)'s value is floored at log(FLT_MIN) while its gradient stays 1 - p, as 1.8's hand-written
    gradient kernel had it. The upgrade's kernel (api_mapping.kernels), run here."""
    return kernel(SIGMOID_FOCAL_LOSS, "sigmoid_focal_loss")(x, label, fg_num, gamma, alpha)


@adapter("paddle.fluid.layers.iou_similarity", "1.8's rule from 2.x operators (no 2.x API)")
def iou_similarity(x: Any, y: Any, box_normalized: bool = True, name: Optional[str] = None) -> Any:
    """1.8 `layers.iou_similarity` (op `iou_similarity`, which Paddle 3.3.1 dropped): the [N, M] intersection
    over union of the boxes x [N, 4] and y [M, 4], one pixel more per side where not normalized, in the
    kernel's order of operations; x's LoD reaches the result through the element-wise operators (x is their
    first operand), and it has no gradient, as 1.8's. The upgrade's kernel (api_mapping.kernels), run here."""
    return kernel(IOU_SIMILARITY, "iou_similarity")(x, y, box_normalized)


@adapter("paddle.fluid.layers.lrn", "the `lrn` operator (paddle.nn.functional.local_response_norm scales "
         "alpha by 1/size)")
def lrn(input: Any, n: int = 5, k: float = 1.0, alpha: float = 1e-4, beta: float = 0.75,
        name: Optional[str] = None, data_format: str = "NCHW") -> Any:
    """1.8 `layers.lrn` (op `lrn`): x / (k + alpha * sum of squares over n channels) ** beta."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) of Op(lrn) got wrong value: received {data_format} but only NCHW or "
                         "NHWC supported.")
    out, _ = run_op("lrn", {"X": input}, {"n": n, "k": k, "alpha": alpha, "beta": beta, "data_format": data_format},
                    outputs=("Out", "MidOut"))
    return out


@adapter("paddle.fluid.layers.shuffle_channel", "paddle.nn.functional.channel_shuffle(x, group)")
def shuffle_channel(x: Any, group: int, name: Optional[str] = None) -> Any:
    """1.8 `layers.shuffle_channel` (op `shuffle_channel`)."""
    if not isinstance(group, int):
        raise TypeError("group must be int type")
    return run_op("shuffle_channel", {"X": x}, {"group": group})


@adapter("paddle.fluid.layers.mish", "paddle.nn.functional.mish(x) (no threshold)")
def mish(x: Any, threshold: float = 20, name: Optional[str] = None) -> Any:
    """1.8 `layers.mish` (op `mish`): x * tanh(softplus(x)), softplus linear above `threshold`."""
    if not threshold > 0:
        raise AssertionError(f"threshold of mish should be greater than 0, but got {threshold}")
    return run_op("mish", {"X": x}, {"threshold": float(threshold)})


@adapter("paddle.fluid.layers.soft_relu", "paddle.log1p(paddle.exp(paddle.clip(x, -threshold, threshold)))")
def soft_relu(x: Any, threshold: float = 40.0, name: Optional[str] = None) -> Any:
    """1.8 `layers.soft_relu` (op `soft_relu`): log(1 + exp(clip(x, -threshold, threshold)))."""
    clipped = op("paddle.clip")(x, min=-float(threshold), max=float(threshold))
    return op("paddle.log")(1.0 + op("paddle.exp")(clipped))


def _any(flags: Any) -> Any:
    return one_dim(op("paddle.any")(flags))


@adapter("paddle.fluid.layers.has_inf", "paddle.any(paddle.isinf(x))")
def has_inf(x: Any) -> Any:
    """1.8 `layers.has_inf` (op `isinf`): one bool, shape [1]: whether any element is infinite."""
    return _any(op("paddle.isinf")(x))


@adapter("paddle.fluid.layers.has_nan", "paddle.any(paddle.isnan(x))")
def has_nan(x: Any) -> Any:
    """1.8 `layers.has_nan` (op `isnan`): one bool, shape [1]: whether any element is NaN."""
    return _any(op("paddle.isnan")(x))


@adapter("paddle.fluid.layers.isfinite", "paddle.all(paddle.isfinite(x))")
def isfinite(x: Any) -> Any:
    """1.8 `layers.isfinite` (op `isfinite`): one bool, shape [1]: whether every element is finite."""
    return one_dim(op("paddle.all")(op("paddle.isfinite")(x)))


@adapter("paddle.fluid.layers.unique", "paddle.unique(x, return_index=..., return_inverse=...) sorts; "
         "the `unique` operator keeps the order of first occurrence")
def unique(x: Any, dtype: str = "int32") -> Tuple[Any, Any]:
    """1.8 `layers.unique` (op `unique`): values in order of first occurrence, and each element's index there."""
    return run_op("unique", {"X": x}, {"dtype": _dtype(dtype)}, outputs=("Out", "Index"), dtype=(None, dtype))


@adapter("paddle.fluid.layers.unique_with_counts", "the `unique` operator with return_counts")
def unique_with_counts(x: Any, dtype: str = "int32") -> Tuple[Any, Any, Any]:
    """1.8 `layers.unique_with_counts`: `unique`'s results and how often each value occurs, 1-D input."""
    if dtype not in ("int32", "int64"):
        raise TypeError("Op unique_with_counts, index dtype must be int32 or int64")
    if x is None or len(x.shape) != 1:
        raise ValueError("Op unique_with_counts, x must not be null and size of dim must be 1")
    out, index = unique(x, dtype)
    return out, index, op("paddle.cast")(op("paddle.bincount")(index), dtype)  # index covers 0 .. len(out) - 1


@adapter("paddle.fluid.layers.meshgrid", "paddle.meshgrid(*input)")
def meshgrid(input: Sequence[Any], name: Optional[str] = None) -> List[Any]:
    """1.8 `layers.meshgrid(input)` takes the tensors as one list."""
    import paddle

    if not isinstance(input, list):
        raise TypeError("The type of input in meshgrid should be list.")
    return list(paddle.meshgrid(*input))


@adapter("paddle.fluid.layers.addcmul", "input + value * tensor1 * tensor2")
def addcmul(input: Any, tensor1: Any, tensor2: Any, value: float = 1.0, out: Any = None,
            name: Optional[str] = None) -> Any:
    """1.8 `layers.addcmul` (`nn.py:498`): `input + tensor1 * tensor2 * value`, written into `out` if given."""
    import paddle

    result = input + op("paddle.multiply")(tensor1, tensor2) * value
    return paddle.assign(result, out) if out is not None else result


@adapter("paddle.fluid.layers.pad_constant_like", "paddle.nn.functional.pad(y, [0, x_d - y_d per dim], "
         "value=pad_value)")
def pad_constant_like(x: Any, y: Any, pad_value: float = 0.0, name: Optional[str] = None) -> Any:
    """1.8 `layers.pad_constant_like` (op `pad_constant_like`): y padded at the end of each dimension up to
    x's shape."""
    import paddle

    pads: List[int] = []
    for big, small in zip(x.shape, y.shape):
        pads += [0, int(big) - int(small)]
    return paddle.nn.functional.pad(y, pads, value=float(pad_value), pad_from_left_axis=True)


@adapter("paddle.fluid.layers.space_to_depth", "a gather by the 1.8 operator's index map (it is not "
         "paddle.nn.functional.pixel_unshuffle's channel order)")
def space_to_depth(x: Any, blocksize: int, name: Optional[str] = None) -> Any:
    """1.8 `layers.space_to_depth` (op `space_to_depth`): [N, C, H, W] -> [N, C*b*b, H/b, W/b].

    The 1.8 kernel moves element (c, h, w) of each sample to the position
    `w2 + W*b*(h2 + H*b*c2)` with `c2 = c % (C/b²)`, `k = c // (C/b²)`, `w2 = w*b + k % b`,
    `h2 = h*b + k // b`, and reads the result with the output's shape; the same permutation here.
    """
    import numpy as np
    import paddle

    if not isinstance(blocksize, int):
        raise ValueError("blocksize must be a python Int")
    _, c, h, w = (int(d) for d in x.shape)
    b = blocksize
    out_c = c // (b * b)
    cc, hh, ww = np.meshgrid(np.arange(c), np.arange(h), np.arange(w), indexing="ij")
    c2, k = cc % out_c, cc // out_c
    target = (ww * b + k % b) + w * b * ((hh * b + k // b) + h * b * c2)
    source = np.empty(c * h * w, dtype="int64")
    source[target.reshape(-1)] = np.arange(c * h * w)
    flat = paddle.reshape(x, [-1, c * h * w])
    moved = op("paddle.gather")(flat, paddle.assign(source), axis=1)
    return paddle.reshape(moved, [-1, c * b * b, h // b, w // b])


@adapter("paddle.fluid.layers.uniform_random_batch_size_like",
         "paddle.uniform(shape with input's batch size at output_dim_idx, dtype, min, max)")
def uniform_random_batch_size_like(input: Any, shape: Sequence[int], dtype: str = "float32",
                                   input_dim_idx: int = 0, output_dim_idx: int = 0, min: float = -1.0,
                                   max: float = 1.0, seed: int = 0) -> Any:
    """1.8 `layers.uniform_random_batch_size_like` (op of that name): uniform values, the batch size taken
    from `input`."""
    return run_op("uniform_random_batch_size_like", {"Input": input}, {
        "shape": list(shape), "input_dim_idx": input_dim_idx, "output_dim_idx": output_dim_idx, "min": float(min),
        "max": float(max), "seed": seed, "dtype": _dtype(dtype)}, dtype=_dtype(dtype))


@adapter("paddle.fluid.layers.gaussian_random_batch_size_like",
         "paddle.normal(mean, std, shape with input's batch size at output_dim_idx)")
def gaussian_random_batch_size_like(input: Any, shape: Sequence[int], input_dim_idx: int = 0,
                                    output_dim_idx: int = 0, mean: float = 0.0, std: float = 1.0, seed: int = 0,
                                    dtype: str = "float32") -> Any:
    """1.8 `layers.gaussian_random_batch_size_like`: normal values, the batch size taken from `input`."""
    import paddle

    full_shape: List[Any] = list(shape)
    full_shape[output_dim_idx] = paddle.shape(input)[input_dim_idx] if mode.in_legacy_static() \
        else input.shape[input_dim_idx]
    return paddle.cast(paddle.normal(float(mean), float(std), full_shape), dtype)


@adapter("paddle.fluid.layers.create_tensor", "paddle.tensor.create_tensor(dtype, name, persistable) "
         "(a legacy-IR variable)")
def create_tensor(dtype: Any, name: Optional[str] = None, persistable: bool = False) -> Any:
    """1.8 `layers.create_tensor`: an empty variable of the current block, for `assign(x, output=...)`."""
    import paddle

    return paddle.tensor.create_tensor(dtype, name=name, persistable=persistable)


@adapter("paddle.fluid.layers.cumsum", "paddle.cumsum (no exclusive or reverse mode: shift or flip around it)")
def cumsum(x: Any, axis: Optional[int] = None, exclusive: Optional[bool] = None,
           reverse: Optional[bool] = None) -> Any:
    """1.8 `layers.cumsum` (`layers/ops.py:138`, op `cumsum`): the op's attributes 1.8 passed, axis -1 by default."""
    return run_op("cumsum", {"X": x}, {"axis": -1 if axis is None else axis, "exclusive": bool(exclusive),
                                       "reverse": bool(reverse), "flatten": False})
