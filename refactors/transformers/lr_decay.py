"""Learning-rate decays: 1.8 advanced them by itself, 2.x schedulers move only on `scheduler.step()`.

- Dygraph classes (`dygraph/learning_rate_scheduler.py:44-50`): every `minimize()` computed the rate
  at `step_num` and then added `step` to it, from `begin`. 2.x: `paddle.optimizer.lr.X(...,
  last_epoch=begin - 1)` starts at `begin`, and `scheduler.step()` must follow each optimizer step.
  A `step` other than 1 is folded into PiecewiseDecay's boundaries (`_piecewise_boundaries`); the
  other formulas are left for review with it.
- Static functions (`layers/learning_rate_scheduler.py:45-50`): the rate is computed in the graph from
  a counter that starts at 0 and grows by one per run of the program. 2.x: the scheduler, stepped
  once per iteration. (In dygraph, the same functions return the classes above with `begin=0`.)
- Formulas (1.8 -> 2.x): `lr * rate ** (step / decay_steps)` is `ExponentialDecay(lr,
  gamma=rate ** (1 / decay_steps))`, or `StepDecay(lr, decay_steps, rate)` when floored (staircase);
  `lr * exp(-rate * step / decay_steps)` is `NaturalExpDecay(lr, rate / decay_steps)`;
  `lr / (1 + rate * step / decay_steps)` is `InverseTimeDecay(lr, rate / decay_steps)`; piecewise,
  polynomial and Noam keep their formulas; the per-epoch cosine decay is a `LambdaDecay` of its
  formula. Floored natural-exp and inverse-time decays and 1.8's warm-up (whose dygraph and static
  formulas differ) have no 2.x scheduler computing the same rates: 1.8's class in dygraph (below), else
  left for review.

Stepping, dygraph: when the schedule is given (directly, or through a name) as `learning_rate=` of an
optimizer assigned to a name in the same function, and that optimizer's `minimize(...)` is called
inside a loop there, `<scheduler>.step()` is written after each such call (an inline schedule is first
bound to a new name). Static graphs: the schedule assigned to a name is built into a program (the one
of the `program_guard` it is made under, else the default main program), and each run of that program
advanced the 1.8 counter: `<scheduler>.step()` is written after each `Executor.run` of it in a loop of the
same function; the rate 1.8 code fetched (`fetch_list=[lr]` or `[lr.name]`) is the program's learning-rate
variable in 2.x (`program.lr_var`, 0-D, read by `refactors.zero_d`). A schedule whose optimizer steps
in another function of the file: `lr_decay_elsewhere.py` (the optimizer passed there),
`lr_decay_returned.py` (returned there). A static schedule whose runs the file does not
show, or that no 2.x scheduler computes, is computed by the program itself as in 1.8
(`lr_in_program.py`: no step to write). A dygraph schedule (a 1.8 dygraph class, or a `fluid.layers`
schedule under a dygraph guard) whose steps the file does not show, or that no 2.x scheduler computes, is
1.8's class written in the module, which the optimizer given it advances as 1.8's did (`lr_decay_class.py`).
Otherwise (`--no-shim` static, a schedule whose mode the file does not tell) the schedule is converted,
the line is marked with a TODO saying where `.step()` must go, and the site is reported.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

import libcst as cst

from api_mapping.namespaces import OPTIMIZERS
from refactors import call_args, zero_d
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site, literal, same_literal
from refactors.scopes import Scope, descendants, dotted
from refactors.statement_visitor import StatementVisitor
from refactors.transformers import SCOPE, emit, lr_decay_class, lr_in_program, register

LR = "paddle.optimizer.lr."
_KEEP = ("learning_rate", "name")


def _rename(node: cst.Call, renames: Dict[str, str]) -> cst.Call:
    for old, new in renames.items():
        node = call_args.rename(node, old, new)
    return node


def _ratio(ctx: Context, node: cst.Call, numerator: str, denominator: str, power: bool = False) -> cst.BaseExpression:
    """`numerator / denominator`, or `numerator ** (1 / denominator)`."""
    top = emit.parenthesized(emit.required(node, numerator))
    bottom = emit.parenthesized(emit.required(node, denominator))
    return ctx.template("{top} ** (1 / {bottom})" if power else "{top} / {bottom}", top=top, bottom=bottom)


def _staircase(ctx: Context, node: cst.Call) -> bool:
    value = emit.value_of(ctx, node, "staircase", False)
    if not isinstance(value, bool):
        raise NeedsReview("staircase is not a bool")
    return value


def _only(node: cst.Call, keep: Tuple[str, ...], extra: Dict[str, cst.BaseExpression]) -> cst.Call:
    """The call with only the `keep` arguments (in their order), then `extra` keywords."""
    args = [a for a in node.args if a.keyword is not None and a.keyword.value in keep]
    args += [call_args.keyword_arg(k, v) for k, v in extra.items()]
    return call_args.with_args(node, args)


Builder = Callable[[Context, cst.Call], Tuple[str, cst.Call]]


def _exponential(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
    if _staircase(ctx, node):
        return "StepDecay", _only(node, _KEEP, {"step_size": emit.required(node, "decay_steps"),
                                                "gamma": emit.required(node, "decay_rate")})
    return "ExponentialDecay", _only(node, _KEEP, {"gamma": _ratio(ctx, node, "decay_rate", "decay_steps", True)})


def _per_step(target: str) -> Builder:
    def build(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
        if _staircase(ctx, node):
            raise NeedsReview(f"staircase=True: no 2.x scheduler floors the {target} formula; use "
                              f"paddle.optimizer.lr.LambdaDecay")
        return target, _only(node, _KEEP, {"gamma": _ratio(ctx, node, "decay_rate", "decay_steps")})
    return build


def _polynomial(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
    return "PolynomialDecay", _rename(_only(node, ("learning_rate", "decay_steps", "end_learning_rate", "power",
                                                   "cycle", "name"), {}), {"end_learning_rate": "end_lr"})


def _piecewise(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
    return "PiecewiseDecay", _only(node, ("boundaries", "values", "name"), {})


def _noam(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
    return "NoamDecay", _only(node, ("d_model", "warmup_steps", "learning_rate", "name"), {})


def _linear_warmup(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
    """1.8.5's dygraph warm-up returns `(end_lr - start_lr) / warmup_steps * step` (no `+ start_lr`,
    `dygraph/learning_rate_scheduler.py:727`): 2.x's formula only when `start_lr` is 0, and only for a
    constant base rate (a nested 1.8 schedule advanced on its own clock)."""
    if emit.value_of(ctx, node, "start_lr") != 0:
        raise NeedsReview("start_lr is not 0: 1.8.5's dygraph warm-up leaves it out of the ramp")
    base = emit.value_of(ctx, node, "learning_rate")
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise NeedsReview("learning_rate is not a number")
    return "LinearWarmup", _only(node, ("learning_rate", "warmup_steps", "start_lr", "end_lr"), {})


def _cosine(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
    """1.8's cosine decay holds the rate for an epoch: `lr * 0.5 * (cos(floor(step / step_each_epoch) * pi /
    epochs) + 1)` (`layers/learning_rate_scheduler.py:455`, `dygraph/learning_rate_scheduler.py:556`);
    2.x's CosineAnnealingDecay moves every step, so the formula goes to LambdaDecay. The two numbers are
    default values of the lambda, read once as 1.8 read them when the schedule was made."""
    assert ctx.site is not None
    math = emit.stdlib_module(ctx, ctx.site, "math")
    rate = ctx.template("lambda epoch, step_each_epoch={steps}, epochs={epochs}: 0.5 * ({math}.cos({math}.floor("
                        "epoch / step_each_epoch) * {math}.pi / epochs) + 1)",
                        steps=emit.required(node, "step_each_epoch"), epochs=emit.required(node, "epochs"),
                        math=math)
    return "LambdaDecay", _only(node, ("learning_rate",), {"lr_lambda": rate})


def _unsupported(why: str) -> Builder:
    def build(ctx: Context, node: cst.Call) -> Tuple[str, cst.Call]:
        raise NeedsReview(why)
    return build


_WARMUP = ("1.8's warm-up formula differs between dygraph (no start_lr, from step 1) and static graphs; "
           "write paddle.optimizer.lr.LinearWarmup for the mode this code runs in")

# By the last part of the 1.8 name: dygraph classes and static functions share the formulas.
_BUILDERS: Dict[str, Builder] = {
    "ExponentialDecay": _exponential, "exponential_decay": _exponential,
    "NaturalExpDecay": _per_step("NaturalExpDecay"), "natural_exp_decay": _per_step("NaturalExpDecay"),
    "InverseTimeDecay": _per_step("InverseTimeDecay"), "inverse_time_decay": _per_step("InverseTimeDecay"),
    "PolynomialDecay": _polynomial, "polynomial_decay": _polynomial,
    "PiecewiseDecay": _piecewise, "piecewise_decay": _piecewise,
    "NoamDecay": _noam, "noam_decay": _noam,
    "CosineDecay": _cosine, "cosine_decay": _cosine,
    "LinearLrWarmup": _linear_warmup, "linear_lr_warmup": _unsupported(_WARMUP),
}


# The static counter starts at 0, but at 1 for Noam (`layers/learning_rate_scheduler.py:45`, noam_decay).
_STATIC_BEGIN = {"noam_decay": "1"}


def _scheduler(ctx: Context, site: Site, node: cst.Call, dygraph: bool) -> cst.Call:
    """The 2.x scheduler for a 1.8 decay call, starting where 1.8 started."""
    assert site.entry is not None
    short = site.entry.name.rsplit(".", 1)[-1]
    builder = _BUILDERS.get(short)
    if builder is None:
        raise NeedsReview(f"no 2.x scheduler known for {short}")
    target, new = builder(ctx, node)
    if dygraph:
        param = site.entry.param("begin")
        begin = call_args.get(node, "begin")
        source = ctx.code(begin.value).strip() if begin is not None else (param.default if param else None)
        if source is None:
            raise NeedsReview("`begin` is missing")
        step = call_args.get(node, "step")
        stepped = step is not None and not same_literal(step.value, "1", ctx)
        if short == "PiecewiseDecay":
            new = _piecewise_boundaries(ctx, node, new, begin.value if begin is not None else ctx.expr(source),
                                        step.value if stepped else None)
        elif stepped:
            raise NeedsReview("step= other than 1: 2.x schedulers advance by one")
    else:
        source = _STATIC_BEGIN.get(short, "0")
    try:
        last = str(int(source) - 1)
    except ValueError:
        last = f"{ctx.code(emit.parenthesized(ctx.expr(source))).strip()} - 1"
    if last != "-1":
        new = call_args.add(new, "last_epoch", ctx.expr(last))
    return emit.positional_again(ctx, site, new, LR + target).with_changes(func=emit.name(ctx, site, LR + target))


def _piecewise_boundaries(ctx: Context, node: cst.Call, new: cst.Call, begin: cst.BaseExpression,
                          step: Optional[cst.BaseExpression]) -> cst.Call:
    """The boundaries 2.x's PiecewiseDecay needs for 1.8's dygraph class (`dygraph/learning_rate_scheduler.py:173`).

    1.8's k-th rate is the one at `begin + k * step`; 2.x's, after `last_epoch=begin - 1` and k steps, at
    `begin + k`: `begin + k * step < b` is `begin + k < begin + ceil((b - begin) / step)`, the boundary
    2.x takes. 1.8 took as many values as boundaries too (the last one then serves from the last but one
    boundary on), where 2.x wants one value more: the last boundary goes. Both checked on 1.8.5 and 3.3.1
    (fixtures/legacy/piecewise_step_dygraph.py)."""
    boundaries = call_args.get(new, "boundaries")
    values = call_args.get(new, "values")
    if boundaries is None or values is None:
        raise NeedsReview("`boundaries` or `values` is missing")
    count, written = _length(ctx, values.value), boundaries.value
    if step is not None:
        numbers = [_literal_int(ctx, e) for e in (begin, step)]
        known = _literal_value(ctx, written)
        if None in numbers or numbers[1] <= 0 or not isinstance(known, (list, tuple)) \
                or not all(_is_int(b) for b in known):
            raise NeedsReview("step= other than 1: 2.x schedulers advance by one, and the boundaries and "
                              "`begin` are not integers written here to scale them by")
        first, size = numbers
        scaled = [first - (first - b) // size for b in known]  # ceil division, exact for integers
        written = ctx.expr(repr(scaled))
    why = piecewise_left(ctx, written, values.value)
    if why is not None:
        raise NeedsReview(why)
    length = _length(ctx, written)
    if length is not None and count == length:
        written = _first(ctx, written, length - 1)
    return new if written is boundaries.value else call_args.set_value(new, "boundaries", written)


def piecewise_left(ctx: Context, boundaries: cst.BaseExpression, values: cst.BaseExpression) -> Optional[str]:
    """Why 1.8's dygraph PiecewiseDecay with these boundaries and values has no 2.x form, or None."""
    count, length = _length(ctx, values), _length(ctx, boundaries)
    if count is None or length is None or count > length:
        return None
    if count < length:
        return "fewer values than boundaries: 1.8 raised IndexError at the steps between the boundaries past its last value"
    return "one boundary and one value: 2.x's PiecewiseDecay needs a value more" if length == 1 else None


def _literal_value(ctx: Context, node: cst.BaseExpression):
    try:
        return literal(node, ctx)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _literal_int(ctx: Context, node: cst.BaseExpression) -> Optional[int]:
    value = _literal_value(ctx, node)
    return value if _is_int(value) else None


def _length(ctx: Context, node: cst.BaseExpression) -> Optional[int]:
    """The number of items of a list or tuple written here or fixed by the file; None when unknown."""
    if isinstance(node, (cst.List, cst.Tuple)):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return len(node.elements)
    value = _literal_value(ctx, node)
    return len(value) if isinstance(value, (list, tuple)) else None


def _first(ctx: Context, node: cst.BaseExpression, count: int) -> cst.BaseExpression:
    """The first `count` items: the list written here cut short, else `node[:count]`."""
    if isinstance(node, (cst.List, cst.Tuple)):
        kept = list(node.elements[:count])
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(elements=kept)
    return ctx.template(f"{{node}}[:{count}]", node=emit.receiver(node))


# -- stepping ------------------------------------------------------------------------------------

def _optimizer_assignment(ctx: Context, scope: Scope, statement: cst.CSTNode,
                          value: Optional[cst.BaseExpression]) -> Optional[str]:
    """The name an optimizer is assigned to, when `statement` is `name = Optimizer(learning_rate=value)`."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign)):
        return None
    assign = statement.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name) \
            or not isinstance(assign.value, cst.Call):
        return None
    chain = dotted(assign.value.func)
    if chain is None:
        return None
    qualname = ctx.resolver.qualname(chain, scope)
    entry = ctx.table.lookup(qualname) if qualname is not None else None
    if entry is None or not entry.name.startswith(OPTIMIZERS):
        return None
    first = entry.args_list[0].name if entry.args_list else "learning_rate"
    for i, arg in enumerate(assign.value.args):
        is_lr = (arg.keyword.value == first) if arg.keyword is not None else i == 0
        if is_lr and arg.value is value:
            return assign.targets[0].target.value
    return None


class _MinimizeInLoops(StatementVisitor):
    """Statements `opt.minimize(...)` (or `x = opt.minimize(...)`) inside loops, in one scope."""

    def __init__(self, optimizer: str, root: cst.CSTNode) -> None:
        super().__init__()
        self.optimizer, self.root = optimizer, root
        self.loops = 0
        self.found: List[cst.SimpleStatementLine] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is self.root

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_For(self, node: cst.For) -> None:
        self.loops += 1

    def leave_For(self, node: cst.For) -> None:
        self.loops -= 1

    def visit_While(self, node: cst.While) -> None:
        self.loops += 1

    def leave_While(self, node: cst.While) -> None:
        self.loops -= 1

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if not self.loops or len(node.body) != 1:
            return
        small = node.body[0]
        value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
        if isinstance(value, cst.Call) and dotted(value.func) == f"{self.optimizer}.minimize":
            self.found.append(node)


def _assigned_name(ctx: Context, site: Site) -> Optional[str]:
    """`name` when the statement being upgraded is `name = <this call>`."""
    statement = ctx.statements[-1] if ctx.statements else None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                and isinstance(small.value, cst.Call) and small.value.func is site.node:
            return small.targets[0].target.value
    return None


def _never_read(ctx: Context, scope: Scope, name: str) -> bool:
    """Whether the function's local `name` is only ever assigned to, as a whole (nested functions and
    comprehensions included, which could read it): a schedule made and dropped, as dygraph/ocr_recognition's
    `learning_rate` when the optimizer was given a number."""
    if not isinstance(scope.node, cst.FunctionDef) or name in scope.globals or name in scope.nonlocals:
        return False
    ctx.reads(scope.node, words=(name,))
    written = set()  # the names that are no reads: assignment targets, keywords, attributes
    for node in descendants(scope.node):
        if isinstance(node, cst.AssignTarget):
            written.add(id(node.target))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            written.add(id(node.keyword))
        elif isinstance(node, cst.Attribute):
            written.add(id(node.attr))
    return all(id(n) in written for n in descendants(scope.node) if isinstance(n, cst.Name) and n.value == name)


def _optimizers_using(ctx: Context, scope: Scope, scheduler: str) -> List[str]:
    """Names of optimizers assigned in the scope with `learning_rate=<scheduler>`."""
    found: List[str] = []
    scope_node = scope.node

    class Finder(StatementVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is scope_node

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return node is scope_node

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            small = node.body[0] if len(node.body) == 1 else None
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                for arg in small.value.args:
                    if isinstance(arg.value, cst.Name) and arg.value.value == scheduler:
                        target = _optimizer_assignment(ctx, scope, node, arg.value)
                        if target is not None:
                            found.append(target)

    scope_node.visit(Finder())
    return found


def _runs_in_loops(ctx: Context, scope_node: cst.CSTNode, program: Optional[str]) -> List[cst.SimpleStatementLine]:
    """Statements `exe.run(program, ...)` (or `x = exe.run(...)`) inside loops of one scope; `program`
    None is the default main program (`exe.run()` without one, or with `default_main_program()`)."""
    found: List[cst.SimpleStatementLine] = []
    loops = [0]

    def runs(call: cst.Call) -> bool:
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "run"):
            return False
        given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "program"),
                     call.args[0].value if call.args and call.args[0].keyword is None else None)
        if program is None:
            return given is None or (isinstance(given, cst.Call) and (dotted(given.func) or "").endswith(
                "default_main_program"))
        return isinstance(given, cst.Name) and given.value == program

    class Finder(StatementVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is scope_node

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return node is scope_node

        def visit_For(self, node: cst.For) -> None:
            loops[0] += 1

        def leave_For(self, node: cst.For) -> None:
            loops[0] -= 1

        def visit_While(self, node: cst.While) -> None:
            loops[0] += 1

        def leave_While(self, node: cst.While) -> None:
            loops[0] -= 1

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            small = node.body[0] if len(node.body) == 1 else None
            value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if loops[0] and isinstance(value, cst.Call) and runs(value):
                found.append(node)

    scope_node.visit(Finder())
    return found


def _guarded_program(ctx: Context) -> Optional[str]:
    """The program of the innermost `with program_guard(P, ...)` around the statement being upgraded."""
    for statement in reversed(ctx.statements):
        if isinstance(statement, cst.With) and len(statement.items) == 1 and isinstance(statement.items[0].item, cst.Call):
            call = statement.items[0].item
            if (dotted(call.func) or "").endswith("program_guard") and call.args \
                    and isinstance(call.args[0].value, cst.Name):
                return call.args[0].value.value
    return None


def _fetched_rate(ctx: Context, runs: List[cst.SimpleStatementLine], scheduler: str, program: str) -> None:
    """`fetch_list=[lr]` / `[lr.name]` of those runs: the program's learning-rate variable in 2.x."""
    for statement in runs:
        call = statement.body[0].value  # type: ignore[attr-defined]
        fetch = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "fetch_list"), None)
        if not isinstance(fetch, (cst.List, cst.Tuple)):
            continue
        for element in fetch.elements:
            value = element.value
            named = isinstance(value, cst.Attribute) and value.attr.value == "name"
            fetched = value.value if isinstance(value, cst.Attribute) and named else value
            if isinstance(fetched, cst.Name) and fetched.value == scheduler:
                text = f"{program}.lr_var" + (".name" if named else "")
                ctx.replace(value, lambda updated, text=text: ctx.expr(text))


def _step_after_runs(ctx: Context, site: Site, new: cst.Call) -> Optional[cst.BaseExpression]:
    """A static schedule bound to a name (once in its scope): stepped after each run of its program in
    a loop. None, with nothing written, when the file does not show those runs."""
    scheduler = _assigned_name(ctx, site)
    if scheduler is None or len(site.scope.bindings.get(scheduler, ())) != 1:
        return None
    program = _guarded_program(ctx)
    runs = _runs_in_loops(ctx, site.scope.node, program)
    if not runs:
        from refactors.transformers import lr_decay_elsewhere  # it builds on this module

        if lr_decay_elsewhere.step_runs_where_built(ctx, site, scheduler):
            return emit.converted(site, new)
        return None
    for run in runs:
        ctx.insert_around(run, after=[ctx.statement(f"{scheduler}.step()\n")])
    if program is None:  # the runs are the default main program's, where the optimizer keeps its rate too
        program = ctx.code(emit.name(ctx, site, "paddle.static.default_main_program")) + "()"
    _fetched_rate(ctx, runs, scheduler, program)
    zero_d.produced(ctx, site)
    return emit.converted(site, new)


def _todo_step(ctx: Context, site: Site, new: cst.Call, scheduler: Optional[str]) -> cst.BaseExpression:
    name = scheduler or "the scheduler"
    why = f"1.8 advanced this learning-rate schedule on every optimizer step; call {name}.step() after each one"
    ctx.todo(why, new)
    site.finding = ctx.report(site, F.NEEDS_REVIEW, "warning", f"{site.name}: converted; {why}", False)
    return emit.converted(site, new)


def _step_after_minimize(ctx: Context, site: Site, new: cst.Call,
                         written: Callable[[], Optional[cst.BaseExpression]]) -> cst.BaseExpression:
    """`new` (a 2.x scheduler) stepped after each `minimize` of its optimizers the file shows; else what
    `written` gives (1.8's class in the module, advanced by the optimizer), else `new` marked TODO."""
    scope_node = site.scope.node
    statement = ctx.statements[-1] if ctx.statements else None
    scheduler = _assigned_name(ctx, site)
    optimizers: List[str] = []
    before: List[cst.BaseStatement] = []
    result: cst.BaseExpression = new
    if scheduler is not None and len(site.scope.bindings.get(scheduler, ())) == 1:  # (else which one is given?)
        optimizers = _optimizers_using(ctx, site.scope, scheduler)
    elif statement is not None:
        optimizer = _optimizer_assignment(ctx, site.scope, statement, emit.original_call(ctx, site))
        optimizers = [optimizer] if optimizer is not None else []
    steps: List[cst.SimpleStatementLine] = []
    for optimizer in optimizers:
        finder = _MinimizeInLoops(optimizer, scope_node)
        scope_node.visit(finder)
        steps += finder.found
    if steps and scheduler is None:  # an inline schedule: bind it to a new name first
        scheduler = ctx.fresh_name(site.scope, "lr_scheduler")
        before = [cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(scheduler))],
                                                           value=new)])]
        result = cst.Name(scheduler)
    if not steps:
        from refactors.transformers import lr_decay_elsewhere, lr_decay_returned  # they build on this module

        if lr_decay_elsewhere.stepped_in_callees(ctx, site):
            return emit.converted(site, result)
        returned = lr_decay_returned.scheduler_name(ctx, site, optimizers[0]) \
            if scheduler is None and len(optimizers) == 1 else None
        if returned is not None:  # the function returns the optimizer: it returns the schedule too
            ctx.insert_around(statement, before=[cst.SimpleStatementLine(body=[cst.Assign(
                targets=[cst.AssignTarget(cst.Name(returned))], value=new)])])  # type: ignore[arg-type]
            return emit.converted(site, cst.Name(returned))
    if scheduler is not None and not steps and _never_read(ctx, site.scope, scheduler):
        return emit.converted(site, result)  # it drives no optimizer: 1.8 never advanced it either
    if scheduler is None or not steps:
        return written() or _todo_step(ctx, site, new, scheduler)
    if before:
        ctx.insert_around(statement, before=before)  # type: ignore[arg-type]
    for minimize in steps:
        ctx.insert_around(minimize, after=[ctx.statement(f"{scheduler}.step()\n")])
    return emit.converted(site, result)


def _dygraph(ctx: Context, site: Site, node: cst.Call, dygraph_class: bool) -> cst.BaseExpression:
    """A schedule 1.8 made as a dygraph class: the 2.x scheduler stepped where the file shows the optimizer
    steps, else 1.8's class written in the module (`lr_decay_class.py`), which the optimizer advances."""
    imports = set(ctx.imports)

    def written() -> Optional[cst.BaseExpression]:
        scheduler_form = set(ctx.imports)
        ctx.imports.intersection_update(imports)  # the scheduler form is dropped, and with it what it imported
        found = lr_decay_class.written_schedule(ctx, site, node, dygraph_class)
        if found is None:
            ctx.imports.update(scheduler_form)
        return found

    try:
        new = _scheduler(ctx, site, node, dygraph=dygraph_class)
    except NeedsReview:
        found = written()
        if found is None:
            raise
        return found
    return _step_after_minimize(ctx, site, new, written)


@register("lr_decay_dygraph", reads=(SCOPE,))  # optimizers given the schedule, their `minimize` in loops
def lr_decay_dygraph(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _dygraph(ctx, site, node, dygraph_class=True)


def static_graph(ctx: Context, node: cst.CSTNode) -> bool:
    """Whether the schedule at `node` is built into a static program: the file builds static graphs
    (once upgraded, the module's `runtime_shim.enable_static()` line says so), outside a dygraph guard.
    (`paddle.enable_static()` says less: the dygraph guard's restoring form calls it too.)"""
    static = ctx.static_file() or "runtime_shim.enable_static()" in ctx.source
    return static and not ctx.in_dygraph_guard(node)


@register("lr_decay_static", reads=(SCOPE,))
def lr_decay_static(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if not static_graph(ctx, site.node):
        return _dygraph(ctx, site, node, dygraph_class=False)
    if not lr_in_program.applies(ctx):
        new = _scheduler(ctx, site, node, dygraph=False)
        return _step_after_runs(ctx, site, new) or _todo_step(ctx, site, new, _assigned_name(ctx, site))
    imports = set(ctx.imports)
    try:
        stepped = _step_after_runs(ctx, site, _scheduler(ctx, site, node, dygraph=False))
    except NeedsReview:  # no 2.x scheduler computes it
        stepped = None
    if stepped is None:  # the scheduler form is dropped, and with it what it imported (cosine's `math`)
        ctx.imports.intersection_update(imports)
    return stepped or emit.converted(site, lr_in_program.rate(ctx, site, node, _assigned_name(ctx, site)))
