"""`pe = fluid.ParallelExecutor(...)` and its `pe.run(...)` calls: an Executor and a CompiledProgram.

1.8.5 `ParallelExecutor(use_cuda, loss_name, main_program, share_vars_from, exec_strategy, build_strategy,
num_trainers, trainer_id, scope)` (`parallel_executor.py:29`) compiles `main_program` (the default main
program when None) with `build_strategy` for data parallelism over its places, and runs it with an
`Executor` of `CUDAPlace(0)` or `CPUPlace()` (`:175-196`); `run(fetch_list, feed, feed_dict,
return_numpy)` (`:198`) is `Executor.run(compiled_program, feed=feed, fetch_list=fetch_list,
return_numpy=...)` in the global scope. Paddle 2.5 removed it. The 2.x spelling, on one place:

    pe = paddle.static.Executor(paddle.CUDAPlace(0) if use_cuda else paddle.CPUPlace())
    pe_program = paddle.static.CompiledProgram(main_program, build_strategy=build_strategy)
    ... pe.run(pe_program, feed=feed, fetch_list=fetch_list)

It needs the whole life of `pe` in view: a name bound once in its scope, used afterwards only as
`pe.run(...)` there (in a function defined there after it too, which reads the same `pe`). `loss_name`
and `exec_strategy` only configure the devices and go (they must be plain names, so that dropping them
drops no computation: `converts` tells exec_strategy.py before the pass that this one goes), and so
does `share_vars_from`: on one device every executor runs in the global scope, where the other one's
variables are (`pe` may itself be another one's `share_vars_from`; runtime_shim's ParallelExecutor takes
the Executor it became).

Where its life is not all in view (passed to a function, returned, rebound, not bound to a name, a run
with other arguments, a `scope`, a trainer count known only at run time), it becomes an object of a class
written once in the module that does what 1.8's did on one device (one_device_executor.py). Left for
review: `*args`, a dropped argument that computes something, a literal trainer count other than 1, and
`scope` with `share_vars_from`. The place count is the table's warning: 1.8 ran one slice of each batch
per place (CPU_NUM CPU places, 1 when unset; every visible GPU).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from refactors import call_args, findings as F
from api_mapping.schema import ApiEntry
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.local_values import assigned_name, bound_once, expressions, statements
from refactors.scopes import descendants
from refactors.transformers import SCOPE, emit, register, static_program
from refactors.transformers.compiled_program import droppable
from refactors.transformers.one_device_executor import one_device_executor
from refactors.warning_evidence import report_warning

_RUN = ("fetch_list", "feed", "feed_dict", "return_numpy")  # parallel_executor.py:198
# On one device in the global scope, another executor's variables are this one's: share_vars_from goes too.
_DROPPED = ("loss_name", "exec_strategy", "share_vars_from")
_UNSUPPORTED = ("scope",)  # a scope of its own
_TRAINERS = {"num_trainers": 1, "trainer_id": 0}  # multi-node training


class _Unfollowed(NeedsReview):
    """Its uses or arguments are not all in sight: one_device_executor.py's class serves them all."""


def _run_arguments(call: cst.Call) -> Dict[str, cst.BaseExpression]:
    if call_args.has_star(call):
        raise _Unfollowed("a run() of it passes *args/**kwargs; map them by hand")
    found: Dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else (_RUN[index] if index < len(_RUN) else None)
        if name not in _RUN:
            raise _Unfollowed("a run() of it has an unexpected argument")
        found[name] = arg.value
    if "fetch_list" not in found:
        raise _Unfollowed("a run() of it has no fetch_list")
    if "feed_dict" in found:
        raise _Unfollowed("a run() of it passes feed_dict, which 1.8 did not read; pass feed= instead")
    return found


def _uses(ctx: Context, site: Site, name: str) -> Tuple[Dict[int, cst.Call], Set[int]]:
    """The `name.run(...)` calls of the scope (by the id of their `name`), and the names that are no
    reference to it (attributes, keywords, another ParallelExecutor's `share_vars_from=name`)."""
    scope = site.scope
    ctx.reads(scope.node, words=(name,))
    runs: Dict[int, cst.Call] = {}
    skip: Set[int] = set()
    for node in descendants(scope.node):
        if isinstance(node, cst.Attribute):
            skip.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skip.add(id(node.keyword))
            if node.keyword.value == "share_vars_from" and isinstance(node.value, cst.Name):
                skip.add(id(node.value))  # another ParallelExecutor sharing its variables: dropped there
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "run" \
                and isinstance(node.func.value, cst.Name) and node.func.value.value == name:
            runs[id(node.func.value)] = node
    return runs, skip


def _runs(ctx: Context, site: Site, stmt: cst.SimpleStatementLine, name: str) -> List[cst.Call]:
    """The `name.run(...)` calls of the scope, all after `stmt`; NeedsReview for any other use of `name`."""
    scope = site.scope
    runs, skip = _uses(ctx, site, name)
    after, seen = set(), False
    for own in statements(scope.node):
        if own is stmt:
            seen = True
        elif seen and isinstance(own, cst.SimpleStatementLine):
            after.update(id(n) for n in expressions(own))
        elif seen and isinstance(own, cst.FunctionDef) and _closes_over(ctx, own, name):
            after.update(id(n) for n in descendants(own))  # defined after it, so called after it
    target = stmt.body[0].targets[0].target  # type: ignore[attr-defined]
    for node in descendants(scope.node):
        if isinstance(node, cst.Name) and node.value == name and id(node) not in skip and node is not target:
            if id(node) not in runs or id(node) not in after:
                raise _Unfollowed(f"`{name}` is used here other than by a later {name}.run(...); rewrite by hand")
    return list(runs.values())


def _closes_over(ctx: Context, function: cst.FunctionDef, name: str) -> bool:
    """`name` in the function (and the functions, classes and comprehensions in it) is the enclosing
    scope's: no scope there binds it."""
    for node in (function, *descendants(function)):
        inner = ctx.resolver.scopes.get(id(node))
        if inner is not None and (name in inner.bindings or name in inner.globals or name in inner.nonlocals):
            return False
    return True


def _keyword_runs(ctx: Context, site: Site, node: cst.Call, name: str) -> bool:
    """`name` is bound several times (`if parallel: pe = ParallelExecutor(...)` / `else: pe = exe`) and
    only ever assigned or called as `name.run(fetch_list=..., feed=...)`: then 1.8's `Executor.run` and
    `ParallelExecutor.run` took the same call, and on one device an Executor running the default main
    program computes what this ParallelExecutor of the default main program did, unchanged runs and all."""
    if static_program.given(ctx, site, node) is not None or call_args.get(node, "build_strategy") is not None:
        return False
    runs, skip = _uses(ctx, site, name)
    targets = {id(t.target) for t in descendants(site.scope.node) if isinstance(t, cst.AssignTarget)}
    for use in descendants(site.scope.node):
        if not isinstance(use, cst.Name) or use.value != name or id(use) in skip or id(use) in targets:
            continue
        run = runs.get(id(use))
        if run is None or any(a.keyword is None or a.keyword.value not in ("fetch_list", "feed", "return_numpy")
                              for a in run.args):
            return False
    return True


def _place(ctx: Context, site: Site, use_cuda: cst.BaseExpression) -> cst.BaseExpression:
    cuda = emit.call(ctx, site, "paddle.CUDAPlace", cst.Integer("0"))
    cpu = emit.call(ctx, site, "paddle.CPUPlace")
    if emit.is_literal(ctx, use_cuda) and isinstance(literal(use_cuda, ctx), bool):
        return cuda if literal(use_cuda, ctx) else cpu
    return cst.IfExp(test=use_cuda.with_changes(lpar=[], rpar=[]) if isinstance(use_cuda, cst.Comparison)
                     else emit.parenthesized(use_cuda), body=cuda, orelse=cpu)


def _refused(ctx: Context, node: cst.Call) -> None:
    """NeedsReview where no 2.x form is sure to keep the 1.8 meaning."""
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs; map the arguments by hand")
    for arg in _DROPPED:
        found = call_args.get(node, arg)
        if found is not None and not droppable(found.value):
            raise NeedsReview(f"`{arg}` is dropped in the 2.x form and may compute something; bind it to a name first")
    scope = call_args.get(node, "scope")
    if scope is not None and call_args.get(node, "share_vars_from") is not None and \
            not (emit.is_literal(ctx, scope.value) and literal(scope.value, ctx) is None):
        raise NeedsReview("`scope=` and `share_vars_from=` are both given: 1.8 shared the other's variables "
                          "across scopes; rewrite by hand")
    for arg, default in _TRAINERS.items():
        found = call_args.get(node, arg)
        if found is not None and emit.is_literal(ctx, found.value) and literal(found.value, ctx) != default:
            raise NeedsReview(f"`{arg}` is not {default}: multi-node training goes through paddle.distributed")
    emit.required(node, "use_cuda")


def _checked(ctx: Context, node: cst.Call) -> None:
    """_Unfollowed where only the class form serves the arguments: a scope, trainers known at run time."""
    for arg in _UNSUPPORTED:
        found = call_args.get(node, arg)
        if found is not None and not (emit.is_literal(ctx, found.value) and literal(found.value, ctx) is None):
            raise _Unfollowed(f"`{arg}=` is given: the 2.x form runs the program in the global scope; rewrite by hand")
    for arg in _TRAINERS:
        found = call_args.get(node, arg)
        if found is not None and not emit.is_literal(ctx, found.value):
            raise _Unfollowed(f"`{arg}={ctx.code(found.value).strip()}` is not a literal, and the 2.x form "
                              f"depends on its value")


def _planned(ctx: Context, site: Site, node: cst.Call,
             stmt: Optional[cst.CSTNode]) -> Tuple[str, Optional[List[cst.Call]]]:
    """The executor's name and the run() calls to rewrite (None: bound several times, each run taking
    the call as it is); NeedsReview where the rewrite is not sure to keep the 1.8 meaning."""
    _refused(ctx, node)
    bound = assigned_name(stmt) if stmt is not None else None
    if bound is None or bound[1] is not site.call:
        raise _Unfollowed("the ParallelExecutor is not assigned to a name; its run() calls cannot be followed")
    name = bound[0]
    _checked(ctx, node)
    if not bound_once(site.scope, name):
        if not _keyword_runs(ctx, site, node, name):
            raise _Unfollowed(f"`{name}` is bound more than once here and used other than by run(fetch_list=..., "
                              f"feed=...) on the default main program; rewrite by hand")
        return name, None
    runs = _runs(ctx, site, stmt, name)  # type: ignore[arg-type]
    for run in runs:
        _run_arguments(run)  # NeedsReview now, while the constructor can still be left as written
    return name, runs


def _named(entry: ApiEntry, call: cst.Call) -> Optional[cst.Call]:
    """The call with its positional arguments named by the 1.8 signature (as args_to_kwargs names them);
    None where one is starred or has no name."""
    params = [p.name for p in entry.args_list]
    args = []
    for index, arg in enumerate(call.args):
        if arg.keyword is None:
            if arg.star or index >= len(params):
                return None
            arg = call_args.keyword_arg(params[index], arg.value)
        args.append(arg)
    return call.with_changes(args=args)


def converts(ctx: Context, call: cst.Call) -> bool:
    """Before the pass: whether the transformer will convert `call`, a ParallelExecutor of the module (its
    arguments named here, as args_to_kwargs names them later), and so drop its `exec_strategy=`
    (exec_strategy.py deletes what made it)."""
    ref = ctx.resolver.references.get(id(call.func))
    qualname = ctx.resolver.qualname(ref.dotted, ref.scope) if ref is not None and ref.bindings else None
    matched = ctx.entry_of_chain(qualname) if qualname else None
    named = _named(matched[0], call) if matched is not None else None
    if named is None or matched[1] or matched[0].transformer != "parallel_executor":  # type: ignore[index]
        return False
    site = Site(call.func, qualname, ref.bindings[0], ref.scope, 0, 0, entry=matched[0], call=call)  # type: ignore
    stmt = next((s for s in statements(ref.scope.node) if (assigned_name(s) or (None, None))[1] is call), None)
    try:
        _planned(ctx, site, named, stmt)
    except _Unfollowed:
        return True  # (the class form drops it too)
    except NeedsReview:
        return False
    return True


@register("parallel_executor", reads=(SCOPE,))
def parallel_executor(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = ctx.statements[-1] if ctx.statements else None
    # Decided on the call as written (its arguments named), as `converts` decided before the pass (it may
    # have deleted what made the exec_strategy this drops), so that both decide alike.
    named = _named(site.entry, site.call) if site.entry is not None and site.call is not None else None
    checked = named if named is not None else node
    try:
        name, runs = _planned(ctx, site, checked, stmt)
    except _Unfollowed:  # (its uses, not all in sight, take the class's object as they took 1.8's)
        report_warning(ctx, site)
        new = one_device_executor(ctx, site, node)
        site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {new.func.value}, "  # type: ignore
                                  f"a class of the module that runs it on one device", True)
        return new
    place = _place(ctx, site, emit.required(node, "use_cuda"))
    if runs is None:
        report_warning(ctx, site)
        return emit.converted(site, emit.call(ctx, site, "paddle.static.Executor", place))
    program_name = ctx.fresh_name(site.scope, f"{name}_program")
    main = static_program.given(ctx, site, node) or static_program.default(ctx, site)
    build = call_args.get(node, "build_strategy")
    extra = {"build_strategy": build.value} if build is not None else {}
    compiled = emit.call(ctx, site, "paddle.static.CompiledProgram", main, **extra)
    assignment = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(program_name))], compiled)])
    ctx.insert_around(stmt, after=[assignment])  # type: ignore[arg-type]
    for run in runs:
        ctx.replace(run, lambda updated: _executor_run(updated, program_name))
    report_warning(ctx, site)
    return emit.converted(site, emit.call(ctx, site, "paddle.static.Executor", place))


def _executor_run(updated: cst.Call, program_name: str) -> cst.Call:
    """`pe.run(fetch_list, feed, return_numpy=...)` as `pe.run(pe_program, feed=..., fetch_list=...)`."""
    given = _run_arguments(updated)
    args = [cst.Arg(cst.Name(program_name))]
    args += [call_args.keyword_arg(k, given[k]) for k in ("feed", "fetch_list", "return_numpy") if k in given]
    return call_args.with_args(updated, args)
