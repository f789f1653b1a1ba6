"""The program a 1.8 static-graph helper works on: its `main_program=` argument, or the default one.

Not a transformer itself (nothing here is registered): the persistence and execution transformers
(`inference_model`, `parameters_io`, `parallel_executor`) write the program more than once, or pass it
on, and read `main_program=None` and `main_program=fluid.default_main_program()` as 1.8 did: the
default main program at the time of the call.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.scopes import dotted
from refactors.transformers import emit

TARGET = "paddle.static.default_main_program"


def _is_default(ctx: Context, site: Site, node: cst.BaseExpression) -> bool:
    """`None`, or a call of 1.8's `default_main_program()` (as written, or already converted)."""
    if emit.is_literal(ctx, node) and literal(node, ctx) is None:
        return True
    if not isinstance(node, cst.Call) or node.args:
        return False
    chain = dotted(node.func)
    if chain is None:
        return False
    if chain == TARGET and ctx.resolver.is_paddle_root(site.scope):
        return True
    qualname = ctx.resolver.qualname(chain, site.scope)
    entry = ctx.table.lookup(qualname) if qualname else None
    return entry is not None and entry.update_to == TARGET


def given(ctx: Context, site: Site, node: cst.Call, arg: str = "main_program",
          repeated: bool = False) -> Optional[cst.BaseExpression]:
    """The program passed as `arg`, or None for the default main program; with `repeated`, one the
    2.x form may write twice (else NeedsReview)."""
    found = call_args.get(node, arg)
    if found is None or _is_default(ctx, site, found.value):
        return None
    if repeated and not emit.repeatable(ctx, site, found.value):
        raise NeedsReview(f"{arg} is written twice in the 2.x form; bind it to a name first")
    return found.value


def default(ctx: Context, site: Site) -> cst.BaseExpression:
    """`paddle.static.default_main_program()`."""
    return emit.call(ctx, site, TARGET)
