"""`es = fluid.ExecutionStrategy()` that only configures a `with_data_parallel` the upgrade converts.

1.8.5 `ExecutionStrategy` (`compiler.py:27`, a pybind class) holds the thread count and scope dropping
of the multi-device executor; Paddle 2.5 removed both. `compiled_program.py` drops its
`with_data_parallel(exec_strategy=es)` argument where the chained call becomes
`paddle.static.CompiledProgram(...)` on one device. When that is the object's only use, the statements
that make and configure it go too: `es = fluid.ExecutionStrategy()`, bound once in its scope, and
statements `es.<attribute> = <value>` on its known attributes whose value computes nothing (names,
attributes, literals of the attribute's type: compiled_program.droppable). That is planned before the
pass (`plan`, from refactor_kwargs' `prepare`), since the statements come before the call that decides.
Statements that carry a comment are kept whole (the comment would have nowhere to stay).
Any other use (passed elsewhere, read, a ParallelExecutor, a value that calls something) leaves it
all as written, served by runtime_shim.
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from refactors import findings as F, kept_comments
from refactors.engine import Context, Site
from refactors.local_values import all_statements, assigned_name, bound_once
from refactors.scopes import descendants
from refactors.transformers import compiled_program, emit, register

_NAME = "exec_strategy"
# The attributes of 1.8.5's ExecutionStrategy, with the Python type its setter takes.
_ATTRIBUTES = {"num_threads": int, "num_iteration_per_drop_scope": int, "num_iteration_per_run": int,
               "use_cuda": bool, "allow_op_delay": bool, "use_experimental_executor": bool,
               "use_thread_barrier": bool}
_PLANNED = "exec_strategy: deleted with its consumer"


def plan(ctx: Context) -> None:
    """Before the pass: delete each ExecutionStrategy whose every use goes with a converted call."""
    if "ExecutionStrategy" not in ctx.source:
        return
    for stmt in all_statements(ctx.module):
        assigned = assigned_name(stmt)
        if assigned is None or not isinstance(assigned[1], cst.Call) or not _constructs(ctx, assigned[1]):
            continue
        settings = _settings(ctx, stmt, assigned[0], assigned[1])
        if settings is None or any(kept_comments.comments(s) for s in (stmt, *settings)):
            continue  # (a comment there has nowhere to stay)
        for planned in (stmt, *settings):
            ctx.replace(planned, lambda updated: cst.FlattenSentinel([]))
        ctx.memo.setdefault(_PLANNED, set()).add(id(assigned[1].func))  # type: ignore[union-attr]


def _constructs(ctx: Context, call: cst.Call) -> bool:
    ref = ctx.resolver.references.get(id(call.func))
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref is not None else None
    return matched is not None and not matched[1] and matched[0].transformer == _NAME and not call.args


def _settings(ctx: Context, stmt: cst.SimpleStatementLine, name: str,
              call: cst.Call) -> Optional[List[cst.SimpleStatementLine]]:
    """The `name.attr = value` statements of the scope, when every other use of `name` is its
    `exec_strategy=` in a `with_data_parallel` compiled_program converts; else None."""
    ref = ctx.resolver.references[id(call.func)]
    scope = ref.scope
    if scope.is_class or scope.is_comprehension or not bound_once(scope, name):
        return None
    ctx.reads(scope.node, words=(name,))
    allowed, settings, consumers = {id(stmt.body[0].targets[0].target)}, [], 0  # type: ignore[attr-defined]
    for node in descendants(scope.node):
        if isinstance(node, cst.SimpleStatementLine) and _setting(node, name):
            settings.append(node)
            allowed.add(id(node.body[0].targets[0].target.value))  # type: ignore[attr-defined]
        elif isinstance(node, cst.Attribute):
            allowed.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            allowed.add(id(node.keyword))
        elif isinstance(node, cst.Call) and _consumes(ctx, node, name):
            consumers += 1
            allowed.add(id(compiled_program.argument(node, _NAME)))
    uses = [n for n in descendants(scope.node) if isinstance(n, cst.Name) and n.value == name]
    if consumers == 0 or any(id(n) not in allowed for n in uses):
        return None
    return settings


def _setting(stmt: cst.SimpleStatementLine, name: str) -> bool:
    """`name.attr = value` on a known attribute, with a value that computes nothing and fits its type."""
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assign) or len(stmt.body[0].targets) != 1:
        return False
    target, value = stmt.body[0].targets[0].target, stmt.body[0].value
    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == name
            and target.attr.value in _ATTRIBUTES and compiled_program.droppable(value)):
        return False
    wanted = _ATTRIBUTES[target.attr.value]
    if isinstance(value, cst.Integer):
        return wanted is int
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return wanted is bool and value.value != "None"
    return not isinstance(value, (cst.Float, cst.Imaginary, cst.BaseString))


def _consumes(ctx: Context, call: cst.Call, name: str) -> bool:
    """`CompiledProgram(...).with_data_parallel(..., exec_strategy=name)` that compiled_program converts."""
    given = compiled_program.argument(call, _NAME)
    return isinstance(given, cst.Name) and given.value == name and compiled_program.converts(ctx, call)


@register(_NAME)
def exec_strategy(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if id(site.node) not in ctx.memo.get(_PLANNED, ()):  # type: ignore[operator]
        return node  # left as written: the table's no_equivalent finding says why
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} deleted with the statements configuring it: "
                              "it only configured a with_data_parallel that Paddle 3 runs on one device", True)
    return emit.converted(site, node)

