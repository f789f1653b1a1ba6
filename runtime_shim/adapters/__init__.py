"""Hand-written adapters: the 1.8 behaviour where a table rename cannot express it.

Two registries:

- `adapter(main_name, replacement)`: the object the shim serves for one 1.8 API, registered under the
  table's 1.8 main name. It takes the 1.8 signature and computes the 1.8 result.
- `for_transformer(name)`: a factory for every table entry that carries that transformer name
  (`act_to_call`, `layer_act`, ...). It receives the entry and the generic table-driven callable and
  returns what to serve, so new table entries with a known transformer need no new code.

One module per area: `layers` (functional layers), `dygraph_nn` (layer classes), `optimizers`
(optimizers, learning-rate decays), `checkpoint` (save/load), `static` (executors,
programs, persistence), `execution` (guards and modes), `control_flow` (block classes and the 1.8 forms
of loop ops), `custom_ops` (`load_op_library`), `initializers`, `sequence_lod` (LoD sequence layers and
`nets.sequence_conv_pool` in legacy-IR programs: delegated to 3.3.1's `paddle.static.nn.sequence_*` where
it appends the 1.8 op, composed where the op is gone), `rnn_ops` (`dynamic_lstm`, `dynamic_gru`, `gru_unit`:
their 1.8 operators), `rnn_cells` (the cell API: `RNNCell`, `LSTMCell`, `rnn`, as the upgrade writes
them), and what 2.x removed but Paddle 3 computes: `removed_layers`, `detection`, `dropped_detection_ops`
(detection operators Paddle 3.3.1 dropped, composed from 2.x operations), `nets`, `readers`, `metrics`,
`profiling`, `internals`.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from runtime_shim.messages import legacy_api_used, reporting_class


@dataclass(frozen=True)
class Adapter:
    name: str  # the table's 1.8 main name
    obj: Any  # function or class with the 1.8 signature
    replacement: str  # what the warning names as the 2.x replacement
    semantics: Tuple[int, ...] = ()  # api_mapping/SEMANTICS.md entries it implements


Factory = Callable[..., Any]  # (entry, generic) -> served object

_BY_NAME: Dict[str, Adapter] = {}
_FACTORIES: Dict[str, Factory] = {}
_TARGET_FACTORIES: List[Tuple[str, Factory]] = []  # (2.x base class, factory), in registration order
_loaded = False


@functools.lru_cache(maxsize=None)
def _automatic(name: str) -> bool:
    """Whether the upgrader rewrites `name` (the table's `automatic`); the warning says so only then."""
    from api_mapping import load_table

    entry = load_table().lookup(name)
    return entry is not None and entry.automatic and entry.no_equivalent is None


def _warning_wrapper(name: str, replacement: str, obj: Any) -> Any:
    """Make `obj` report its use: functions on every call, classes on instantiation."""
    if inspect.isclass(obj):
        original = obj.__init__

        @functools.wraps(original)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if reporting_class(self) is obj:
                legacy_api_used(name, replacement, automatic=_automatic(name))
            original(self, *args, **kwargs)

        obj.__init__ = __init__
        obj.__legacy_name__ = name
        return obj

    @functools.wraps(obj)
    def call(*args: Any, **kwargs: Any) -> Any:
        legacy_api_used(name, replacement, automatic=_automatic(name))
        return obj(*args, **kwargs)

    call.__legacy_name__ = name  # type: ignore[attr-defined]
    return call


def adapter(name: str, replacement: str, semantics: Tuple[int, ...] = ()) -> Callable[[Any], Any]:
    """Register the decorated function or class as what the shim serves for 1.8 API `name`."""

    def register(obj: Any) -> Any:
        if name in _BY_NAME:
            raise ValueError(f"adapter for {name!r} registered twice")
        served = _warning_wrapper(name, replacement, obj)
        _BY_NAME[name] = Adapter(name, served, replacement, semantics)
        return obj

    return register


def for_transformer(transformer: str) -> Callable[[Factory], Factory]:
    """Register a factory for every table entry whose `transformer` is `transformer`."""

    def register(factory: Factory) -> Factory:
        if transformer in _FACTORIES:
            raise ValueError(f"factory for transformer {transformer!r} registered twice")
        _FACTORIES[transformer] = factory
        return factory

    return register


def for_target_base(base: str) -> Callable[[Factory], Factory]:
    """Register a factory for every table entry whose 2.x target class derives from `base`.

    For behaviour shared by a whole family (every 1.8 optimizer takes 1.8 learning-rate decays).
    """

    def register(factory: Factory) -> Factory:
        _TARGET_FACTORIES.append((base, factory))
        return factory

    return register


def target_factory(target: Any) -> Optional[Factory]:
    """The family factory that applies to 2.x class `target`, if any."""
    _load()
    if not inspect.isclass(target):
        return None
    for base, make in _TARGET_FACTORIES:
        module, _, attr = base.rpartition(".")
        base_cls = getattr(importlib.import_module(module), attr, None)
        if base_cls is not None and issubclass(target, base_cls):
            return make
    return None


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for info in pkgutil.iter_modules(__path__):  # type: ignore[name-defined]
        importlib.import_module(f"{__name__}.{info.name}")


def lookup(name: str) -> Optional[Adapter]:
    """The adapter registered under 1.8 main name `name`, if any."""
    _load()
    return _BY_NAME.get(name)


def factory(transformer: Optional[str]) -> Optional[Factory]:
    _load()
    return None if transformer is None else _FACTORIES.get(transformer)


def all_adapters() -> Dict[str, Adapter]:
    _load()
    return dict(_BY_NAME)


def transformer_names() -> Tuple[str, ...]:
    _load()
    return tuple(sorted(_FACTORIES))
