"""Step 6: `with` statements whose context manager is a legacy guard.

A guard the table marks "unwrap" (the dygraph guard) runs its block in dynamic mode and then gives
back the mode it found: a guard inside another guard, or in a function called from within one, leaves
dynamic mode on (1.8 `dygraph/base.py` guard restores the tracer it replaced). 2.x is dynamic by
default, so:

- in a file that builds no static graph, the block simply moves into the enclosing one, after the
  entry call (`update_to`, e.g. `paddle.disable_static(place)`) when the guard was given a place;
- in a file that also builds static graphs, the block keeps its indentation under a `try` that gives
  back the mode found on entry (`guard_exit` only when it was static), whatever way the block ends.

1.8's guard also gave its block a fresh name generator (`unique_name.guard()`, SEMANTICS 33): a model
rebuilt in a second guard got the names of the first, so an optimizer's state, keyed by them, could be
restored. Where the file enters a guard more than once (two guards, one in a loop, or one in a function
called in two places, in a loop, or in a way the file cannot tell) and loads an optimizer's state
(`load_dygraph`'s second value), the block keeps that generator: `with paddle.utils.unique_name.guard():`
(always 1.8's behaviour; elsewhere it is left out only because nothing there depends on it).

Every other guard (no_grad, program_guard, unique_name.guard, scope_guard, name_scope) stays a
`with`: its call was renamed like any other call.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional

import libcst as cst

from refactors import findings as F
from refactors.engine import Context, Site, short_name
from refactors.local_values import all_statements
from refactors.scopes import descendants
from refactors.transformers import callers

NAME = "refactor_with"


def _call_line(call: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[cst.Expr(call)])


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
    kept = _static_only_use_left(ctx, original)
    if kept is not None and not ctx.static_file():
        # Unwrapped, the use would stand outside any guard: the next run would take the file for a
        # static one. The guard stays, served by runtime_shim, and keeps the block dynamic.
        reason = f"the block keeps {short_name(kept.name)}, a static-graph API left as it was"
        ctx.todo(f"{short_name(site.name)}: not unwrapped: {reason}", updated.items[0].item)
        site.finding = ctx.report(site, F.NEEDS_REVIEW, "warning", f"{site.name}: not unwrapped: {reason}", False)
        return updated
    enter = updated.items[0].item
    assert isinstance(enter, cst.Call)
    enter = enter.with_changes(func=ctx.name_node(entry.update_to))
    body = updated.body
    if _names_restart(ctx):
        fresh_names = cst.WithItem(cst.Call(ctx.name_node("paddle.utils.unique_name.guard")))
        body = cst.IndentedBlock([cst.With(items=[fresh_names], body=body)])
    if ctx.static_file() and entry.guard_exit is not None:
        statements = _restoring(ctx, site, enter, body, entry.guard_exit)
    else:
        statements = ([_call_line(enter)] if enter.args else []) + list(body.body)
    site.converted = True
    first = statements[0]
    statements[0] = first.with_changes(leading_lines=(*updated.leading_lines, *first.leading_lines))
    return cst.FlattenSentinel(statements)


def _names_restart(ctx: Context) -> bool:
    """Whether the file enters a dygraph guard more than once and loads an optimizer's state: then
    the names 1.8's fresh generator gave each guard's block matter (that state is keyed by them)."""
    known = ctx.memo.get("guard names restart")
    if known is None:
        guards = ctx.dygraph_guards()
        tree = ctx.python_tree()
        known = tree is not None and _loads_optimizer_state(tree) and (
            len(guards) > 1 or _in_loop(ctx.module, guards) or any(_run_again(ctx, guard) for guard in guards))
        ctx.memo["guard names restart"] = known
    return bool(known)


def _loads_optimizer_state(tree: ast.Module) -> bool:
    """A `load_dygraph(...)` call whose second value (the optimizer's state) is not dropped: all but
    `params, _ = load_dygraph(...)`. (A Layer's state is keyed by structured names, not by these.)"""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _called(node) == "load_dygraph"]
    dropped = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign) and len(node.targets) == 1
               and isinstance(node.targets[0], ast.Tuple) and len(node.targets[0].elts) == 2
               and isinstance(node.targets[0].elts[1], ast.Name) and node.targets[0].elts[1].id == "_"}
    return any(id(call) not in dropped for call in calls)


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _in_loop(module: cst.Module, statements: List[cst.With]) -> bool:
    """Whether one of `statements` is inside a `for` or `while` loop."""
    wanted = {id(stmt) for stmt in statements}
    return any(id(inner) in wanted for loop in all_statements(module) if isinstance(loop, (cst.For, cst.While))
               for inner in all_statements(loop))


def _run_again(ctx: Context, guard: cst.With) -> bool:
    """Whether the function holding `guard` may run more than once: it is called in more than one place of
    the module, in a loop, or in a way the file cannot tell (a method, a function passed around). Then its
    guard is entered more than once too. One the module never calls (another module's entry point) counts
    as run once."""
    holders = [s for s in all_statements(ctx.module) if isinstance(s, cst.FunctionDef)
               and any(node is guard for node in descendants(s.body))]
    function = holders[-1] if holders else None  # (the innermost: all_statements gives outer ones first)
    if function is None:
        return False  # module level: runs once
    calls = callers.calls_of(ctx, function)
    if calls is None or len(calls) > 1:
        return True
    if not calls:
        return False  # (called in no place of the module: run from elsewhere, as often as the file does not show)
    call = calls[0][0]
    return any(isinstance(loop, (cst.For, cst.While)) and any(node is call for node in descendants(loop.body))
               for loop in all_statements(ctx.module))


def _static_only_use_left(ctx: Context, original: cst.With) -> Optional[Site]:
    """A use of a static-graph-only API in the guard's block that the upgrade left as it was."""
    block = id(original.body)
    for site in ctx.sites:
        if site.converted or site.entry is None or not site.entry.static_graph:
            continue
        key = ctx.resolver.parents.get(id(site.node), 0)
        while key and key != block:
            key = ctx.resolver.parents.get(key, 0)
        if key:
            return site
    return None


def _restoring(ctx: Context, site: Site, enter: cst.Call, body: cst.IndentedBlock,
               leave: str) -> List[cst.BaseStatement]:
    """`was = not paddle.in_dynamic_mode()`, the entry call, then the block under a `try` whose
    `finally` gives static mode back when it was on."""
    was_static = ctx.fresh_name(site.scope, "was_static")
    check = ctx.name_node("paddle.in_dynamic_mode")
    restore = cst.If(test=cst.Name(was_static), body=cst.IndentedBlock([_call_line(cst.Call(ctx.name_node(leave)))]))
    return [
        ctx.statement(f"{was_static} = not {ctx.module.code_for_node(check)}()\n"),
        _call_line(enter),
        cst.Try(body=body, finalbody=cst.Finally(body=cst.IndentedBlock([restore]))),
    ]
