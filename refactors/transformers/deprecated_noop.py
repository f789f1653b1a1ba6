"""Calls that do nothing in 1.8.5, written as statements of their own, are deleted.

`fluid.memory_optimize` and `fluid.release_memory` (1.8.5 `transpiler/memory_optimization_transpiler.py`)
only log that they are deprecated and return None: the program is not touched. Deleting the statement
keeps every number, when nothing else happens there: the value is not used, and the arguments are
names, attributes, items, literals or `fluid.default_main_program()` (no call that could do something).
A statement that carries a comment is left, so that no comment is lost.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import dotted
from refactors.transformers import emit, register

# 1.8 functions that only return a value, known by their table targets (which take their aliases too).
_QUIET_TARGETS = {"paddle.static.default_main_program", "paddle.static.default_startup_program"}
_LEAVES = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)


@register("deprecated_noop")
def deprecated_noop(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = ctx.statements[-1] if ctx.statements else None
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr) and stmt.body[0].value is site.call):
        raise NeedsReview("not a statement of its own: it does nothing in 1.8.5, delete it by hand")
    written = emit.original_call(ctx, site)  # its arguments as the user wrote them, for their names
    if call_args.has_star(node) or not all(_quiet(ctx, site, arg.value) for arg in written.args):
        raise NeedsReview("an argument calls something: it does nothing in 1.8.5, delete it by hand")
    if _commented(ctx, stmt):
        raise NeedsReview("the statement carries a comment: it does nothing in 1.8.5, delete it by hand")
    ctx.replace(stmt, lambda updated: cst.FlattenSentinel([]))
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} deleted: it does nothing in 1.8.5 "
                                                         "(it only logs that it is deprecated)", True)
    return emit.converted(site, node)


def _quiet(ctx: Context, site: Site, node: cst.BaseExpression) -> bool:
    """Evaluating `node` does nothing beyond giving its value."""
    if isinstance(node, _LEAVES):
        return True
    if isinstance(node, cst.Attribute):
        return _quiet(ctx, site, node.value)
    if isinstance(node, cst.Subscript):
        return _quiet(ctx, site, node.value) and all(
            isinstance(e.slice, cst.Index) and _quiet(ctx, site, e.slice.value) for e in node.slice)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(type(e) is cst.Element and _quiet(ctx, site, e.value) for e in node.elements)
    if isinstance(node, cst.Call) and not node.args:
        chain = dotted(node.func)
        qualname = ctx.resolver.qualname(chain, site.scope) if chain else None
        entry = ctx.table.lookup(qualname) if qualname else None
        return entry is not None and entry.update_to in _QUIET_TARGETS
    return False


def _commented(ctx: Context, stmt: cst.SimpleStatementLine) -> bool:
    return any(line.comment for line in stmt.leading_lines) or stmt.trailing_whitespace.comment is not None \
        or "#" in ctx.code(stmt.body[0])
