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
exactly one program (the run that reads, with no feed of its own; any other run could read too), and
neither `break`, `continue` nor `return` of the loop; the handler (catching EOFException alone, its name
unused) ends with `reset()` then `break`; between `start()` and the loop only assignments of literals or
attribute chains that do not read what they bind. 1.8 ran the statements before the run once more at the
end of the data: where they are other than such assignments (`steps += 1`), or other statements stand
between `start()` and the loop (that neither name the loader, nor run a program, nor leave), the run
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
    """`loader.start()`, then the `while True` loop that reads until the end of the data."""

    start: cst.SimpleStatementLine
    loop: cst.While
    uses: Set[int]  # ids of the loader's `start`/`reset` attributes in them
    ahead: bool = False  # read from `iter(loader)`: statements 1.8 ran before the run once more at the end


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


def _reading_try(ctx: Context, site: Site, loop: cst.While, loader: str,
                 between: bool) -> Tuple[Set[int], bool]:
    """The ids of `loader.reset` in the loop when it has a shape taken, and whether it is read from
    `iter(loader)` (`ahead`: statements before the run that ran once more at the end of the data, or
    `between` start() and the loop); else NeedsReview."""
    if not (isinstance(loop.test, cst.Name) and loop.test.value == "True") or loop.orelse is not None or \
            len(loop.body.body) != 1 or not isinstance(loop.body.body[0], cst.Try):
        raise NeedsReview(f"`{loader}.start()` is not followed by `while True:` around one `try`")
    attempt = loop.body.body[0]
    if len(attempt.handlers) != 1 or attempt.orelse is not None or attempt.finalbody is not None:
        raise NeedsReview("the reading loop's `try` has other handlers, `else` or `finally`")
    handler = attempt.handlers[0]
    chain = dotted(handler.type) if handler.type is not None else None
    caught = handler.name.name.value if isinstance(handler.name, cst.AsName) and \
        isinstance(handler.name.name, cst.Name) else None
    if chain is None or ctx.resolver.qualname(chain, site.scope) not in EOF_EXCEPTIONS or \
            (handler.name is not None and (caught is None or caught in names_in(handler.body))):
        raise NeedsReview("the reading loop does not catch fluid.core.EOFException alone")
    statements = handler.body.body
    reset = _method_call(statements[-2], loader, "reset") if len(statements) >= 2 else None
    ends = len(statements) >= 2 and isinstance(statements[-1], cst.SimpleStatementLine) and \
        len(statements[-1].body) == 1 and isinstance(statements[-1].body[0], cst.Break)
    extra = list(statements[:-2])
    if reset is None or not ends or any(loader in names_in(stmt) or _leaves_loop(stmt) for stmt in extra):
        raise NeedsReview(f"the EOFException handler does not end with `{loader}.reset()` then `break`")
    runs = _runs(attempt.body)
    if len(runs) != 1:
        raise NeedsReview(f"the reading loop runs {len(runs)} programs: which of them read the loader is not "
                          f"in sight")
    run = runs[0]
    if call_args.has_star(run) or any(call_args.get(run, name) for name in ("feed", "feed_dict")) or \
            sum(arg.keyword is None for arg in run.args) > 1:
        raise NeedsReview("the program run in the reading loop is given a feed of its own")
    body = attempt.body.body
    index = next(i for i, stmt in enumerate(body) if any(r is run for r in _runs(stmt)))
    ahead = between or not all(_plain_assignment(ctx, stmt) for stmt in body[:index]) or \
        bool(set().union(*(names_in(stmt.body[0].value) for stmt in body[:index])) &  # type: ignore
             bound_names(attempt.body))
    if ahead and not _run_alone(body[index], run):
        raise NeedsReview("statements before the run in the reading loop ran once more in 1.8, at the end of the "
                          "data (or run between start() and the loop), and the run is not a statement of its own")
    if ahead and any(ctx.resolver.lookup(name, site.scope) is not None for name in ("iter", "next")):
        raise NeedsReview("`iter` or `next` is rebound where the loader is read")
    if _leaves_loop(attempt.body):
        raise NeedsReview("the reading loop is left by break/continue/return before the end of the data")
    return {id(reset)}, ahead


def _apart_from(stmt: cst.BaseStatement, loader: str) -> bool:
    """`stmt` may run between `start()` and the loop where `iter(loader)` stands for `start()`: it neither
    names the loader nor runs a program (which may read it), nor leaves the block."""
    return loader not in names_in(stmt) and not _runs(stmt) and not _leaves_loop(stmt)


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


def reading_loops(ctx: Context, site: Site, loader: str, setter: cst.BaseStatement) -> List[ReadingLoop]:
    """Every `loader.start()` of the scope (after `setter`, the statement that sets its data source) with
    the loop that reads it; NeedsReview where one has another shape."""
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
        between = False  # statements other than plain assignments between start() and the loop
        while index < len(block) and not isinstance(block[index], cst.While) and (
                _plain_assignment(ctx, block[index]) or _apart_from(block[index], loader)):
            between = between or not _plain_assignment(ctx, block[index])
            index += 1
        if index == len(block) or not isinstance(block[index], cst.While):
            raise NeedsReview(f"`{loader}.start()` is not followed by the loop that reads it")
        uses, ahead = _reading_try(ctx, site, block[index], loader, between)
        found.append(ReadingLoop(stmt, block[index], uses | {id(start)}, ahead))  # type: ignore[arg-type]
    if not found:
        raise NeedsReview(f"iterable=False, and no `{loader}.start()` with the loop that reads it is in sight")
    return found


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
    body = list(attempt.body.body)
    index = next(i for i, stmt in enumerate(body) if _runs(stmt))
    taken = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(batch))], cst.Call(
        cst.Name("next"), [cst.Arg(cst.Name(batches)), cst.Arg(cst.Name("None"))]))])
    end = cst.If(test=cst.Comparison(cst.Name(batch), [cst.ComparisonTarget(cst.Is(), cst.Name("None"))]),
                 body=cst.IndentedBlock([*attempt.handlers[0].body.body[:-2], cst.SimpleStatementLine([cst.Break()])]))
    new = [*body[:index], taken, end, body[index].visit(_FeedTheRun(batch)), *body[index + 1:]]
    return loop.with_changes(body=loop.body.with_changes(body=new))
