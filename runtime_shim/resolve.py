"""Resolve a 1.8 dotted name (`paddle.fluid.layers.reduce_sum`) to what the shim serves.

Order, first match wins:

1. a hand-written adapter registered under the entry's 1.8 main name (`runtime_shim.adapters`);
2. the table entry: `no_equivalent` -> a callable raising `NoEquivalentError`; a `transformer` with a
   registered factory -> the factory's object; `update_to` -> the 2.x target behind a generic
   translation of the 1.8 call (positional order from `args_list`, then `args_change` in order:
   renames, drops, additions; a drop marked `alters_result` is refused unless the value is the 1.8
   default);
3. a 1.8 module -> the shim's lazy module for it;
4. the same path under `paddle.base`, Paddle 3's home of the old fluid internals (`fluid.core`,
   `fluid.framework.Variable`, `fluid.layer_helper.LayerHelper`, ...);
5. a public 1.8.5 name with none of the above -> a stand-in that raises `UnservedApiError` when used,
   so that importing it works and calling it says why it cannot run.

Every served result keeps one 1.8 fact that holds for all APIs: 1.8 had no 0-D tensors, so a 0-D
result is returned with shape `[1]` (api_mapping/SEMANTICS.md 8).
"""
from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import inspect
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from api_mapping import ApiEntry, Param, Table, load_table
from runtime_shim import adapters, legacy_index, static_ops
from runtime_shim.messages import (
    LegacyArgumentError, UnservedApiError, legacy_api_used, no_equivalent, reporting_class,
)

FLUID = "paddle.fluid"
BASE = "paddle.base"

_MISSING = object()


# ------------------------------------------------------------------------------------------------
# Values written as source text in the table


def import_dotted(dotted: str) -> Any:
    """The object `dotted` names in code (`paddle.batch` is the function, not the module `batch.py`).

    Attributes win over submodules, as in an expression; a submodule is imported only when its parent
    has no such attribute. Raises ImportError or AttributeError.
    """
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        if hasattr(obj, part):
            obj = getattr(obj, part)
        elif inspect.ismodule(obj):
            obj = importlib.import_module(".".join(parts[: i + 1]))
        else:
            raise AttributeError(f"{'.'.join(parts[:i])} has no attribute {part!r}")
    return obj


def source_value(text: str) -> Any:
    """The value of a table source text: a Python literal or a dotted `paddle.*` name."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    if all(part.isidentifier() for part in text.split(".")) and text.startswith("paddle."):
        return import_dotted(text)
    raise ValueError(f"table value {text!r} is neither a literal nor a paddle name")


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return False


def same_as_default(value: Any, default: Optional[str]) -> bool:
    """True when `value` is provably the 1.8 default written as `default` source text."""
    if default is None or not _plain(value):
        return False
    try:
        expected = ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return False
    if isinstance(expected, bool) or isinstance(value, bool):
        return type(expected) is type(value) and expected == value
    if isinstance(value, (list, tuple)) and isinstance(expected, (list, tuple)):
        return list(value) == list(expected)
    return bool(value == expected)


# ------------------------------------------------------------------------------------------------
# Warnings at resolution time (objects served as they are, with no call to hook)

_quiet = 0


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Resolve without warning (`from paddle.fluid.layers import *` touches every name)."""
    global _quiet
    _quiet += 1
    try:
        yield
    finally:
        _quiet -= 1


def resolution_warning(name: str, replacement: Optional[str], note: Optional[str] = None,
                       automatic: bool = True) -> None:
    if not _quiet:
        legacy_api_used(name, replacement, note, automatic)


# ------------------------------------------------------------------------------------------------
# 0-D results


def one_dim(result: Any) -> Any:
    """Give 0-D tensors (and 0-D tensors inside tuples/lists) the 1.8 shape `[1]`."""
    if isinstance(result, (tuple, list)):
        converted = [one_dim(r) for r in result]
        if all(a is b for a, b in zip(converted, result)):
            return result
        if isinstance(result, list):
            return converted
        if hasattr(result, "_fields"):  # a named tuple (paddle.topk's TopKRetType)
            return type(result)(*converted)
        return tuple(converted)
    shape = _tensor_shape(result)
    if shape is not None and len(shape) == 0:
        return static_ops.op("paddle.reshape")(result, [1])
    return result


def _tensor_shape(value: Any) -> Optional[Sequence[int]]:
    """The shape of a tensor; None for anything else (a tensor array's shape `()` is not 0-D)."""
    import paddle

    if isinstance(value, paddle.Tensor):
        return list(value.shape)
    if isinstance(value, paddle.base.framework.Variable):
        if value.type == paddle.base.core.VarDesc.VarType.DENSE_TENSOR_ARRAY:
            return None
        return list(value.shape)
    return None


# ------------------------------------------------------------------------------------------------
# The 1.8 call, translated


class _Default:
    """A default shown by `inspect.signature` as its 1.8 source text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def legacy_signature(params: Sequence[Param]) -> inspect.Signature:
    """An `inspect.Signature` for a 1.8 `args_list` (what `help()` and the coverage test read)."""
    out: List[inspect.Parameter] = []
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    for p in params:
        if p.star == "*":
            out.append(inspect.Parameter(p.name, inspect.Parameter.VAR_POSITIONAL))
            kind = inspect.Parameter.KEYWORD_ONLY
        elif p.star == "**":
            out.append(inspect.Parameter(p.name, inspect.Parameter.VAR_KEYWORD))
        else:
            default = inspect.Parameter.empty if p.default is None else _Default(p.default)
            out.append(inspect.Parameter(p.name, kind, default=default))
    return inspect.Signature(out)


class CallTranslator:
    """Turns one 1.8 call of `entry` into the keyword arguments of its 2.x target.

    Same rules as the upgrader (one fact, one implementation): positional arguments take their 1.8
    names, an explicit `None` where 1.8's default is `None` counts as not passed, then the entry's
    `args_change` apply in order.
    """

    def __init__(self, entry: ApiEntry) -> None:
        self.entry = entry
        self.params = tuple(entry.args_list or ())
        self.positional = [p for p in self.params if not p.star]
        self.star_args = any(p.star == "*" for p in self.params)
        self.star_kwargs = any(p.star == "**" for p in self.params)
        self.names = {p.name for p in self.positional}
        self._added: Dict[str, Any] = {}

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Tuple[Dict[str, Any], Tuple[Any, ...]]:
        """The 1.8 arguments by name, and any extra positional ones (for a 1.8 `*args`)."""
        name = self.entry.name
        if self.entry.args_list is None:
            return dict(kwargs), tuple(args)
        if len(args) > len(self.positional) and not self.star_args:
            raise TypeError(f"{name}() takes {len(self.positional)} positional arguments "
                            f"but {len(args)} were given")
        bound: Dict[str, Any] = {}
        for param, value in zip(self.positional, args):
            bound[param.name] = value
        extra = tuple(args[len(self.positional):])
        for key, value in kwargs.items():
            if key in bound:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            if key not in self.names and not self.star_kwargs:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
            bound[key] = value
        missing = [p.name for p in self.positional if p.required and p.name not in bound]
        if missing:
            raise TypeError(f"{name}() missing required argument(s): {', '.join(missing)}")
        return bound, extra

    def translate(self, bound: Dict[str, Any]) -> Dict[str, Any]:
        """Apply the explicit-None rule and `args_change` to 1.8 keyword arguments."""
        entry = self.entry
        out = dict(bound)
        for param in self.positional:
            if param.default == "None" and param.name in out and out[param.name] is None:
                del out[param.name]
        for change in entry.args_change:
            if change.op == "rename":
                if change.arg in out:
                    out[change.to] = out.pop(change.arg)  # type: ignore[index]
            elif change.op == "drop":
                if change.arg not in out:
                    continue
                value = out.pop(change.arg)
                param = entry.param(change.arg)
                if change.alters_result and not same_as_default(value, param.default if param else None):
                    raise LegacyArgumentError(
                        f"{entry.name}: {change.arg}={value!r} changes the result in Paddle 1.8, and "
                        f"{entry.update_to} has no such argument"
                        + (f" ({change.reason})" if change.reason else "")
                        + "; the shim does not drop it silently. Rewrite this call by hand."
                    )
            elif change.op == "add":
                if change.arg not in out:
                    if change.arg not in self._added:
                        self._added[change.arg] = source_value(change.value)  # type: ignore[arg-type]
                    out[change.arg] = self._added[change.arg]
        return out

    def __call__(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Tuple[Dict[str, Any], Tuple[Any, ...]]:
        bound, extra = self.bind(args, kwargs)
        return self.translate(bound), extra


# ------------------------------------------------------------------------------------------------
# Served objects built from the table


def _module_of(name: str) -> str:
    return name.rsplit(".", 1)[0]


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def generic_function(entry: ApiEntry, target: Callable[..., Any]) -> Callable[..., Any]:
    """A function with the 1.8 signature that calls the 2.x `target` with translated arguments."""
    translate = CallTranslator(entry)
    call_target = static_ops.compat(target)

    def legacy_call(*args: Any, **kwargs: Any) -> Any:
        legacy_api_used(entry.name, entry.update_to, entry.warning)
        kw, extra = translate(args, kwargs)
        return one_dim(call_target(*extra, **kw))

    _describe(legacy_call, entry)
    return legacy_call


def generic_class(entry: ApiEntry, target: type) -> type:
    """The 2.x class itself when a 1.8 call means the same, else a subclass taking 1.8 arguments."""
    if not entry.args_change and _same_positional_order(entry, target):
        return target
    return legacy_subclass(entry, target)


def legacy_subclass(entry: ApiEntry, target: type, members: Optional[Mapping[str, Any]] = None,
                    attributes: Optional[Callable[[Dict[str, Any]], Mapping[str, Any]]] = None,
                    doc: str = "") -> type:
    """The served class for 1.8 class `entry`: a subclass of the 2.x class `target` whose constructor takes
    the 1.8 arguments (translated by the table's `args_change`), reports the use once, and carries `members`.

    `attributes(bound)` may take 1.8-only arguments out of the bound 1.8 arguments (e.g. `act`); it returns
    the attributes to set on the instance once the 2.x constructor ran.
    """
    translate = CallTranslator(entry)
    name = entry.name

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if reporting_class(self) is cls:
            legacy_api_used(name, entry.update_to, entry.warning)
        bound, extra = translate.bind(args, kwargs)
        later = attributes(bound) if attributes is not None else {}
        target.__init__(self, *extra, **translate.translate(bound))
        for attr, value in later.items():
            setattr(self, attr, value)

    if entry.args_list is not None:
        __init__.__signature__ = legacy_signature(  # type: ignore[attr-defined]
            (Param("self"),) + tuple(entry.args_list))
    cls = type(_short(name), (target,), {
        **(members or {}),
        "__init__": __init__,
        "__module__": _module_of(name),
        "__doc__": f"Paddle 1.8 `{name}` served by runtime_shim on top of `{entry.update_to}`{doc}.",
        "__legacy_name__": name,
    })
    cls.__qualname__ = _short(name)
    return cls


def _same_positional_order(entry: ApiEntry, target: type) -> bool:
    """True when a positional 1.8 call binds the same way to the 2.x constructor."""
    if not entry.args_list:
        return True
    try:
        params = list(inspect.signature(target.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return True  # a compiled class: nothing to compare, and the table lists no change
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    legacy = [p.name for p in entry.args_list if not p.star]
    return names[: len(legacy)] == legacy


def _describe(fn: Callable[..., Any], entry: ApiEntry) -> None:
    fn.__name__ = _short(entry.name)
    fn.__qualname__ = _short(entry.name)
    fn.__module__ = _module_of(entry.name)
    fn.__doc__ = f"Paddle 1.8 `{entry.name}` served by runtime_shim on top of `{entry.update_to}`."
    fn.__legacy_name__ = entry.name  # type: ignore[attr-defined]
    if entry.args_list is not None:
        fn.__signature__ = legacy_signature(entry.args_list)  # type: ignore[attr-defined]


def removed_api(entry: ApiEntry) -> Callable[..., Any]:
    """A stand-in for an API 2.x removed: importing it works, calling it explains what to do."""
    reason = entry.no_equivalent.reason if entry.no_equivalent else "removed in Paddle 2.x"
    suggest = entry.no_equivalent.suggest if entry.no_equivalent else "see the Paddle 2.x docs"
    shim = entry.no_equivalent.shim if entry.no_equivalent else None
    return _stand_in(entry.name, lambda: no_equivalent(entry.name, reason, suggest, shim), entry.args_list)


def unserved_api(name: str, why: str) -> Callable[..., Any]:
    """A stand-in for a 1.8 name the shim cannot serve: it raises `UnservedApiError` when used."""
    return _stand_in(name, lambda: UnservedApiError(f"{name}: {why}"), None)


def _stand_in(name: str, error: Callable[[], Exception],
              params: Optional[Sequence[Param]]) -> Callable[..., Any]:
    """A class, so that 1.8 code may still subclass or isinstance-check it at import time."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise error()

    def __getattr__(cls: type, attr: str) -> Any:
        raise AttributeError(f"{name}.{attr}: {error()}")

    meta = type(f"{_short(name)}_meta", (type,), {"__getattr__": __getattr__})
    cls = meta(_short(name), (), {
        "__new__": __new__,
        "__module__": _module_of(name),
        "__doc__": str(error()),
        "__legacy_name__": name,
        "__shim_stand_in__": True,
    })
    if params is not None:
        cls.__signature__ = legacy_signature(params)
    return cls


def is_stand_in(obj: Any) -> bool:
    """True for what `removed_api`/`unserved_api` return."""
    return inspect.isclass(obj) and obj.__dict__.get("__shim_stand_in__", False)


# ------------------------------------------------------------------------------------------------
# The resolver


class Resolver:
    """Maps 1.8 dotted names to served objects; one per installed shim."""

    def __init__(self, table: Optional[Table] = None) -> None:
        self.table = table if table is not None else load_table()
        self._cache: Dict[str, Any] = {}
        self._adapter_by_definition: Optional[Dict[str, adapters.Adapter]] = None

    # -- adapters found through the table's main names, or through 1.8.5's defining paths
    def _adapter(self, dotted: str) -> Optional[adapters.Adapter]:
        main = self.table.main_name(dotted) or dotted
        found = adapters.lookup(main)
        if found is not None:
            return found
        if self._adapter_by_definition is None:
            self._adapter_by_definition = {}
            for name, adapter in adapters.all_adapters().items():
                definition = legacy_index.canonical(name)
                if definition is not None:
                    self._adapter_by_definition.setdefault(definition, adapter)
        definition = legacy_index.canonical(dotted)
        return None if definition is None else self._adapter_by_definition.get(definition)

    def entry(self, dotted: str) -> Optional[ApiEntry]:
        """The table entry of `dotted`: by the table's names, else through 1.8.5's aliases."""
        found = self.table.lookup(dotted)
        if found is not None:
            return found
        definition = legacy_index.canonical(dotted)
        if definition is not None and definition != dotted:
            return self.table.lookup(definition)
        return None

    def resolve(self, dotted: str) -> Any:
        """The object served for 1.8 path `dotted`; AttributeError when 1.8 had no such name."""
        if dotted in self._cache:
            return self._cache[dotted]
        obj = self._resolve(dotted)
        self._cache[dotted] = obj
        return obj

    def _resolve(self, dotted: str) -> Any:
        found = self._adapter(dotted)
        if found is not None:
            return found.obj
        entry = self.entry(dotted)
        if entry is not None and entry.kind != "module":
            # One object per entry: an alias and the main name serve the same thing.
            key = "entry:" + entry.name
            if key not in self._cache:
                self._cache[key] = self.from_entry(entry)
            served = self._cache[key]
            if served is not _MISSING:
                return served
        if legacy_index.is_module(dotted) or (entry is not None and entry.kind == "module"):
            return importlib.import_module(dotted)
        base = self._from_base(dotted)
        if base is not _MISSING:
            return base
        if legacy_index.exists(dotted) or legacy_index.is_dynamic(_module_of(dotted)):
            return unserved_api(dotted, "the runtime shim has no Paddle 2.x mapping for this 1.8 API; "
                                        "run `paddle-upgrade` and port this call by hand")
        raise AttributeError(f"module {_module_of(dotted)!r} has no attribute {_short(dotted)!r} "
                             "(not a Paddle 1.8 API)")

    def from_entry(self, entry: ApiEntry) -> Any:
        """What the table entry alone says to serve (no adapter involved)."""
        if entry.no_equivalent is not None:
            # Paddle 3 may still carry the 1.8 object under `paddle.base` (PyReader, ...): running
            # it beats refusing; without it, calling the stand-in explains what to do instead.
            base = self._from_base(entry.name, note=f"{entry.no_equivalent.reason}; "
                                                   f"instead: {entry.no_equivalent.suggest}")
            return base if base is not _MISSING else removed_api(entry)
        make = adapters.factory(entry.transformer)
        if entry.transformer is not None and make is None:
            return unserved_api(entry.name, f"needs the shim adapter for transformer {entry.transformer!r}")
        if entry.update_to is None:
            if make is not None:
                return make(entry, None)
            return _MISSING
        try:
            target = import_dotted(entry.update_to)
        except (ImportError, AttributeError):
            return unserved_api(entry.name, f"its 2.x target {entry.update_to} is not in this Paddle")
        family = adapters.target_factory(target) if make is None else None
        if family is not None:
            return family(entry, target)
        if inspect.isclass(target):
            generic: Any = generic_class(entry, target)
            if generic is target:  # served as is: report the use now, there is no call to hook
                resolution_warning(entry.name, entry.update_to, entry.warning)
        elif entry.kind != "constant" and callable(target):
            generic = generic_function(entry, target)
        else:
            resolution_warning(entry.name, entry.update_to, entry.warning)
            generic = target
        return make(entry, generic) if make is not None else generic

    def _from_base(self, dotted: str, note: Optional[str] = None) -> Any:
        """`paddle.fluid.X.Y` served as `paddle.base.X.Y` when Paddle 3 still has it there."""
        if not dotted.startswith(FLUID + "."):
            return _MISSING
        base_path = BASE + dotted[len(FLUID):]
        try:
            obj = import_dotted(base_path)
        except (ImportError, AttributeError):
            return _MISSING
        if inspect.ismodule(obj) and legacy_index.is_module(dotted):
            return _MISSING
        if not _short(dotted).startswith("_"):
            resolution_warning(dotted, f"{base_path} (a Paddle 3 internal; no public 2.x API is mapped)", note,
                               automatic=False)
        return obj

    def stand_ins_served(self) -> List[str]:
        """The 1.8 names resolved so far that are served only as erroring stand-ins."""
        return sorted(name for name, obj in self._cache.items()
                      if not name.startswith("entry:") and is_stand_in(obj))

    def module_names(self, module: str) -> List[str]:
        """Public names of 1.8 module `module`: its 1.8.5 members and the table's names under it."""
        names = list(legacy_index.members(module))
        seen = set(names)
        prefix = module + "."
        for name in self.table.all_names():
            if name.startswith(prefix) and "." not in name[len(prefix):]:
                short = name[len(prefix):]
                if short not in seen:
                    seen.add(short)
                    names.append(short)
        return names


@functools.lru_cache(maxsize=1)
def default_resolver() -> Resolver:
    return Resolver()
