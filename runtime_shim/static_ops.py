"""2.x functions that build legacy-IR programs, also where Paddle 3.3.1 only accepts PIR values.

In 3.3.1 some 2.x functions (`paddle.matmul`, `paddle.sum`, `F.sigmoid`, `paddle.exp`, ...) call the
generated PIR op directly in static mode and reject a legacy `Variable` ("must be Value, but got
Variable", api_mapping/SEMANTICS.md 38). The legacy operators they stand for are still registered, so each such
function has an emitter (`runtime_shim.static_emitters`) that appends the legacy op with the same
meaning. `compat(fn)` returns a callable that behaves as `fn` in dygraph (and PIR) and uses the emitter
while a legacy-IR program is being built; `serve_2x_functions()` puts that callable wherever Paddle
binds the function: its public names (`paddle.matmul`, `paddle.linalg.matmul`, `paddle.tensor.matmul`),
the module globals Paddle's own code calls it through (`F.normalize` calls `paddle.maximum`), the
`paddle._C_ops` function behind it, and the methods of legacy Variables (`x.sum()`, `abs(x)`).
"""
from __future__ import annotations

import functools
import importlib
import inspect
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from runtime_shim.mode import in_legacy_static

Emitter = Callable[[Mapping[str, Any]], Any]


def append_op(op_type: str, inputs: Mapping[str, Any], attrs: Optional[Mapping[str, Any]] = None,
              outputs: Sequence[str] = ("Out",), dtype: Any = None, helper: Any = None) -> Any:
    """Append one legacy operator to the current block; return its output(s). `dtype` (one for all
    outputs, or one per output) defaults to the first input's. `helper`: the LayerHelper the layer
    already made for its parameters (1.8 made one per layer; a second would take the next
    `<layer>_N` and shift the names of the parameters every later layer of that type creates)."""
    from paddle.base.layer_helper import LayerHelper

    helper = helper or LayerHelper(op_type)
    first = next(v for v in inputs.values() if v is not None)
    if isinstance(first, (list, tuple)):
        first = first[0]
    dtypes = list(dtype) if isinstance(dtype, (list, tuple)) else [dtype] * len(outputs)
    outs = {slot: helper.create_variable_for_type_inference(dtype=first.dtype if kind is None else kind)
            for slot, kind in zip(outputs, dtypes)}
    helper.append_op(
        type=op_type,
        inputs={k: v for k, v in inputs.items() if v is not None},
        outputs=outs,
        attrs=dict(attrs or {}),
    )
    values = [outs[slot] for slot in outputs]
    return values[0] if len(values) == 1 else tuple(values)


def run_op(op_type: str, inputs: Mapping[str, Any], attrs: Optional[Mapping[str, Any]] = None,
           outputs: Sequence[str] = ("Out",), dtype: Any = None, helper: Any = None) -> Any:
    """One legacy operator that Paddle 3.3.1 still registers, with its 1.8 inputs and attributes: appended
    to the legacy-IR program being built (through `helper`, see append_op), or run eagerly in dygraph
    (`paddle._legacy_C_ops`)."""
    if in_legacy_static():
        return append_op(op_type, inputs, attrs, outputs, dtype, helper)
    import paddle
    from paddle.base.framework import OpProtoHolder

    proto = OpProtoHolder.instance().get_op_proto(op_type)
    args: List[Any] = [inputs.get(slot.name) for slot in proto.inputs]
    for name, value in (attrs or {}).items():
        args += [name, value]
    result = getattr(paddle._legacy_C_ops, op_type)(*args)
    produced = result if isinstance(result, (tuple, list)) else (result,)
    by_slot = dict(zip((slot.name for slot in proto.outputs), produced))
    values = [by_slot[slot] for slot in outputs]
    return values[0] if len(values) == 1 else tuple(values)


# 2.x functions that leave static mode behind them; 1.x code (and the upgrade of it) expects it kept.
KEEP_STATIC = ("paddle.utils.run_check",)


class _Served:
    """The served function for each original one, computed once Paddle is imported."""

    def __init__(self) -> None:
        from runtime_shim.static_emitters import SIGNATURES, emitters

        self.by_name: Dict[str, Callable[..., Any]] = {}
        # id(the function, under any name, or the `_C_ops` function it forwards to) -> what serves it
        self.by_object: Dict[int, Callable[..., Any]] = {}
        for dotted, emitter in emitters().items():
            fn = _lookup(dotted)
            if fn is None:
                continue
            try:
                signature = inspect.signature(fn)
            except (TypeError, ValueError):
                continue
            builtin = _forwarded_to(fn)
            # Calling the builtin itself: 3.3.1's wrapper calls `_C_ops.<name>`, which is served too.
            served = _dispatcher(builtin or fn, SIGNATURES.get(dotted, signature), emitter)
            self._add(dotted, served, fn, builtin)
        for dotted in KEEP_STATIC:
            fn = _lookup(dotted)
            if fn is not None:
                self._add(dotted, _keeping_static(fn), fn)

    def _add(self, dotted: str, served: Callable[..., Any], *originals: Any) -> None:
        self.by_name[dotted] = served
        for original in originals:
            if original is not None:
                self.by_object.setdefault(id(original), served)


def _lookup(dotted: str) -> Optional[Callable[..., Any]]:
    module, _, attr = dotted.rpartition(".")
    try:
        fn = getattr(importlib.import_module(module), attr, None)
    except ImportError:
        return None
    return getattr(fn, "__shim_served__", fn)


def _forwarded_to(fn: Callable[..., Any]) -> Optional[Callable[..., Any]]:
    """The `paddle._C_ops` function `fn` forwards to, when it is 3.3.1's generated wrapper
    (`def _sum(*args, **kwargs): return _C_ops.sum(*args, **kwargs)`)."""
    from paddle import _C_ops

    if not getattr(fn, "__module__", "").endswith("generated_tensor_methods_patch"):
        return None
    builtin = getattr(_C_ops, fn.__name__.lstrip("_"), None)
    return getattr(builtin, "__shim_served__", builtin)


def _keeping_static(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def keep(*args: Any, **kwargs: Any) -> Any:
        import paddle

        static = not paddle.in_dynamic_mode()
        try:
            return fn(*args, **kwargs)
        finally:
            if static and paddle.in_dynamic_mode():
                paddle.enable_static()

    keep.__shim_served__ = fn  # type: ignore[attr-defined]
    return keep


def _dispatcher(fn: Callable[..., Any], signature: inspect.Signature, emitter: Emitter) -> Callable[..., Any]:
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        if not in_legacy_static():
            return fn(*args, **kwargs)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return fn(*args, **kwargs)  # an alias spelling the emitter does not read: Paddle's own message
        bound.apply_defaults()
        result = emitter(bound.arguments)
        out = bound.arguments.get("out")
        if out is None:
            return result
        import paddle

        return paddle.assign(result, out)

    dispatch.__name__ = dispatch.__qualname__ = getattr(fn, "__name__", "dispatch")
    dispatch.__doc__ = fn.__doc__
    dispatch.__signature__ = signature  # type: ignore[attr-defined]
    dispatch.__shim_served__ = fn  # type: ignore[attr-defined]
    return dispatch


@functools.lru_cache(maxsize=1)
def _served() -> _Served:
    return _Served()


def compat(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` itself, or a wrapper that emits the legacy op while building a legacy-IR program."""
    return _served().by_object.get(id(getattr(fn, "__shim_served__", fn)), fn)


@functools.lru_cache(maxsize=None)
def op(dotted: str) -> Callable[..., Any]:
    """The 2.x function `dotted` (e.g. "paddle.matmul"), usable in dygraph and legacy static mode."""
    module, _, attr = dotted.rpartition(".")
    return compat(getattr(importlib.import_module(module), attr))


class _Functions:
    """`paddle` (or one of its modules) as a kernel run by the shim sees it: each function through `op`."""

    def __init__(self, dotted: str) -> None:
        self._dotted = dotted

    def __getattr__(self, attr: str) -> Any:
        return _resolved(f"{self._dotted}.{attr}")


@functools.lru_cache(maxsize=None)
def _resolved(dotted: str) -> Any:
    module, _, attr = dotted.rpartition(".")
    value = getattr(importlib.import_module(module), attr)
    return _Functions(dotted) if inspect.ismodule(value) else op(dotted)


@functools.lru_cache(maxsize=None)
def kernel(template: str, name: str) -> Callable[..., Any]:
    """The 1.8 function `template` of api_mapping.kernels spells in 2.x (the text the upgrade writes into
    modules), compiled once, calling each 2.x function through `op`."""
    import numpy

    from api_mapping.kernels import compiled

    return compiled(template, name, _Functions("paddle"), numpy)


@functools.lru_cache(maxsize=None)
def plain_kernel(template: str, name: str, *stdlib: str) -> Callable[..., Any]:
    """A kernel of api_mapping.kernels that builds no operator (it reads a program, or splits a reader),
    compiled once with paddle itself and the standard-library modules `stdlib` it names: `op` would only
    stand between it and the objects it reads."""
    import numpy
    import paddle

    from api_mapping.kernels import compiled

    return compiled(template, name, paddle, numpy, **{module: importlib.import_module(module) for module in stdlib})


# (owner, attribute, what it held before `serve_2x_functions`), for `restore_2x_functions`.
_REPLACED: List[Tuple[Any, str, Any]] = []


def _bindings() -> List[Tuple[Any, Dict[str, Any]]]:
    """Where Paddle binds functions: its modules, and the legacy `Variable` class (its methods)."""
    from paddle.base.framework import Variable

    owners: List[Tuple[Any, Dict[str, Any]]] = [(Variable, dict(vars(Variable)))]
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "paddle" or name.startswith("paddle.")):
            owners.append((module, dict(vars(module))))
    return owners


def serve_2x_functions() -> None:
    """Make the 2.x functions build legacy operators in legacy static mode, under every name Paddle binds
    them to, for code that calls them directly: converted code run on the legacy IR
    (`runtime_shim.enable_static`) or beside legacy code. Elsewhere each behaves as the function it
    replaces. Calling it again serves what modules imported since then bound."""
    served = _served()
    for owner, namespace in _bindings():
        for attr, value in namespace.items():
            replacement = served.by_object.get(id(value))
            if replacement is None or replacement is value:
                continue
            _REPLACED.append((owner, attr, value))
            setattr(owner, attr, replacement)
    _fix_variable_abs(served)
    _accept_variable_rate()


def _accept_variable_rate() -> None:
    """A learning rate the program computes (a legacy Variable) drives a 2.x optimizer on the legacy IR,
    as it drove a 1.8 one (`optimizer.py`: the Variable is the program's rate, read by every update):
    3.3.1's `Optimizer.__init__` accepts only a float or an LRScheduler, though its legacy-IR updates
    read the rate from `_learning_rate_map` whatever made it. Elsewhere the constructor is unchanged."""
    from paddle.base import framework
    from paddle.optimizer import Optimizer

    current = Optimizer.__init__
    if getattr(current, "__shim_served__", None) is not None:
        return

    @functools.wraps(current)
    def __init__(self, learning_rate=0.001, *args, **kwargs):
        if not (isinstance(learning_rate, framework.Variable) and in_legacy_static()):
            return current(self, learning_rate, *args, **kwargs)
        current(self, 0.0, *args, **kwargs)
        self._learning_rate = learning_rate
        self._learning_rate_map[framework.default_main_program()] = learning_rate

    __init__.__shim_served__ = current
    _REPLACED.append((Optimizer, "__init__", current))
    Optimizer.__init__ = __init__


def _fix_variable_abs(served: _Served) -> None:
    """3.3.1's `Variable.__abs__` calls `paddle.abs` through a closure variable it never binds
    (NameError); `abs(x)` of a legacy Variable is `paddle.abs(x)`."""
    from paddle.base.framework import Variable

    current = Variable.__dict__.get("__abs__")
    if current is not None and getattr(current, "__shim_served__", None) is None:
        _REPLACED.append((Variable, "__abs__", current))
        Variable.__abs__ = served.by_name["paddle.abs"]


def restore_2x_functions() -> None:
    """Undo `serve_2x_functions` (used by `runtime_shim.uninstall`)."""
    for owner, attr, value in reversed(_REPLACED):
        setattr(owner, attr, value)
    _REPLACED.clear()
