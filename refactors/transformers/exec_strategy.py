"""`es = fluid.ExecutionStrategy()` that only configures a `with_data_parallel` or `ParallelExecutor` the
upgrade converts, or nothing at all.

1.8.5 `ExecutionStrategy` (`compiler.py:27`, a pybind class) holds the thread count and scope dropping
of the multi-device executor; Paddle 2.5 removed both. `compiled_program.py` drops its
`with_data_parallel(exec_strategy=es)` argument where the chained call becomes
`paddle.static.CompiledProgram(...)` on one device, and `parallel_executor.py` the `exec_strategy=es` of a
ParallelExecutor it converts (written with keywords: `parallel_executor.converts`). When those are the
object's only uses, or it has no use but being configured (dead: 1.8.5 only kept the values), the
statements that make and configure it go too: `es = fluid.ExecutionStrategy()`, bound once in its scope,
and statements `es.<attribute> = <value>` on its known attributes whose value computes nothing (names,
attributes, literals of the attribute's type: compiled_program.droppable) or is the device count
(`fluid.core.get_cuda_device_count()`: a program that ran on 1.8 got its answer, and asking or not
changes nothing). That is planned before the pass (`plan`, from refactor_kwargs' `prepare`), since the
statements come before the call that decides. The comments of the statements deleted go, on lines of
their own, above the next statement that stays, in their block or after the `if` (loop, `with`, ...)
holding it (at the end of a function the statements are kept whole: the comments would have nowhere to
stay). A dead one that an upgrade before marked for review (its consumer was converted then) is left,
so that a second run changes nothing. Any other use (passed elsewhere, read, a consumer left as
written, a value that calls something) leaves it all as written, served by runtime_shim.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from refactors import findings as F, kept_comments, todo_comments
from refactors.engine import Context, Site
from refactors.local_values import all_statements, assigned_name, bound_once, consecutive, held
from refactors.scopes import Scope, descendants, dotted
from refactors.transformers import compiled_program, emit, parallel_executor, register

_NAME = "exec_strategy"
# The attributes of 1.8.5's ExecutionStrategy, with the Python type its setter takes.
_ATTRIBUTES = {"num_threads": int, "num_iteration_per_drop_scope": int, "num_iteration_per_run": int,
               "use_cuda": bool, "allow_op_delay": bool, "use_experimental_executor": bool,
               "use_thread_barrier": bool}
_PLANNED = "exec_strategy: deleted with its consumer"
# 1.8 queries that only return a value, known by their table targets: how many devices (the usual thread count).
_QUERIES = {"paddle.device.cuda.device_count"}


def plan(ctx: Context) -> None:
    """Before the pass: delete each ExecutionStrategy whose every use goes with a converted call."""
    if "ExecutionStrategy" not in ctx.source:
        return
    following = {id(stmt): after for stmt, after in consecutive(ctx.module)}
    enclosing = {id(inner): stmt for stmt in all_statements(ctx.module)
                 if isinstance(stmt, cst.BaseCompoundStatement) for inner in held(stmt)}
    deleted: Set[int] = set()
    for stmt in all_statements(ctx.module):
        assigned = assigned_name(stmt)
        if assigned is None or not isinstance(assigned[1], cst.Call) or not _constructs(ctx, assigned[1]):
            continue
        found = _settings(ctx, stmt, assigned[0], assigned[1])
        if found is None:
            continue
        settings, consumers = found
        if not consumers and any(c.startswith(todo_comments.PREFIX.strip()) for c in kept_comments.comments(stmt)):
            continue  # left for review by an upgrade before, whose rewrite of its consumer made it dead
        gone = deleted | {id(s) for s in (stmt, *settings)}
        carried = _comments_carried(following, enclosing, gone, (stmt, *settings))
        if carried is None:
            continue  # (a comment there has nowhere to stay)
        deleted = gone
        for planned in (stmt, *settings):
            ctx.replace(planned, lambda updated: cst.FlattenSentinel([]))
        for kept, lines in carried.items():
            _put_above(ctx, kept, lines)
        ctx.memo.setdefault(_PLANNED, {})[id(assigned[1].func)] = consumers  # type: ignore[union-attr, index]


def _comments_carried(following: Dict[int, cst.BaseStatement], enclosing: Dict[int, cst.BaseStatement],
                      gone: Set[int], statements: Tuple[cst.SimpleStatementLine, ...]
                      ) -> Optional[Dict[cst.BaseStatement, List[str]]]:
    """The comments of the statements deleted, by the next statement of their block that stays; None
    when one has a comment and no such statement."""
    carried: Dict[cst.BaseStatement, List[str]] = {}
    for stmt in statements:
        lines = kept_comments.comments(stmt)
        if not lines:
            continue
        kept = _next_kept(following, enclosing, gone, stmt)
        if kept is None:
            return None
        carried.setdefault(kept, []).extend(lines)
    return carried


def _next_kept(following: Dict[int, cst.BaseStatement], enclosing: Dict[int, cst.BaseStatement], gone: Set[int],
               stmt: cst.BaseStatement) -> Optional[cst.BaseStatement]:
    """The statement that stays after `stmt`: in its block, else after the `if`/`for`/... holding it (not
    out of a function or class); None at the end of one."""
    while True:
        kept = following.get(id(stmt))
        while kept is not None and id(kept) in gone:
            kept = following.get(id(kept))
        if kept is not None:
            return kept
        owner = enclosing.get(id(stmt))
        if owner is None or isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
            return None
        stmt = owner


def _put_above(ctx: Context, stmt: cst.BaseStatement, lines: List[str]) -> None:
    """Have `stmt` carry the comment `lines` above it, after whatever else replaces it."""
    ctx.replace(stmt, lambda updated: kept_comments.above(updated, lines))  # after what else replaces it


def _constructs(ctx: Context, call: cst.Call) -> bool:
    ref = ctx.resolver.references.get(id(call.func))
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref is not None else None
    return matched is not None and not matched[1] and matched[0].transformer == _NAME and not call.args


def _settings(ctx: Context, stmt: cst.SimpleStatementLine, name: str,
              call: cst.Call) -> Optional[Tuple[List[cst.SimpleStatementLine], int]]:
    """The `name.attr = value` statements of the scope and the number of its consumers, when every other
    use of `name` is its `exec_strategy=` in a call that drops it (`_consumes`); else None."""
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
        elif isinstance(node, cst.Call):
            given = _consumes(ctx, node, name)
            if given is not None:
                consumers += 1
                allowed.add(id(given))
    uses = [n for n in descendants(scope.node) if isinstance(n, cst.Name) and n.value == name]
    if any(id(n) not in allowed for n in uses) or any(not _quiet(ctx, scope, s.body[0].value) for s in settings):
        return None
    return settings, consumers  # (with no consumer the object is dead: 1.8.5 only kept the values)


def _setting(stmt: cst.SimpleStatementLine, name: str) -> bool:
    """`name.attr = value` on a known attribute, with a value that computes nothing and fits its type."""
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assign) or len(stmt.body[0].targets) != 1:
        return False
    target, value = stmt.body[0].targets[0].target, stmt.body[0].value
    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == name
            and target.attr.value in _ATTRIBUTES):
        return False
    wanted = _ATTRIBUTES[target.attr.value]
    if isinstance(value, cst.Integer):
        return wanted is int
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return wanted is bool and value.value != "None"
    return not isinstance(value, (cst.Float, cst.Imaginary, cst.BaseString))


def _quiet(ctx: Context, scope: Scope, value: cst.BaseExpression) -> bool:
    """Dropping the value drops no computation: compiled_program.droppable, or a call of a query of
    `_QUERIES` (a program that ran on 1.8 got its answer; asking again or not changes nothing)."""
    if isinstance(value, cst.Call) and not value.args:
        chain = dotted(value.func)
        qualname = ctx.resolver.qualname(chain, scope) if chain else None
        entry = ctx.entry_for(qualname) if qualname else None
        return entry is not None and entry.update_to in _QUERIES
    return compiled_program.droppable(value)


def _consumes(ctx: Context, call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    """Its `exec_strategy=name` when `call` is a `CompiledProgram(...).with_data_parallel(...)` that
    compiled_program converts or a ParallelExecutor parallel_executor converts (both drop it), else None."""
    given = compiled_program.argument(call, _NAME)
    if isinstance(given, cst.Name) and given.value == name and compiled_program.converts(ctx, call):
        return given
    given = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == _NAME), None)
    if isinstance(given, cst.Name) and given.value == name and parallel_executor.converts(ctx, call):
        return given
    return None


@register(_NAME)
def exec_strategy(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    consumers = ctx.memo.get(_PLANNED, {}).get(id(site.node))  # type: ignore[attr-defined]
    if consumers is None:
        return node  # left as written: the table's no_equivalent finding says why
    why = "it only configured a with_data_parallel or ParallelExecutor that Paddle 3 runs on one device" \
        if consumers else "nothing read it"
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} deleted with the statements configuring it: "
                              f"{why}", True)
    return emit.converted(site, node)

