"""What Paddle 1.8.5 exported, from the committed signature index (`api_mapping.signatures`).

The shim needs four facts about the 1.8 namespace: which dotted paths are modules, what
`from <module> import *` bound, whether a name existed at all, and which paths denote the same
object (`paddle.fluid.Linear` and `paddle.fluid.dygraph.nn.Linear`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, List, Optional

LEGACY_VERSION = "1.8.5"


@lru_cache(maxsize=None)
def _index() -> Optional[Any]:
    try:
        from api_mapping.signatures import load_index

        return load_index(LEGACY_VERSION)
    except (ImportError, FileNotFoundError):
        return None


def available() -> bool:
    return _index() is not None


def is_module(dotted: str) -> bool:
    """True when `dotted` was a module (or package) of Paddle 1.8.5."""
    idx = _index()
    if idx is None:
        return dotted == "paddle.fluid"
    if dotted in idx.modules:
        return True
    target = idx.resolve(dotted)
    return target is not None and target in idx.modules and target.startswith("paddle.fluid")


def members(module: str) -> List[str]:
    """What `from <module> import *` bound in 1.8.5."""
    idx = _index()
    return [] if idx is None else idx.module_members(module)


def exists(dotted: str) -> bool:
    """True when `dotted` was a public 1.8.5 path (API, alias, module, or class member)."""
    idx = _index()
    return idx is not None and idx.exists(dotted)


def is_dynamic(module: str) -> bool:
    """True for modules filled at runtime (the compiled core), whose names the index cannot list."""
    idx = _index()
    return idx is not None and idx.is_dynamic(module)


def canonical(dotted: str) -> Optional[str]:
    """The defining path of `dotted` in 1.8.5 (two paths to one object share it), or None."""
    idx = _index()
    return None if idx is None else idx.resolve(dotted)


def params(dotted: str) -> Optional[List[List[str]]]:
    """The 1.8.5 parameters of a callable, in the table's `args_list` format."""
    idx = _index()
    return None if idx is None else idx.params(dotted)
