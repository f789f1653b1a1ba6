"""Named argument transformers, referred to by name from the table's `transformer` field.

A transformer is `fn(ctx, site, call) -> expression`: it receives the call with 1.8 keyword names and
returns the rewritten expression. When it produced the final 2.x form itself it sets
`site.converted = True` (the later rename step then leaves it alone); when it cannot prove the
rewrite keeps the 1.8 meaning it raises `refactors.engine.NeedsReview(reason)`.
"""
from __future__ import annotations

from typing import Callable, Dict

import libcst as cst

Transformer = Callable[..., cst.BaseExpression]
REGISTRY: Dict[str, Transformer] = {}


def register(name: str) -> Callable[[Transformer], Transformer]:
    def decorate(fn: Transformer) -> Transformer:
        if name in REGISTRY:
            raise ValueError(f"transformer {name!r} registered twice")
        REGISTRY[name] = fn
        return fn
    return decorate


def _load_all() -> None:
    """Import every transformer module so that its `@register` lines run."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):  # type: ignore[name-defined]
        importlib.import_module(f"{__name__}.{info.name}")


_load_all()
