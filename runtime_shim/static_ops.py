"""2.x functions that build legacy-IR programs, also where Paddle 3.3.1 only accepts PIR values.

In 3.3.1 some 2.x functions (`paddle.matmul`, `paddle.sum`, `F.sigmoid`, `paddle.exp`, ...) call the
generated PIR op directly in static mode and reject a legacy `Variable` ("must be Value, but got
Variable", api_mapping/SEMANTICS.md 38). The legacy operators they stand for are still registered, so here each
such function gets an emitter that appends the legacy op with the same meaning. `compat(fn)` returns
a callable that behaves as `fn` in dygraph (and PIR) and uses the emitter while a legacy-IR program is
being built.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

Emitter = Callable[[Mapping[str, Any]], Any]

# 2.x dotted name -> emitter over the 2.x function's bound arguments.
_EMITTERS: Dict[str, Emitter] = {}


def append_op(op_type: str, inputs: Mapping[str, Any], attrs: Optional[Mapping[str, Any]] = None,
              outputs: Sequence[str] = ("Out",), dtype: Any = None) -> Any:
    """Append one legacy operator to the current block; return its output(s)."""
    from paddle.base.layer_helper import LayerHelper

    helper = LayerHelper(op_type)
    first = next(v for v in inputs.values() if v is not None)
    if isinstance(first, (list, tuple)):
        first = first[0]
    out_dtype = dtype if dtype is not None else first.dtype
    outs = {slot: helper.create_variable_for_type_inference(dtype=out_dtype) for slot in outputs}
    helper.append_op(
        type=op_type,
        inputs={k: v for k, v in inputs.items() if v is not None},
        outputs=outs,
        attrs=dict(attrs or {}),
    )
    values = [outs[slot] for slot in outputs]
    return values[0] if len(values) == 1 else tuple(values)


def _axes(axis: Any) -> Tuple[List[int], bool]:
    """2.x `axis` (None, int, list) -> the legacy reduce attributes `dim` and `reduce_all`."""
    if axis is None or axis == [] or axis == ():
        return [0], True
    if isinstance(axis, int):
        return [axis], False
    return list(axis), False


def _register(names: Sequence[str], emitter: Emitter) -> None:
    for name in names:
        _EMITTERS[name] = emitter


def _unary(op_type: str) -> Emitter:
    return lambda a: append_op(op_type, {"X": a["x"]})


def _unary_bool(op_type: str) -> Emitter:
    import paddle

    return lambda a: append_op(op_type, {"X": a["x"]}, dtype=paddle.bool)


def _elementwise(op_type: str) -> Emitter:
    return lambda a: append_op(op_type, {"X": a["x"], "Y": a["y"]}, {"axis": -1})


def _compare(op_type: str) -> Emitter:
    import paddle

    return lambda a: append_op(op_type, {"X": a["x"], "Y": a["y"]}, {"axis": -1}, dtype=paddle.bool)


def _logical(op_type: str) -> Emitter:
    import paddle

    return lambda a: append_op(op_type, {"X": a["x"], "Y": a["y"]}, dtype=paddle.bool)


def _reduce(op_type: str, bool_out: bool = False) -> Emitter:
    def emit(a: Mapping[str, Any]) -> Any:
        import paddle

        dim, reduce_all = _axes(a.get("axis"))
        out = append_op(op_type, {"X": a["x"]},
                        {"dim": dim, "keep_dim": bool(a.get("keepdim", False)), "reduce_all": reduce_all},
                        dtype=paddle.bool if bool_out else None)
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


def _install_emitters() -> None:
    unary = {
        "exp": "exp", "tanh": "tanh", "sigmoid": "sigmoid", "abs": "abs", "acos": "acos", "asin": "asin",
        "ceil": "ceil", "cos": "cos", "floor": "floor", "log": "log", "rsqrt": "rsqrt", "sign": "sign",
        "sin": "sin", "sqrt": "sqrt", "log1p": "log1p", "sinh": "sinh", "cosh": "cosh", "expm1": "expm1",
        "log10": "log10", "log2": "log2", "acosh": "acosh", "atanh": "atanh",
    }
    for name, op in unary.items():
        _register([f"paddle.{name}"], _unary(op))
    _register(["paddle.nn.functional.sigmoid"], _unary("sigmoid"))
    _register(["paddle.nn.functional.tanh"], _unary("tanh"))
    _register(["paddle.isfinite"], _unary_bool("isfinite_v2"))
    _register(["paddle.isinf"], _unary_bool("isinf_v2"))
    _register(["paddle.isnan"], _unary_bool("isnan_v2"))
    _register(["paddle.logical_not"], _unary_bool("logical_not"))
    for name, op in {"multiply": "elementwise_mul", "maximum": "elementwise_max",
                     "minimum": "elementwise_min"}.items():
        _register([f"paddle.{name}"], _elementwise(op))
    _register(["paddle.greater_than"], _compare("greater_than"))
    for name in ("logical_and", "logical_or", "logical_xor"):
        _register([f"paddle.{name}"], _logical(name))
    _register(["paddle.sum"], _reduce("reduce_sum"))
    _register(["paddle.amax"], _reduce("reduce_max"))
    _register(["paddle.amin"], _reduce("reduce_min"))
    _register(["paddle.all"], _reduce("reduce_all", bool_out=True))
    _register(["paddle.any"], _reduce("reduce_any", bool_out=True))
    _register(["paddle.argmax"], _arg("arg_max"))
    _register(["paddle.argmin"], _arg("arg_min"))
    _register(["paddle.matmul", "paddle.linalg.matmul"], lambda a: append_op(
        "matmul_v2", {"X": a["x"], "Y": a["y"]},
        {"trans_x": bool(a.get("transpose_x", False)), "trans_y": bool(a.get("transpose_y", False))}))
    _register(["paddle.bmm"], lambda a: append_op("bmm", {"X": a["x"], "Y": a["y"]}))
    _register(["paddle.dot"], lambda a: append_op("dot", {"X": a["x"], "Y": a["y"]}))
    _register(["paddle.nn.functional.softplus"], lambda a: append_op(
        "softplus", {"X": a["x"]}, {"beta": float(a.get("beta", 1)), "threshold": float(a.get("threshold", 20))}))
    _register(["paddle.nn.functional.gelu"], lambda a: append_op(
        "gelu", {"X": a["x"]}, {"approximate": a.get("approximate") in (True, "tanh")}))
    _register(["paddle.round"], lambda a: append_op("round", {"X": a["x"]}, {"decimals": int(a.get("decimals", 0))}))
    _register(["paddle.logsumexp"], lambda a: append_op(
        "logsumexp", {"X": a["x"]},
        dict(zip(("axis", "reduce_all"), _axes(a.get("axis"))), keepdim=bool(a.get("keepdim", False)))))
    _register(["paddle.expand_as"], lambda a: append_op(
        "expand_as_v2", {"X": a["x"], "Y": a["y"]}, {"target_shape": list(a["y"].shape)}))
    _register(["paddle.tril"], lambda a: append_op(
        "tril_triu", {"X": a["x"]}, {"diagonal": int(a.get("diagonal", 0)), "lower": True}))
    _register(["paddle.triu"], lambda a: append_op(
        "tril_triu", {"X": a["x"]}, {"diagonal": int(a.get("diagonal", 0)), "lower": False}))
    _register(["paddle.roll"], lambda a: append_op(
        "roll", {"X": a["x"]},
        {"shifts": [a["shifts"]] if isinstance(a["shifts"], int) else list(a["shifts"]),
         "axis": [] if a.get("axis") is None else ([a["axis"]] if isinstance(a["axis"], int) else list(a["axis"]))}))
    _register(["paddle.diagonal"], lambda a: append_op(
        "diagonal", {"Input": a["x"]},
        {"offset": int(a.get("offset", 0)), "axis1": int(a.get("axis1", 0)), "axis2": int(a.get("axis2", 1))}))


# id(2.x function object) -> emitter, so that any path to the same function finds its emitter.
_BY_FUNCTION: Dict[int, Emitter] = {}


def _ensure() -> None:
    if _EMITTERS:
        return
    import importlib

    _install_emitters()
    for dotted, emitter in _EMITTERS.items():
        module, _, attr = dotted.rpartition(".")
        fn = getattr(importlib.import_module(module), attr, None)
        if fn is not None:
            _BY_FUNCTION[id(fn)] = emitter


def has_emitter(dotted: str) -> bool:
    _ensure()
    return dotted in _EMITTERS


def compat(fn: Callable[..., Any], dotted: Optional[str] = None) -> Callable[..., Any]:
    """`fn` itself, or a wrapper that emits the legacy op while building a legacy-IR program."""
    _ensure()
    emitter = _EMITTERS.get(dotted) if dotted else None
    if emitter is None:
        emitter = _BY_FUNCTION.get(id(fn))
    if emitter is None:
        return fn
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn

    @functools.wraps(fn)
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        from runtime_shim import mode

        if not mode.in_legacy_static():
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return emitter(bound.arguments)

    return dispatch


@functools.lru_cache(maxsize=None)
def op(dotted: str) -> Callable[..., Any]:
    """The 2.x function `dotted` (e.g. "paddle.matmul"), usable in dygraph and legacy static mode."""
    import importlib

    module, _, attr = dotted.rpartition(".")
    return compat(getattr(importlib.import_module(module), attr), dotted)


# dotted name -> the 2.x function it named before `serve_2x_functions` (for `restore_2x_functions`).
_REPLACED: Dict[str, Callable[..., Any]] = {}


def serve_2x_functions() -> None:
    """Make the 2.x names themselves (`paddle.matmul`, ...) build legacy operators in legacy static mode,
    for code that calls them directly: converted code run on the legacy IR (`runtime_shim.enable_static`)
    or beside legacy code. Elsewhere each still behaves as the function it replaces."""
    import importlib

    _ensure()
    for dotted in _EMITTERS:
        if dotted in _REPLACED:
            continue
        module_name, _, attr = dotted.rpartition(".")
        module = importlib.import_module(module_name)
        fn = getattr(module, attr, None)
        if fn is None:
            continue
        served = op(dotted)
        if served is not fn:
            _REPLACED[dotted] = fn
            setattr(module, attr, served)


def restore_2x_functions() -> None:
    """Undo `serve_2x_functions` (used by `runtime_shim.uninstall`)."""
    import importlib

    for dotted, fn in _REPLACED.items():
        module_name, _, attr = dotted.rpartition(".")
        setattr(importlib.import_module(module_name), attr, fn)
    _REPLACED.clear()
