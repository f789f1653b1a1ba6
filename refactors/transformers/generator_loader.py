"""`DataLoader.from_generator` (or `PyReader`) and the data source set on it: a `paddle.io.DataLoader`.

1.8 (`reader.py:372`) made a loader first and gave it its data later, with one of three setters:
`set_batch_generator(reader, places)` (each item a batch: one array per field, in `feed_list` order),
`set_sample_list_generator(reader, places)` (each item a list of samples, stacked field by field with
`np.asarray`, `reader.py:928`) or `set_sample_generator(reader, batch_size, drop_last=True, places)`
(`paddle.batch` of the samples, then the same). Paddle 2.5 removed `from_generator`; 2.x reads an
`IterableDataset` through `paddle.io.DataLoader(dataset, batch_size=None)`, which takes each item as a
batch. So the pair

    loader = fluid.io.DataLoader.from_generator(capacity=16, return_list=True)
    ...
    loader.set_sample_list_generator(reader, place)

becomes one statement where the setter was, over a small dataset class written once per module
(`GENERATOR_BATCHES`), and the `from_generator` statement goes:

    loader = paddle.io.DataLoader(GeneratorBatches(reader, samples=True), batch_size=None, places=place)

`fluid.io.PyReader(feed_list, capacity, use_double_buffer, iterable, return_list)` made the same
loader (`reader.py:1381`), its `decorate_*_generator` methods calling these setters: it is rewritten the
same way. It is written only where the file shows all it depends on (checked on 1.8.5 and 3.3.1:
fixtures/legacy/generator_loaders_dygraph.py, generator_batches_static.py, py_reader_dygraph.py);
otherwise the call is left (runtime_shim serves it) with the reason:
- the loader is a name assigned the call, and its setter is a later statement of the same block
  that no use of the name precedes; nothing rebinds what the kept arguments read in between, and the
  name is used nowhere else in its scope but to iterate it (no `start()`/`reset()`, no second setter), nor
  in the functions of the tree it is passed or returned to (loader_receivers: a truth test raises on 2.x);
- iterable (1.8's non-iterable loader is read inside the program, with `start()`/`reset()` and
  `EOFException`: another shape of loop altogether);
- the mode is known: in a dygraph guard (1.8's `DygraphGeneratorLoader` always returns lists), or a
  static-graph file (`GeneratorLoader`: `feed_list` given, `return_list=False`, which both give as one
  feed dict per place, and `drop_last=True`, which 2.x always does). In static mode 1.8 converted samples
  to the dtype and shape of their feed variables (`DataFeeder`), which 2.x does not: a sample (list)
  generator is read through data_feeder's `NumpyFeeder(...).batch_reader`, with the dtypes where
  `feed_list` is a list of data variables the file shows (fixtures/legacy/generator_samples_static.py),
  else reading each variable's dtype at run time where no data variable of the module or of a tree module
  it imports may have a LoD level (data_feeder's rule; a feed list that calls something is bound to a name
  where it was built, which the loader and its feeder read); a loader built apart from its source reads
  `NumpyFeeder(loader.keywords['feed_list'])`, the feed list its constructor was given
  (fixtures/legacy/loader_feed_elsewhere/).
`capacity` and `use_multiprocess` only tune the queue and the worker; `use_double_buffer` is 2.x's
`use_buffer_reader`.

A loader built in one place and set in another is made in two steps, `functools.partial(paddle.io.DataLoader,
...)` where it is built and `loader = loader(GeneratorBatches(...), places=...)` where its source is set:
within one scope when the shape apart_loader describes holds (built in the branches of an `if`, set after),
and where a function of the module returns it (alone, or as the same element of every `return`'s tuple)
to callers, all in the module, that set it in that shape (fixtures/legacy/returned_loader_static.py;
a non-iterable one where every loop that reads it, in the callers or in the functions of the module they
pass it to, has reading_loop's shape, and no other module of the tree that may import this one names the
function: loader_readers), or, by the tree's plan (refactors.loader_across),
to callers in other modules, each of which makes the loader where it sets the source (loader_callers; a
non-iterable one where every read there is a reading loop, which that module rewrites: loader_reads).
A static one kept in an attribute whose setters are out of sight (`self.dataloader = ...`, set by a caller
that gets the model from a registry) becomes an object of 1.8's loader protocol, a class of the module
(kept_loader). Otherwise the finding names the piece out of sight (what a caller in another module does
with the loader).
"""
from __future__ import annotations

import ast
import dataclasses
import os
import re
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from api_mapping.modes import LEGACY_STATIC_ON, STATIC_ON
from refactors import call_args, kept_comments, loader_across, loader_receivers, queue_size
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import assigned_name, bound_once, changes, names_in, statements
from refactors.scopes import Scope, descendants
from refactors.transformers import (SCOPE, apart_loader, callers, data_feeder, emit, kept_loader, loader_readers,
                                   module_definitions, reading_loop, register)

_STATIC_ON = re.compile(r"^(?:%s)\(\)" % "|".join(re.escape(n) for n in (STATIC_ON, LEGACY_STATIC_ON)), re.M)

# A loader's setters: (what it sets, its parameters in order, the first being the reader).
Setters = Dict[str, Tuple[str, Tuple[str, ...]]]
SETTERS: Setters = {name: (name, params) for name, params in loader_across.SETTERS.items()}  # DataLoader's
DECORATORS: Setters = {  # PyReader's, which call them (reader.py:1478-1668)
    "decorate_sample_generator": ("set_sample_generator", ("sample_generator", "batch_size", "drop_last", "places")),
    "decorate_sample_list_generator": ("set_sample_list_generator", ("reader", "places")),
    "decorate_batch_generator": ("set_batch_generator", ("reader", "places")),
}

# The dataset class, written once at module level (module_definitions.define_once).
GENERATOR_BATCHES = '''\
class {name}({paddle}.io.IterableDataset):
    """The batches 1.8's DataLoader.from_generator read from `reader` (paddle-upgrade): each item a batch
    of fields, or with `samples` a list of samples, whose fields are stacked as 1.8 stacked them."""

    def __init__(self, reader, samples):
        super().__init__()
        self.reader = reader
        self.samples = samples

    def __iter__(self):
        for batch in self.reader():
            yield [{numpy}.asarray(field) for field in (zip(*batch) if self.samples else batch)]
'''


def statements_after(ctx: Context) -> List[cst.BaseStatement]:
    """The statements that run after the loader's statement: the rest of its block and, while that block
    is a `with`'s (which runs it once), the statements after the `with` in the block around it."""
    found: List[cst.BaseStatement] = []
    for depth in range(len(ctx.statements) - 1, -1, -1):
        parent = ctx.statements[depth - 1] if depth else ctx.module
        found.extend(_after(parent, ctx.statements[depth]))
        if not isinstance(parent, cst.With):
            break
    return found


def _after(parent: cst.CSTNode, statement: cst.CSTNode) -> List[cst.BaseStatement]:
    """The statements after `statement` in its block of `parent`."""
    blocks: List[Sequence[cst.BaseStatement]] = [parent.body] if isinstance(parent, cst.Module) else []
    for node in descendants(parent) if not blocks else ():
        if isinstance(node, cst.IndentedBlock):
            blocks.append(node.body)
    for block in blocks:
        for index, stmt in enumerate(block):
            if stmt is statement:
                return list(block[index + 1:])
    return []


def setter_call(stmt: cst.BaseStatement, loader: str, setters: Setters) -> Optional[cst.Call]:
    """The call when `stmt` is `loader.set_..._generator(...)` alone."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        call = stmt.body[0].value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
                isinstance(call.func.value, cst.Name) and call.func.value.value == loader and \
                call.func.attr.value in setters:
            return call
    return None


def _other_uses(ctx: Context, site: Site, loader: str, taken: Set[int]) -> Optional[str]:
    """A use of the loader in its scope that a 2.x DataLoader does not have (`loader.start()`, another
    setter) other than the attributes `taken` (ids) the rewrite takes care of, as written; a call or
    iteration of it, or passing it on, is what 2.x keeps."""
    for node in descendants(site.scope.node):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == loader \
                and id(node) not in taken:
            return f"{loader}.{node.attr.value}"
    return None


def _mode_dygraph(ctx: Context, site: Site, node: cst.Call) -> bool:
    """Whether the loader `node` makes (at `site.node`, or an original call of the module) is a dygraph one."""
    if ctx.in_dygraph_guard(site.node):
        return True
    if ctx.static_file() or _STATIC_ON.search(ctx.source):  # (the second: a static file upgraded before)
        return False
    if call_args.get(node, "feed_list") is None:  # 1.8's static loader raises without it
        return True
    raise NeedsReview("neither a dygraph guard around the loader nor a static graph in the file tells which "
                      "1.8 loader this is (dygraph ones return lists, static ones feed dicts)")


def setter_args(setter: cst.Call, setters: Setters) -> Dict[str, cst.BaseExpression]:
    """The setter's arguments by parameter name."""
    if call_args.has_star(setter):
        raise NeedsReview("the data source is set with *args/**kwargs")
    params = setters[setter.func.attr.value][1]  # type: ignore[attr-defined]
    found: Dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(setter.args):
        name = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
        if name not in params:
            raise NeedsReview(f"{setter.func.attr.value} is given an argument 1.8 does not take")  # type: ignore
        found[name] = arg.value
    if params[0] not in found:
        raise NeedsReview("the data source is set without a reader")
    found["reader"] = found.pop(params[0])
    return found


@register("from_generator", reads=(SCOPE,))  # the setter's statement after it, the loader's uses
def from_generator(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _loader(ctx, site, node, SETTERS)


@register("py_reader_class", reads=(SCOPE,))  # `fluid.io.PyReader(...)`, which makes the same loader
def py_reader_class(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _loader(ctx, site, node, DECORATORS)


def _loader(ctx: Context, site: Site, node: cst.Call, setters: Setters) -> cst.BaseExpression:
    statement = ctx.statements[-1] if ctx.statements else None
    bound = assigned_name(statement) if statement is not None else None
    if bound is None or bound[1] is not emit.original_call(ctx, site):
        return _kept(ctx, site, node, statement)
    loader = bound[0]
    across = _across(ctx, site, loader)
    if isinstance(across, loader_across.Across):
        where = ", ".join(sorted({os.path.basename(c.path) for c in across.callers}))
        return _constructor(ctx, site, node, across.dygraph, f"its callers in other modules ({where}) set its data "
                                                             f"source")
    if loader in site.scope.globals or loader in site.scope.nonlocals:
        raise NeedsReview(f"`{loader}` is global here, so its uses are not in sight")
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs")
    iterable = emit.value_of(ctx, node, "iterable", True)
    if iterable not in (True, False):
        raise NeedsReview(f"iterable={iterable!r}")
    dygraph = _mode_dygraph(ctx, site, node)
    if dygraph and not iterable:
        raise NeedsReview("iterable=False in a dygraph guard, which 1.8 did not support")
    after = statements_after(ctx)
    planned = _planned_apart(ctx, site, loader, setters, dygraph)
    if isinstance(planned, apart_loader.Plan) and not (
            len(planned.builds) == 1 and len(planned.setters) == 1 and any(s is planned.setters[0][0] for s in after)):
        return _apart(ctx, site, node, loader, setters, dygraph, planned)
    apart_reason = str(planned) if isinstance(planned, NeedsReview) else None
    setter, between = None, []
    for stmt in after:
        setter = setter_call(stmt, loader, setters)
        if setter is not None:
            setter_statement = stmt
            break
        if loader in names_in(stmt):
            if isinstance(stmt, cst.BaseCompoundStatement) and any(
                    setter_call(inner, loader, setters) for inner in descendants(stmt)):
                raise NeedsReview(apart_reason or f"its data source is set in a nested block "
                                                  f"({type(stmt).__name__.lower()}), so which one `{loader}` reads is "
                                                  f"known at run time only")
            returned = _returned(ctx, site, node, loader, setters, dygraph)
            if returned is not None:
                return returned
            raise NeedsReview(_used_before(ctx, loader, stmt, iterable))
        between.append(stmt)
    if setter is None:
        setter_names = f"{loader}.{next(iter(setters))[:-len('sample_generator')]}*_generator(...)"
        raise NeedsReview(apart_reason or f"no `{setter_names}` follows in the same block, so the batches it reads "
                                          f"are not in sight")
    method = setter.func.attr.value  # type: ignore[attr-defined]
    kind = setters[method][0]
    loops = [] if iterable else reading_loop.reading_loops(ctx, site, loader, setter_statement)
    sizes = queue_size.calls(ctx, site.scope.node, loader)  # (logged: 0; loader_receivers judges an iterable's)
    other = _other_uses(ctx, site, loader, {id(setter.func)}.union(*(found.uses for found in loops),
                                                                   queue_size.attribute_ids(sizes)))
    if other is not None:
        raise NeedsReview(f"`{other}` is used elsewhere, which paddle.io.DataLoader does not have")
    kept: Dict[str, cst.BaseExpression] = {}
    if not dygraph:
        if call_args.get(node, "feed_list") is None:
            raise NeedsReview("a static-graph loader without feed_list")
        if emit.value_of(ctx, node, "return_list", False) is not False:
            raise NeedsReview("return_list=True in a static graph: 1.8 returned a list per place, 2.x one list")
        if emit.value_of(ctx, node, "drop_last", True) is not True:
            raise NeedsReview("drop_last=False: 2.x always drops the batches that do not fill every place")
        kept["feed_list"] = call_args.get(node, "feed_list").value  # type: ignore[union-attr]
    double_buffer = call_args.get(node, "use_double_buffer")
    if double_buffer is not None:
        kept["use_buffer_reader"] = double_buffer.value
    read = set().union(*map(names_in, kept.values()))
    changed = next((name for name in (changes(stmt, read) for stmt in between) if name is not None), None)
    if changed is not None:
        raise NeedsReview(f"`{changed}` may change between the loader and its data source")
    source = setter_args(setter, setters)
    if kind == "set_sample_generator" and "batch_size" not in source:
        raise NeedsReview(f"{method} without batch_size")
    if not dygraph and iterable and "places" not in source:
        raise NeedsReview("an iterable static-graph loader without places")
    if ctx.todos[-1]:
        raise NeedsReview("its arguments hold uses left as written")
    feeder, feeds = None, None
    if not dygraph and kind != "set_batch_generator":
        try:
            feeder = data_feeder.numpy_feeder(ctx, site, kept["feed_list"].deep_clone())
        except NeedsReview as reason:
            raise NeedsReview(f"{method} in a static graph: 1.8 converted each sample to the dtype and shape of its "
                              f"feed variable (DataFeeder), which 2.x does not do, and {reason}") from None
        if any(isinstance(n, (cst.Call, cst.Await, cst.Yield, cst.NamedExpr))  # (read twice, evaluated once)
               for n in descendants(kept["feed_list"])):
            feeds = ctx.fresh_name(site.scope, f"{loader}_feed_list")
            kept["feed_list"] = cst.Name(feeds)
            feeder = data_feeder.numpy_feeder(ctx, site, cst.Name(feeds))
    if iterable:
        _read_alike(ctx, lambda tree, path, source, returned: loader_receivers.check_in_scope_at(
            tree, site.line, loader, _is_setter(loader, setters), path, source, returned))
    return rewrite_loader(ctx, site, statement, loader, (method, setters), kept, setter_statement,  # type: ignore
                          feeder, node, loops, feeds)


def rewrite_loader(ctx: Context, site: Site, statement: cst.SimpleStatementLine, loader: str,
                   setter_kind: Tuple[str, Setters], kept: Dict[str, cst.BaseExpression],
                   setter: cst.SimpleStatementLine, feeder: Optional[cst.Call], call: cst.Call,
                   loops: Sequence[reading_loop.ReadingLoop], feeds: Optional[str] = None) -> cst.BaseExpression:
    """The `from_generator` statement goes (its comments move to the new one), the setter's becomes
    `loader = paddle.io.DataLoader(...)`, built from what the pass made of both (`feeder` stacks the
    samples of a static-graph loader); the `loops` that read a non-iterable one iterate it; its logged
    `queue.size()` calls become 0 (refactors.queue_size). With `feeds`,
    the `from_generator` statement becomes `feeds = <its feed_list>` instead, which the loader and its
    feeder read (a feed list that calls something is evaluated once, where 1.8 evaluated it)."""
    method, setters = setter_kind
    kind = setters[method][0]
    dataset = module_definitions.define_once(ctx, site, "GeneratorBatches", GENERATOR_BATCHES)
    reading_loop.rewrite(ctx, site, loader, loops)
    queue_size.rewrite(ctx, site, site.scope.node, loader)
    moved: List[str] = []

    def remove(updated: cst.CSTNode):
        if feeds is not None:
            built = call_args.get(updated.body[0].value, "feed_list")  # type: ignore[attr-defined]
            return updated.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(feeds))], built.value)])
        moved.extend(kept_comments.comments(updated))
        return cst.FlattenSentinel([])

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        source = setter_args(updated.body[0].value, setters)  # type: ignore[attr-defined]
        arguments = dict(kept)
        if "places" in source:
            arguments["places"] = source["places"]
        if "feed_list" in kept:  # a static graph
            arguments["return_list"] = cst.Name("False")
        batches = _batches(ctx, site, dataset, kind, source, feeder)
        new = emit.call(ctx, site, "paddle.io.DataLoader", batches, batch_size=cst.Name("None"), **arguments)
        assign = cst.Assign(targets=[cst.AssignTarget(cst.Name(loader))], value=new)
        return kept_comments.above(updated.with_changes(body=[assign]), moved)  # type: ignore[attr-defined]

    ctx.replace(statement, remove)
    ctx.replace(setter, build)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> paddle.io.DataLoader over {dataset}, "
                                                         f"made where its data source is set ({method})", True)
    return emit.converted(site, call)


def _batches(ctx: Context, site: Site, dataset: str, kind: str, source: Dict[str, cst.BaseExpression],
             feeder: Optional[cst.Call]) -> cst.Call:
    """`GeneratorBatches(reader, samples=...)` over the reader a setter was given (`feeder` stacks the
    samples of a static-graph loader)."""
    reader = source["reader"]
    if kind == "set_sample_generator":
        drop_last = source.get("drop_last") or cst.Name("True")  # 1.8's default there
        reader = emit.call(ctx, site, "paddle.batch", reader, batch_size=source["batch_size"], drop_last=drop_last)
    if feeder is not None:  # its batches are the feed variables' arrays
        reader = cst.Call(func=cst.Attribute(feeder, cst.Name("batch_reader")), args=[cst.Arg(reader)])
    samples = cst.Name("False" if kind == "set_batch_generator" or feeder is not None else "True")
    return cst.Call(func=cst.Name(dataset), args=[cst.Arg(reader), call_args.keyword_arg("samples", samples)])


def _planned_apart(ctx: Context, site: Site, loader: str, setters: Setters, dygraph: bool) -> object:
    """The plan (once per scope and name) for a loader whose source is set apart from its builds
    (apart_loader), None when its uses have another shape, or the NeedsReview saying why it cannot be
    written: every build of the name takes the same route, whichever the pass reaches first."""
    return _once(ctx, ("loader set apart", id(site.scope.node), loader), _plan_apart, site, loader, setters, dygraph)


def _once(ctx: Context, key: Tuple[object, ...], plan: Callable[..., object], *args: object) -> object:
    """`plan(ctx, *args)` computed once per upgrade under `key`: its result, or the NeedsReview it raised."""
    if key not in ctx.memo:
        try:
            ctx.memo[key] = plan(ctx, *args)
        except NeedsReview as reason:
            ctx.memo[key] = reason
    return ctx.memo[key]


def _apart(ctx: Context, site: Site, node: cst.Call, loader: str, setters: Setters, dygraph: bool,
           planned: apart_loader.Plan) -> cst.BaseExpression:
    """A build of the plan: the 2.x constructor with its arguments; the setters, at the first build the
    pass reaches, planned to make the loader from it."""
    new = _constructor(ctx, site, node, dygraph, "its data source is set")
    key = ("loader set apart, setters", id(site.scope.node), loader)
    if key not in ctx.memo:
        make_at_setters(ctx, site, loader, planned.setters, setters, static=not dygraph)
        queue_size.rewrite(ctx, site, site.scope.node, loader)
        ctx.memo[key] = True
    return new


def partial_loader(ctx: Context, site: Site, node: cst.Call,
                   feed_list: Optional[cst.BaseExpression]) -> cst.Call:
    """`functools.partial(paddle.io.DataLoader, batch_size=None, ...)`: the arguments a loader made elsewhere
    gets from 1.8's build `node` (a static one: `feed_list`, return_list=False; use_double_buffer's value)."""
    kept: Dict[str, cst.BaseExpression] = {"batch_size": cst.Name("None")}
    if feed_list is not None:
        kept["feed_list"] = feed_list
        kept["return_list"] = cst.Name("False")
    double_buffer = call_args.get(node, "use_double_buffer")
    if double_buffer is not None:
        kept["use_buffer_reader"] = double_buffer.value
    partial = cst.Attribute(emit.stdlib_module(ctx, site, "functools"), cst.Name("partial"))
    return call_args.with_args(cst.Call(func=partial), [cst.Arg(emit.name(ctx, site, "paddle.io.DataLoader"))] + [
        call_args.keyword_arg(k, v) for k, v in kept.items()])


def _constructor(ctx: Context, site: Site, node: cst.Call, dygraph: bool, where: str) -> cst.BaseExpression:
    """`functools.partial(paddle.io.DataLoader, ...)` with what 1.8's build `node` gave the loader."""
    new = partial_loader(ctx, site, node, call_args.get(node, "feed_list").value if not dygraph else None)  # type: ignore
    message = f"{site.name} -> paddle.io.DataLoader's arguments here (functools.partial), made into the loader " \
              f"where {where}"
    site.finding = ctx.report(site, F.CONVERTED, "info", message, True)
    return emit.converted(site, new)


def _plan_apart(ctx: Context, site: Site, loader: str, setters: Setters, dygraph: bool) -> Optional[apart_loader.Plan]:
    def same_api(assign: cst.Assign) -> bool:
        value = assign.value
        ref = ctx.resolver.references.get(id(value.func)) if isinstance(value, cst.Call) else None
        matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref else None
        return len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) and \
            matched is not None and matched[0] is site.entry

    ctx.reads(site.scope.node, words=(loader,))  # (the nested definitions that may use it too)
    try:
        found = apart_loader.plan(site.scope, loader, lambda stmt: setter_call(stmt, loader, setters), same_api,
                                  loader_readers.sizes(ctx, site.scope, loader),  # (loader_receivers judges them)
                                  lambda words: ctx.reads(ctx.module, words=words))
    except NeedsReview:  # a build no plan takes says so first
        apart_loader.check_build(ctx, site.call, dygraph, lambda c, a, d: emit.value_of(ctx, c, a, d))
        raise
    if found is None:
        return None
    for build in found.builds:
        call: cst.Call = build.body[0].value  # type: ignore[attr-defined, assignment]
        if any(arg.keyword is None for arg in call.args):
            raise NeedsReview(f"a build of `{loader}` passes arguments by position")
        if _mode_dygraph(ctx, site, call) != dygraph or \
                (call is not site.call and ctx.in_dygraph_guard(call) != dygraph):
            raise NeedsReview(f"the builds of `{loader}` are not all of one mode (dygraph or static graph)")
        apart_loader.check_build(ctx, call, dygraph, lambda c, a, d: emit.value_of(ctx, c, a, d))
    _check_setters(ctx, site, found.setters, setters, dygraph)
    _read_alike(ctx, lambda tree, path, source, returned: loader_receivers.check_in_scope_at(
        tree, site.line, loader, _is_setter(loader, setters), path, source, returned))
    return found


def _is_setter(loader: str, setters: Setters) -> Callable[[ast.stmt], bool]:
    """Whether a statement (CPython's parse) is `loader.<one of setters>(...)` alone."""
    def check(stmt: ast.stmt) -> bool:
        func = stmt.value.func if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == loader and \
            func.attr in setters
    return check


def _read_alike(ctx: Context, check: Callable[[ast.Module, str, loader_receivers.Source, loader_receivers.Returned],
                                              None]) -> None:
    """NeedsReview unless `check` (of loader_receivers, given the module's CPython tree, its path and a reader of
    the tree's modules) finds every read of an iterable loader one a 2.x DataLoader serves as 1.8's did."""
    tree = ctx.python_tree()
    if tree is None:
        raise NeedsReview("CPython cannot parse the module, so what its code does with the loader is not in sight")
    index = ctx.other_modules
    path = os.path.abspath(index.origin) if index is not None else "<module>"
    reads = index.reads if index is not None else {}
    source = loader_across.source_reader({path: ctx.source}, reads) if index is not None else lambda _: None
    try:
        check(tree, path, source, loader_across.returned_to({path: ctx.source}, reads))
    except loader_receivers.Misused as reason:
        raise NeedsReview(str(reason)) from None


def _check_setters(ctx: Context, site: Site, found: Sequence[Tuple[cst.CSTNode, cst.Call]], setters: Setters,
                   dygraph: bool, iterable: bool = True) -> None:
    """NeedsReview unless each setter of a loader built apart can make the 2.x loader from its constructor."""
    for statement, setter in found:
        if id(statement) in ctx.left:
            raise NeedsReview("its data source is set above the function that builds it, where the rewrite has gone "
                              "past")
        source = setter_args(setter, setters)
        method = setter.func.attr.value  # type: ignore[attr-defined]
        kind = setters[method][0]
        if not dygraph and kind != "set_batch_generator":
            try:
                data_feeder.read_at_run_time(ctx)
            except NeedsReview as reason:
                raise NeedsReview(f"{method} in a static graph, apart from the build: 1.8 converted each sample to "
                                  f"the dtype and shape of its feed variable, which are not in sight where the "
                                  f"source is set, and {reason}") from None
        if kind == "set_sample_generator" and "batch_size" not in source:
            raise NeedsReview(f"{method} without batch_size")
        if not dygraph and iterable and "places" not in source:
            raise NeedsReview("an iterable static-graph loader without places")


def make_at_setters(ctx: Context, site: Site, loader: str, found: Sequence[Tuple[cst.CSTNode, cst.Call]],
                    setters: Setters, then: Optional[Callable[[cst.CSTNode], cst.CSTNode]] = None,
                    static: bool = False) -> None:
    """Each setter statement becomes `loader = loader(GeneratorBatches(reader, ...), places=...)`, given to
    `then`; a sample setter of a `static` graph's loader reads its samples through
    `NumpyFeeder(loader.keywords['feed_list'])`, the feed variables the build gave the constructor (a
    functools.partial). Planned before the pass (loader_callers), the dataset class is written when the
    first is left."""
    dataset = module_definitions.define_once(ctx, site, "GeneratorBatches", GENERATOR_BATCHES) \
        if ctx.statements else None

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        call = updated.body[0].value  # type: ignore[attr-defined]
        source = setter_args(call, setters)
        kind = setters[call.func.attr.value][0]
        try:
            name = dataset or module_definitions.define_once(ctx, site, "GeneratorBatches", GENERATOR_BATCHES)
            feeder = data_feeder.numpy_feeder(ctx, site, cst.parse_expression(f"{loader}.keywords['feed_list']")) \
                if static and kind != "set_batch_generator" else None
            args = [cst.Arg(_batches(ctx, site, name, kind, source, feeder))]
        except NeedsReview as reason:  # (only where the plan was made before the pass)
            ctx.todo(str(reason), updated)
            return updated
        if "places" in source:
            args.append(call_args.keyword_arg("places", source["places"]))
        new = call_args.with_args(cst.Call(func=cst.Name(loader)), args)
        assign = cst.Assign(targets=[cst.AssignTarget(cst.Name(loader))], value=new)
        made = updated.with_changes(body=[assign])  # type: ignore[attr-defined]
        return then(made) if then is not None else made

    for statement, _ in found:
        ctx.replace(statement, build)


def is_from_generator(ctx: Context) -> Callable[[str], bool]:
    """Whether a fully qualified name is 1.8's DataLoader.from_generator (by the table)."""
    def check(qualname: str) -> bool:
        entry = ctx.table.lookup(qualname) if qualname.startswith("paddle.") else None
        return entry is not None and entry.transformer == "from_generator"
    return check


def _across(ctx: Context, site: Site, loader: str) -> object:
    """The plan (loader_across) for a loader a top-level function builds and returns to callers in other
    modules: an Across, the NeedsReview naming what is out of sight, or None (not that shape)."""
    function = site.scope.node
    if ctx.other_modules is None or not isinstance(function, cst.FunctionDef) or ctx.statements[:1] != [function]:
        return None
    origin = os.path.abspath(ctx.other_modules.origin)
    key = ("loader returned across modules", function.name.value)
    if key not in ctx.memo:
        try:
            ctx.memo[key] = loader_across.plan(origin, function.name.value, is_from_generator(ctx),
                                               {origin: ctx.source}, ctx.other_modules.reads)
        except loader_across.Left as reason:
            ctx.memo[key] = NeedsReview(f"`{loader}` is returned to callers in other modules, and {reason}")
    return ctx.memo[key]


def _kept(ctx: Context, site: Site, node: cst.Call, statement: Optional[cst.CSTNode]) -> cst.BaseExpression:
    """A loader assigned whole to an attribute (`self.dataloader = ...`), whose setters are out of sight: an
    object of 1.8's loader protocol over paddle.io.DataLoader (kept_loader); else NeedsReview saying why."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and
            isinstance(small.targets[0].target, cst.Attribute) and small.value is emit.original_call(ctx, site)) \
            or _read_where_started(ctx, node):  # (not iterable=True: the program reads it, another protocol)
        raise NeedsReview(_unnamed(ctx, site, node, statement))
    try:
        new = kept_loader.kept_loader(ctx, site, node, _mode_dygraph(ctx, site, node))
    except NeedsReview as reason:
        raise NeedsReview(f"{_unnamed(ctx, site, node, statement)}; an object of 1.8's loader protocol "
                          f"(kept_loader) is not written: {reason}") from None
    target = ctx.code(small.targets[0].target).strip()
    message = f"{site.name} -> {ctx.code(new.func)}: paddle.io.DataLoader made by each 1.8 setter called on " \
              f"`{target}` (kept_loader), its data source being set out of sight"
    site.finding = ctx.report(site, F.CONVERTED, "info", message, True)
    return emit.converted(site, new)


def _unnamed(ctx: Context, site: Site, node: cst.Call, statement: Optional[cst.CSTNode]) -> str:
    """Why a loader not assigned to a name is left, naming the piece out of sight."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        attribute = f"self.{target.attr.value}"
        classes = [s for s in ctx.statements if isinstance(s, cst.ClassDef)]
        set_here = classes and any(
            isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value.endswith("_generator")
            and ctx.code(n.func.value) == attribute for n in descendants(classes[-1]))
        where = "its class sets it across methods, which the rewrite does not follow" if set_here else \
            "no method of its class sets it (code of another module or a caller does)"
        return f"the loader is kept in `{attribute}`{_read_where_started(ctx, node)}, and its data source is not in " \
               f"sight: {where}"
    if isinstance(small, cst.Return):
        return "the loader is returned as it is made, so its data source is set by a caller, not in sight"
    return "the loader is not assigned to a name, so its data source is not in sight"


def _read_where_started(ctx: Context, node: cst.Call) -> str:
    """What `iterable` adds to the reason a kept loader is left: a non-iterable one is read by the program
    where code out of sight starts it, which finding its data source alone would not rewrite."""
    try:
        iterable = emit.value_of(ctx, node, "iterable", True)
    except NeedsReview:
        return f" with `iterable={ctx.code(call_args.get(node, 'iterable').value).strip()}` (not a literal)"  # type: ignore
    if iterable is False:
        return " with iterable=False (the program reads it where it is started)"
    return "" if iterable is True else f" with iterable={iterable!r}"


def _used_before(ctx: Context, loader: str, stmt: cst.BaseStatement, iterable: bool) -> str:
    """Why a loader used before a setter in its block is left, naming the piece out of sight (a non-iterable
    one: that no plan of the pieces apart takes it)."""
    returned = any(isinstance(n, cst.Return) and n.value is not None and loader in names_in(n.value)
                   for n in descendants(stmt))
    function = next((s for s in reversed(ctx.statements) if isinstance(s, cst.FunctionDef)), None) if returned else None
    calls = callers.calls_of(ctx, function) if function is not None else None
    across = ctx.memo.get(("loader returned across modules", function.name.value)) if function is not None else None
    if function is not None and not calls and isinstance(across, NeedsReview):
        return str(across)
    if not iterable:
        return loader_across.READ_BY_PROGRAM
    if function is not None:
        where = "is called in a way the file does not show" if calls is None else \
            "is called in no other place of this module (its callers are in other modules)" if not calls else \
            "returns it other than alone or as one element of every `return`'s tuple, or binds it twice"
        return f"`{loader}` is returned before a data source is set: `{function.name.value}` {where}"
    return f"`{loader}` is used (returned, passed on) before a data source is set in the same block"


def _returned(ctx: Context, site: Site, node: cst.Call, loader: str, setters: Setters,
              dygraph: bool) -> Optional[cst.BaseExpression]:
    """A loader a function of the module builds and returns (alone, or as the same element of the tuple
    every `return` gives), whose callers, all in this module, set its source (apart_loader's shape in each
    caller's scope): built as the constructor, made into the loader where each caller sets it."""
    found = _once(ctx, ("loader returned", id(site.scope.node), loader), _plan_returned, site, loader, setters,
                  dygraph)
    if isinstance(found, NeedsReview):
        raise NeedsReview(str(found))
    if found is None:
        return None
    plans, readers = found  # type: ignore[misc]
    new = _constructor(ctx, site, node, dygraph, "each caller sets its data source")
    for caller, plan, scope in plans:
        make_at_setters(ctx, site, caller, plan.setters, setters, static=not dygraph)
        if readers is None:  # (loader_readers rewrites those of a loader the program reads)
            queue_size.rewrite(ctx, dataclasses.replace(site, scope=scope), scope.node, caller)
    if readers is not None:
        loader_readers.rewrite(ctx, readers)
    return new


def _plan_returned(ctx: Context, site: Site, loader: str, setters: Setters, dygraph: bool
                   ) -> Optional[Tuple[List[Tuple[str, apart_loader.Plan, Scope]], Optional[loader_readers.Readers]]]:
    """The callers' plans (the name, the plan, its scope), and for a non-iterable loader the loops that read it
    (loader_readers)."""
    function = site.scope.node
    if not isinstance(function, cst.FunctionDef) or ctx.statements[:1] != [function] or \
            not bound_once(site.scope, loader):
        return None  # (a function of the module, the loader bound once in it)
    ctx.reads(function, words=(loader,))
    index = returned_index(function, loader)
    calls = callers.calls_of(ctx, function) if index is not NOT_RETURNED else None
    if not calls:
        return None
    iterable = emit.value_of(ctx, site.call, "iterable", True)  # (a bool: _loader checked it)
    apart_loader.check_build(ctx, site.call, dygraph, lambda c, a, d: emit.value_of(ctx, c, a, d), iterable)
    if any(arg.keyword is None for arg in site.call.args):  # type: ignore[union-attr]
        raise NeedsReview(f"the build of `{loader}` passes arguments by position")
    plans = []
    readers = None if iterable else loader_readers.Readers()
    for call, scope in calls:
        if not dygraph and ctx.in_dygraph_guard(call):
            raise NeedsReview(f"`{function.name.value}` is called in a dygraph guard, where 1.8 made a dygraph loader")
        statement = _statement_of(ctx, scope, call)
        small = statement.body[0] if statement is not None else None
        if not isinstance(small, cst.Assign) or small.value is not call or len(small.targets) != 1:
            raise NeedsReview(f"a call of `{function.name.value}` is not assigned to names alone, so what it does "
                              f"with the loader is not in sight")
        target = small.targets[0].target
        elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else None
        name = target if index is None else elements[index] if elements and index < len(elements) and not any(
            isinstance(e, cst.StarredElement) for e in target.elements) else None  # type: ignore[union-attr]
        if not isinstance(name, cst.Name):
            raise NeedsReview(f"a call of `{function.name.value}` does not bind the loader it returns to a name")
        caller = name.value
        ctx.reads(scope.node, words=(caller,))
        if not ctx.resolver.is_paddle_root(scope):
            raise NeedsReview("`paddle` is rebound where a caller sets the loader's data source")
        try:
            found = apart_loader.plan(scope, caller, lambda stmt, c=caller: setter_call(stmt, c, setters),
                                      lambda assign, c=call: assign.value is c,
                                      (loader_readers.read_uses(scope, caller) if readers is not None else frozenset())
                                      | loader_readers.sizes(ctx, scope, caller),
                                      lambda words: ctx.reads(ctx.module, words=words))
        except NeedsReview as reason:
            raise NeedsReview(f"where `{function.name.value}` is called, {reason}") from None
        if found is None:
            raise NeedsReview(f"`{caller}`, the loader `{function.name.value}` returns, is not given its data source "
                              f"before it is read where it is called")
        _check_setters(ctx, site, found.setters, setters, dygraph, iterable)
        if readers is not None:
            loader_readers.add_caller(ctx, site, readers, scope, caller, found.setters)
        plans.append((caller, found, scope))
    if readers is not None:
        loader_readers.check_passed(ctx, site, readers)
        index = ctx.other_modules
        if index is not None and callers.named_elsewhere(ctx, function.name.value) and \
                loader_across.importable(index.origin, index.reads):
            raise NeedsReview(f"`{function.name.value}` is named in another module of the tree that may import this "
                              f"one, and may use the loader it returns otherwise")
    else:
        _read_alike(ctx, lambda tree, path, source, returned: loader_receivers.check_callers(
            tree, function.name.value, index, lambda caller: _is_setter(caller, setters), path, source, returned))
    return plans, readers


NOT_RETURNED = object()


def returned_index(function: cst.FunctionDef, name: str, other_uses: int = 0) -> object:
    """None when every `return` of the function gives `name` alone, i when each gives it as element i of a
    tuple, and it is used nowhere else but where it is bound (and `other_uses` more times: a py_reader's
    read_file); NOT_RETURNED otherwise (a nested definition reads it, or the function yields)."""
    found: Set[object] = set()
    uses = returns = 0
    attributes: Set[int] = set()  # (`x.name` is not the name)
    for node in reading_loop.own_nodes(function):
        if isinstance(node, cst.Attribute):
            attributes.add(id(node.attr))
        if isinstance(node, cst.Name) and node.value == name and id(node) not in attributes:
            uses += 1
        if isinstance(node, (cst.Yield, cst.Lambda, cst.FunctionDef, cst.ClassDef)) and node is not function:
            if isinstance(node, cst.Yield) or name in names_in(node):
                return NOT_RETURNED
        if isinstance(node, cst.Return):
            returns += 1
            value = node.value
            elements = value.elements if isinstance(value, cst.Tuple) else ()
            at = [i for i, e in enumerate(elements) if isinstance(e.value, cst.Name) and e.value.value == name]
            if isinstance(value, cst.Name) and value.value == name:
                found.add(None)
            elif len(at) == 1 and not any(isinstance(e, cst.StarredElement) for e in elements):
                found.add(at[0])
            else:
                return NOT_RETURNED
    return found.pop() if len(found) == 1 and uses == returns + 1 + other_uses else NOT_RETURNED


def _statement_of(ctx: Context, scope, call: cst.Call) -> Optional[cst.SimpleStatementLine]:
    """The one-statement line of `scope`'s own code whose statement holds `call` as its value."""
    for stmt in statements(scope.node):
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
                getattr(stmt.body[0], "value", None) is call:
            return stmt
    return None
