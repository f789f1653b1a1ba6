"""A `fluid.layers.py_reader` a function builds, reads with `read_file` and returns to its callers, which
give it its source and read it: where each caller reads it, as a `paddle.io.DataLoader`.

The model zoos of 1.6 and 1.7 build the program in one function and train in another:

    def build_program(is_train, main_prog, startup_prog):
        with fluid.program_guard(main_prog, startup_prog):
            py_reader = fluid.layers.py_reader(capacity=16, shapes=[[-1, 4], [-1, 1]], dtypes=[...])
            image, label = fluid.layers.read_file(py_reader)
            ...
        return py_reader, avg_cost

    train_py_reader, train_cost = build_program(True, train_prog, startup_prog)
    train_py_reader.decorate_paddle_reader(train_reader)
    train_py_reader.start()
    while True:
        try: ...exe.run(train_prog, fetch_list=...)...
        except fluid.core.EOFException: train_py_reader.reset(); break

program_reader makes the variables `paddle.static.data` where `read_file` was, and the function returns
what 2.x's loader needs of the build, `functools.partial(paddle.io.DataLoader, batch_size=None,
feed_list=[image, label], return_list=False)` made right after them; each caller makes the loader where
it sets the source (generator_loader.make_at_setters: a sample reader's samples go through
`NumpyFeeder(loader.keywords['feed_list'])`, as 1.8's DataFeeder converted them) and its reading loops
become `for batch in loader:` feeding the run (reading_loop). Checked on 1.8.5 and 3.3.1:
fixtures/legacy/py_reader_returned_static.py.

`plan` takes it only where all of it is in sight: the function a plain `def` at the top of the module,
imported and named by no other module of the tree, the reader bound once and used only by `read_file` and
the function's `return`s, every one of which gives it (alone, or as the same element of a tuple); every
call of it in the module binds the reader to a name of its own (in the caller's block or the `with` blocks
in it) that is used nowhere else, or whose first use after the call is one setter, then only `start()` and
the reading loop reading_loop takes (and `queue.size()`, logged, which becomes 0: refactors.queue_size), in code
the pass has not gone past (the caller after the function).
Otherwise its reason names the piece that is not.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import libcst as cst

from refactors import queue_size
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import bound_once, names_in, statements
from refactors.scopes import Scope, descendants
from refactors.transformers import callers, data_feeder, generator_loader, reading_loop


@dataclass
class Caller:
    """Where one call of the function reads the reader it returns."""

    name: str  # the name the caller binds the reader to
    site: Site  # the reader's site, in the caller's scope (where reading_loop works)
    setter: Optional[Tuple[cst.SimpleStatementLine, cst.Call]]  # None: the reader is not used there
    loops: List[reading_loop.ReadingLoop]


def plan(ctx: Context, site: Site, reader: str, setters: generator_loader.Setters) -> List[Caller]:
    """The callers that read the reader `site` builds and its function returns; NeedsReview naming the piece
    out of sight."""
    function = site.scope.node
    if not isinstance(function, cst.FunctionDef) or ctx.statements[:1] != [function] or \
            not bound_once(site.scope, reader):
        raise NeedsReview(f"`{reader}` is returned to callers, and is bound twice in its function or that is not a "
                          f"plain `def` of the module, so which reader a caller reads is not in sight")
    index = generator_loader.returned_index(function, reader, other_uses=1)  # (its read_file)
    if index is generator_loader.NOT_RETURNED:
        raise NeedsReview(f"`{reader}` is returned to callers other than alone or as one element of every "
                          f"`return`'s tuple, or used elsewhere in its function")
    calls = callers.calls_of(ctx, function)
    where = function.name.value
    if calls is None:
        raise NeedsReview(f"`{reader}` is returned to callers, and `{where}` is called in a way the file does not "
                          f"show")
    if not calls:
        raise NeedsReview(f"`{reader}` is returned to callers, and `{where}` is called in no place of this module "
                          f"(its callers are in other modules)")
    if callers.named_elsewhere(ctx, where):
        raise NeedsReview(f"`{reader}` is returned to callers, and `{where}` is also named in another module of the "
                          f"tree, whose reads of it are not rewritten with this module")
    try:
        return [_caller(ctx, site, call, scope, index, setters) for call, scope in calls]
    except NeedsReview as reason:
        raise NeedsReview(f"`{reader}` is returned to callers; where `{where}` is called, {reason}") from None


def _caller(ctx: Context, site: Site, call: cst.Call, scope: Scope, index: Optional[int],
            setters: generator_loader.Setters) -> Caller:
    statement = next((s for s in statements(scope.node) if isinstance(s, cst.SimpleStatementLine) and
                      len(s.body) == 1 and isinstance(s.body[0], cst.Assign) and s.body[0].value is call), None)
    if statement is None or len(statement.body[0].targets) != 1:  # type: ignore[attr-defined]
        raise NeedsReview("the call is not assigned to names alone, so what is done with the reader is not in sight")
    target = statement.body[0].targets[0].target  # type: ignore[attr-defined]
    if index is not None and isinstance(target, (cst.Tuple, cst.List)) and \
            not any(isinstance(e, cst.StarredElement) for e in target.elements) and index < len(target.elements):
        target = target.elements[index].value
    if not isinstance(target, cst.Name):
        raise NeedsReview("the reader is not bound to a name")
    name = target.value
    ctx.reads(scope.node, words=(name,))
    if _uses(ctx, scope, name) == len(scope.bindings.get(name, ())):  # (only bound, as `_`: nothing reads it)
        return Caller(name, site, None, [])
    if not bound_once(scope, name):
        raise NeedsReview(f"`{name}` is bound more than once there")
    if not ctx.resolver.is_paddle_root(scope) or ctx.in_dygraph_guard(call):
        raise NeedsReview("`paddle` is rebound there, or it is in a dygraph guard")
    after = _after(scope.node.body if isinstance(scope.node, cst.Module) else scope.node.body.body,  # type: ignore
                   statement)
    if after is None:
        raise NeedsReview("the call is in a branch or loop of its caller, so which reads follow it is not in sight")
    first = next((s for s in after if name in names_in(s)), None)
    setter = generator_loader.setter_call(first, name, setters) if first is not None else None
    if setter is None:
        raise NeedsReview(f"`{name}` is not given its source by the next statement that uses it, in the block of "
                          f"the call")
    sizes = queue_size.calls(ctx, scope.node, name)  # (logged: 0 in the 2.x form, refactors.queue_size)
    for node in reading_loop.own_nodes(scope.node):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == name and \
                node.attr.value == "queue" and id(node) not in queue_size.attribute_ids(sizes):
            raise NeedsReview(f"`{name}.queue` is read, which paddle.io.DataLoader does not have")
        if isinstance(node, cst.Call) and any(isinstance(a.value, cst.Name) and a.value.value == name
                                              for a in node.args):
            raise NeedsReview(f"`{name}` is passed on (`{ctx.code(node.func).strip()}`), where its reads are not "
                              f"rewritten")
    here = dataclasses.replace(site, scope=scope)
    loops = reading_loop.reading_loops(ctx, here, name, first)
    taken = [first] + [s for loop in loops for s in (loop.start, loop.loop)]
    if any(id(s) in ctx.left for s in taken):
        raise NeedsReview("it comes before the function in the module, where the rewrite has gone past")
    if _uses(ctx, scope, name) != 2 + 2 * len(loops) + len(sizes):
        raise NeedsReview(f"`{name}` is used other than set and read by its reading loops (passed on, its queue "
                          f"read), which paddle.io.DataLoader would not serve as 1.8's reader")
    if setters[setter.func.attr.value][0] != "set_batch_generator":  # type: ignore[attr-defined]
        data_feeder.read_at_run_time(ctx)  # (NumpyFeeder reads the variables' dtypes where the caller makes it)
    return Caller(name, here, (first, setter), loops)  # type: ignore[arg-type]


def _uses(ctx: Context, scope: Scope, name: str) -> int:
    """How often the scope's own code names `name` (not as an attribute); NeedsReview where a definition in
    it reads the scope's `name`."""
    count, attributes = 0, set()
    for node in reading_loop.own_nodes(scope.node):
        if isinstance(node, cst.Attribute):
            attributes.add(id(node.attr))
        elif isinstance(node, cst.Name) and node.value == name and id(node) not in attributes:
            count += 1
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not scope.node:
            inner = [ctx.resolver.scopes.get(id(n)) for n in descendants(node)
                     if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and name in names_in(n)]
            if any(s is None or ctx.resolver.binding_scope(name, s) is scope for s in inner):
                raise NeedsReview(f"`{name}` is read by a function or class defined there")
    return count


def rewrite(ctx: Context, site: Site, found: Sequence[Caller], setters: generator_loader.Setters) -> None:
    """Each caller makes the loader where it set the source and iterates it where it read it."""
    for caller in found:
        if caller.setter is None:
            continue
        generator_loader.make_at_setters(ctx, site, caller.name, [caller.setter], setters, static=True)
        reading_loop.rewrite(ctx, caller.site, caller.name, caller.loops)
        queue_size.rewrite(ctx, caller.site, caller.site.scope.node, caller.name)


def _after(block: Sequence[cst.BaseStatement], statement: cst.CSTNode) -> Optional[List[cst.BaseStatement]]:
    """The statements that run after `statement` of `block` or of the `with` blocks in it: the rest of its
    block and, while that block is a `with`'s (which runs it once), those after the `with`."""
    for position, stmt in enumerate(block):
        if stmt is statement:
            return list(block[position + 1:])
        if isinstance(stmt, cst.With) and isinstance(stmt.body, cst.IndentedBlock):
            inner = _after(stmt.body.body, statement)
            if inner is not None:
                return inner + list(block[position + 1:])
    return None
