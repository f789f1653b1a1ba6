"""Where the callers of a function that returns a non-iterable loader read it: their reading loops, and
those of the module's functions they pass it to.

    def create_model(args):                          def evaluate(exe, program, test_loader):
        ...                                              test_loader.start()
        loader = fluid.io.DataLoader.from_generator(     while True:
            feed_list=[x, y], iterable=False)                try:
        return loader, loss                                      exe.run(program, fetch_list=...)
                                                             except fluid.core.EOFException:
    test_loader, loss = create_model(args)                       test_loader.reset()
    test_loader.set_batch_generator(reader)                      break
    evaluate(exe, test_prog, test_loader)

generator_loader makes the loader where each caller sets its source (as for an iterable one); every loop
that reads it then becomes `for batch in loader:` with its run fed the batch (reading_loop's rule for what
may stand in the loop; checked on 1.8.5 and 3.3.1: fixtures/legacy/returned_reading_loop_static.py).
That holds only where every read is in sight: in a caller, besides its setter, the loader is started only
by reading loops and otherwise only passed, as an argument, to plain functions of the module; in such a
function the parameter is read only by reading loops, and every call of the function (none in another
module of the tree that may import this one: loader_across.importable) passes it a loader of the same plan;
a `loader.queue.size()` there, whose value 1.8 logged, becomes 0 (refactors.queue_size: 2.x shows no queue).
Anything else (another use of `queue`, a `reset()` apart from a loop, passing it elsewhere) leaves the
loader, named.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Sequence, Set, Tuple

import libcst as cst

from refactors import loader_across, queue_size
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import Scope, descendants
from refactors.transformers import callers, reading_loop

_READ = ("start", "reset")  # what a reading loop calls on the loader


@dataclass
class Readers:
    """The reading loops of one plan: in the callers' scopes and in the functions they pass the loader to."""

    loops: List[Tuple[Site, str, List[reading_loop.ReadingLoop]]] = field(default_factory=list)
    passed: Dict[int, Tuple[cst.FunctionDef, str]] = field(default_factory=dict)  # id of function -> it, param
    loaders: Set[Tuple[int, str]] = field(default_factory=set)  # (id of scope node, name) of the plan's loaders


def read_uses(scope: Scope, loader: str) -> FrozenSet[int]:
    """The ids of `loader.start` and `loader.reset` in the scope's own code (what a reading loop may use)."""
    return frozenset(id(n) for n in reading_loop.own_nodes(scope.node) if isinstance(n, cst.Attribute) and
                     isinstance(n.value, cst.Name) and n.value.value == loader and n.attr.value in _READ)


def sizes(ctx: Context, scope: Scope, loader: str) -> FrozenSet[int]:
    """The ids of the `loader.queue` attributes of the scope's `loader.queue.size()` calls (refactors.queue_size),
    which the rewrite makes 0."""
    return frozenset(queue_size.attribute_ids(queue_size.calls(ctx, scope.node, loader)))


def add_caller(ctx: Context, site: Site, readers: Readers, scope: Scope, loader: str,
               setters: Sequence[Tuple[cst.BaseStatement, cst.Call]]) -> None:
    """The reads of `loader` in a caller's scope (bound once to what the function returns, given its source
    by `setters`, apart_loader's plan), added to `readers`; NeedsReview where one is not in sight."""
    here = dataclasses.replace(site, scope=scope)
    uses = read_uses(scope, loader)
    loops = reading_loop.reading_loops(ctx, here, loader, setters[0][0]) if uses else []
    _all_in_loops(loader, uses, loops)
    readers.loops.append((here, loader, loops))
    readers.loaders.add((id(scope.node), loader))
    passed = 0
    for node in reading_loop.own_nodes(scope.node):
        if isinstance(node, cst.Call):
            for arg in node.args:
                if isinstance(arg.value, cst.Name) and arg.value.value == loader:
                    _passed_to(ctx, scope, node, arg, loader, readers)
                    passed += 1
    names = sum(isinstance(n, cst.Name) and n.value == loader for n in reading_loop.own_nodes(scope.node))
    if names != 1 + len(setters) + len(uses) + passed + len(sizes(ctx, scope, loader)):
        raise NeedsReview(f"`{loader}` is used other than by its reading loops and the functions it is passed to, "
                          f"which may start it out of sight")


def _all_in_loops(loader: str, uses: FrozenSet[int], loops: List[reading_loop.ReadingLoop]) -> None:
    if uses - set().union(*(found.uses for found in loops)):
        raise NeedsReview(f"`{loader}.reset()` is called apart from the loop that reads it")


def _passed_to(ctx: Context, scope: Scope, call: cst.Call, arg: cst.Arg, loader: str, readers: Readers) -> None:
    """Note the function of the module a caller passes the loader to, and the parameter it gets."""
    function = callers.definition(ctx, scope, call.func.value) if isinstance(call.func, cst.Name) else None
    if function is None or arg.star:
        raise NeedsReview(f"`{loader}` is passed to `{ctx.code(call.func).strip()}`, which may start it out of sight")
    params = [p for p in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)
              if callers.passed(function, call, p.name.value) is arg.value]
    if len(params) != 1:
        raise NeedsReview(f"which parameter of `{function.name.value}` gets `{loader}` is not in sight")
    _, name = readers.passed.setdefault(id(function), (function, params[0].name.value))
    if name != params[0].name.value:
        raise NeedsReview(f"`{function.name.value}` is given loaders for two of its parameters")


def check_passed(ctx: Context, site: Site, readers: Readers) -> None:
    """The reading loops of each function the loader is passed to, once every call of it is known to pass a
    loader of the plan; NeedsReview otherwise."""
    for function, param in readers.passed.values():
        scope = ctx.resolver.scopes.get(id(function))
        calls = callers.calls_of(ctx, function)
        if scope is None or calls is None:
            raise NeedsReview(f"`{function.name.value}`, which reads the loader, may be called in a way the file "
                              f"does not show")
        ctx.reads(function, words=(param,))
        for call, where in calls:
            given = callers.passed(function, call, param)
            if not (isinstance(given, cst.Name) and (id(where.node), given.value) in readers.loaders):
                raise NeedsReview(f"`{function.name.value}` is also called with a `{param}` that is not a loader the "
                                  f"rewrite makes, so its reading loop stays")
        index = ctx.other_modules
        if callers.named_elsewhere(ctx, function.name.value) and \
                loader_across.importable(index.origin, index.reads):  # type: ignore[union-attr]
            raise NeedsReview(f"`{function.name.value}`, which reads the loader, is named in another module of the "
                              f"tree that may import this one, and may call it with another loader")
        if len(scope.bindings.get(param, ())) != 1 or param in scope.globals or param in scope.nonlocals:
            raise NeedsReview(f"`{param}` is rebound in `{function.name.value}`")
        here = dataclasses.replace(site, scope=scope)
        uses = read_uses(scope, param)
        loops = reading_loop.reading_loops(ctx, here, param, function, owner=False)
        _all_in_loops(param, uses, loops)
        if sum(isinstance(n, cst.Name) and n.value == param for n in descendants(function)) != \
                1 + len(uses) + len(sizes(ctx, scope, param)):
            raise NeedsReview(f"`{function.name.value}` uses `{param}` other than in the loops that read it")
        readers.loops.append((here, param, loops))
    for _, _, loops in readers.loops:
        if any(id(found.start) in ctx.left or id(found.loop) in ctx.left for found in loops):
            raise NeedsReview("a loop that reads the loader comes before the function that builds it, where the "
                              "rewrite has gone past")


def rewrite(ctx: Context, readers: Readers) -> None:
    """Each reading loop becomes `for batch in loader:` over its `try` body, its run fed the batch; each
    `loader.queue.size()` of the scopes, 0."""
    for here, loader, loops in readers.loops:
        if loops:
            reading_loop.rewrite(ctx, here, loader, loops)
        queue_size.rewrite(ctx, here, here.scope.node, loader)
