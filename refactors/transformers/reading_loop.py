"""The loops that read a non-iterable loader, as `for` loops over the 2.x DataLoader that feed each batch.

1.8's `DataLoader.from_generator(..., iterable=False)` (and `PyReader(iterable=False)`) added reading
operators to the program: each run of the program read the next batch into the feed variables, and the
end of the data raised `fluid.core.EOFException` until `reset()`. 2.x has no such loader; its
`paddle.io.DataLoader` is iterated, each batch fed to `Executor.run`. So

    loader.start()
    while True:
        try:
            outputs = exe.run(program, fetch_list=fetch_list)
            ...
        except fluid.core.EOFException:
            loader.reset()
            break

becomes `for batch in loader:` over the same statements, the run given `feed=batch`, followed by what the
handler did before `reset()` (checked on 1.8.5 and 3.3.1: fixtures/legacy/reading_loop_static.py,
reading_loop_ahead_static.py). Only this shape is taken, where it runs the same steps: the `try` body runs
exactly one program on each pass (the run that reads, with no feed of its own; any other run could read
too), and neither `break` of the loop nor `yield`, and `return` only in the scope that holds the loader
(BERT's benchmark limit; 1.8's loader left started is read again from wherever its thread had got:
fixtures/legacy/reading_loop_leaves_static.py); the handler (catching EOFException alone, its name
unused) ends with `reset()` then `break`; between `start()` and the loop only assignments of literals or
attribute chains that do not read what they bind. A loop with a test of its own (`while steps < max_steps:`,
naming no loader) is taken too, read from `iter(loader)` as below, its test kept: 1.8 tested it before each
run and, where it failed, left the loop without reading or resetting, as the `while` below does. 1.8 ran
the statements before the run once more at the end of the data: where they are other than such assignments
(`steps += 1`), or other statements stand
between `start()` and the loop (that neither name the loader, nor run a program, nor leave; the loop may stand
in the body of a `with` among them, its items such statements too: XLNet's `with open(...) as fout:`,
fixtures/legacy/reading_loop_in_with_static.py), the run
must be a statement of its own, and the loop stays a `while`, taking each batch where the run read it:

    loader_batches = iter(loader)                  # where start() was
    while True:
        steps += 1
        batch = next(loader_batches, None)
        if batch is None:
            <the handler's statements before reset()>
            break
        outputs = exe.run(program, fetch_list=fetch_list, feed=batch)
        ...

The `try` may stand around the loop instead, the program reading until the end of the data breaks out
of it, `reset()` ending the handler or opening its `finally` (`start()` just before the `try` or the first
statement of its body):

    try:
        loader.start()
        while True:
            outputs = exe.run(program, fetch_list=fetch_list)
            ...
    except fluid.core.EOFException:
        <handled>
    finally:
        loader.reset()
        <the rest>

becomes `try: for batch in loader: ...` (or the `while` reading from `iter(loader)` as above, breaking where
the data ends) followed by what the handler did, and the `finally` without `reset()`; where nothing is left
of the `finally`, the `try` goes and its statements take its place (checked on 1.8.5 and 3.3.1:
fixtures/legacy/reading_try_static.py). The handler then runs after the loop, in the same enclosing loop
as before, so it may hold anything but a bare `raise` (which re-raised the EOFException) and a use of the
loader; the loop must be the last statement of the `try` (nothing after it ran in 1.8).
Anything else is left (runtime_shim serves it) with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from api_mapping.namespaces import EOF_EXCEPTIONS
from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import names_in
from refactors.scopes import bound_names, descendants, dotted
from refactors.transformers import emit


@dataclass
class ReadingLoop:
    """`loader.start()`, then the `while True` loop that reads until the end of the data (or the `try` around
    it)."""

    start: cst.SimpleStatementLine
    loop: cst.BaseCompoundStatement  # the `while` loop, or in the second shape the `try` around it
    uses: Set[int]  # ids of the loader's `start`/`reset` attributes in them
    ahead: bool = False  # read from `iter(loader)`: statements 1.8 ran before the run once more at the end
    around: bool = False  # the second shape: `loop` is the `try` around the `while`
    reset_in_finally: bool = False  # (the second shape) `reset()` opens its `finally`, else ends its handler


def _method_call(stmt: cst.CSTNode, loader: str, method: str) -> Optional[cst.Attribute]:
    """The `loader.<method>` attribute when `stmt` is `loader.<method>()` alone."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        call = stmt.body[0].value
        if isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute) and \
                isinstance(call.func.value, cst.Name) and call.func.value.value == loader and \
                call.func.attr.value == method:
            return call.func
    return None


def _plain_assignment(ctx: Context, stmt: cst.CSTNode) -> bool:
    """`name = value` (or `a, b = value_a, value_b`), where each value is a literal or built of attribute
    chains and does not read the names bound."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return False
    assign = stmt.body[0]
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    names = [target] if isinstance(target, cst.Name) else [e.value for e in target.elements] \
        if isinstance(target, cst.Tuple) and isinstance(assign.value, cst.Tuple) and \
        len(target.elements) == len(assign.value.elements) else []
    if not names or not all(isinstance(name, cst.Name) for name in names):
        return False
    value = assign.value
    parts = [e.value for e in value.elements] if isinstance(value, (cst.List, cst.Tuple)) else [value]
    if not all(emit.is_literal(ctx, part) or emit.pure(part) for part in parts):
        return False
    return not {name.value for name in names} & names_in(value)  # type: ignore[attr-defined]


def _block_of(root: cst.CSTNode, stmt: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    for node in descendants(root):
        body = node.body if isinstance(node, (cst.Module, cst.IndentedBlock)) else ()
        if any(s is stmt for s in body):
            return body
    return ()


# Expressions that may not evaluate a part of them (the run must read on each pass: loader_reads' list).
_SOMETIMES = (cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)


def _runs(node: cst.CSTNode) -> List[cst.Call]:
    return [n for n in descendants(node) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
            and n.func.attr.value == "run"]


def _leaves_loop(body: cst.CSTNode) -> bool:
    """A `break`/`continue` of the loop around `body`, or a `return`/`yield` in it."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Break, cst.Continue, cst.Return, cst.Yield)):
            return True
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        for child in node.children:
            if isinstance(node, (cst.For, cst.While)) and child is not node.orelse:
                # a nested loop's own break/continue stay in it; look only for return/yield there
                if any(isinstance(n, (cst.Return, cst.Yield)) for n in descendants(child)):
                    return True
                continue
            stack.append(child)
    return False


def _leaves_early(body: cst.CSTNode, returns: bool) -> bool:
    """The loop body leaves the loop other than where the rewrite does as 1.8 did: by `yield`, `break`, or
    unless `returns`, `return`. 1.8's loader left started was read again from wherever its thread had got
    (checked on 1.8.5: batches skipped or twice), a new pass over the 2.x loader from the first batch; a
    `return` from the scope that holds the loader (`returns`) leaves nothing to read it again. A `continue`
    goes to the next pass of both."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Yield, cst.Break)) or isinstance(node, cst.Return) and not returns:
            return True
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        for child in node.children:
            if isinstance(node, (cst.For, cst.While)) and child is not node.orelse:
                # a nested loop's own break stays in it
                if any(isinstance(n, cst.Yield) or isinstance(n, cst.Return) and not returns
                       for n in descendants(child)):
                    return True
                continue
            stack.append(child)
    return False


def _reading_try(ctx: Context, site: Site, loop: cst.While, loader: str,
                 between: bool) -> Tuple[Set[int], bool]:
    """The ids of `loader.reset` in the loop when it has a shape taken, and whether it is read from
    `iter(loader)` (`ahead`: statements before the run that ran once more at the end of the data, or
    `between` start() and the loop, or a test of the loop's own); else NeedsReview."""
    tested = _tested(loop, loader)
    if not (_endless(loop) or tested) or len(loop.body.body) != 1 or not isinstance(loop.body.body[0], cst.Try):
        raise NeedsReview(f"`{loader}.start()` is not followed by `while True:` around one `try`")
    attempt = loop.body.body[0]
    if len(attempt.handlers) != 1 or attempt.orelse is not None or attempt.finalbody is not None:
        raise NeedsReview("the reading loop's `try` has other handlers, `else` or `finally`")
    handler = _eof_handler(ctx, site, attempt)
    statements = handler.body.body
    reset = _method_call(statements[-2], loader, "reset") if len(statements) >= 2 else None
    ends = len(statements) >= 2 and isinstance(statements[-1], cst.SimpleStatementLine) and \
        len(statements[-1].body) == 1 and isinstance(statements[-1].body[0], cst.Break)
    extra = list(statements[:-2])
    if reset is None or not ends or any(loader in names_in(stmt) or _leaves_loop(stmt) for stmt in extra):
        raise NeedsReview(f"the EOFException handler does not end with `{loader}.reset()` then `break`")
    return {id(reset)}, _read_by_one_run(ctx, site, attempt.body, between or tested)


def _endless(loop: cst.CSTNode) -> bool:
    """`while True:` without `else`."""
    return isinstance(loop, cst.While) and isinstance(loop.test, cst.Name) and loop.test.value == "True" and \
        loop.orelse is None


def _tested(loop: cst.CSTNode, loader: str) -> bool:
    """`while <test>:` without `else`, the test naming no loader (BERT's `while steps < max_train_steps:`): 1.8
    evaluated it before each run, and left the loop without reading (nor resetting) where it failed; read from
    `iter(loader)`, the loop keeps its test and takes each batch where the run read it, which does the same."""
    return isinstance(loop, cst.While) and loop.orelse is None and not _endless(loop) and \
        loader not in names_in(loop.test) and not any(isinstance(n, (cst.Yield, cst.Await, cst.NamedExpr))
                                                      for n in descendants(loop.test))


def _eof_handler(ctx: Context, site: Site, attempt: cst.Try) -> cst.ExceptHandler:
    """The one handler of `attempt` when it catches EOFException alone, its name (if any) unused; else
    NeedsReview."""
    handler = attempt.handlers[0]
    chain = dotted(handler.type) if handler.type is not None else None
    caught = handler.name.name.value if isinstance(handler.name, cst.AsName) and \
        isinstance(handler.name.name, cst.Name) else None
    if chain is None or ctx.resolver.qualname(chain, site.scope) not in EOF_EXCEPTIONS or \
            (handler.name is not None and (caught is None or caught in names_in(handler.body))):
        raise NeedsReview("the reading loop does not catch fluid.core.EOFException alone")
    return handler


def _read_by_one_run(ctx: Context, site: Site, block: cst.BaseSuite, between: bool) -> bool:
    """Whether the loop body `block`, which runs one program on each pass (the run that reads, with no feed of
    its own, a statement of its own or in one), is read from `iter(loader)` (`ahead`: statements before the
    run that ran once more at the end of the data, or `between` start() and the loop); else NeedsReview."""
    runs = _runs(block)
    if len(runs) != 1:
        raise NeedsReview(f"the reading loop runs {len(runs)} programs: which of them read the loader is not "
                          f"in sight")
    run = runs[0]
    if call_args.has_star(run) or any(call_args.get(run, name) for name in ("feed", "feed_dict")) or \
            sum(arg.keyword is None for arg in run.args) > 1:
        raise NeedsReview("the program run in the reading loop is given a feed of its own")
    body = block.body
    index = next(i for i, stmt in enumerate(body) if any(r is run for r in _runs(stmt)))
    if not isinstance(body[index], cst.SimpleStatementLine) or any(
            isinstance(n, _SOMETIMES) and any(r is run for r in _runs(n)) for n in descendants(body[index])):
        raise NeedsReview("the run in the reading loop may not run on every pass")
    ahead = between or not all(_plain_assignment(ctx, stmt) for stmt in body[:index]) or \
        bool(set().union(*(names_in(stmt.body[0].value) for stmt in body[:index])) &  # type: ignore
             bound_names(block))
    if ahead and not _run_alone(body[index], run):
        raise NeedsReview("statements before the run in the reading loop ran once more in 1.8, at the end of the "
                          "data (or run between start() and the loop), and the run is not a statement of its own")
    if ahead and any(ctx.resolver.lookup(name, site.scope) is not None for name in ("iter", "next")):
        raise NeedsReview("`iter` or `next` is rebound where the loader is read")
    return ahead


def _reading_around(ctx: Context, site: Site, attempt: cst.Try, loader: str, start: cst.BaseStatement,
                    started: cst.Attribute) -> ReadingLoop:
    """The second shape: `attempt` holds (after `start()`, when it is its first statement) the statements
    before the loop and, last, the `while True:` loop; its handler catches the EOFException and `reset()`
    ends it or opens the `finally`. NeedsReview otherwise. (`started`: the `loader.start` of `start`.)"""
    body = list(attempt.body.body)
    inside = body[:1] == [start]
    loop = body[-1] if body else None
    if not _endless(loop) or any(isinstance(stmt, cst.While) for stmt in body[:-1]):
        raise NeedsReview(f"the `try` after `{loader}.start()` does not end with the `while True:` loop that "
                          f"reads it")
    if len(attempt.handlers) != 1 or attempt.orelse is not None:
        raise NeedsReview("the `try` around the reading loop has other handlers or `else`")
    handler = _eof_handler(ctx, site, attempt)
    handled = list(handler.body.body)
    first = attempt.finalbody.body.body[0] if attempt.finalbody is not None else None
    reset = _method_call(handled[-1], loader, "reset") if handled else None
    in_finally = reset is None and first is not None
    reset = reset or (_method_call(first, loader, "reset") if first is not None else None)
    rest = handled[:-1] if not in_finally else handled
    kept = attempt.finalbody.body.body[1 if in_finally else 0:] if attempt.finalbody is not None else ()
    if reset is None or any(loader in names_in(stmt) for stmt in (*rest, *kept)):
        raise NeedsReview(f"`{loader}.reset()` neither ends the EOFException handler nor opens the `finally`")
    if any(isinstance(n, cst.Raise) and n.exc is None for stmt in rest for n in descendants(stmt)):
        raise NeedsReview("the EOFException handler re-raises it")
    between = body[1 if inside else 0:-1]
    if not all(_plain_assignment(ctx, stmt) or _apart_from(stmt, loader) for stmt in between):
        raise NeedsReview(f"statements between `{loader}.start()` and the loop that reads it name it, run a "
                          f"program or leave")
    ahead = _read_by_one_run(ctx, site, loop.body, not all(_plain_assignment(ctx, stmt) for stmt in between))
    return ReadingLoop(start, attempt, {id(reset), id(started)}, ahead, True, in_finally)  # type: ignore[arg-type]


def _apart_from(stmt: cst.BaseStatement, loader: str) -> bool:
    """`stmt` may run between `start()` and the loop where `iter(loader)` stands for `start()`: it neither
    names the loader nor runs a program (which may read it), nor leaves the block."""
    return loader not in names_in(stmt) and not _runs(stmt) and not _leaves_loop(stmt)


def _opens_apart(stmt: cst.BaseStatement, loader: str) -> bool:
    """`stmt` is a `with` (its body an indented block) whose items may run between `start()` and the loop, as
    `_apart_from` statements do: its body runs once, right after them, so the loop may stand in it."""
    return isinstance(stmt, cst.With) and stmt.asynchronous is None and isinstance(stmt.body, cst.IndentedBlock) \
        and all(_apart_from(item, loader) for item in stmt.items)  # type: ignore[arg-type]


def _run_alone(stmt: cst.BaseStatement, run: cst.Call) -> bool:
    """`stmt` is `run(...)` or `target = run(...)` alone on its line."""
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    return isinstance(small, (cst.Expr, cst.Assign)) and small.value is run


def own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of `root`'s scope in source order, not those of the definitions in it."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node is root or not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(reversed(node.children))


def reading_loops(ctx: Context, site: Site, loader: str, setter: cst.BaseStatement,
                  owner: bool = True) -> List[ReadingLoop]:
    """Every `loader.start()` of the scope (after `setter`, the statement that sets its data source) with
    the loop that reads it; NeedsReview where one has another shape, or leaves the loop early (`owner`: the
    scope holds the loader, not a parameter, so a `return` leaves nothing to read it again)."""
    found, set_ = [], False
    for stmt in own_nodes(site.scope.node):
        set_ = set_ or stmt is setter
        start = _method_call(stmt, loader, "start")
        if start is None:
            continue
        if not set_:
            raise NeedsReview(f"`{loader}.start()` comes before its data source is set")
        block = list(_block_of(site.scope.node, stmt))
        index = next(i for i, s in enumerate(block) if s is stmt) + 1
        around = _try_around(ctx, site, stmt, block, index)
        if around is not None:
            found.append(_reading_around(ctx, site, around, loader, stmt, start))
            continue
        between = False  # statements other than plain assignments between start() and the loop
        while index < len(block) and not isinstance(block[index], cst.While):
            if _plain_assignment(ctx, block[index]) or _apart_from(block[index], loader):
                between = between or not _plain_assignment(ctx, block[index])
                index += 1
            elif _opens_apart(block[index], loader):  # the loop in a `with` (XLNet's `with open(...) as fout:`)
                block, index, between = list(block[index].body.body), 0, True  # type: ignore[attr-defined]
            else:
                break
        if index == len(block) or not isinstance(block[index], cst.While):
            raise NeedsReview(f"`{loader}.start()` is not followed by the loop that reads it")
        uses, ahead = _reading_try(ctx, site, block[index], loader, between)
        found.append(ReadingLoop(stmt, block[index], uses | {id(start)}, ahead))  # type: ignore[arg-type]
    if not found:
        raise NeedsReview(f"iterable=False, and no `{loader}.start()` with the loop that reads it is in sight")
    for each in found:
        loop = each.loop if isinstance(each.loop, cst.While) else each.loop.body.body[-1]  # (in the `try`)
        body = loop.body.body[0].body if isinstance(each.loop, cst.While) else loop.body  # (the `try`'s)
        if _leaves_early(body, owner):
            raise NeedsReview("the reading loop is left early (by break, yield, or return where the loader was "
                              "given), after which 1.8 read it again from where its thread had got")
    return found


def _try_around(ctx: Context, site: Site, start: cst.BaseStatement, block: Sequence[cst.BaseStatement],
                index: int) -> Optional[cst.Try]:
    """The `try` whose body `start()` opens or, where there is none, the `try` right after it, when it
    catches the EOFException (the second shape)."""
    found = next((node for node in descendants(site.scope.node) if isinstance(node, cst.Try) and
                  node.body.body[:1] and node.body.body[0] is start), None)
    if found is None and index < len(block) and isinstance(block[index], cst.Try):
        found = block[index]
    catches = found is not None and any(
        handler.type is not None and dotted(handler.type) is not None and
        ctx.resolver.qualname(dotted(handler.type), site.scope) in EOF_EXCEPTIONS for handler in found.handlers)
    return found if catches else None


class _FeedTheRun(cst.CSTTransformer):
    """Give the one `.run(...)` call `feed=<batch>`."""

    def __init__(self, batch: str) -> None:
        super().__init__()
        self.batch = batch

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "run":
            return call_args.add(updated, "feed", cst.Name(self.batch))
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def rewrite(ctx: Context, site: Site, loader: str, loops: Sequence[ReadingLoop]) -> None:
    """`start()` goes, each loop becomes `for <batch> in loader:` over the `try` body, its run fed, followed by
    what the handler did before `reset()`; a loop with statements `ahead` of the run reads the batches from
    `iter(loader)` (made where `start()` was) instead, those statements running once more at the end, as
    in 1.8 (`_ahead`)."""
    batch = ctx.fresh_name(site.scope, "batch")
    batches = ctx.fresh_name(site.scope, f"{loader}_batches") if any(found.ahead for found in loops) else None

    def remove(updated: cst.CSTNode) -> cst.FlattenSentinel:
        return cst.FlattenSentinel([])

    def started(updated: cst.CSTNode) -> cst.CSTNode:
        made = cst.Call(cst.Name("iter"), [cst.Arg(cst.Name(loader))])
        return updated.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(batches))], made)])  # type: ignore

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        attempt = updated.body.body[0]  # type: ignore[attr-defined]
        body = attempt.body.visit(_FeedTheRun(batch))
        loop = cst.For(target=cst.Name(batch), iter=cst.Name(loader), body=body,
                       leading_lines=updated.leading_lines)  # type: ignore[attr-defined]
        handled = list(attempt.handlers[0].body.body[:-2])
        return cst.FlattenSentinel([loop, *handled]) if handled else loop

    def ahead(updated: cst.CSTNode) -> cst.CSTNode:
        return _ahead(updated, batch, batches)  # type: ignore[arg-type]

    for found in loops:
        ctx.replace(found.start, started if found.ahead else remove)
        if found.around:
            ctx.replace(found.loop, lambda updated, f=found: _around(updated, f, loader, batch, batches))
        else:
            ctx.replace(found.loop, ahead if found.ahead else build)


def _ahead(loop: cst.While, batch: str, batches: str) -> cst.While:
    """`while True:` over the `try` body, the next batch taken where the run read it, the handler's
    statements where there is none left:

        while True:
            <statements before the run>
            batch = next(batches, None)
            if batch is None:
                <the handler's statements before reset()>
                break
            <the run, fed the batch>
            <the rest>
    """
    attempt: cst.Try = loop.body.body[0]  # type: ignore[assignment]
    new = _taken_at_run(list(attempt.body.body), list(attempt.handlers[0].body.body[:-2]), batch, batches)
    return loop.with_changes(body=loop.body.with_changes(body=new))


def _taken_at_run(body: List[cst.BaseStatement], handled: List[cst.BaseStatement], batch: str,
                  batches: str) -> List[cst.BaseStatement]:
    """The loop body `body` taking the next batch where its run reads it, running `handled` then leaving
    the loop where there is none left."""
    index = next(i for i, stmt in enumerate(body) if _runs(stmt))
    taken = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(batch))], cst.Call(
        cst.Name("next"), [cst.Arg(cst.Name(batches)), cst.Arg(cst.Name("None"))]))])
    end = cst.If(test=cst.Comparison(cst.Name(batch), [cst.ComparisonTarget(cst.Is(), cst.Name("None"))]),
                 body=cst.IndentedBlock([*handled, cst.SimpleStatementLine([cst.Break()])]))
    return [*body[:index], taken, end, body[index].visit(_FeedTheRun(batch)), *body[index + 1:]]


def _around(attempt: cst.Try, found: ReadingLoop, loader: str, batch: str,
            batches: Optional[str]) -> cst.CSTNode:
    """The second shape: the loop reads the 2.x loader (`for`, or `while` taking from `iter(loader)`),
    the handler's statements follow it, the `finally` keeps what is not `reset()`; a `try` with nothing
    left to handle gives way to its statements."""
    body = list(attempt.body.body)
    loop: cst.While = body[-1]  # type: ignore[assignment]
    if found.ahead:
        read: cst.BaseStatement = loop.with_changes(body=loop.body.with_changes(
            body=_taken_at_run(list(loop.body.body), [], batch, batches)))  # type: ignore[arg-type]
    else:
        read = cst.For(target=cst.Name(batch), iter=cst.Name(loader), body=loop.body.visit(_FeedTheRun(batch)),
                       leading_lines=loop.leading_lines)  # type: ignore[arg-type]
    handled = [stmt for stmt in attempt.handlers[0].body.body if not _is_pass(stmt)]  # (a block's filler there)
    statements = [*body[:-1], read, *(handled if found.reset_in_finally else handled[:-1])]
    final = attempt.finalbody
    if final is not None and found.reset_in_finally:
        kept = list(final.body.body[1:])
        final = final.with_changes(body=final.body.with_changes(body=kept)) if kept else None
    if final is not None:
        return attempt.with_changes(body=attempt.body.with_changes(body=statements), handlers=(), finalbody=final)
    statements[0] = statements[0].with_changes(leading_lines=(*attempt.leading_lines, *statements[0].leading_lines))
    return cst.FlattenSentinel(statements)


def _is_pass(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(small, cst.Pass) for small in stmt.body)
