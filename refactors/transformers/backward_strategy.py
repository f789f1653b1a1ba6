"""A `fluid.dygraph.BackwardStrategy()` no backward pass is given: deleted, with its attribute settings.

1.8.5's BackwardStrategy (dygraph/backward_strategy.py: `core.BackwardStrategy`) is a plain option
object: making one and setting `sort_sum_gradient` changes nothing until it is passed to
`loss.backward(strategy)` or `fluid.dygraph.grad(..., backward_strategy=...)`; without it backward()
makes its own with sort_sum_gradient=False (dygraph/varbase_patch_methods.py:116). So where the
strategy is a name bound once whose only other uses are statements `name.attr = <literal>`, those
statements and the construction do nothing in 1.8.5 and are deleted (dygraph/ocr_recognition of
models 1.6-1.8 makes one and calls `avg_loss.backward()`; fixtures/legacy/backward_strategy_unused_dygraph.py).
A strategy that is passed on is left: 2.x backward() takes none, and whether 3.x sums gradients in the
order 1.8's sort_sum_gradient=True did is not shown.
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from refactors import findings as F
from refactors import kept_comments
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import assigned_name, bound_once, statements
from refactors.scopes import descendants
from refactors.transformers import SCOPE, emit, register

_HIDDEN_READS = ("locals", "vars", "eval", "exec")  # read a name without writing it


@register("backward_strategy", reads=(SCOPE,))
def backward_strategy(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = ctx.statements[-1] if ctx.statements else None
    bound = assigned_name(stmt) if stmt is not None else None
    if bound is None or bound[1] is not site.call or node.args or not bound_once(site.scope, bound[0]) \
            or not isinstance(site.scope.node, cst.FunctionDef):
        return node  # kept elsewhere, given arguments, or a module's name others may import: uses out of sight
    settings = _settings(ctx, site, stmt, bound[0])  # type: ignore[arg-type]
    if settings is None:
        return node
    for done in (stmt, *settings):
        if kept_comments.comments(done):
            raise NeedsReview("it is never given to backward(), so it does nothing in 1.8.5; a comment on it "
                              "would be lost: delete it by hand")
    for done in (stmt, *settings):
        ctx.replace(done, lambda updated: cst.FlattenSentinel([]))
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} deleted with its settings: no backward() "
                                                         "is given it, so it does nothing in 1.8.5", True)
    return emit.converted(site, node)


def _settings(ctx: Context, site: Site, made: cst.SimpleStatementLine,
              name: str) -> Optional[List[cst.SimpleStatementLine]]:
    """The statements `name.attr = <literal>` after `made` in the scope, when they are every other use of
    `name` (one before it would fail in 1.8.5: it is left)."""
    scope_node = site.scope.node
    ctx.reads(scope_node, words=(name,))
    settings: List[cst.SimpleStatementLine] = []
    allowed = set()
    after = False
    for stmt in statements(scope_node):
        after = after or stmt is made
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if after and isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                    and target.value.value == name and emit.is_literal(ctx, small.value):
                settings.append(stmt)  # type: ignore[arg-type]
                allowed.add(id(target.value))
    for found in descendants(scope_node):
        if isinstance(found, cst.Attribute):
            allowed.add(id(found.attr))
        elif isinstance(found, cst.Arg) and found.keyword is not None:
            allowed.add(id(found.keyword))
        elif isinstance(found, cst.AssignTarget) and isinstance(found.target, cst.Name):
            allowed.add(id(found.target))  # its one binding (bound_once)
    hidden = {h for h in _HIDDEN_READS if ctx.resolver.binding_scope(h, site.scope) is None}  # the builtins
    for found in descendants(scope_node):
        if isinstance(found, cst.Name) and id(found) not in allowed and (found.value == name or found.value in hidden):
            return None
    return settings
