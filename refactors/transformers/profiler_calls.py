"""`fluid.profiler.start_profiler` / `stop_profiler` / `reset_profiler`: one `paddle.profiler.Profiler`
that every call of the family in one function sees (api_mapping/SEMANTICS.md 48).

1.8.5 (`profiler.py:107-250`) keeps one global operator profiler: `start_profiler(state)` enables it
unless it already runs, `stop_profiler(sorted_key, profile_path)` prints its table and writes
`profile_path` unless it does not run, `reset_profiler()` drops the events recorded so far. Real code
starts it in one branch of a training loop and stops it in another, iterations later:

    if pass_id == 0 and batch_id == N:          if pass_id == 0 and batch_id == N:
        profiler.start_profiler("All")              if prof is None:
    elif pass_id == 0 and batch_id == N + 5:            prof = paddle.profiler.Profiler(on_trace_ready=
        profiler.stop_profiler("total", path)              paddle.profiler.export_protobuf(path))
        return                                          prof.start()
                                                elif pass_id == 0 and batch_id == N + 5:
                                                    if prof is not None:
                                                        prof.stop()
                                                        prof.summary(sorted_by=paddle.profiler.SortedKeys.CPUTotal)
                                                        prof = None
                                                    return

`prof = None` is bound once, before the statement of the function's body that holds the first call, so
every branch of every iteration sees the same object; `prof is None` is 1.8's "not running". A reset
becomes `prof.stop()` + `prof.start()` (checked on 3.3.1: the summary then holds only the events after
it). The profile path moves from the stop call to the Profiler made at the start: allowed when it is the
same at every stop and made of literals and names only a parameter or an enclosing scope binds, once
(`args.profiler_path`, `"/tmp/profile_%d" % trainer_id`). Converted only
when every use of the family in the module is such a call statement of that one scope, so no other
code of the module starts, stops or resets the profiler these calls share, and the module makes no
other `paddle.profiler.Profiler` (3.3.1 runs one at a time; a converted `cuda_profiler` block is one),
but in `cuda_profiler` blocks kept apart from the function (`profiler_apart`).

`reset_profiler()` inside a converted `with profiler.profiler(...)` block of the same scope
(`profiler_block`) becomes the block's `prof.stop()` + `prof.start()`. A reset in a function that such
blocks of the module run (through other functions, or opened by a context manager of the module) gets
their Profiler as a new parameter (`profiler_passed`). A reset anywhere else resets a profiler started
by code this file does not show (another module): it finds the running Profiler itself
(`profiler_running`), unless the module runs a 1.8 profiler that stays for the shim.

The report changes as the table's warnings say: the 2.x summary's columns, the profile written to a
directory named profile_path, and a reset writes one trace file more there (the events before it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple, Union

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.local_values import bound_once, statements
from refactors.scopes import Scope
from refactors.transformers import SCOPE, emit, profiler_apart, profiler_passed, profiler_running, register
from refactors.transformers.profiler_block import (KEYS, PROFILE_PATH, TARGETS, new_profiler, open_block_profiler,
                                                   summary_args)
from refactors.warning_evidence import report_warning

_FAMILY = "paddle.fluid.profiler."
_PROFILER_2X = "paddle.profiler."
_UNKNOWN = object()
_START, _STOP, _RESET = (_FAMILY + n for n in ("start_profiler", "stop_profiler", "reset_profiler"))


@dataclass(frozen=True)
class _Plan:
    """What the calls of one scope share: the Profiler's name and the profile path its stops write."""

    prof: str
    path: cst.BaseExpression


@register("profiler_calls", reads=(SCOPE,))
def profiler_calls(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = _call_statement(ctx, site)
    if site.name == _RESET:
        block = open_block_profiler(ctx)
        if block is not None:
            return _reset_in_block(ctx, site, stmt, block)
        if not _starts_and_stops(ctx, site.scope):
            return _reset_passed(ctx, site, stmt)
    plan = _plan(ctx, site)
    arguments = {name: arg.value for name, arg in call_args.by_keyword(node).items()}
    p = cst.Name(plan.prof)
    if site.name == _START:
        profiler = new_profiler(ctx, site, TARGETS[literal(arguments["state"], ctx)], plan.path)
        body = [_assign(p, profiler), _method(p, "start")]
        test = "is"
    elif site.name == _STOP:
        summary = summary_args(ctx, site, _literal_or_none(ctx, arguments.get("sorted_key")))  # type: ignore[arg-type]
        body = [_method(p, "stop"), _method(p, "summary", summary), _assign(p, cst.Name("None"))]
        test = "is not"
    else:
        body = [_method(p, "stop"), _method(p, "start")]
        test = "is not"
    return _guarded(ctx, site, stmt, f"{plan.prof} {test} None", body)


def _guarded(ctx: Context, site: Site, stmt: cst.SimpleStatementLine, test: str,
             body: List[cst.SimpleStatementLine]) -> cst.BaseExpression:
    """The call's line becomes `if <test>:` and `body`."""
    guarded = ctx.statement(f"if {test}:\n    pass\n")
    ctx.replace(stmt, lambda updated: guarded.with_changes(  # the line's comments stay with it
        leading_lines=updated.leading_lines, body=cst.IndentedBlock(body=body, header=updated.trailing_whitespace)))
    report_warning(ctx, site)
    ctx.report_newer(site, "paddle.profiler.Profiler")
    return emit.converted(site, site.call)


def _reset_passed(ctx: Context, site: Site, stmt: cst.SimpleStatementLine) -> cst.BaseExpression:
    """A reset in a function that profiler blocks of the module call: their Profiler is passed to it; else
    the running Profiler is found where the reset runs (profiler_running)."""
    try:
        prof = profiler_passed.plan(ctx, site.scope, _family_references(ctx))  # type: ignore[arg-type]
    except NeedsReview:
        return profiler_running.reset(ctx, site, _family_references(ctx))  # type: ignore[arg-type]
    p = cst.Name(prof)
    return _guarded(ctx, site, stmt, f"{prof} is not None", [_method(p, "stop"), _method(p, "start")])


def _reset_in_block(ctx: Context, site: Site, stmt: cst.SimpleStatementLine, prof: str) -> cst.BaseExpression:
    ctx.insert_around(stmt, after=[_method(cst.Name(prof), "start")])
    report_warning(ctx, site)
    ctx.report_newer(site, "paddle.profiler.Profiler")
    return emit.converted(site, cst.Call(func=cst.Attribute(cst.Name(prof), cst.Name("stop"))))


def _plan(ctx: Context, site: Site) -> _Plan:
    """The scope's plan, made at its first call (which binds `prof = None`), or the reason there is none."""
    return ctx.planned(("profiler calls", id(site.scope.node)), lambda: _make_plan(ctx, site))  # type: ignore


def _make_plan(ctx: Context, site: Site) -> _Plan:
    scope = site.scope
    if scope.is_class or scope.is_comprehension or isinstance(scope.node, cst.Lambda):
        raise NeedsReview("the profiler calls are not in a function or module body")
    calls = _scope_calls(ctx, scope)
    paths = []
    for name, call in calls:
        arguments = _arguments_of(ctx, name, call)
        if name == _START:
            if _literal_or_none(ctx, arguments.get("state")) not in TARGETS:
                raise NeedsReview("a start_profiler state is not a literal 1.8 accepted")
            if _literal_or_none(ctx, arguments.get("tracer_option")) not in (None, "Default"):
                raise NeedsReview("tracer_option: 2.x records every operator detail by default; drop it by hand")
        elif name == _STOP:
            if _literal_or_none(ctx, arguments.get("sorted_key")) not in KEYS:
                raise NeedsReview("a stop_profiler's sorted_key is 'calls' or not a literal: 2.x sorts the summary "
                                  "by times only")
            paths.append(arguments.get("profile_path"))
    path = _one_path(ctx, scope, paths)
    references = _family_references(ctx)
    if len(calls) != len(references) and not profiler_apart.apart(ctx, scope, [c for _, c in calls], references):
        raise NeedsReview("the module uses a profiler elsewhere too (fluid.profiler in another function, a "
                          "`with` block, not as a call statement, or a paddle.profiler.Profiler): 1.8's profiler "
                          "is one for all of them, and 2.x runs one at a time")
    emit.name(ctx, site, "paddle.profiler.Profiler")  # NeedsReview where `paddle` is rebound
    prof = ctx.fresh_name(scope, "prof")
    ctx.insert_around(_body_statement(ctx, scope), before=[_assign(cst.Name(prof), cst.Name("None"))])
    return _Plan(prof, path)


def _body_statement(ctx: Context, scope: Scope) -> cst.CSTNode:
    """The statement of the scope's own body that holds the statement being upgraded."""
    if isinstance(scope.node, cst.Module):
        return ctx.statements[0]
    at = next((i for i, stmt in enumerate(ctx.statements) if stmt is scope.node), None)
    if at is None or at + 1 >= len(ctx.statements):
        raise NeedsReview("the function around the call is not in sight")
    return ctx.statements[at + 1]


def _scope_calls(ctx: Context, scope: Scope) -> List[Tuple[str, cst.Call]]:
    """The start/stop/reset calls of `scope`, each the one expression of its line, in order; NeedsReview
    unless there are a start and a stop."""
    found = _statement_calls(ctx, scope)
    if not _starts_and_stops(ctx, scope, found):
        raise NeedsReview(_ELSEWHERE)
    return found


def _statement_calls(ctx: Context, scope: Scope) -> List[Tuple[str, cst.Call]]:
    """The start/stop/reset calls of `scope`, each the one expression of its line, in order."""
    refs = {id(ref.node): name for ref, name in _family_references(ctx)}
    found: List[Tuple[str, cst.Call]] = []
    for stmt in statements(scope.node):
        call = _called(stmt)
        if call is not None and refs.get(id(call.func)) in (_START, _STOP, _RESET):
            found.append((refs[id(call.func)], call))
    return found


_ELSEWHERE = ("the profiler is not both started and stopped by call statements of this function (code elsewhere, "
              "or a `with` block around its caller, runs it): 2.x has no global profiler to reach")


def _starts_and_stops(ctx: Context, scope: Scope, found: Optional[List[Tuple[str, cst.Call]]] = None) -> bool:
    names = {name for name, _ in (found if found is not None else _statement_calls(ctx, scope))}
    return _START in names and _STOP in names


def _family_references(ctx: Context) -> List[Tuple[object, str]]:
    """(reference, API) of every use of fluid.profiler and paddle.profiler in the module."""
    key = "profiler family references"
    if key not in ctx.memo:
        found = []
        for ref in ctx.resolver.references.values():
            if not ref.bindings:
                continue
            _, _, rest = ref.dotted.partition(".")
            qualname = ref.bindings[0].qualname + ("." + rest if rest else "")
            entry = ctx.entry_for(qualname)
            if entry is not None and entry.name.startswith(_FAMILY):
                found.append((ref, entry.name))
            elif qualname.startswith(_PROFILER_2X):  # a Profiler the file (or an earlier upgrade) made
                found.append((ref, qualname))
        ctx.memo[key] = found
    return ctx.memo[key]


def _one_path(ctx: Context, scope: Scope, paths: List[Optional[cst.BaseExpression]]) -> cst.BaseExpression:
    """The profile path every stop writes, as an expression the start may evaluate instead."""
    texts = {ctx.code(p).strip() if p is not None else repr(PROFILE_PATH) for p in paths}
    if len(texts) != 1:
        raise NeedsReview("the stop_profiler calls write different profile paths")
    path = paths[0]
    if path is None:
        return cst.SimpleString(repr(PROFILE_PATH))
    if not _same_at_start(ctx, scope, path):
        raise NeedsReview("profile_path is not made of literals and names bound once outside the function's "
                          "code (parameters, module names): the Profiler made at the start must write where the "
                          "stop said")
    return path


def _same_at_start(ctx: Context, scope: Scope, node: cst.CSTNode) -> bool:
    """`node` has the same value at the start call as at the stop: literals, attribute chains and operators
    on names that only a parameter of the scope or an enclosing scope binds, once (no call)."""
    if isinstance(node, cst.Name):
        home = ctx.resolver.binding_scope(node.value, scope)
        if home is None or not bound_once(home, node.value):
            return False
        return home is not scope or node.value in _parameters(scope.node)
    if isinstance(node, cst.Attribute):
        return _same_at_start(ctx, scope, node.value)
    if isinstance(node, cst.BinaryOperation):
        return _same_at_start(ctx, scope, node.left) and _same_at_start(ctx, scope, node.right)
    if isinstance(node, (cst.Tuple, cst.FormattedString, cst.ConcatenatedString)):
        parts = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else \
            [node.left, node.right] if isinstance(node, cst.ConcatenatedString) else \
            [p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)]
        return all(_same_at_start(ctx, scope, p) for p in parts)
    return emit.is_literal(ctx, node)  # type: ignore[arg-type]


def _parameters(node: cst.CSTNode) -> Set[str]:
    if not isinstance(node, cst.FunctionDef):
        return set()
    params = node.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return {p.name.value for p in every}


def _call_statement(ctx: Context, site: Site) -> cst.SimpleStatementLine:
    stmt = ctx.statements[-1] if ctx.statements else None
    if not (isinstance(stmt, cst.SimpleStatementLine) and _called(stmt) is site.call):
        raise NeedsReview(f"{site.name.rsplit('.', 1)[-1]}() is not a statement of its own line")
    return stmt


def _called(stmt: cst.CSTNode) -> Optional[cst.Call]:
    """The call when `stmt` is a line holding that one call."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) \
            and isinstance(stmt.body[0].value, cst.Call):
        return stmt.body[0].value
    return None


def _arguments_of(ctx: Context, name: str, call: cst.Call) -> Dict[str, cst.BaseExpression]:
    """The arguments of an original call by 1.8 parameter name."""
    entry = ctx.entry_for(name)
    params = [p.name for p in entry.args_list or ()] if entry is not None else []
    found: Dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(call.args):
        if arg.star or (arg.keyword is None and i >= len(params)):
            raise NeedsReview("a profiler call has *args/**kwargs or more arguments than 1.8 took")
        found[arg.keyword.value if arg.keyword is not None else params[i]] = arg.value
    return found


def _literal_or_none(ctx: Context, node: Optional[cst.BaseExpression]) -> object:
    """The argument's value when it is a literal string, None when absent, `_UNKNOWN` (in no table of
    accepted values) else."""
    if node is None:
        return None
    value = literal(node, ctx) if emit.is_literal(ctx, node) else _UNKNOWN
    return value if isinstance(value, str) else _UNKNOWN


def _assign(target: cst.Name, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign(targets=[cst.AssignTarget(target)], value=value)])


def _method(obj: cst.Name, method: str, args: Union[List[cst.Arg], Tuple[()]] = ()) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(cst.Call(func=cst.Attribute(obj, cst.Name(method)), args=args))])
