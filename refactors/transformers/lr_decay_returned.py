"""Stepping a dygraph learning-rate schedule whose optimizer a function of the file makes and returns.

dygraph/resnet, bmn, tsm and cycle_gan (models release/1.6 to 1.8) make the optimizer in a function
and return it; its caller steps it:

    def optimizer_setting(params):                  def optimizer_setting(params):
        optimizer = fluid.optimizer.Momentum(           lr_scheduler = paddle.optimizer.lr.PiecewiseDecay(...)
            learning_rate=fluid.layers                  optimizer = paddle.optimizer.Momentum(
                .piecewise_decay(...), ...)                 learning_rate=lr_scheduler, ...)
        return optimizer                                return optimizer, lr_scheduler

    optimizer = optimizer_setting(params)           optimizer, lr_scheduler = optimizer_setting(params)
    for data in reader():                           for data in reader():
        optimizer.minimize(loss)                        optimizer.minimize(loss)
                                                        lr_scheduler.step()

1.8 advanced each schedule on every `minimize` of the optimizer holding it; 2.x's optimizer does not
hand its scheduler out (no public accessor), so the function returns it beside the optimizer, and each
caller steps it after each `minimize` of the optimizer it got. Written only when the file shows all of
it: every binding of the optimizer in the function is a constructor given an inline schedule that
converts whatever its arguments (`lr_decay_elsewhere._dygraph_schedule`), every `return` of the function
returns it and the function ends with one; every call of the function (`callers.calls_of`) is `name = function(...)` with `name` bound once in its scope and used
there only as `name.method(...)`-style attribute reads, each `name.minimize(...)` a statement of that
scope still ahead of the pass. Since the function's result changes, no other module of the tree may
say its name (one could import and call it, out of sight).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from refactors.engine import Context, Site
from refactors.local_values import statements
from refactors.scopes import Scope, descendants, dotted
from refactors.transformers import callers
from refactors.transformers.lr_decay import _optimizer_assignment
from refactors.transformers.lr_decay_elsewhere import _dygraph_schedule


def scheduler_name(ctx: Context, site: Site, optimizer: str) -> Optional[str]:
    """The name to bind this inline schedule of `optimizer` to (the function then returns it, and its
    callers step it), or None, with nothing written, when the file does not show all of it."""
    key = ("lr_decay_returned", id(site.scope.node), optimizer)
    if key not in ctx.memo:  # (made once for all the schedules of the function's optimizer)
        ctx.memo[key] = _plan(ctx, site.scope, optimizer, _schedules(ctx, site.scope, optimizer))
    return ctx.memo[key]  # type: ignore[return-value]


def _schedules(ctx: Context, scope: Scope, optimizer: str) -> List[cst.Call]:
    """The inline schedules of the assignments `optimizer = Optimizer(learning_rate=<schedule>)` of the
    function, each one the dygraph conversion cannot fail on; empty when another assignment is not so."""
    found: List[cst.Call] = []
    for stmt in statements(scope.node):
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if not (isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == optimizer
                                                      for t in small.targets)):
            continue
        given = [a.value for a in small.value.args] if isinstance(small.value, cst.Call) else []
        rate = next((v for v in given if _optimizer_assignment(ctx, scope, stmt, v) == optimizer), None)
        if not isinstance(rate, cst.Call) or not _dygraph_schedule(ctx, rate):
            return []
        found.append(rate)
    return found


def _plan(ctx: Context, scope: Scope, optimizer: str, schedules: List[cst.Call]) -> Optional[str]:
    """The function's scheduler name, its returns, its callers' assignments and steps written; None
    (nothing written) when the file does not show it all."""
    function = scope.node
    if not isinstance(function, cst.FunctionDef) or not schedules \
            or len(scope.bindings.get(optimizer, ())) != len(schedules):
        return None
    ctx.reads(function, words=(optimizer,))  # its returns say the optimizer's name
    returns = [s for stmt in statements(function) if isinstance(stmt, cst.SimpleStatementLine)
               for s in stmt.body if isinstance(s, cst.Return)]
    last = function.body.body[-1] if isinstance(function.body, cst.IndentedBlock) else None
    if not returns or not all(isinstance(r.value, cst.Name) and r.value.value == optimizer for r in returns) \
            or not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)):
        return None
    calls = callers.calls_of(ctx, function)
    if not calls or callers.named_elsewhere(ctx, function.name.value):
        return None
    uses: List[Tuple[cst.Assign, str, Scope, List[cst.SimpleStatementLine]]] = []
    for call, where in calls:
        found = _bound_and_stepped(ctx, call, where)
        if found is None:
            return None
        uses.append((*found, where))  # type: ignore[arg-type]
    scheduler = ctx.fresh_name(scope, "lr_scheduler")
    for ret in returns:
        ctx.replace(ret, lambda updated: updated.with_changes(value=_pair(optimizer, scheduler)))
    for assign, name, steps, where in uses:
        stepped = ctx.fresh_name(where, "lr_scheduler")
        ctx.replace(assign, lambda updated, name=name, stepped=stepped: updated.with_changes(
            targets=[cst.AssignTarget(_pair(name, stepped))]))
        for minimize in steps:
            ctx.insert_around(minimize, after=[ctx.statement(f"{stepped}.step()\n")])
    return scheduler


def _bound_and_stepped(ctx: Context, call: cst.Call,
                       where: Scope) -> Optional[Tuple[cst.Assign, str, List[cst.SimpleStatementLine]]]:
    """For `name = function(...)`, a statement of `where`: the assignment, `name`, and the statements
    `name.minimize(...)` of `where`, when `name` is bound once there and only its attributes are read."""
    if not isinstance(where.node, (cst.FunctionDef, cst.Module)):
        return None
    assign = None
    for stmt in statements(where.node):
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and small.value is call:
            assign, line = small, stmt
    if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name) \
            or id(line) in ctx.left:
        return None
    name = assign.targets[0].target.value
    if len(where.bindings.get(name, ())) != 1 or name in where.globals or name in where.nonlocals:
        return None
    ctx.reads(where.node, words=(name,))
    receivers = {id(n.value) for n in descendants(where.node) if isinstance(n, cst.Attribute)}
    names = [n for n in descendants(where.node) if isinstance(n, cst.Name) and n.value == name]
    if any(n is not assign.targets[0].target and id(n) not in receivers for n in names):
        return None  # passed, returned or kept elsewhere: something else may step it
    minimizes = [n for n in descendants(where.node) if isinstance(n, cst.Call) and dotted(n.func) == f"{name}.minimize"]
    steps = []
    for stmt in statements(where.node):
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, (cst.Expr, cst.Assign)) and any(small.value is m for m in minimizes):
            steps.append(stmt)
    if not steps or len(steps) != len(minimizes) or any(id(s) in ctx.left for s in steps):
        return None  # (a `minimize` in a nested function, or one the pass has gone past)
    return assign, name, steps


def _pair(first: str, second: str) -> cst.Tuple:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Tuple([cst.Element(cst.Name(first), comma=comma), cst.Element(cst.Name(second))], lpar=[], rpar=[])
