"""Every 2.x name converted static code calls, built on Paddle 3.x's legacy IR under `runtime_shim.enable_static()`.

Run as a script (`python tests/static_2x_cases.py OUT.json [NAME...]`), it calls `runtime_shim.enable_static()`,
builds each case below in a legacy-IR program with `paddle.static.data` Variables, runs it with an
Executor, and writes one JSON object: name -> "ok" or the failure. `tests/test_static_2x_names.py` runs
it in a subprocess (the IR choice and the served functions are process-wide) and checks the names.

A case is `build(fn, env)`: `fn` is what the 2.x name denotes *after* `enable_static()` (looked up
again, as converted code looks it up when it runs), `env.data(array)` a legacy Variable fed with
`array` (a Tensor when the case runs in dygraph). The number check, per case:

- "same": the legacy-IR program computes what the same call computes in dygraph (the 2.x meaning),
  on the same input, at 1e-5;
- `ref=`: as "same", but the dygraph side runs `ref(env)` (for static-only APIs: the 2.x functional
  spelling of the same computation, with the same weights);
- "shape": random results: same shapes and dtypes as in dygraph;
- `expect=`: the values given;
- "runs": the program builds and runs (where 3.3.1 itself gives different numbers from run to run).

Training cases (`Train`) build a linear regression, `minimize` it with the optimizer (and scheduler)
the name denotes, and compare the losses of 4 steps with dygraph training of the same model.
"""
from __future__ import annotations

import json
import math
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

_rng = np.random.RandomState(7)
X = _rng.uniform(-1, 1, (2, 3)).astype("float32")
Y = _rng.uniform(-1, 1, (2, 3)).astype("float32")
POS = _rng.uniform(0.2, 1, (2, 3)).astype("float32")
UNIT = _rng.uniform(-0.9, 0.9, (2, 3)).astype("float32")
SQ = _rng.uniform(-1, 1, (3, 3)).astype("float32")
B3 = _rng.uniform(-1, 1, (2, 3, 4)).astype("float32")
IMG = _rng.uniform(-1, 1, (2, 4, 5, 5)).astype("float32")
VOL = _rng.uniform(-1, 1, (2, 2, 4, 4, 4)).astype("float32")
BOOL_A = np.array([[True, False, True], [False, False, True]])
BOOL_B = np.array([[True, True, False], [False, True, True]])
INT = np.array([[3, -7, 8], [5, 9, -2]], dtype="int64")
INT2 = np.array([[2, 3, 3], [4, 5, 7]], dtype="int64")
LABEL = np.array([[2], [0]], dtype="int64")
PROB = np.array([[0.1, 0.3, 0.6], [0.5, 0.25, 0.25]], dtype="float32")
W33 = _rng.uniform(-0.5, 0.5, (3, 3)).astype("float32")
W32 = _rng.uniform(-0.5, 0.5, (3, 2)).astype("float32")
BIAS2 = np.array([0.1, -0.2], dtype="float32")
_TRAIN_X = _rng.uniform(-1, 1, (4, 3)).astype("float32")
_TRAIN_Y = (_TRAIN_X @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")


@dataclass
class Case:
    build: Callable[..., Any]
    check: str = "same"
    ref: Optional[Callable[..., Any]] = None
    expect: Any = None
    rtol: float = 1e-5


@dataclass
class Train:
    """`make(fn, parameters)` returns `(optimizer, scheduler or None)`; `parameters` is None in static mode."""
    make: Callable[..., Any]
    steps: int = 4
    note: str = field(default="")


def _paddle() -> Any:
    import paddle

    return paddle


def _F() -> Any:
    import paddle.nn.functional as F

    return F


def attr(value: np.ndarray) -> Any:
    """A ParamAttr initializing a parameter with `value` (so static and dygraph share weights)."""
    paddle = _paddle()
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(value))


def const(value: float) -> Any:
    paddle = _paddle()
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(value))


CASES: Dict[str, Any] = {}


def case(names: Sequence[str] | str, build: Callable[..., Any], **kw: Any) -> None:
    for name in [names] if isinstance(names, str) else names:
        if name in CASES:
            raise ValueError(f"case {name} twice")
        CASES[name] = Case(build, **kw)


def unary(names: Sequence[str], data: np.ndarray = X) -> None:
    for name in names:
        case(name, lambda fn, env, d=data: fn(env.data(d)))


def binary(names: Sequence[str], a: np.ndarray = X, b: np.ndarray = Y) -> None:
    for name in names:
        case(name, lambda fn, env, a=a, b=b: fn(env.data(a), env.data(b)))


# ------------------------------------------------------------------------------------------------
# Element-wise math, comparisons, logic

unary(["paddle.abs", "paddle.atan", "paddle.ceil", "paddle.cos", "paddle.erf", "paddle.exp", "paddle.floor",
       "paddle.round", "paddle.sign", "paddle.sin", "paddle.square", "paddle.tanh", "paddle.stanh", "paddle.cosh",
       "paddle.sinh", "paddle.expm1", "paddle.sigmoid", "paddle.isfinite", "paddle.isinf", "paddle.isnan",
       "paddle.nn.functional.sigmoid", "paddle.nn.functional.tanh"])
unary(["paddle.acos", "paddle.asin", "paddle.atanh"], UNIT)
unary(["paddle.log", "paddle.log1p", "paddle.log2", "paddle.log10", "paddle.reciprocal", "paddle.rsqrt",
       "paddle.sqrt"], POS)
unary(["paddle.acosh"], POS + 1)
binary(["paddle.add", "paddle.subtract", "paddle.multiply", "paddle.divide", "paddle.maximum", "paddle.minimum",
        "paddle.equal", "paddle.not_equal", "paddle.greater_equal", "paddle.greater_than", "paddle.less_equal",
        "paddle.less_than", "paddle.kron", "paddle.dist", "paddle.allclose", "paddle.isclose"])
binary(["paddle.pow"], POS, Y)
binary(["paddle.floor_divide", "paddle.remainder"], INT, INT2)
binary(["paddle.logical_and", "paddle.logical_or", "paddle.logical_xor"], BOOL_A, BOOL_B)
unary(["paddle.logical_not"], BOOL_A)
binary(["paddle.cross"], SQ[:2], W33[:2])
case("paddle.add_n", lambda fn, env: fn([env.data(X), env.data(Y), env.data(POS)]))
case("paddle.scale", lambda fn, env: fn(env.data(X), scale=2.0, bias=0.5, bias_after_scale=False))
case("paddle.clip", lambda fn, env: fn(env.data(X), min=-0.3, max=0.4))
case("paddle.cast", lambda fn, env: fn(env.data(X * 4), "int32"))
case("paddle.logsumexp", lambda fn, env: (fn(env.data(X)), fn(env.data(X), axis=1, keepdim=True)))
case("paddle.increment", lambda fn, env: fn(env.data(np.array([3.0], "float32")), value=2.0))

# ------------------------------------------------------------------------------------------------
# Products, reductions, indices

case(["paddle.matmul", "paddle.linalg.matmul"], lambda fn, env: (fn(env.data(X), env.data(Y), transpose_y=True),
                                                                 fn(env.data(X), env.data(SQ))))
case("paddle.bmm", lambda fn, env: fn(env.data(B3), env.data(np.transpose(B3, (0, 2, 1)).copy())))
case("paddle.dot", lambda fn, env: fn(env.data(X), env.data(Y)))
case("paddle.addmm", lambda fn, env: fn(env.data(SQ[:2]), env.data(X), env.data(W33), beta=0.5, alpha=2.0))
case("paddle.t", lambda fn, env: fn(env.data(X)))
case("paddle.trace", lambda fn, env: fn(env.data(SQ), offset=1))
case("paddle.diagonal", lambda fn, env: fn(env.data(B3), offset=1, axis1=1, axis2=2))
case("paddle.diag", lambda fn, env: (fn(env.data(SQ)), fn(env.data(X[0]), offset=1)))
case("paddle.nn.functional.diag_embed", lambda fn, env: fn(env.data(X)))
for _name in ("paddle.sum", "paddle.mean", "paddle.max", "paddle.min", "paddle.prod", "paddle.amax", "paddle.amin"):
    case(_name, lambda fn, env: (fn(env.data(X)), fn(env.data(X), axis=1), fn(env.data(X), axis=[0], keepdim=True)))
case("paddle.atleast_1d", lambda fn, env: (fn(_paddle().sum(env.data(X))), fn(env.data(X))))  # 0-D -> [1]
case(["paddle.all", "paddle.any"], lambda fn, env: (fn(env.data(BOOL_A)), fn(env.data(BOOL_A), axis=1)))
case(["paddle.argmax", "paddle.argmin"], lambda fn, env: (fn(env.data(X)), fn(env.data(X), axis=1, keepdim=True)))
case("paddle.cumsum", lambda fn, env: (fn(env.data(X), axis=1), fn(env.data(X))))
case("paddle.numel", lambda fn, env: fn(env.data(X)))
case("paddle.rank", lambda fn, env: fn(env.data(X)))
case("paddle.shape", lambda fn, env: fn(env.data(B3)))
case("paddle.is_empty", lambda fn, env: fn(env.data(X)))
case("paddle.nonzero", lambda fn, env: fn(env.data(BOOL_A)))
case("paddle.argsort", lambda fn, env: fn(env.data(X), axis=1, descending=True))
case("paddle.sort", lambda fn, env: fn(env.data(X), axis=1))
case("paddle.topk", lambda fn, env: fn(env.data(X), k=2))

# ------------------------------------------------------------------------------------------------
# Shapes, indexing, creation

case("paddle.reshape", lambda fn, env: (fn(env.data(X), [3, 2]), fn(env.data(B3), [0, -1])))
case("paddle.flatten", lambda fn, env: fn(env.data(B3), start_axis=1))
case("paddle.squeeze", lambda fn, env: fn(env.data(X[:1]), axis=0))
case("paddle.unsqueeze", lambda fn, env: fn(env.data(X), axis=[0, 2]))
case("paddle.transpose", lambda fn, env: fn(env.data(B3), perm=[2, 0, 1]))
case("paddle.concat", lambda fn, env: fn([env.data(X), env.data(Y)], axis=1))
case("paddle.stack", lambda fn, env: fn([env.data(X), env.data(Y)], axis=1))
case("paddle.unstack", lambda fn, env: fn(env.data(X), axis=1))
case("paddle.split", lambda fn, env: (fn(env.data(B3), 2, axis=2), fn(env.data(B3), [1, -1], axis=2)))
case("paddle.slice", lambda fn, env: fn(env.data(B3), axes=[1, 2], starts=[1, 0], ends=[3, 2]))
case("paddle.strided_slice", lambda fn, env: fn(env.data(B3), axes=[2], starts=[0], ends=[4], strides=[2]))
case("paddle.tile", lambda fn, env: fn(env.data(X), repeat_times=[2, 1]))
case("paddle.expand_as", lambda fn, env: fn(env.data(X[:1]), env.data(Y)))
case("paddle.flip", lambda fn, env: fn(env.data(X), axis=[1]))
case("paddle.roll", lambda fn, env: (fn(env.data(X), shifts=1, axis=1), fn(env.data(X), shifts=2)))
case(["paddle.tril", "paddle.triu"], lambda fn, env: (fn(env.data(SQ)), fn(env.data(SQ), diagonal=1)))
case("paddle.gather", lambda fn, env: fn(env.data(SQ), env.data(np.array([2, 0], "int64")), axis=1))
case("paddle.gather_nd", lambda fn, env: fn(env.data(B3), env.data(np.array([[0, 1], [1, 2]], "int64"))))
case("paddle.index_select", lambda fn, env: fn(env.data(SQ), env.data(np.array([2, 0], "int64")), axis=0))
case("paddle.index_sample", lambda fn, env: fn(env.data(X), env.data(np.array([[0, 2], [1, 1]], "int64"))))
case("paddle.scatter", lambda fn, env: fn(env.data(SQ), env.data(np.array([2, 0], "int64")), env.data(X)))
case("paddle.scatter_nd", lambda fn, env: fn(env.data(np.array([[1], [2]], "int64")), env.data(X), [4, 3]))
case("paddle.scatter_nd_add", lambda fn, env: fn(env.data(SQ), env.data(np.array([[1], [1]], "int64")),
                                                 env.data(X)))
case("paddle.crop", lambda fn, env: fn(env.data(B3), shape=[1, 2, 2], offsets=[1, 1, 1]))
case("paddle.shard_index", lambda fn, env: fn(env.data(np.array([[1], [6], [11]], "int64")), index_num=12, nshards=2,
                                              shard_id=0))
case("paddle.multiplex", lambda fn, env: fn([env.data(X), env.data(Y)], env.data(np.array([[1], [0]], "int32"))))
case("paddle.full", lambda fn, env: fn([2, 3], 1.5, "float32"))
case("paddle.full_like", lambda fn, env: fn(env.data(X), 2.0))
case(["paddle.zeros", "paddle.ones"], lambda fn, env: fn([2, 3], "float32"))
case(["paddle.zeros_like", "paddle.ones_like"], lambda fn, env: fn(env.data(X)))
case("paddle.arange", lambda fn, env: (fn(0, 5, 2, "float32"), fn(4)))
case("paddle.linspace", lambda fn, env: fn(0, 1, 5, "float32"))
case("paddle.eye", lambda fn, env: fn(3, 2, "float32"))
case("paddle.assign", lambda fn, env: (fn(env.data(X)), fn(np.array([[1.0, 2.0]], "float32"))))
case("paddle.to_tensor", lambda fn, env: fn(np.array([[1.0, 2.0]], "float32")))
case("paddle.create_parameter", lambda fn, env: fn([2, 3], "float32", attr=attr(X)) * 2)
case("paddle.uniform", lambda fn, env: fn([2, 3], "float32", min=-1.0, max=1.0), check="shape")
case("paddle.normal", lambda fn, env: fn(0.0, 1.0, [2, 3]), check="shape")
case("paddle.randn", lambda fn, env: fn([2, 3], "float32"), check="shape")
case("paddle.randint", lambda fn, env: fn(0, 5, [2, 3]), check="shape")
case("paddle.randperm", lambda fn, env: fn(6), check="shape")

# ------------------------------------------------------------------------------------------------
# Activations and functional layers

unary(["paddle.nn.functional.relu", "paddle.nn.functional.relu6", "paddle.nn.functional.elu",
       "paddle.nn.functional.selu", "paddle.nn.functional.hardshrink", "paddle.nn.functional.hardsigmoid",
       "paddle.nn.functional.hardswish", "paddle.nn.functional.log_sigmoid", "paddle.nn.functional.log_softmax",
       "paddle.nn.functional.softmax", "paddle.nn.functional.softshrink", "paddle.nn.functional.softsign",
       "paddle.nn.functional.swish", "paddle.nn.functional.tanhshrink", "paddle.nn.functional.thresholded_relu",
       "paddle.nn.functional.silu", "paddle.nn.functional.mish"], X * 3)
case("paddle.nn.functional.leaky_relu", lambda fn, env: fn(env.data(X), negative_slope=0.02))
case("paddle.nn.functional.gelu", lambda fn, env: (fn(env.data(X)), fn(env.data(X), approximate=True)))
case("paddle.nn.functional.softplus", lambda fn, env: fn(env.data(X), beta=2, threshold=1))
case("paddle.nn.functional.prelu", lambda fn, env: fn(env.data(IMG), env.data(np.array([0.25], "float32"))))
case("paddle.nn.functional.maxout", lambda fn, env: fn(env.data(IMG), groups=2))
case("paddle.nn.functional.normalize", lambda fn, env: (fn(env.data(X)), fn(env.data(X), p=1, axis=0)))
case("paddle.nn.functional.linear", lambda fn, env: fn(env.data(X), env.data(W32), env.data(BIAS2)))
case("paddle.nn.functional.one_hot", lambda fn, env: fn(env.data(np.array([[1], [2]], "int64")), num_classes=4))
case("paddle.nn.functional.label_smooth", lambda fn, env: fn(env.data(PROB), epsilon=0.1))
case("paddle.nn.functional.sequence_mask", lambda fn, env: fn(env.data(np.array([1, 3], "int64")), maxlen=4))
case("paddle.nn.functional.pad", lambda fn, env: (fn(env.data(IMG), [1, 0, 2, 1]),
                                                  fn(env.data(IMG), [1, 1, 1, 1], mode="reflect")))
case("paddle.nn.functional.interpolate", lambda fn, env: (fn(env.data(IMG), scale_factor=2, mode="nearest"),
                                                          fn(env.data(IMG), size=[3, 4], mode="bilinear")))
case("paddle.nn.functional.pixel_shuffle", lambda fn, env: fn(env.data(IMG), 2))
case("paddle.nn.functional.channel_shuffle", lambda fn, env: fn(env.data(IMG), 2))
case("paddle.nn.functional.temporal_shift", lambda fn, env: fn(env.data(IMG), seg_num=2))
case("paddle.nn.functional.unfold", lambda fn, env: fn(env.data(IMG), kernel_sizes=[2, 2]))
case("paddle.nn.functional.affine_grid", lambda fn, env: fn(env.data(np.tile(np.array(
    [[[1.0, 0.2, 0.0], [0.1, 0.9, 0.1]]], "float32"), (2, 1, 1))), out_shape=[2, 4, 3, 3]))
_GRID = _rng.uniform(-1, 1, (2, 3, 3, 2)).astype("float32")
case("paddle.nn.functional.grid_sample", lambda fn, env: fn(env.data(IMG), env.data(_GRID), align_corners=False))
case("paddle.nn.functional.dropout", lambda fn, env: (fn(env.data(X), p=0.0), fn(env.data(X), p=0.5, training=False),
                                                      fn(env.data(X), p=0.5, training=False,
                                                         mode="downscale_in_infer")))
case("paddle.nn.functional.dropout#random", lambda fn, env: fn(env.data(X), p=0.5), check="shape")
for _dims, _data in ((1, B3), (2, IMG), (3, VOL)):
    for _kind in ("max", "avg"):
        case(f"paddle.nn.functional.{_kind}_pool{_dims}d",
             lambda fn, env, d=_data: (fn(env.data(d), kernel_size=2), fn(env.data(d), kernel_size=3, stride=1,
                                                                          padding=1)))
        case(f"paddle.nn.functional.adaptive_{_kind}_pool{_dims}d", lambda fn, env, d=_data: fn(env.data(d), 2))
_CONV_W = _rng.uniform(-1, 1, (3, 4, 2, 2)).astype("float32")
_CONV3_W = _rng.uniform(-1, 1, (3, 2, 2, 2, 2)).astype("float32")
_BTP_W = _rng.uniform(-1, 1, (2, 3, 3)).astype("float32")
case("paddle.nn.functional.conv2d", lambda fn, env: fn(env.data(IMG), env.data(_CONV_W), padding=1))
case("paddle.nn.functional.embedding", lambda fn, env: fn(env.data(INT2 % 3), env.data(SQ)))
case("paddle.nn.functional.batch_norm", lambda fn, env: fn(
    env.data(IMG), env.data(np.zeros(4, "float32")), env.data(np.ones(4, "float32")), training=False))
case("paddle.nn.functional.layer_norm", lambda fn, env: fn(env.data(IMG), normalized_shape=[5, 5]))

# ------------------------------------------------------------------------------------------------
# Losses and metrics

_LOGITS = X * 2
case("paddle.nn.functional.cross_entropy", lambda fn, env: (
    fn(env.data(_LOGITS), env.data(LABEL)), fn(env.data(_LOGITS), env.data(LABEL), reduction="none"),
    fn(env.data(PROB), env.data(LABEL), use_softmax=False, reduction="sum"),
    fn(env.data(_LOGITS), env.data(PROB), soft_label=True)))
case("paddle.nn.functional.softmax_with_cross_entropy", lambda fn, env: fn(env.data(_LOGITS), env.data(LABEL)))
case("paddle.nn.functional.binary_cross_entropy_with_logits",
     lambda fn, env: fn(env.data(X), env.data((Y > 0).astype("float32"))))
case("paddle.nn.functional.binary_cross_entropy",
     lambda fn, env: fn(env.data(PROB), env.data((Y > 0).astype("float32"))))
case("paddle.nn.functional.mse_loss", lambda fn, env: fn(env.data(X), env.data(Y)))
case("paddle.nn.functional.l1_loss", lambda fn, env: fn(env.data(X), env.data(Y)))
case("paddle.nn.functional.square_error_cost", lambda fn, env: fn(env.data(X), env.data(Y)))
case("paddle.nn.functional.smooth_l1_loss", lambda fn, env: fn(env.data(X), env.data(Y), delta=0.5))
case("paddle.nn.functional.kl_div", lambda fn, env: fn(env.data(np.log(PROB)), env.data(PROB[::-1].copy())))
case("paddle.nn.functional.log_loss", lambda fn, env: fn(env.data(PROB[:, :1].copy()),
                                                         env.data(np.array([[1.0], [0.0]], "float32"))))
case("paddle.nn.functional.dice_loss", lambda fn, env: fn(env.data(PROB), env.data(LABEL)))
case("paddle.nn.functional.margin_ranking_loss", lambda fn, env: fn(env.data(X), env.data(Y), env.data(
    np.sign(POS - 0.5).astype("float32")), margin=0.1))
case("paddle.nn.functional.npair_loss", lambda fn, env: fn(env.data(X), env.data(Y),
                                                           env.data(np.array([1.0, 2.0], "float32"))))
case("paddle.nn.functional.nll_loss", lambda fn, env: fn(env.data(np.log(PROB)), env.data(LABEL[:, 0].copy())))
case("paddle.nn.functional.loss.edit_distance", lambda fn, env: fn(
    env.data(np.array([[1, 2, 3, 0], [2, 2, 0, 0]], "int64")), env.data(np.array([[1, 3, 3], [2, 1, 0]], "int64")),
    input_length=env.data(np.array([3, 2], "int64")), label_length=env.data(np.array([3, 2], "int64"))),
     # dygraph returns the pair swapped in 3.3.1; the 2.x meaning (its docs): distances [N, 1], then N
     expect=[[[1 / 3], [1 / 2]], [2]])
case(["paddle.metric.accuracy", "paddle.static.accuracy"], lambda fn, env: (
    fn(env.data(PROB), env.data(LABEL)), fn(env.data(PROB), env.data(LABEL), k=2)))

# ------------------------------------------------------------------------------------------------
# Tensor methods and operators on legacy Variables (`x.sum()`, `x * y`, ...)

_METHODS = {
    "sum": (), "mean": (), "max": (), "min": (), "prod": (), "exp": (), "abs": (), "sqrt": None, "tanh": (),
    "sigmoid": (), "argmax": (), "argmin": (), "log": None, "floor": (), "ceil": (), "round": (), "sign": (),
    "square": (), "cos": (), "sin": (), "rsqrt": None, "reciprocal": None, "cumsum": (), "flatten": (),
    "numel": (), "logsumexp": (), "isnan": (), "isinf": (), "isfinite": (), "t": (), "amax": (), "amin": (),
}
for _m, _args in _METHODS.items():
    case(f"Tensor.{_m}", lambda fn, env, m=_m, pos=_args is None: getattr(env.data(POS if pos else X), m)())
case("Tensor.sum(axis)", lambda fn, env: env.data(X).sum(axis=1, keepdim=True))
case("Tensor.mean(axis)", lambda fn, env: env.data(X).mean(axis=[0]))
case("Tensor.reshape", lambda fn, env: env.data(X).reshape([3, 2]))
case("Tensor.transpose", lambda fn, env: env.data(X).transpose([1, 0]))
case("Tensor.unsqueeze", lambda fn, env: env.data(X).unsqueeze(0))
case("Tensor.squeeze", lambda fn, env: env.data(X[:1]).squeeze(0))
case("Tensor.astype", lambda fn, env: env.data(X * 4).astype("int64"))
case("Tensor.cast", lambda fn, env: env.data(X * 4).cast("int32"))
case("Tensor.matmul", lambda fn, env: env.data(X).matmul(env.data(SQ)))
case("Tensor.multiply", lambda fn, env: env.data(X).multiply(env.data(Y)))
case("Tensor.maximum", lambda fn, env: env.data(X).maximum(env.data(Y)))
case("Tensor.minimum", lambda fn, env: env.data(X).minimum(env.data(Y)))
case("Tensor.dot", lambda fn, env: env.data(X).dot(env.data(Y)))
case("Tensor.expand_as", lambda fn, env: env.data(X[:1]).expand_as(env.data(Y)))
case("Tensor.logical_not", lambda fn, env: env.data(BOOL_A).logical_not())
case("Tensor.logical_and", lambda fn, env: env.data(BOOL_A).logical_and(env.data(BOOL_B)))
case("Tensor.all", lambda fn, env: env.data(BOOL_A).all())
case("Tensor.any", lambda fn, env: env.data(BOOL_A).any())
case("Tensor.tril", lambda fn, env: env.data(SQ).tril())
case("Tensor.greater_than", lambda fn, env: env.data(X).greater_than(env.data(Y)))
case("Tensor.__getitem__", lambda fn, env: (env.data(B3)[0], env.data(B3)[:, 1:, ::2], env.data(B3)[..., -1]))
_OPERATORS = {
    "__add__": lambda a, b: a + b, "__sub__": lambda a, b: a - b, "__mul__": lambda a, b: a * b,
    "__truediv__": lambda a, b: a / b, "__pow__": lambda a, b: a ** 2, "__neg__": lambda a, b: -a,
    "__matmul__": lambda a, b: a @ b.t(), "__radd__": lambda a, b: 1.5 + a, "__rsub__": lambda a, b: 1.0 - a,
    "__rmul__": lambda a, b: 3 * a, "__rtruediv__": lambda a, b: 1.0 / (a + 2), "__lt__": lambda a, b: a < b,
    "__le__": lambda a, b: a <= b, "__gt__": lambda a, b: a > b, "__ge__": lambda a, b: a >= b,
    "__eq__": lambda a, b: a == b, "__ne__": lambda a, b: a != b, "__abs__": lambda a, b: abs(a),
    "__mul__(scalar)": lambda a, b: a * 0.5, "__sub__(scalar)": lambda a, b: a - 1,
}
for _op, _fn in _OPERATORS.items():
    case(f"Tensor.{_op}", lambda fn, env, f=_fn: f(env.data(X), env.data(Y)))
case("Tensor.__floordiv__", lambda fn, env: env.data(INT) // env.data(INT2))
case("Tensor.__mod__", lambda fn, env: env.data(INT) % env.data(INT2))

# ------------------------------------------------------------------------------------------------
# paddle.nn layers in a static program (converted code builds its model from them)


def layer(build_layer: Callable[..., Any], data: np.ndarray = IMG) -> Callable[..., Any]:
    return lambda cls, env: build_layer(cls)(env.data(data))


case("paddle.nn.Linear", layer(lambda c: c(3, 2, weight_attr=attr(W32), bias_attr=attr(BIAS2)), X))
case("paddle.nn.Conv2D", layer(lambda c: c(4, 3, 2, padding=1, weight_attr=attr(_CONV_W), bias_attr=const(0.1))))
case("paddle.nn.Conv2DTranspose", layer(lambda c: c(4, 3, 2, stride=2, weight_attr=attr(
    _CONV_W.transpose(1, 0, 2, 3).copy()), bias_attr=const(0.1))))
case("paddle.nn.Conv3D", layer(lambda c: c(2, 3, 2, weight_attr=attr(_CONV3_W)), VOL))
case("paddle.nn.Conv3DTranspose", layer(lambda c: c(2, 3, 2, weight_attr=attr(
    _CONV3_W.transpose(1, 0, 2, 3, 4).copy())), VOL))
case("paddle.nn.BatchNorm", layer(lambda c: c(4, param_attr=const(1.5), bias_attr=const(0.1))))
case("paddle.nn.BatchNorm2D", layer(lambda c: c(4, weight_attr=const(1.5), bias_attr=const(0.1))))
case("paddle.nn.BatchNorm1D", layer(lambda c: c(3), B3))
case("paddle.nn.LayerNorm", layer(lambda c: c([5, 5], weight_attr=const(2.0), bias_attr=const(0.5))))
case("paddle.nn.GroupNorm", layer(lambda c: c(2, 4, weight_attr=const(2.0), bias_attr=const(0.5))))
case("paddle.nn.InstanceNorm2D", layer(lambda c: c(4)))
case("paddle.nn.Embedding", layer(lambda c: c(3, 3, padding_idx=0, weight_attr=attr(SQ)), INT2 % 3))
case("paddle.nn.Dropout", layer(lambda c: c(0.0), X))
# The power iteration starts from a random vector: enough iterations make the result independent of it.
case("paddle.nn.SpectralNorm", layer(lambda c: c([3, 3], dim=0, power_iters=200), SQ), rtol=1e-4)
case("paddle.nn.Bilinear", lambda c, env: c(3, 3, 2, weight_attr=attr(_BTP_W), bias_attr=const(0.1))(
    env.data(X), env.data(Y)))
for _pool, _args in {"MaxPool2D": (2,), "AvgPool2D": (2,), "AdaptiveMaxPool2D": (2,), "AdaptiveAvgPool2D": (2,),
                     "MaxPool1D": (2,), "AvgPool1D": (2,)}.items():
    case(f"paddle.nn.{_pool}", layer(lambda c, a=_args: c(*a), B3 if _pool.endswith("1D") else IMG))
for _act in ("ReLU", "Sigmoid", "Tanh", "Softmax", "LeakyReLU", "GELU", "ELU", "Hardswish", "Softplus", "ReLU6",
             "Silu", "LogSoftmax", "Hardsigmoid", "Swish", "Mish", "Flatten"):
    case(f"paddle.nn.{_act}", layer(lambda c: c(), X))
case("paddle.nn.PReLU", layer(lambda c: c(4, init=0.2)))
for _loss in ("MSELoss", "L1Loss", "SmoothL1Loss"):
    case(f"paddle.nn.{_loss}", lambda c, env: c()(env.data(X), env.data(Y)))
case("paddle.nn.BCELoss", lambda c, env: c()(env.data(PROB), env.data((Y > 0).astype("float32"))))
case("paddle.nn.BCEWithLogitsLoss", lambda c, env: c()(env.data(X), env.data((Y > 0).astype("float32"))))
case("paddle.nn.CrossEntropyLoss", lambda c, env: c()(env.data(_LOGITS), env.data(LABEL)))
case("paddle.nn.NLLLoss", lambda c, env: c()(env.data(np.log(PROB)), env.data(LABEL[:, 0].copy())))
case("paddle.nn.Sequential", lambda c, env: c(_paddle().nn.Linear(3, 2, weight_attr=attr(W32)),
                                              _paddle().nn.ReLU())(env.data(X)))
case("paddle.nn.LayerList", lambda c, env: c([_paddle().nn.Linear(3, 2, weight_attr=attr(W32))])[0](env.data(X)))


def _param_list(c: Any, env: Any) -> Any:
    params = c([_paddle().create_parameter([3, 2], "float32", attr=attr(W32))])
    return _paddle().matmul(env.data(X), params[0])


case("paddle.nn.ParameterList", _param_list)


def _custom_layer(c: Any, env: Any) -> Any:
    paddle = _paddle()

    class Net(c):
        def __init__(self) -> None:
            super().__init__()
            self.w = self.create_parameter([3, 2], attr=attr(W32))
            self.fc = paddle.nn.Linear(2, 2, weight_attr=attr(W33[:2, :2].copy()))

        def forward(self, x: Any) -> Any:
            return self.fc(paddle.nn.functional.relu(paddle.matmul(x, self.w))).sum(axis=1)

    return Net()(env.data(X))


case("paddle.nn.Layer", _custom_layer)

# ------------------------------------------------------------------------------------------------
# Static-only layers (`paddle.static.nn`): the dygraph reference is the same computation, same weights

case("paddle.static.nn.fc", lambda fn, env: fn(env.data(X), 2, weight_attr=attr(W32), bias_attr=attr(BIAS2),
                                               activation="relu"),
     ref=lambda env: _F().relu(_F().linear(env.data(X), env.data(W32), env.data(BIAS2))))
case("paddle.static.nn.conv2d", lambda fn, env: fn(env.data(IMG), 3, 2, padding=1, param_attr=attr(_CONV_W),
                                                   bias_attr=const(0.1)),
     ref=lambda env: _F().conv2d(env.data(IMG), env.data(_CONV_W), padding=1) + 0.1)
case("paddle.static.nn.conv2d_transpose", lambda fn, env: fn(env.data(IMG), 3, filter_size=2, stride=2, param_attr=attr(
    _CONV_W.transpose(1, 0, 2, 3).copy()), bias_attr=False),
     ref=lambda env: _F().conv2d_transpose(env.data(IMG), env.data(_CONV_W.transpose(1, 0, 2, 3).copy()), stride=2))
case("paddle.static.nn.conv3d", lambda fn, env: fn(env.data(VOL), 3, 2, param_attr=attr(_CONV3_W), bias_attr=False),
     ref=lambda env: _F().conv3d(env.data(VOL), env.data(_CONV3_W)))
case("paddle.static.nn.conv3d_transpose", lambda fn, env: fn(env.data(VOL), 3, filter_size=2, param_attr=attr(
    _CONV3_W.transpose(1, 0, 2, 3, 4).copy()), bias_attr=False),
     ref=lambda env: _F().conv3d_transpose(env.data(VOL), env.data(_CONV3_W.transpose(1, 0, 2, 3, 4).copy())))
case("paddle.static.nn.batch_norm", lambda fn, env: fn(env.data(IMG), param_attr=const(1.5), bias_attr=const(0.1)),
     ref=lambda env: _paddle().nn.BatchNorm2D(4, weight_attr=const(1.5), bias_attr=const(0.1))(env.data(IMG)))
case("paddle.static.nn.batch_norm#is_test", lambda fn, env: fn(env.data(IMG), is_test=True),
     ref=lambda env: _F().batch_norm(env.data(IMG), env.data(np.zeros(4, "float32")), env.data(np.ones(4, "float32")),
                                     training=False))
case("paddle.static.nn.layer_norm", lambda fn, env: fn(env.data(IMG), begin_norm_axis=2, param_attr=const(2.0),
                                                       bias_attr=const(0.5)),
     ref=lambda env: _F().layer_norm(env.data(IMG), [5, 5], weight=env.data(np.full(25, 2.0, "float32")),
                                     bias=env.data(np.full(25, 0.5, "float32"))))
case("paddle.static.nn.group_norm", lambda fn, env: fn(env.data(IMG), 2, param_attr=const(2.0), bias_attr=const(0.5)),
     ref=lambda env: _paddle().nn.GroupNorm(2, 4, weight_attr=const(2.0), bias_attr=const(0.5))(env.data(IMG)))
case("paddle.static.nn.instance_norm", lambda fn, env: fn(env.data(IMG)),
     ref=lambda env: _paddle().nn.InstanceNorm2D(4)(env.data(IMG)))
case("paddle.static.nn.embedding", lambda fn, env: fn(env.data(INT2 % 3), size=[3, 3], param_attr=attr(SQ)),
     ref=lambda env: _F().embedding(env.data(INT2 % 3), env.data(SQ)))
case("paddle.static.nn.prelu", lambda fn, env: fn(env.data(IMG), "channel", param_attr=const(0.2)),
     ref=lambda env: _F().prelu(env.data(IMG), env.data(np.full(4, 0.2, "float32"))))
case("paddle.static.nn.bilinear_tensor_product", lambda fn, env: fn(env.data(X), env.data(Y), 2,
                                                                    param_attr=attr(_BTP_W), bias_attr=False),
     ref=lambda env: _F().bilinear(env.data(X), env.data(Y), env.data(_BTP_W)))
case("paddle.static.nn.spectral_norm", lambda fn, env: fn(env.data(SQ), dim=0, power_iters=200),
     ref=lambda env: _paddle().nn.SpectralNorm([3, 3], dim=0, power_iters=200)(env.data(SQ)), rtol=1e-4)
# out[t] = sum_i w[i] * x[t + i] over the future context, zero past the end.
case("paddle.static.nn.row_conv", lambda fn, env: fn(env.data(B3), 1, param_attr=const(0.5)),
     expect=[0.5 * (B3 + np.concatenate([B3[:, 1:], np.zeros_like(B3[:, :1])], axis=1))])
case("paddle.static.nn.deform_conv2d", lambda fn, env: fn(
    env.data(IMG), env.data(np.zeros((2, 8, 4, 4), "float32")), None, 3, 2, weight_attr=attr(_CONV_W),
    bias_attr=False),
     ref=lambda env: _F().conv2d(env.data(IMG), env.data(_CONV_W)))
case("paddle.static.nn.nce", lambda fn, env: fn(env.data(X), env.data(LABEL), num_total_classes=4), check="shape",
     ref=lambda env: _paddle().zeros([2, 1], "float32"))

# ------------------------------------------------------------------------------------------------
# Control flow


def _cond(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    x = env.data(X)
    small = paddle.sum(x) < 0.5
    return (fn(small, lambda: x * 2, lambda: x - 1),
            fn(paddle.mean(x) > 10.0, lambda: (x + 1, paddle.exp(x)), lambda: (x - 1, paddle.tanh(x))))


def _cond_ref(env: Any) -> Any:
    x = env.data(X)
    return (x * 2 if float(X.sum()) < 0.5 else x - 1), (x - 1, _paddle().tanh(x))


case("paddle.static.nn.cond", _cond, ref=_cond_ref)


def _while(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    i = paddle.full([1], 0, "int64")
    acc = env.data(X)
    limit = paddle.full([1], 4, "int64")
    i, acc = fn(lambda i, acc: i < limit, lambda i, acc: [i + 1, paddle.tanh(acc) * 1.5 + paddle.sum(acc)], [i, acc])
    return i, acc


def _while_ref(env: Any) -> Any:
    paddle = _paddle()
    acc = env.data(X)
    for _ in range(4):
        acc = paddle.tanh(acc) * 1.5 + paddle.sum(acc)
    return paddle.to_tensor([4], "int64"), acc


case("paddle.static.nn.while_loop", _while, ref=_while_ref)


def _case(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    x = env.data(X)
    s = paddle.sum(x)
    return (fn([(s > 100.0, lambda: x * 0), (s < 100.0, lambda: x + 3)], default=lambda: x),
            fn([(s > 100.0, lambda: x * 0)], default=lambda: x - 5))


case("paddle.static.nn.case", _case, ref=lambda env: (env.data(X) + 3, env.data(X) - 5))


def _switch_case(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    x = env.data(X)
    index = env.data(np.array([1], "int64"))
    return (fn(index, {0: lambda: x * 0, 1: lambda: x * 4, 2: lambda: x}),
            fn(paddle.full([1], 5, "int64"), [lambda: x, lambda: x * 2], default=lambda: x - 2))


case("paddle.static.nn.switch_case", _switch_case, ref=lambda env: (env.data(X) * 4, env.data(X) - 2))


def _arrays(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    x = env.data(X)
    array = paddle.tensor.create_array("float32")
    i = paddle.zeros([1], "int64")
    paddle.tensor.array_write(x, i, array=array)
    paddle.tensor.array_write(x * 2, i + 1, array=array)
    return paddle.tensor.array_read(array, i + 1), paddle.tensor.array_length(array)


case(["paddle.tensor.create_array", "paddle.tensor.array_write", "paddle.tensor.array_read",
      "paddle.tensor.array_length"], _arrays, expect=[X * 2, [2]])

# ------------------------------------------------------------------------------------------------
# Static-graph tools


def _print(fn: Any, env: Any) -> Any:
    return fn(env.data(X), message="shim") * 1


case("paddle.static.Print", _print, ref=lambda env: env.data(X))


def _py_func(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    x = env.data(X)
    out = paddle.static.default_main_program().current_block().create_var(name="pyfunc_out", dtype="float32",
                                                                          shape=[2, 3])
    fn(lambda a: np.array(a) * 3, x, out)
    return out


case("paddle.static.py_func", _py_func, ref=lambda env: env.data(X) * 3)


def _gradients(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    x = env.data(X)
    x.stop_gradient = False
    y = paddle.sum(paddle.square(x) * 3)
    return fn([y], [x])[0]


case("paddle.static.gradients", _gradients, ref=lambda env: env.data(X) * 6)


def _append_backward(fn: Any, env: Any) -> Any:
    paddle = _paddle()
    x = env.data(X)
    w = paddle.create_parameter([3, 2], "float32", attr=attr(W32))
    loss = paddle.mean(paddle.matmul(x, w))
    (param, grad), = fn(loss)
    return grad


case("paddle.static.append_backward", _append_backward,
     ref=lambda env: _paddle().to_tensor(np.repeat(X.sum(axis=0, keepdims=True).T / 4, 2, axis=1)))


def _global_var(fn: Any, env: Any) -> Any:
    v = fn([2, 3], 1.25, "float32", persistable=True)
    return v + env.data(X)


case("paddle.static.create_global_var", _global_var, ref=lambda env: env.data(X) + 1.25)


def _auc(fn: Any, env: Any) -> Any:
    probs = env.data(np.array([[0.2, 0.8], [0.7, 0.3], [0.4, 0.6], [0.9, 0.1]], "float32"))
    auc, batch_auc, *_ = fn(probs, env.data(np.array([[1], [0], [0], [1]], "int64")), num_thresholds=255)
    return auc


case("paddle.static.auc", _auc, expect=[0.5])


# ------------------------------------------------------------------------------------------------
# LoD sequence layers (paddle.static.nn.sequence_*): whole static scripts fed a LoD tensor, two sequences of
# 2 and 3 steps, against the values 1.8.5's operators give (the same operators; dygraph has no LoD)

SEQ_STEPS = np.arange(10, dtype="float32").reshape(5, 2)


def _on_sequences(build: Callable[[Any, Any], Any], expect: Any, steps: np.ndarray = SEQ_STEPS) -> Callable[[Any], None]:
    def script(fn: Any) -> None:
        paddle = _paddle()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            x = paddle.static.data("x", [None, steps.shape[1]], "float32", lod_level=1)
            out = build(fn, x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(paddle.static.Scope()):
            exe.run(startup)
            feed = {"x": paddle.base.create_lod_tensor(steps, [[2, 3]], paddle.CPUPlace())}
            got, = exe.run(main, feed=feed, fetch_list=[out], return_numpy=False)
        np.testing.assert_allclose(np.asarray(got), np.asarray(expect, "float32"), rtol=1e-6)
    return script


_SOFTMAX_IN = np.array([[0.5], [1.5], [0.0], [1.0], [2.0]], "float32")
CASES["paddle.static.nn.sequence_pool"] = _on_sequences(lambda fn, x: fn(x, "sum"), [[2, 4], [18, 21]])
CASES["paddle.static.nn.sequence_first_step"] = _on_sequences(lambda fn, x: fn(x), [[0, 1], [4, 5]])
CASES["paddle.static.nn.sequence_last_step"] = _on_sequences(lambda fn, x: fn(x), [[2, 3], [8, 9]])
CASES["paddle.static.nn.sequence_softmax"] = _on_sequences(
    lambda fn, x: fn(x), np.concatenate([np.exp(v) / np.exp(v).sum() for v in (_SOFTMAX_IN[:2], _SOFTMAX_IN[2:])]),
    _SOFTMAX_IN)
# A window of 3 steps (zeros outside the sequence) times an all-ones filter: the sum of the window.
CASES["paddle.static.nn.sequence_conv"] = _on_sequences(
    lambda fn, x: fn(x, 1, 3, param_attr=const(1.0), bias_attr=False), [[6], [6], [22], [39], [30]])
CASES["paddle.static.nn.sequence_expand"] = _on_sequences(
    lambda fn, x: fn(_paddle().static.nn.sequence_pool(x, "first"), x), [[0, 1], [0, 1], [4, 5], [4, 5], [4, 5]])

# ------------------------------------------------------------------------------------------------
# Initializers: a parameter built in the startup program


def initialized(make: Callable[[Any], Any], shape: Sequence[int] = (3, 4)) -> Callable[..., Any]:
    def build(cls: Any, env: Any) -> Any:
        paddle = _paddle()
        return paddle.create_parameter(list(shape), "float32", attr=paddle.ParamAttr(initializer=make(cls))) * 1
    return build


case("paddle.nn.initializer.Constant", initialized(lambda c: c(0.75)))
case("paddle.nn.initializer.Assign", initialized(lambda c: c(np.arange(12, dtype="float32").reshape(3, 4))))
for _init in ("Normal", "TruncatedNormal", "Uniform", "XavierUniform", "XavierNormal", "KaimingUniform",
              "KaimingNormal", "XavierInitializer", "MSRAInitializer"):
    if _init.endswith("Initializer"):
        continue
    case(f"paddle.nn.initializer.{_init}", initialized(lambda c: c()), check="shape")
case("paddle.nn.initializer.Bilinear", initialized(lambda c: c(), (4, 1, 4, 4)))
case("paddle.ParamAttr", lambda c, env: _paddle().static.nn.fc(env.data(X), 2, weight_attr=c(
    initializer=_paddle().nn.initializer.Assign(W32), learning_rate=0.5, regularizer=_paddle().regularizer.L2Decay(0.1)),
    bias_attr=False), ref=lambda env: _paddle().matmul(env.data(X), env.data(W32)))
case("paddle.static.WeightNormParamAttr", lambda c, env: _paddle().static.nn.fc(env.data(X), 2, weight_attr=c(
    dim=None, initializer=_paddle().nn.initializer.Assign(W32)), bias_attr=False),
     ref=lambda env: _paddle().matmul(env.data(X), env.data(W32)))

# ------------------------------------------------------------------------------------------------
# Programs, executors, scopes, persistence: whole static scripts, `run(fn)` returns what they fetched


def _program(dropout: bool = True) -> Any:
    """A program computing `mean(dropout(relu(x @ w + b)) * 2)` with known weights, and its startup program."""
    paddle = _paddle()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [2, 3], "float32")
        hidden = paddle.nn.functional.relu(paddle.static.nn.fc(x, 2, weight_attr=attr(W32), bias_attr=attr(BIAS2)))
        loss = paddle.mean((paddle.nn.functional.dropout(hidden, p=0.5) if dropout else hidden) * 2)
    return main, startup, loss


_EXPECTED = np.maximum(X @ W32 + BIAS2, 0)
_FEED = {"x": X}


def _executed(main: Any, startup: Any, fetch: Sequence[Any], program: Any = None) -> List[np.ndarray]:
    paddle = _paddle()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        return exe.run(program if program is not None else main, feed=_FEED, fetch_list=list(fetch))


def _clone_for_test(fn: Any) -> None:
    main, startup, loss = _program()
    value, = _executed(main, startup, [loss.name], main.clone(for_test=True))  # dropout off, fetched by name
    np.testing.assert_allclose(value, 2 * _EXPECTED.mean(), rtol=1e-6)


def _compiled(fn: Any) -> None:
    paddle = _paddle()
    main, startup, loss = _program()
    test = main.clone(for_test=True)
    value, = _executed(main, startup, [loss], paddle.static.CompiledProgram(
        test, build_strategy=paddle.static.BuildStrategy()))
    np.testing.assert_allclose(value, 2 * _EXPECTED.mean(), rtol=1e-6)


def _in_scope(fn: Any) -> None:
    """`scope_guard`/`global_scope`/`Scope`/`Executor`/`default_*_program`/`program_guard`/`data`, as 2.x
    static scripts use them: the default programs, the global scope, a variable read back from the scope."""
    paddle = _paddle()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        assert paddle.static.default_main_program() is main
        assert paddle.static.default_startup_program() is startup
        x = paddle.static.data("x", [2, 3], "float32")
        with paddle.static.name_scope("block"), paddle.static.device_guard("cpu"):
            out = paddle.static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(name="w", initializer=(
                paddle.nn.initializer.Assign(W32))), bias_attr=False)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        value, = exe.run(main, feed=_FEED, fetch_list=[out])
        weight = np.array(paddle.static.global_scope().find_var("w").get_tensor())
    assert isinstance(out, paddle.static.Variable)
    persistable = sorted(v.name for v in main.list_vars() if paddle.static.io.is_persistable(v))
    assert persistable == ["w"], persistable
    np.testing.assert_allclose(value, X @ W32, rtol=1e-6)
    np.testing.assert_array_equal(weight, W32)


def _saved(save: Callable[..., Any], load: Callable[..., Any]) -> Callable[[Any], None]:
    """Train one SGD step, save, load into a fresh scope: the loaded weights are the trained ones."""
    def run(fn: Any) -> None:
        import tempfile

        paddle = _paddle()
        main, startup, loss = _program(dropout=False)
        with paddle.static.program_guard(main, startup):
            paddle.optimizer.SGD(0.5).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        params = [p.name for p in main.all_parameters()]
        with tempfile.TemporaryDirectory() as tmp, paddle.static.scope_guard(paddle.static.Scope()):
            exe.run(startup)
            exe.run(main, feed=_FEED, fetch_list=[loss])
            trained = [np.array(paddle.static.global_scope().find_var(n).get_tensor()) for n in params]
            save(exe, main, tmp)
            with paddle.static.scope_guard(paddle.static.Scope()):
                exe.run(startup)
                load(exe, main, tmp)
                loaded = [np.array(paddle.static.global_scope().find_var(n).get_tensor()) for n in params]
        for a, b in zip(trained, loaded):
            np.testing.assert_array_equal(a, b)
        assert not any(np.array_equal(t, w) for t, w in zip(trained, (W32, BIAS2))), "SGD did not train"
    return run


def _persistables(program: Any) -> List[Any]:
    return [v for v in program.list_vars() if _paddle().static.io.is_persistable(v) and v.name not in ("feed", "fetch")]


SCRIPTS: Dict[str, Any] = {
    "paddle.static.Program": _clone_for_test,
    "paddle.static.CompiledProgram": _compiled,
    "paddle.static.BuildStrategy": _compiled,
    "paddle.static.Executor": _in_scope,
    "paddle.static.Scope": _in_scope,
    "paddle.static.scope_guard": _in_scope,
    "paddle.static.global_scope": _in_scope,
    "paddle.static.program_guard": _in_scope,
    "paddle.static.default_main_program": _in_scope,
    "paddle.static.default_startup_program": _in_scope,
    "paddle.static.data": _in_scope,
    "paddle.static.name_scope": _in_scope,
    "paddle.static.device_guard": _in_scope,
    "paddle.static.Variable": _in_scope,
    "paddle.static.io.is_persistable": _in_scope,
    "paddle.static.save": _saved(lambda exe, main, d: _paddle().static.save(main, d + "/model"),
                                 lambda exe, main, d: _paddle().static.load(main, d + "/model", exe)),
    "paddle.static.load": _saved(lambda exe, main, d: _paddle().static.save(main, d + "/model"),
                                 lambda exe, main, d: _paddle().static.load(main, d + "/model", exe)),
    "paddle.static.save_vars": _saved(
        lambda exe, main, d: _paddle().static.save_vars(exe, d, main, vars=_persistables(main)),
        lambda exe, main, d: _paddle().static.load_vars(exe, d, main, vars=_persistables(main))),
    "paddle.static.load_vars": _saved(
        lambda exe, main, d: _paddle().static.save_vars(exe, d, main, vars=_persistables(main)),
        lambda exe, main, d: _paddle().static.load_vars(exe, d, main, vars=_persistables(main))),
    "paddle.static.load_program_state": _saved(
        lambda exe, main, d: _paddle().static.save(main, d + "/model"),
        lambda exe, main, d: _paddle().static.set_program_state(
            main, _paddle().static.load_program_state(d + "/model"))),
    "paddle.save": _saved(lambda exe, main, d: _paddle().save(main.state_dict(), d + "/model.pdparams"),
                          lambda exe, main, d: main.set_state_dict(_paddle().load(d + "/model.pdparams"))),
    "paddle.static.save_inference_model": _saved(
        lambda exe, main, d: _paddle().static.save_inference_model(
            d + "/infer", [main.global_block().var("x")], [main.global_block().var(_output(main))], exe,
            program=main),
        lambda exe, main, d: _load_inference(exe, main, d)),
}
SCRIPTS["paddle.static.set_program_state"] = SCRIPTS["paddle.static.load_program_state"]
SCRIPTS["paddle.load"] = SCRIPTS["paddle.save"]
SCRIPTS["paddle.static.load_inference_model"] = SCRIPTS["paddle.static.save_inference_model"]



def _parameters_counters_profiler(fn: Any) -> None:
    """What the execution and model-file rewrites emit, in one legacy-IR program: the parameters told
    apart (`paddle.static.io.is_parameter`, `isinstance(v, paddle.static.Parameter)`), a tensor an op
    writes into (`paddle.tensor.create_tensor`), the step counter every run increments
    (`paddle.optimizer.lr.autoincreased_step_counter`), and runs inside `paddle.profiler.Profiler`
    blocks (CPU and GPU targets) exporting a protobuf trace (`export_protobuf`)."""
    import tempfile

    paddle = _paddle()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        out = paddle.static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(W32)))
        doubled = paddle.tensor.create_tensor("float32")
        paddle.assign(out * 2.0, doubled)
        counter = paddle.optimizer.lr.autoincreased_step_counter(counter_name="@TEST_COUNTER@", begin=5, step=2)
    parameters = [v for v in main.list_vars() if paddle.static.io.is_parameter(v)]
    assert len(parameters) == 2 and all(isinstance(v, paddle.static.Parameter) for v in parameters), parameters
    assert not paddle.static.io.is_parameter(x) and not isinstance(out, paddle.static.Parameter)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    with paddle.profiler.Profiler(targets=[paddle.profiler.ProfilerTarget.CPU],
                                  on_trace_ready=paddle.profiler.export_protobuf(tempfile.mkdtemp())) as prof:
        runs = [exe.run(main, feed=_FEED, fetch_list=[out, doubled, counter]) for _ in range(3)]
    del prof
    # A GPU-target block (a converted cuda_profiler) runs without CUDA too: 3.x warns it cannot profile.
    with paddle.profiler.Profiler(targets=[paddle.profiler.ProfilerTarget.GPU],
                                  on_trace_ready=paddle.profiler.export_protobuf(tempfile.mkdtemp())) as prof:
        runs.append(exe.run(main, feed=_FEED, fetch_list=[out, doubled, counter]))
    del prof
    np.testing.assert_allclose(runs[0][1], 2 * runs[0][0], rtol=1e-6)
    assert [int(np.ravel(r[2])[0]) for r in runs] == [6, 8, 10, 12], [r[2] for r in runs]

def _data_loader(fn: Any) -> None:
    """`paddle.io.DataLoader(dataset, feed_list=..., return_list=False)` feeding a static program."""
    paddle = _paddle()

    class Pairs(paddle.io.Dataset):
        def __len__(self) -> int:
            return 4

        def __getitem__(self, i: int) -> Any:
            return X[i % 2], np.array([i], "int64")

    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32")
        i = paddle.static.data("i", [-1, 1], "int64")
        total = paddle.sum(x, axis=1) + paddle.cast(i[:, 0], "float32")
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    loader = fn(Pairs(), feed_list=[x, i], places=paddle.CPUPlace(), batch_size=2, return_list=False)
    got = [exe.run(main, feed=batch, fetch_list=[total])[0] for batch in loader]
    want = [X.sum(axis=1) + [0, 1], X.sum(axis=1) + [2, 3]]
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-6)


def _no_grad(fn: Any) -> None:
    """`with paddle.no_grad():` around static code: the ops inside get no gradient."""
    paddle = _paddle()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        with fn():
            y = paddle.exp(x) * 2
        value, = _executed(main, startup, [y])
    np.testing.assert_allclose(value, np.exp(X) * 2, rtol=1e-6)


def _run_check(fn: Any) -> None:
    """`paddle.utils.run_check()` in a static script: static mode stays on, as 1.8's `run_check` left it."""
    paddle = _paddle()
    fn()
    assert not paddle.in_dynamic_mode(), "run_check left static mode"
    main, startup, loss = _program(dropout=False)
    value, = _executed(main, startup, [loss])
    np.testing.assert_allclose(value, 2 * _EXPECTED.mean(), rtol=1e-6)


def _layer_helper(fn: Any) -> None:
    """2.x's `LayerHelper` (what custom static layers append operators with) on the legacy IR."""
    paddle = _paddle()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        helper = fn("scale_twice")
        w = helper.create_parameter(attr=attr(W32), shape=[3, 2], dtype="float32")
        out = helper.create_variable_for_type_inference("float32")
        helper.append_op(type="matmul_v2", inputs={"X": x, "Y": w}, outputs={"Out": out})
        value, = _executed(main, startup, [out])
    np.testing.assert_allclose(value, X @ W32, rtol=1e-6)


def _amp(fn: Any) -> None:
    """`paddle.static.amp.decorate` (bfloat16 on CPU): the loss of a linear regression falls."""
    paddle = _paddle()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 3], "float32")
        y = paddle.static.data("y", [4, 1], "float32")
        loss = paddle.nn.functional.mse_loss(paddle.nn.Linear(3, 1, weight_attr=const(0.1))(x), y)
        opt = paddle.static.amp.decorate(paddle.optimizer.SGD(0.1), paddle.static.amp.AutoMixedPrecisionLists(),
                                         level="O1", dtype="bfloat16", use_dynamic_loss_scaling=False)
        opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        losses = [float(exe.run(main, feed={"x": _TRAIN_X, "y": _TRAIN_Y}, fetch_list=[loss])[0])
                  for _ in range(4)]
    assert losses[-1] < losses[0] * 0.9, losses


# 1.8 contrib operators Paddle 3 keeps in paddle.incubate.layers (static only): the values 1.8.5 gives
# (fixtures/legacy/contrib_layers_static.py)
_TREE_INFO = np.array([[0, 0, 0, 1, 2], [0, 1, 0, 3, 4], [0, 1, 0, 5, 6], [0, 2, 1, 0, 0], [1, 2, 1, 0, 0],
                       [2, 2, 2, 0, 0], [3, 2, 2, 0, 0]], dtype="int32")
case("paddle.incubate.layers.partial_concat", lambda fn, env: fn([env.data(X), env.data(Y)], 1, 2),
     expect=[np.concatenate([X[:, 1:3], Y[:, 1:3]], axis=1)])
case("paddle.incubate.layers.partial_sum", lambda fn, env: fn([env.data(X), env.data(Y)], 0, -1), expect=[X + Y])
case("paddle.incubate.layers.tdm_child", lambda fn, env: fn(
    env.data(np.array([[0], [2], [3]], "int32")), 7, 2, param_attr=attr(_TREE_INFO)),
    expect=[[[[0, 0]], [[5, 6]], [[0, 0]]], [[[0, 0]], [[1, 1]], [[0, 0]]]])
case("paddle.incubate.layers.tdm_sampler", lambda fn, env: fn(
    env.data(np.array([[0], [3]], "int32")), [0, 1], [2, 4], 4,
    tree_travel_attr=attr(np.array([[1, 3], [1, 4], [2, 5], [2, 6]], "int32")),
    tree_layer_attr=attr(np.array([[1], [2], [3], [4], [5], [6]], "int32")),
    output_positive=True, output_list=False, seed=3, tree_dtype="int32"),
    expect=[[[1, 3, 5], [2, 6, 3]], [[1, 1, 0], [1, 1, 0]], [[1, 1, 1], [1, 1, 1]]])


def _set_gradient_clip(fn: Any) -> None:
    """`paddle.nn.clip.set_gradient_clip(clip)` before a 2.x optimizer's `minimize` clips as that
    optimizer's `grad_clip=clip` does (every parameter with a gradient has the clip)."""
    paddle = _paddle()

    def losses(with_clip: Callable[[], Any]) -> List[float]:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            x = paddle.static.data("x", [4, 3], "float32")
            y = paddle.static.data("y", [4, 1], "float32")
            loss = paddle.nn.functional.mse_loss(paddle.nn.Linear(3, 1, weight_attr=const(0.1))(x), y)
            with_clip().minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(paddle.static.Scope()):
            exe.run(startup)
            return [float(np.ravel(exe.run(main, feed={"x": _TRAIN_X, "y": _TRAIN_Y}, fetch_list=[loss])[0])[0])
                    for _ in range(4)]

    def set_first() -> Any:
        fn(paddle.nn.ClipGradByValue(0.05))
        return paddle.optimizer.SGD(learning_rate=0.5)

    clipped = losses(set_first)
    np.testing.assert_allclose(clipped, losses(lambda: paddle.optimizer.SGD(
        learning_rate=0.5, grad_clip=paddle.nn.ClipGradByValue(0.05))), rtol=1e-6)
    assert clipped != losses(lambda: paddle.optimizer.SGD(learning_rate=0.5)), "the clip changed nothing"


SCRIPTS["paddle.nn.clip.set_gradient_clip"] = _set_gradient_clip


SCRIPTS.update({name: _parameters_counters_profiler for name in (
    "paddle.static.io.is_parameter", "paddle.static.Parameter", "paddle.tensor.create_tensor",
    "paddle.optimizer.lr.autoincreased_step_counter", "paddle.profiler.Profiler", "paddle.profiler.export_protobuf",
    "paddle.profiler.ProfilerTarget.GPU")})


def _rate_in_program(make: Callable[[Any], Any], rate: Callable[[int], float]) -> Callable[[Any], None]:
    """A 1.8 static schedule as Paddle 2.6+ keeps it (`refactors/transformers/lr_in_program.py`): the
    program computes the rate from its own step counter, and a 2.x SGD reads it on every run."""
    def script(fn: Any) -> None:
        paddle = _paddle()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            x = paddle.static.data("x", [4, 3], "float32")
            y = paddle.static.data("y", [4, 1], "float32")
            loss = paddle.nn.functional.mse_loss(paddle.nn.Linear(3, 1, weight_attr=const(0.1))(x), y)
            lr = make(fn)
            paddle.optimizer.SGD(learning_rate=lr).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(paddle.static.Scope()):
            exe.run(startup)
            runs = [exe.run(main, feed={"x": _TRAIN_X, "y": _TRAIN_Y}, fetch_list=[loss, lr]) for _ in range(5)]
        np.testing.assert_allclose([float(np.ravel(r[1])[0]) for r in runs], [rate(s) for s in range(5)], rtol=1e-6)
        losses = [float(np.ravel(r[0])[0]) for r in runs]
        assert losses[-1] < losses[0], losses
    return script


SCRIPTS.update({
    "paddle.optimizer.lr.exponential_decay": _rate_in_program(
        lambda f: f(0.1, 2, 0.5, staircase=True), lambda s: 0.1 * 0.5 ** (s // 2)),
    "paddle.optimizer.lr.natural_exp_decay": _rate_in_program(
        lambda f: f(0.1, 2, 0.5), lambda s: 0.1 * math.exp(-0.5 * s / 2)),
    "paddle.optimizer.lr.inverse_time_decay": _rate_in_program(
        lambda f: f(0.1, 2, 0.5), lambda s: 0.1 / (1 + 0.5 * s / 2)),
    "paddle.optimizer.lr.polynomial_decay": _rate_in_program(
        lambda f: f(0.1, 3, end_learning_rate=0.01), lambda s: 0.09 * (1 - min(s, 3) / 3) + 0.01),
    "paddle.optimizer.lr.piecewise_decay": _rate_in_program(
        lambda f: f([1, 3], [0.1, 0.05, 0.01]), lambda s: 0.1 if s < 1 else 0.05 if s < 3 else 0.01),
    "paddle.optimizer.lr.noam_decay": _rate_in_program(
        lambda f: f(16, 2, learning_rate=0.5), lambda s: 0.5 * 16 ** -0.5 * min((s + 1) ** -0.5, 2 ** -1.5 * (s + 1))),
    "paddle.optimizer.lr.cosine_decay": _rate_in_program(
        lambda f: f(0.1, 2, 3), lambda s: 0.1 * 0.5 * (math.cos(s // 2 * math.pi / 3) + 1)),
    "paddle.optimizer.lr.linear_lr_warmup": _rate_in_program(
        lambda f: f(0.1, 2, 0.0, 0.1), lambda s: 0.1 * s / 2 if s < 2 else 0.1),
})


SCRIPTS.update({
    "paddle.io.DataLoader": _data_loader,
    "paddle.no_grad": _no_grad,
    "paddle.utils.run_check": _run_check,
    "paddle.common_ops_import.LayerHelper": _layer_helper,
    "paddle.static.amp.decorate": _amp,
    "paddle.static.amp.AutoMixedPrecisionLists": _amp,
})


def _output(main: Any) -> str:
    """The name of the program's last computed variable before the loss (the fc output)."""
    return next(op.output("Out")[0] for op in main.global_block().ops if op.type == "relu")


def _load_inference(exe: Any, main: Any, d: str) -> None:
    """Load the inference model and copy its parameters into the scope (its program has the same names)."""
    program, feeds, fetches = _paddle().static.load_inference_model(d + "/infer", exe)
    assert feeds == ["x"], feeds
    value, = exe.run(program, feed=_FEED, fetch_list=fetches)
    assert value.shape == (2, 2), value.shape


_GRU_IH = _rng.uniform(-1, 1, (12, 4)).astype("float32")
_GRU_HH = _rng.uniform(-1, 1, (12, 4)).astype("float32")
_EMB = _rng.uniform(-1, 1, (10, 4)).astype("float32")
_PROJ = _rng.uniform(-2, 2, (4, 10)).astype("float32")


def _beam_search(fn: Any, env: Any) -> Any:
    """A 2.x seq2seq decoder in a static program (Paddle's own legacy-IR `dynamic_decode` path). Only run:
    3.3.1's beam search gives different ids from run to run on the same input, in dygraph too."""
    paddle = _paddle()
    cell = paddle.nn.GRUCell(4, 4, weight_ih_attr=attr(_GRU_IH), weight_hh_attr=attr(_GRU_HH))
    decoder = paddle.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=2,
                                          embedding_fn=paddle.nn.Embedding(10, 4, weight_attr=attr(_EMB)),
                                          output_fn=paddle.nn.Linear(4, 10, weight_attr=attr(_PROJ)))
    outputs, _ = paddle.nn.dynamic_decode(decoder, inits=cell.get_initial_states(env.data(np.concatenate(
        [X, Y], axis=1)[:, :4].copy())), max_step_num=4)
    return outputs


case(["paddle.nn.BeamSearchDecoder", "paddle.nn.dynamic_decode"], _beam_search, check="runs")


def _rnn(c: Any, env: Any) -> Any:
    """A cell run over padded steps with their lengths (refactors/transformers/rnn_cells.py writes 1.8's
    `layers.rnn` as this): outputs and the last states, states kept past each sequence's end."""
    paddle = _paddle()
    cell = paddle.nn.GRUCell(4, 4, weight_ih_attr=attr(_GRU_IH), weight_hh_attr=attr(_GRU_HH),
                             bias_ih_attr=const(0.1), bias_hh_attr=const(-0.2))
    lengths = env.data(np.array([3, 2], dtype="int64"))
    outputs, last = c(cell)(env.data(B3), sequence_length=lengths)
    backward, _ = c(cell, is_reverse=True)(env.data(B3), initial_states=last, sequence_length=lengths)
    return paddle.concat([outputs.reshape([2, -1]), last, backward.reshape([2, -1])], axis=1)


case("paddle.nn.RNN", _rnn)

# ------------------------------------------------------------------------------------------------
# Detection ops (`paddle.vision.ops`)

case("paddle.vision.ops.prior_box", lambda fn, env: fn(env.data(IMG), env.data(np.zeros((2, 3, 20, 20), "float32")),
                                                       min_sizes=[4.0], max_sizes=[9.0], aspect_ratios=[2.0],
                                                       flip=True, clip=True))
_YOLO = _rng.uniform(-1, 1, (1, 14, 2, 2)).astype("float32")
case("paddle.vision.ops.yolo_box", lambda fn, env: fn(
    env.data(_YOLO), env.data(np.array([[32, 32]], "int32")),
    anchors=[10, 13, 16, 30], class_num=2, conf_thresh=0.01, downsample_ratio=8))
case("paddle.vision.ops.yolo_loss", lambda fn, env: fn(
    env.data(_YOLO),
    env.data(np.array([[[0.5, 0.5, 0.3, 0.4]]], "float32")), env.data(np.array([[1]], "int32")),
    anchors=[10, 13, 16, 30], anchor_mask=[0, 1], class_num=2, ignore_thresh=0.7, downsample_ratio=8,
    use_label_smooth=False))
case("paddle.vision.ops.box_coder", lambda fn, env: fn(
    env.data(np.array([[1, 2, 9, 8], [0, 0, 4, 6]], "float32")), [0.1, 0.1, 0.2, 0.2],
    env.data(np.array([[2, 2, 8, 9], [1, 0, 5, 5], [3, 1, 7, 12]], "float32"))))
_ROI_FEAT = (_rng.uniform(0, 1, (2, 2, 6, 6)) + 1).astype("float32")
_ROIS = np.array([[0.5, 1.0, 7.0, 9.5], [2.0, 0.0, 11.0, 6.0], [1.0, 1.0, 4.0, 4.0]], "float32")
case("paddle.vision.ops.roi_align", lambda fn, env: fn(
    env.data(_ROI_FEAT), env.data(_ROIS), env.data(np.array([2, 1], "int32")), output_size=(2, 3),
    spatial_scale=0.5, sampling_ratio=2, aligned=False))
case("paddle.vision.ops.roi_pool", lambda fn, env: fn(
    env.data(_ROI_FEAT), env.data(_ROIS), env.data(np.array([1, 2], "int32")), output_size=(3, 2),
    spatial_scale=0.5))
case("paddle.nn.functional.gather_tree", lambda fn, env: fn(
    env.data(np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], "int64")),
    env.data(np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], "int64"))))

# ------------------------------------------------------------------------------------------------
# Distributions


def _normal(cls: Any, env: Any) -> Any:
    d = cls(env.data(np.array([0.5, -1.0], "float32")), env.data(np.array([1.0, 2.0], "float32")))
    return d.log_prob(env.data(np.array([0.1, 0.2], "float32"))), d.entropy()


def _uniform(cls: Any, env: Any) -> Any:
    d = cls(env.data(np.array([0.0, -1.0], "float32")), env.data(np.array([1.0, 2.0], "float32")))
    return d.log_prob(env.data(np.array([0.5, 0.2], "float32"))), d.entropy()


def _categorical(cls: Any, env: Any) -> Any:
    d = cls(env.data(PROB))
    return d.entropy(), d.probs(env.data(np.array([2, 0], "int64")))


case("paddle.distribution.Normal", _normal)
case("paddle.distribution.Uniform", _uniform)
case("paddle.distribution.Categorical", _categorical)

# ------------------------------------------------------------------------------------------------
# Optimizers (`minimize`), schedulers, clipping, regularization


def _opt(make_args: Callable[[], Dict[str, Any]] = dict) -> Callable[..., Any]:
    return lambda cls, params: (cls(parameters=params, **make_args()), None)


class _Chain:
    """An optimizer followed by what averages its parameters (ModelAverage is used that way)."""

    def __init__(self, *optimizers: Any) -> None:
        self.optimizers = optimizers

    def minimize(self, loss: Any) -> None:
        for optimizer in self.optimizers:
            optimizer.minimize(loss)

    def clear_grad(self) -> None:
        for optimizer in self.optimizers:
            optimizer.clear_grad()


def _sched(make: Callable[[Any], Any], opt: str = "SGD") -> Callable[..., Any]:
    def build(cls: Any, params: Any) -> Any:
        paddle = _paddle()
        scheduler = make(cls)
        return getattr(paddle.optimizer, opt)(learning_rate=scheduler, parameters=params), scheduler
    return build


TRAIN: Dict[str, Train] = {
    "paddle.optimizer.SGD": Train(_opt(lambda: {"learning_rate": 0.1})),
    "paddle.optimizer.Momentum": Train(_opt(lambda: {"learning_rate": 0.1, "momentum": 0.9})),
    "paddle.optimizer.Momentum#nesterov": Train(_opt(lambda: {"learning_rate": 0.1, "use_nesterov": True})),
    "paddle.optimizer.Adam": Train(_opt(lambda: {"learning_rate": 0.05})),
    "paddle.optimizer.AdamW": Train(_opt(lambda: {"learning_rate": 0.05})),
    "paddle.optimizer.Adamax": Train(_opt(lambda: {"learning_rate": 0.05})),
    "paddle.optimizer.Adagrad": Train(_opt(lambda: {"learning_rate": 0.1})),
    "paddle.optimizer.Adadelta": Train(_opt(lambda: {"learning_rate": 1.0})),
    "paddle.optimizer.RMSProp": Train(_opt(lambda: {"learning_rate": 0.05})),
    "paddle.optimizer.Lamb": Train(_opt(lambda: {"learning_rate": 0.05})),
    "paddle.optimizer.SGD#weight_decay": Train(_opt(lambda: {
        "learning_rate": 0.1, "weight_decay": _paddle().regularizer.L2Decay(0.1)})),
    "paddle.regularizer.L2Decay": Train(lambda cls, params: (_paddle().optimizer.Momentum(
        learning_rate=0.1, parameters=params, weight_decay=cls(0.2)), None)),
    "paddle.regularizer.L1Decay": Train(lambda cls, params: (_paddle().optimizer.SGD(
        learning_rate=0.1, parameters=params, weight_decay=cls(0.2)), None)),
    "paddle.nn.ClipGradByGlobalNorm": Train(lambda cls, params: (_paddle().optimizer.SGD(
        learning_rate=0.1, parameters=params, grad_clip=cls(0.5)), None)),
    "paddle.nn.ClipGradByNorm": Train(lambda cls, params: (_paddle().optimizer.SGD(
        learning_rate=0.1, parameters=params, grad_clip=cls(0.3)), None)),
    "paddle.nn.ClipGradByValue": Train(lambda cls, params: (_paddle().optimizer.SGD(
        learning_rate=0.1, parameters=params, grad_clip=cls(0.2)), None)),
    "paddle.optimizer.lr.StepDecay": Train(_sched(lambda c: c(0.1, step_size=2, gamma=0.5))),
    "paddle.optimizer.lr.ExponentialDecay": Train(_sched(lambda c: c(0.1, gamma=0.8))),
    "paddle.optimizer.lr.NaturalExpDecay": Train(_sched(lambda c: c(0.1, gamma=0.3))),
    "paddle.optimizer.lr.InverseTimeDecay": Train(_sched(lambda c: c(0.1, gamma=0.5))),
    "paddle.optimizer.lr.PolynomialDecay": Train(_sched(lambda c: c(0.1, decay_steps=3, end_lr=0.01))),
    "paddle.optimizer.lr.PiecewiseDecay": Train(_sched(lambda c: c([1, 3], [0.1, 0.05, 0.01]), "Momentum")),
    "paddle.optimizer.lr.NoamDecay": Train(_sched(lambda c: c(16, 2, learning_rate=0.5), "Adam")),
    "paddle.optimizer.lr.LinearWarmup": Train(_sched(lambda c: c(0.1, 2, 0.0, 0.1))),
    "paddle.optimizer.lr.LambdaDecay": Train(_sched(lambda c: c(0.1, lambda e: 0.9 ** e))),
    "paddle.optimizer.lr.MultiStepDecay": Train(_sched(lambda c: c(0.1, [1, 2], gamma=0.5))),
    "paddle.optimizer.lr.CosineAnnealingDecay": Train(_sched(lambda c: c(0.1, T_max=3))),
    "paddle.optimizer.lr.ReduceOnPlateau": Train(_sched(lambda c: c(0.1, patience=0, factor=0.5))),
    "paddle.incubate.optimizer.LookAhead": Train(lambda cls, params: (cls(_paddle().optimizer.SGD(
        learning_rate=0.1, parameters=params), alpha=0.5, k=2), None)),
    "paddle.incubate.optimizer.ModelAverage": Train(lambda cls, params: (_Chain(
        _paddle().optimizer.SGD(learning_rate=0.1, parameters=params),
        cls(0.15, parameters=params, min_average_window=2, max_average_window=4)), None)),
}
CASES.update(TRAIN)
CASES.update(SCRIPTS)

# ------------------------------------------------------------------------------------------------
# The runner



class Env:
    """Where a case builds: a legacy-IR program (`static`) or dygraph."""

    def __init__(self, static: bool) -> None:
        self.static = static
        self.feed: Dict[str, np.ndarray] = {}

    def data(self, array: Any) -> Any:
        paddle = _paddle()
        array = np.asarray(array)
        if not self.static:
            return paddle.to_tensor(array)
        name = f"in{len(self.feed)}"
        self.feed[name] = array
        return paddle.static.data(name, list(array.shape), str(array.dtype))


def _flatten(out: Any) -> List[Any]:
    if isinstance(out, (list, tuple)):
        return [v for item in out for v in _flatten(item)]
    return [out]


def resolve(name: str) -> Any:
    from runtime_shim.resolve import import_dotted

    if name.startswith("Tensor."):
        return None
    return import_dotted(name.split("#")[0])


def run_static(name: str, build: Callable[[Env], Any]) -> List[np.ndarray]:
    paddle = _paddle()
    env = Env(static=True)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        outs = _flatten(build(env))
    variables = [o for o in outs if isinstance(o, paddle.base.framework.Variable)]
    if len(variables) != len(outs):
        raise TypeError(f"a result is not a legacy Variable: {[type(o).__name__ for o in outs]}")
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        return [np.asarray(v) for v in exe.run(main, feed=env.feed, fetch_list=variables)]


def run_dygraph(build: Callable[[Env], Any]) -> List[np.ndarray]:
    paddle = _paddle()
    paddle.disable_static()
    try:
        with paddle.utils.unique_name.guard():
            return [np.asarray(o.numpy() if hasattr(o, "numpy") else o) for o in _flatten(build(Env(static=False)))]
    finally:
        paddle.enable_static()


def _compare(got: List[np.ndarray], want: List[Any], check: str, rtol: float) -> None:
    if len(got) != len(want):
        raise AssertionError(f"{len(got)} results, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        if check == "shape":
            if g.shape != w.shape or g.dtype != w.dtype:
                raise AssertionError(f"result {i}: {g.dtype}{list(g.shape)} != {w.dtype}{list(w.shape)}")
            continue
        if g.shape != w.shape:
            raise AssertionError(f"result {i}: shape {list(g.shape)} != {list(w.shape)}")
        if g.dtype.kind in "fc" or w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6, err_msg=f"result {i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"result {i}")


def run_case(name: str, spec: Any) -> None:
    if isinstance(spec, Train):
        return run_train(name, spec)
    if callable(spec):  # a whole static script; it checks its own numbers
        spec(resolve(name))
        return None
    fn = resolve(name)
    got = run_static(name, lambda env: spec.build(fn, env))
    if spec.check == "runs":
        return None
    if spec.expect is not None:
        want = [np.asarray(e, dtype=g.dtype) for e, g in zip(spec.expect, got)]
    elif spec.ref is not None:
        want = run_dygraph(spec.ref)
    else:
        want = run_dygraph(lambda env: spec.build(resolve(name), env))
    _compare(got, want, "shape" if spec.check == "shape" else "same", spec.rtol)


def run_train(name: str, spec: Train) -> None:
    paddle = _paddle()
    cls = resolve(name)
    w0 = np.array([[0.1], [0.2], [-0.1]], "float32")

    def model() -> Any:
        return paddle.nn.Linear(3, 1, weight_attr=attr(w0), bias_attr=const(0.0))

    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [4, 3], "float32")
        y = paddle.static.data("y", [4, 1], "float32")
        loss = paddle.nn.functional.mse_loss(model()(x), y)
        opt, scheduler = spec.make(cls, None)
        opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    static_losses = []
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        for _ in range(spec.steps):
            value, = exe.run(main, feed={"x": _TRAIN_X, "y": _TRAIN_Y}, fetch_list=[loss])
            static_losses.append(float(np.asarray(value).reshape(())))
            _step(scheduler, static_losses[-1])

    paddle.disable_static()
    try:
        with paddle.utils.unique_name.guard():
            net = model()
            opt, scheduler = spec.make(cls, net.parameters())
            dygraph_losses = []
            for _ in range(spec.steps):
                loss = paddle.nn.functional.mse_loss(net(paddle.to_tensor(_TRAIN_X)), paddle.to_tensor(_TRAIN_Y))
                loss.backward()
                opt.minimize(loss)
                opt.clear_grad()
                dygraph_losses.append(float(loss.numpy().reshape(())))
                _step(scheduler, dygraph_losses[-1])
    finally:
        paddle.enable_static()
    np.testing.assert_allclose(static_losses, dygraph_losses, rtol=1e-5, atol=1e-7)
    if len(set(round(v, 7) for v in static_losses)) < 2:
        raise AssertionError(f"the loss did not change: {static_losses}")


def _step(scheduler: Any, loss: float) -> None:
    if scheduler is None:
        return
    if type(scheduler).__name__ == "ReduceOnPlateau":
        scheduler.step(loss)
    else:
        scheduler.step()


def main(names: Sequence[str]) -> Dict[str, str]:
    import runtime_shim

    runtime_shim.enable_static()
    results: Dict[str, str] = {}
    for name in names or sorted(CASES):
        try:
            run_case(name, CASES[name])
            results[name] = "ok"
        except Exception as error:  # noqa: BLE001 - each case reports its own failure
            lines = [line for line in str(error).strip().splitlines() if line.strip()]
            where = traceback.extract_tb(error.__traceback__)[-1]
            results[name] = (f"{type(error).__name__}: {lines[-1] if lines else ''}"[:400]
                             + f" [{where.filename.rsplit('/', 1)[-1]}:{where.lineno}]")
    return results


if __name__ == "__main__":
    # The results go to a file: Paddle's own output (`Print`, the executor's log) shares stdout.
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        json.dump(main(sys.argv[2:]), out, indent=1, sort_keys=True)
