"""Named argument transformers, referred to by name from the table's `transformer` field.

A transformer is `fn(ctx, site, call) -> expression`: it receives the call with 1.8 keyword names and
returns the rewritten expression. When it produced the final 2.x form itself it sets
`site.converted = True` (the later rename step then leaves it alone); when it cannot prove the
rewrite keeps the 1.8 meaning it raises `refactors.engine.NeedsReview(reason)`.

What a transformer reads beyond its use site is declared where it is registered, `reads=`:
- `SCOPE`: the statements of the scopes around the call (what a name is assigned, an optimizer's
  `minimize` in a loop), not the bodies of the definitions in them;
- `CLASS`: all of the class around the call, every method.
The engine provides them before calling it (`engine.Context.provide`), and the fast way keeps them
parsed where the text names one of the APIs the transformer serves (`refactors.fast.partial_parse`).
What any transformer may look up by name (`ctx.resolver`, `ctx.fresh_name`) needs no declaration.
A transformer registered with `references=True` also receives the bare references to its APIs (a
decorator `@api`, `f = api`) in place of a call.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Tuple

import libcst as cst

SCOPE, CLASS = "scope", "class"

Transformer = Callable[..., cst.BaseExpression]


@dataclass(frozen=True)
class Registered:
    """A transformer and what it reads beyond its use site."""

    fn: Transformer
    reads: Tuple[str, ...] = ()
    references: bool = False  # it converts bare references too, not only calls

    def __call__(self, ctx, site, node: cst.BaseExpression) -> cst.BaseExpression:
        if self.reads:
            ctx.provide(site, self.reads)
        return self.fn(ctx, site, node)


REGISTRY: Dict[str, Registered] = {}


def register(name: str, reads: Tuple[str, ...] = (), references: bool = False) -> Callable[[Transformer], Transformer]:
    unknown = set(reads) - {SCOPE, CLASS}
    if unknown:
        raise ValueError(f"transformer {name!r}: unknown reads {sorted(unknown)}")

    def decorate(fn: Transformer) -> Transformer:
        if name in REGISTRY:
            raise ValueError(f"transformer {name!r} registered twice")
        REGISTRY[name] = Registered(fn, tuple(reads), references)
        return fn
    return decorate


def _load_all() -> None:
    """Import every transformer module so that its `@register` lines run."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):  # type: ignore[name-defined]
        importlib.import_module(f"{__name__}.{info.name}")


_load_all()
