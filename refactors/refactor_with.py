"""Step 6: `with` statements whose context manager is a legacy guard.

A guard the table marks "unwrap" (the dygraph guard) switches a mode for its block. 2.x expresses
that as calls, so the block is flattened into the enclosing one: the entry call (`update_to`), the
body, and the call that restores the mode (`guard_exit`). When the body ends in `return` or `raise`,
the restoring call would be unreachable, so it is not written and the finding says so. Every other
guard (no_grad, program_guard, unique_name.guard, scope_guard, name_scope) stays a `with`: its call
was renamed like any other call.
"""
from __future__ import annotations

from typing import Dict

import libcst as cst

from refactors import findings as F
from refactors.engine import Context, Site

NAME = "refactor_with"


def _call_line(ctx: Context, call: cst.BaseExpression, leading=()) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[cst.Expr(call)], leading_lines=leading)


def with_stmt(ctx: Context, sites: Dict[int, Site], original: cst.With, updated: cst.With):
    if len(original.items) != 1 or not isinstance(original.items[0].item, cst.Call):
        return updated
    site = sites.get(id(original.items[0].item.func))
    entry = site.entry if site is not None else None
    if site is None or entry is None or entry.with_guard != "unwrap" or entry.update_to is None:
        return updated
    if original.items[0].asname is not None or original.asynchronous is not None \
            or not isinstance(updated.body, cst.IndentedBlock) or not ctx.resolver.is_paddle_root(site.scope):
        return updated
    enter = updated.items[0].item
    assert isinstance(enter, cst.Call)
    statements = [_call_line(ctx, enter.with_changes(func=ctx.name_node(entry.update_to)), updated.leading_lines)]
    body = list(updated.body.body)
    statements.extend(body)
    last = body[-1] if body else None
    ends = isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], (cst.Return, cst.Raise))
    if entry.guard_exit is not None:
        if ends:
            ctx.report(site, F.NEEDS_REVIEW, "info",
                       f"{entry.name}: the block ends in return/raise, so {entry.guard_exit}() is not written "
                       f"after it; the mode stays dynamic afterwards", True)
        else:
            statements.append(_call_line(ctx, cst.Call(func=ctx.name_node(entry.guard_exit))))
    site.converted = True
    return cst.FlattenSentinel(statements)
