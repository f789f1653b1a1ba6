"""The legacy operators behind the 2.x functions that Paddle 3.3.1 builds only on PIR.

Each emitter receives the bound arguments of the 2.x function (by its 2.x parameter names) and appends
the legacy operator(s) with the same meaning to the current legacy-IR block. Registered under the
function's public 2.x name; `runtime_shim.static_ops` finds every other path to the same function.

Two kinds of functions need one (api_mapping/SEMANTICS.md 38):
- the C-level ones: in 3.3.1 `paddle.sum`, `paddle.matmul`, `paddle.exp`, `F.gelu`, ... are
  `paddle._C_ops` functions (through a generated `*args, **kwargs` wrapper) that accept PIR values only;
- Python functions whose legacy-IR branch is broken in 3.3.1 (`F.normalize` reads a variable its
  legacy branch never sets).
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from runtime_shim.static_ops import Emitter, append_op


def _logical_2x(x: Any, y: Any, out: Any = None, name: Optional[str] = None) -> None:
    """The 2.0-2.6 signature of `paddle.logical_and/or/xor`: `out` third. Paddle's own legacy-IR code
    (`nn/decode.py`, `static.nn.control_flow`) passes it positionally; 3.3.1 documents `name` there."""


def _logical_not_2x(x: Any, out: Any = None, name: Optional[str] = None) -> None:
    """The 2.0-2.6 signature of `paddle.logical_not`."""


# public name -> the signature the emitter binds the call with, where it is not the function's own
SIGNATURES: Dict[str, inspect.Signature] = {
    **{f"paddle.logical_{op}": inspect.signature(_logical_2x) for op in ("and", "or", "xor")},
    "paddle.logical_not": inspect.signature(_logical_not_2x),
}


def _axes(axis: Any) -> Tuple[List[int], bool]:
    """2.x `axis` (None, int, list) -> the legacy reduce attributes `dim` and `reduce_all`."""
    if axis is None or axis == [] or axis == ():
        return [0], True
    if isinstance(axis, int):
        return [axis], False
    return list(axis), False


def _bool() -> Any:
    import paddle

    return paddle.bool


def _unary(op_type: str) -> Emitter:
    return lambda a: append_op(op_type, {"X": a["x"]})


def _unary_bool(op_type: str) -> Emitter:
    return lambda a: append_op(op_type, {"X": a["x"]}, dtype=_bool())


def _elementwise(op_type: str) -> Emitter:
    return lambda a: append_op(op_type, {"X": a["x"], "Y": a["y"]}, {"axis": -1})


def _compare(op_type: str) -> Emitter:
    return lambda a: append_op(op_type, {"X": a["x"], "Y": a["y"]}, {"axis": -1}, dtype=_bool())


def _logical(op_type: str) -> Emitter:
    return lambda a: append_op(op_type, {"X": a["x"], "Y": a["y"]}, dtype=_bool())


def _reduce(op_type: str, bool_out: bool = False) -> Emitter:
    def emit(a: Mapping[str, Any]) -> Any:
        import paddle

        dim, reduce_all = _axes(a.get("axis"))
        out = append_op(op_type, {"X": a["x"]},
                        {"dim": dim, "keep_dim": bool(a.get("keepdim", False)), "reduce_all": reduce_all},
                        dtype=_bool() if bool_out else None)
        if a.get("dtype") is not None:
            out = paddle.cast(out, a["dtype"])
        return out
    return emit


def _arg(op_type: str) -> Emitter:
    def emit(a: Mapping[str, Any]) -> Any:
        from paddle.base.framework import convert_np_dtype_to_dtype_

        axis = a.get("axis")
        dtype = convert_np_dtype_to_dtype_(a.get("dtype") or "int64")
        return append_op(op_type, {"X": a["x"]},
                         {"axis": 0 if axis is None else axis, "keepdims": bool(a.get("keepdim", False)),
                          "flatten": axis is None, "dtype": dtype}, dtype=dtype)
    return emit


def _ints(value: Any) -> List[int]:
    return [value] if isinstance(value, int) else list(value)


def _normalize(a: Mapping[str, Any]) -> Any:
    """`F.normalize`: x / max(‖x‖_p along axis, epsilon), as the 3.3.1 legacy branch meant to build it."""
    import paddle

    x = a["x"]
    norm = append_op("p_norm", {"X": x}, {"axis": int(a.get("axis", 1)), "porder": float(a.get("p", 2)),
                                          "keepdim": True, "epsilon": float(a.get("epsilon", 1e-12))})
    eps = paddle.full([1], float(a.get("epsilon", 1e-12)), x.dtype)
    divisor = append_op("elementwise_max", {"X": norm, "Y": eps}, {"axis": -1})
    return append_op("elementwise_div", {"X": x, "Y": divisor}, {"axis": -1})


def emitters() -> Dict[str, Emitter]:
    """2.x public name -> emitter."""
    table: Dict[str, Emitter] = {}

    def register(names: Sequence[str], emitter: Emitter) -> None:
        for name in names:
            table[name] = emitter

    unary = {
        "exp": "exp", "tanh": "tanh", "sigmoid": "sigmoid", "abs": "abs", "acos": "acos", "asin": "asin",
        "ceil": "ceil", "cos": "cos", "floor": "floor", "log": "log", "rsqrt": "rsqrt", "sign": "sign",
        "sin": "sin", "sqrt": "sqrt", "log1p": "log1p", "sinh": "sinh", "cosh": "cosh", "expm1": "expm1",
        "log10": "log10", "log2": "log2", "acosh": "acosh", "atanh": "atanh",
    }
    for name, op in unary.items():
        register([f"paddle.{name}"], _unary(op))
    register(["paddle.nn.functional.sigmoid"], _unary("sigmoid"))
    register(["paddle.nn.functional.tanh"], _unary("tanh"))
    register(["paddle.isfinite"], _unary_bool("isfinite_v2"))
    register(["paddle.isinf"], _unary_bool("isinf_v2"))
    register(["paddle.isnan"], _unary_bool("isnan_v2"))
    register(["paddle.logical_not"], _unary_bool("logical_not"))
    for name, op in {"multiply": "elementwise_mul", "maximum": "elementwise_max",
                     "minimum": "elementwise_min"}.items():
        register([f"paddle.{name}"], _elementwise(op))
    register(["paddle.greater_than"], _compare("greater_than"))
    for name in ("logical_and", "logical_or", "logical_xor"):
        register([f"paddle.{name}"], _logical(name))
    register(["paddle.sum"], _reduce("reduce_sum"))
    register(["paddle.amax"], _reduce("reduce_max"))
    register(["paddle.amin"], _reduce("reduce_min"))
    register(["paddle.all"], _reduce("reduce_all", bool_out=True))
    register(["paddle.any"], _reduce("reduce_any", bool_out=True))
    register(["paddle.argmax"], _arg("arg_max"))
    register(["paddle.argmin"], _arg("arg_min"))
    register(["paddle.matmul"], lambda a: append_op(
        "matmul_v2", {"X": a["x"], "Y": a["y"]},
        {"trans_x": bool(a.get("transpose_x", False)), "trans_y": bool(a.get("transpose_y", False))}))
    register(["paddle.bmm"], lambda a: append_op("bmm", {"X": a["x"], "Y": a["y"]}))
    register(["paddle.dot"], lambda a: append_op("dot", {"X": a["x"], "Y": a["y"]}))
    register(["paddle.nn.functional.softplus"], lambda a: append_op(
        "softplus", {"X": a["x"]}, {"beta": float(a.get("beta", 1)), "threshold": float(a.get("threshold", 20))}))
    register(["paddle.nn.functional.gelu"], lambda a: append_op(
        "gelu", {"X": a["x"]}, {"approximate": a.get("approximate") in (True, "tanh")}))
    register(["paddle.round"], lambda a: append_op("round", {"X": a["x"]}, {"decimals": int(a.get("decimals", 0))}))
    register(["paddle.logsumexp"], lambda a: append_op(
        "logsumexp", {"X": a["x"]},
        dict(zip(("axis", "reduce_all"), _axes(a.get("axis"))), keepdim=bool(a.get("keepdim", False)))))
    register(["paddle.expand_as"], lambda a: append_op(
        "expand_as_v2", {"X": a["x"], "Y": a["y"]}, {"target_shape": list(a["y"].shape)}))
    register(["paddle.tril"], lambda a: append_op(
        "tril_triu", {"X": a["x"]}, {"diagonal": int(a.get("diagonal", 0)), "lower": True}))
    register(["paddle.triu"], lambda a: append_op(
        "tril_triu", {"X": a["x"]}, {"diagonal": int(a.get("diagonal", 0)), "lower": False}))
    register(["paddle.roll"], lambda a: append_op(
        "roll", {"X": a["x"]},
        {"shifts": _ints(a["shifts"]), "axis": [] if a.get("axis") is None else _ints(a["axis"])}))
    register(["paddle.diagonal"], lambda a: append_op(
        "diagonal", {"Input": a["x"]},
        {"offset": int(a.get("offset", 0)), "axis1": int(a.get("axis1", 0)), "axis2": int(a.get("axis2", 1))}))
    register(["paddle.isclose"], lambda a: append_op(
        "isclose", {"Input": a["x"], "Other": a["y"]},
        {"rtol": str(a.get("rtol", 1e-5)), "atol": str(a.get("atol", 1e-8)), "equal_nan": bool(a.get("equal_nan"))},
        dtype=_bool()))
    register(["paddle.nn.functional.grid_sample"], lambda a: append_op(
        "grid_sampler", {"X": a["x"], "Grid": a["grid"]},
        {"mode": a.get("mode", "bilinear"), "padding_mode": a.get("padding_mode", "zeros"),
         "align_corners": bool(a.get("align_corners", True))}, outputs=("Output",)))
    register(["paddle.nn.functional.normalize"], _normalize)
    return table
