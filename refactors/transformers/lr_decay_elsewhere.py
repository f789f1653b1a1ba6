"""Stepping a learning-rate schedule whose optimizer steps in another function of the file.

`lr_decay.py` writes `scheduler.step()` after each optimizer step it finds in the function that makes
the schedule. Two more shapes are common in 1.8 scripts, and both are decided by the calls in the file
(`callers.py`):

- Static graphs built in one function and run in another. The schedule is made in `build(..., prog)`
  under `program_guard(prog)`, where its optimizer is minimized; each call of `build` says which
  program that is, and, through the literal values it passes, whether the schedule is built at all
  (`if is_train:`). 2.x's `minimize` keeps the scheduler on that program (`prog.lr_scheduler`): after
  each run of the program in a loop where `build` is called, `prog.lr_scheduler.step()` advances it
  as 1.8's counter advanced on each run.
- Dygraph: the optimizer given the schedule is passed to a function of the file (`run(net, loader,
  optimizer)`) that calls its `minimize` in a loop. When the schedule is a module-level name that
  function can see, `scheduler.step()` is written after that `minimize`, provided every call of the
  function passes that optimizer or nothing (None), and the optimizer goes nowhere else. Such a
  function usually comes before the code that makes the schedule, which the pass reaches later: this
  is planned before the pass (`plan`, from refactor_kwargs' `prepare`), for the schedules whose
  conversion cannot fail.
"""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

import libcst as cst

from refactors.engine import Context, Site
from refactors.local_values import assigned_name, statements
from refactors.scopes import Scope, descendants, dotted
from refactors.transformers import callers, emit
from refactors.transformers.lr_decay import (_MinimizeInLoops, _optimizer_assignment, _optimizers_using, _runs_in_loops,
                                             piecewise_left, static_graph)

Condition = Tuple[cst.BaseExpression, bool]  # an `if` test, and whether the schedule is in its body


def step_runs_where_built(ctx: Context, site: Site, scheduler: Optional[str]) -> bool:
    """Static: step the program's scheduler after each run of it, where the function building the
    schedule into a program it receives is called. False (nothing written) when the file does not show
    it all."""
    chain = list(ctx.statements)
    starts = [i for i, s in enumerate(chain) if isinstance(s, cst.FunctionDef)]
    if not starts or ctx.resolver.scopes.get(id(chain[starts[-1]])) is not site.scope:
        return False
    function: cst.FunctionDef = chain[starts[-1]]  # type: ignore[assignment]
    path, statement = chain[starts[-1] + 1:-1], chain[-1]
    conditions = _conditions(path, statement)
    program = _guard_parameter(function, path)
    if conditions is None or program is None:
        return False
    block = path[-1].body if path else function.body
    optimizers = _optimizers_using(ctx, site.scope, scheduler) if scheduler is not None else [
        _optimizer_assignment(ctx, site.scope, statement, site.call)]
    if not any(_minimized_in(block, optimizer) for optimizer in optimizers if optimizer is not None):
        return False  # 2.x keeps the scheduler on the program where its optimizer is minimized
    calls = callers.calls_of(ctx, function)
    runs: List[Tuple[cst.SimpleStatementLine, str]] = []
    for call, scope in calls or ():
        taken = _taken(ctx, function, call, conditions)
        if taken is None:
            return False
        if not taken:
            continue
        given = callers.passed(function, call, program)
        if not isinstance(given, cst.Name):
            return False
        ctx.reads(scope.node, words=("run",), into_definitions=False)
        found = _runs_in_loops(ctx, scope.node, given.value)
        if not found or any(id(run) in ctx.left for run in found):
            return False  # (the pass has gone past a run before this function: too late to write there)
        runs += [(run, given.value) for run in found]
    for run, name in runs:
        ctx.insert_around(run, after=[ctx.statement(f"{name}.lr_scheduler.step()\n")])
    return bool(runs)


def _conditions(path: List[cst.CSTNode], statement: cst.CSTNode) -> Optional[List[Condition]]:
    """The `if` tests on the way from the function's body to the statement; None when another kind of
    block (a loop, `try`, `else`) is on the way."""
    found: List[Condition] = []
    for outer, inner in zip(path, [*path[1:], statement]):
        if isinstance(outer, cst.If) and isinstance(outer.body, cst.IndentedBlock) and inner in outer.body.body:
            found.append((outer.test, True))
        elif not isinstance(outer, cst.With):
            return None
    return found


def _guard_parameter(function: cst.FunctionDef, path: List[cst.CSTNode]) -> Optional[str]:
    """The parameter of `function` named by the innermost `program_guard(<param>, ...)` on the way."""
    params = {p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                     *function.params.kwonly_params)}
    for outer in reversed(path):
        if isinstance(outer, cst.With) and len(outer.items) == 1 and isinstance(outer.items[0].item, cst.Call):
            call = outer.items[0].item
            if (dotted(call.func) or "").endswith("program_guard"):
                first = call.args[0].value if call.args else None
                return first.value if isinstance(first, cst.Name) and first.value in params else None
    return None


def _minimized_in(block: cst.BaseSuite, optimizer: str) -> bool:
    body = block.body if isinstance(block, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            value = getattr(stmt.body[0], "value", None)
            if isinstance(value, cst.Call) and dotted(value.func) == f"{optimizer}.minimize":
                return True
    return False


def _taken(ctx: Context, function: cst.FunctionDef, call: cst.Call, conditions: List[Condition]) -> Optional[bool]:
    """Whether this call reaches the statement: each test a parameter the call gives a literal value."""
    for test, wanted in conditions:
        if not isinstance(test, cst.Name):
            return None
        given = callers.passed(function, call, test.value)
        if given is callers.MISSING:
            given = callers.default(function, test.value)
        if not isinstance(given, cst.BaseExpression):
            return None
        try:
            value = ast.literal_eval(ctx.code(given).strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        if bool(value) != wanted:
            return False
    return True


def stepped_in_callees(ctx: Context, site: Site) -> bool:
    """Whether `plan` wrote the steps of this dygraph schedule in the functions its optimizer is passed to."""
    return id(site.node) in ctx.memo.get(_PLANNED, ())  # type: ignore[operator]


_PLANNED = "lr_decay_elsewhere: stepped in callees"
# Schedules whose conversion cannot fail on arguments this plan does not check (`step`, `begin` and
# `staircase` are checked): the steps are written before the pass reaches the schedule.
_ALWAYS_CONVERTED = {"PiecewiseDecay", "piecewise_decay", "NoamDecay", "noam_decay", "PolynomialDecay",
                     "polynomial_decay", "ExponentialDecay", "exponential_decay", "CosineDecay", "cosine_decay"}


def plan(ctx: Context) -> None:
    """Before the pass (the functions an optimizer is passed to usually come before the code that makes
    it): for each dygraph schedule bound to a module-level name, whose optimizers are stepped only in
    functions of the file they are passed to, write `scheduler.step()` after each of those steps."""
    module = ctx.resolver.module_scope
    if "minimize" not in ctx.source or not ctx.resolver.is_paddle_root(module):
        return
    for statement in statements(ctx.module):
        assigned = assigned_name(statement)
        if assigned is None or not isinstance(assigned[1], cst.Call) or not _dygraph_schedule(ctx, assigned[1]):
            continue
        scheduler, call = assigned[0], assigned[1]
        if len(module.bindings.get(scheduler, ())) != 1:
            continue
        ctx.reads(ctx.module, words=(scheduler,), into_definitions=False)
        optimizers = _optimizers_using(ctx, module, scheduler)
        steps: Optional[List[cst.SimpleStatementLine]] = [] if optimizers else None
        for optimizer in optimizers:
            in_place = _MinimizeInLoops(optimizer, ctx.module)
            ctx.module.visit(in_place)
            found = None if in_place.found else _minimize_in_callees(ctx, module, optimizer, scheduler)
            if found is None:
                steps = None
                break
            steps += found  # type: ignore[operator]
        if steps:
            for minimize in steps:
                ctx.insert_around(minimize, after=[ctx.statement(f"{scheduler}.step()\n")])
            ctx.memo.setdefault(_PLANNED, set()).add(id(call.func))  # type: ignore[union-attr]


def _dygraph_schedule(ctx: Context, call: cst.Call) -> bool:
    """A call of a 1.8 schedule the dygraph transformer converts whatever its other arguments are."""
    ref = ctx.resolver.references.get(id(call.func))
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref is not None else None
    if matched is None or matched[1] or matched[0].name.rsplit(".", 1)[-1] not in _ALWAYS_CONVERTED:
        return False
    entry = matched[0]
    dygraph = entry.transformer == "lr_decay_dygraph" or entry.transformer == "lr_decay_static" and not static_graph(
        ctx, call.func)
    checked = ("step", "begin", "staircase")
    params = [p.name for p in entry.args_list or ()]
    first_checked = min((params.index(n) for n in checked if n in params), default=len(params))
    positional = sum(1 for a in call.args if a.keyword is None)
    if not dygraph or any(a.star for a in call.args) or positional > first_checked or any(
            a.keyword is not None and a.keyword.value in checked for a in call.args):
        return False
    if entry.name.rsplit(".", 1)[-1] in ("CosineDecay", "cosine_decay") and ref is not None:
        return emit.stdlib_free(ctx, ref.scope, "math")  # its formula reads `math`
    if entry.name.endswith(".PiecewiseDecay"):  # its boundaries and values may not fit 2.x's (lr_decay.py)
        given = {a.keyword.value if a.keyword is not None else params[i]: a.value for i, a in enumerate(call.args)}
        if "boundaries" not in given or "values" not in given:
            return False
        return piecewise_left(ctx, given["boundaries"], given["values"]) is None
    return True


def _minimize_in_callees(ctx: Context, module: Scope, optimizer: str,
                         scheduler: str) -> Optional[List[cst.SimpleStatementLine]]:
    ctx.reads(ctx.module, words=(optimizer,))
    steps: List[cst.SimpleStatementLine] = []
    done = set()
    for ref in ctx.resolver.chains.values():
        if ref.dotted.partition(".")[0] != optimizer or ctx.resolver.binding_scope(optimizer, ref.scope) is not module:
            continue
        if ref.dotted != optimizer:
            continue  # `optimizer.minimize(...)`, `optimizer.state_dict()`: a use in place
        call = _call_passing(ctx, ref.node)
        function = callers.definition(ctx, ref.scope, dotted(call.func) or "") if call is not None else None
        if function is None:
            return None  # kept, returned or passed where the file does not show what happens to it
        if id(function) in done:
            continue
        done.add(id(function))
        found = _steps_in(ctx, function, call, optimizer, scheduler)  # type: ignore[arg-type]
        if found is None:
            return None
        steps += found
    return steps


def _call_passing(ctx: Context, node: cst.CSTNode) -> Optional[cst.Call]:
    """The call that has `node` as a whole argument."""
    for candidate in descendants(ctx.module):
        if isinstance(candidate, cst.Call) and any(a.value is node and not a.star for a in candidate.args):
            return candidate
    return None


def _steps_in(ctx: Context, function: cst.FunctionDef, call: cst.Call, optimizer: str,
              scheduler: str) -> Optional[List[cst.SimpleStatementLine]]:
    """The `minimize` statements in loops of `function` for the parameter `call` passes `optimizer` to,
    when every call of it passes that optimizer or None."""
    param = next((p for p in _params(function) if callers.passed(function, call, p) is not callers.MISSING
                  and _is_name(callers.passed(function, call, p), optimizer)), None)
    calls = callers.calls_of(ctx, function)
    scope = ctx.resolver.scopes.get(id(function))
    if param is None or not calls or scope is None \
            or ctx.resolver.binding_scope(scheduler, scope) is not ctx.resolver.module_scope:
        return None
    for other, other_scope in calls:
        given = callers.passed(function, other, param)
        if given is callers.MISSING:
            given = callers.default(function, param)
        if given is None or not (_is_name(given, "None") or _is_name(given, optimizer)
                                 and ctx.resolver.binding_scope(optimizer, other_scope) is ctx.resolver.module_scope):
            return None
    if len(scope.bindings.get(param, ())) != 1:
        return None  # the parameter is rebound in the function
    ctx.reads(function, words=(param,))
    finder = _MinimizeInLoops(param, function)
    function.visit(finder)
    return finder.found


def _params(function: cst.FunctionDef) -> List[str]:
    return [p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                   *function.params.kwonly_params)]


def _is_name(node: object, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name
