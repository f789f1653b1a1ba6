"""The shim serves every name the `api_mapping` table maps, each callable with its 1.8 signature.

For every main name and alias of the table: it resolves through the shim; a callable takes the 1.8
parameters (required ones positionally, the others by keyword); for a generically served function or
class, the translated call binds to the real 2.x target; an adapter declares exactly the 1.8
parameters; an API without a 2.x equivalent raises `NoEquivalentError` naming what to use instead.
The test grows with the table: nothing in it lists API names.
"""
from __future__ import annotations

import ast
import inspect
from typing import Any, Dict, List, Tuple

import pytest

pytestmark = pytest.mark.paddle

pytest.importorskip("paddle")  # the adapters build on Paddle classes when imported
from api_mapping import ApiEntry, load_table  # noqa: E402
import runtime_shim  # noqa: E402
from runtime_shim import adapters, resolve  # noqa: E402
from runtime_shim.messages import NoEquivalentError  # noqa: E402

TABLE = load_table()
NAMES: List[Tuple[str, str]] = sorted(
    (dotted, main) for main, entry in TABLE.entries.items() for dotted in (main,) + entry.alias
)


@pytest.fixture(scope="module")
def resolver():
    with runtime_shim.installed(warnings="off"):
        yield resolve.default_resolver()


class Placeholder:
    """An argument value for signature checks; never equal to a 1.8 default."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


def legacy_call(entry: ApiEntry) -> Tuple[List[Any], Dict[str, Any]]:
    """Arguments for a 1.8 call: required ones positionally, optional ones at their 1.8 default."""
    args: List[Any] = []
    kwargs: Dict[str, Any] = {}
    for param in entry.args_list or ():
        if param.star:
            continue
        if param.required:
            args.append(Placeholder(param.name))
            continue
        try:
            kwargs[param.name] = ast.literal_eval(param.default)  # type: ignore[arg-type]
        except (ValueError, SyntaxError):
            continue  # a default only 1.8 could evaluate (`kIgnoreIndex`): leave it out, as callers do
    return args, kwargs


def _signature(obj: Any) -> inspect.Signature:
    return inspect.signature(obj)


def test_table_is_not_empty() -> None:
    assert len(NAMES) > 100


@pytest.mark.parametrize("dotted,main", NAMES, ids=[n for n, _ in NAMES])
def test_every_table_name_is_served(resolver, dotted: str, main: str) -> None:
    entry = TABLE.entries[main]
    served = resolver.resolve(dotted)
    assert served is resolver.resolve(main), "an alias must serve the same object as its main name"
    if entry.kind == "module":
        assert inspect.ismodule(served)
        return
    if entry.kind == "constant":
        assert served is not None
        return
    assert callable(served), f"{dotted} is not callable"
    if entry.no_equivalent is not None:
        # The table says, per entry, whether the shim computes it on Paddle 3, and why not when it does not.
        assert resolve.is_stand_in(served) == (entry.no_equivalent.shim is not None), (
            f"{main}: the shim {'refuses' if resolve.is_stand_in(served) else 'serves'} it; its table entry "
            f"{'lacks' if entry.no_equivalent.shim is None else 'has'} a no_equivalent.shim reason")
    if entry.no_equivalent is not None and resolve.is_stand_in(served):
        args, kwargs = legacy_call(entry)
        with pytest.raises(NoEquivalentError, match="Use instead") as refused:
            served(*args, **kwargs)
        assert entry.no_equivalent.shim in str(refused.value)
        return
    assert not resolve.is_stand_in(served), f"{dotted}: {served.__doc__}"
    if entry.args_list is None:
        return
    args, kwargs = legacy_call(entry)
    try:
        signature = _signature(served)
    except (TypeError, ValueError):
        pytest.skip(f"{dotted}: a compiled object without a signature")
    signature.bind(*args, **kwargs)  # TypeError when the 1.8 signature is not accepted
    if resolver._adapter(dotted) is not None:
        declared = [p.name for p in signature.parameters.values()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        legacy = [p.name for p in entry.args_list if not p.star]
        assert declared == legacy, f"adapter for {dotted} does not declare the 1.8 parameters"


def _generic_entries() -> List[str]:
    names = []
    for main, entry in TABLE.entries.items():
        if (entry.update_to and entry.args_list is not None and entry.no_equivalent is None
                and entry.transformer is None and entry.kind in ("function", "class")
                and adapters.lookup(main) is None):
            names.append(main)
    return sorted(names)


@pytest.mark.parametrize("main", _generic_entries())
def test_translated_call_binds_to_the_2x_target(resolver, main: str) -> None:
    """The generic translation (positional order, renames, drops, additions) fits the real target."""
    entry = TABLE.entries[main]
    target = resolve.import_dotted(entry.update_to)  # type: ignore[arg-type]
    args, kwargs = legacy_call(entry)
    translated, extra = resolve.CallTranslator(entry)(args, kwargs)
    callee = target.__init__ if inspect.isclass(target) else target
    try:
        signature = inspect.signature(callee)
    except (TypeError, ValueError):
        pytest.skip(f"{entry.update_to} has no inspectable signature")
    params = list(signature.parameters.values())
    if inspect.isclass(target):
        params = params[1:]
    signature = signature.replace(parameters=params)
    signature.bind(*extra, **translated)


def test_every_adapter_is_what_its_api_serves(resolver) -> None:
    """An adapter is found for its entry's main name and every alias, even if registered under one."""
    from runtime_shim import legacy_index

    for name, adapter in adapters.all_adapters().items():
        main = TABLE.main_name(name)
        if main is None:
            assert legacy_index.exists(name), f"adapter {name} is neither in the table nor a 1.8.5 API"
            assert resolver.resolve(name) is adapter.obj
            continue
        for dotted in (main,) + TABLE.entries[main].alias:
            assert resolver.resolve(dotted) is adapter.obj, f"{dotted} does not reach the adapter {name}"


def test_every_transformer_of_the_table_is_served(resolver) -> None:
    """An entry with a transformer needs an adapter (by name) or a factory (by transformer), unless it has no
    2.x equivalent (the transformer converts some uses): the shim serves those as such (resolve.from_entry)."""
    missing = [main for main, entry in TABLE.entries.items()
               if entry.transformer and entry.no_equivalent is None and adapters.lookup(main) is None
               and adapters.factory(entry.transformer) is None]
    assert missing == []
