"""`fluid.layers.py_reader` and the `read_file` that reads it: `paddle.static.data` variables fed by a
`paddle.io.DataLoader`.

1.8 (`layers/io.py:388`) built the reader into the program: `py_reader(capacity, shapes, dtypes,
lod_levels, name, use_double_buffer)` made a queue and a reading operator, `read_file(reader)` the
variables each run of the program read the next batch into, and the reader took its source later,
`decorate_tensor_provider(func)` (each item a batch, its arrays fed as they are; also
`decorate_batch_generator`) or `decorate_paddle_reader(reader)` (each item a list of samples, converted by
a DataFeeder over `data(...)` variables of the same shapes and dtypes; also
`decorate_sample_list_generator`), to be read by `start()`, runs of the program until
`fluid.core.EOFException`, `reset()`. That is the non-iterable `DataLoader.from_generator(feed_list=...)`
over data variables, so

    reader = fluid.layers.py_reader(capacity=8, shapes=[[-1, 4], [-1, 1]], dtypes=['float32', 'int64'])
    image, label = fluid.layers.read_file(reader)
    ...
    reader.decorate_paddle_reader(samples)

becomes (the reading loops as reading_loop writes them; checked on 1.8.5 and 3.3.1:
fixtures/legacy/py_reader_static.py)

    image = paddle.static.data(name='image', shape=[-1, 4], dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
    ...
    reader = paddle.io.DataLoader(GeneratorBatches(NumpyFeeder([image, label], dtypes=['float32', 'int64'])
                                                   .batch_reader(samples), samples=False),
                                  batch_size=None, feed_list=[image, label], return_list=False)

Each variable is named after the name its `read_file` output is bound to. It is written only where the
function shows all of it: the reader a name bound once; its `read_file` the next statement to use it
(in the `with` blocks that follow too), bound to one name per field; `shapes` and `dtypes` lists of that
many fields, the dtypes string literals, every LoD level 0 (2.x feeds no LoD tensors); then a setter in
the same block, the loops that read it (reading_loop), and no other use of the name. A sample reader's
shapes must each start with a negative batch size (else 1.8's DataFeeder prepended one). Anything else is
left (runtime_shim serves both calls) with the reason. A reader its function returns to callers of the
module, which set its source and read it, is returned_reader's: the function returns the DataLoader's
arguments, and each caller makes the loader.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from refactors import call_args, kept_comments, queue_size
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import assigned_name, names_in
from refactors.scopes import descendants
from refactors.transformers import (SCOPE, data_feeder, emit, generator_loader, reading_loop, register,
                                   returned_reader)

# py_reader's setters (layers/io.py:544-548): (the DataLoader setter each amounts to, its parameters)
SETTERS: generator_loader.Setters = {
    "decorate_tensor_provider": ("set_batch_generator", ("func",)),
    "decorate_batch_generator": ("set_batch_generator", ("func",)),
    "decorate_paddle_reader": ("set_sample_list_generator", ("paddle_reader",)),
    "decorate_sample_list_generator": ("set_sample_list_generator", ("paddle_reader",)),
}
_DTYPES = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")
_OUTCOME = "read_file of a py_reader"  # memo key: per read_file call, (the reader,) converted, or why it is left


@register("py_reader_layer", reads=(SCOPE,))  # its read_file, setter and reading loops after it
def py_reader_layer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    statement = ctx.statements[-1] if ctx.statements else None
    bound = assigned_name(statement) if statement is not None else None
    if bound is None or bound[1] is not emit.original_call(ctx, site):
        raise NeedsReview(_unnamed(statement))
    reader = bound[0]
    ctx.reads(site.scope.node, words=(reader,))
    read = _read_file(ctx, generator_loader.statements_after(ctx), reader)
    if read is None:
        raise NeedsReview(_returned(site, reader) or f"no `... = fluid.layers.read_file({reader})` follows in sight, "
                                                     f"so the variables it reads into are not known")
    statement_of_read, call, before, later = read
    try:
        return _convert(ctx, site, node, statement, reader, statement_of_read, before, later)
    except NeedsReview as reason:
        ctx.memo[(_OUTCOME, id(call))] = f"it reads `{reader}`, the py_reader left as written (its finding says why)"
        raise


@register("read_file_layer")
def read_file_layer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """Converted with the py_reader it reads (planned there), or left with its reason."""
    outcome = ctx.memo.get((_OUTCOME, id(emit.original_call(ctx, site))))
    if outcome is None:  # not the read_file of a py_reader in sight: no 2.x equivalent, as the table says
        return node
    if isinstance(outcome, str):
        raise NeedsReview(outcome)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> paddle.static.data variables, fed by the "
                                                         f"paddle.io.DataLoader `{outcome[0]}` becomes", True)
    return emit.converted(site, node)


def _convert(ctx: Context, site: Site, node: cst.Call, statement: cst.SimpleStatementLine, reader: str,
             read: cst.SimpleStatementLine, before: List[cst.CSTNode],
             later: List[cst.BaseStatement]) -> cst.BaseExpression:
    if reader in site.scope.globals or reader in site.scope.nonlocals:
        raise NeedsReview(f"`{reader}` is global here, so its uses are not in sight")
    if ctx.in_dygraph_guard(site.node):
        raise NeedsReview("in a dygraph guard, where 1.8 did not build readers into programs")
    emit.name(ctx, site, "paddle.io.DataLoader")  # (NeedsReview where `paddle` is not the module: before any plan)
    if call_args.has_star(node) or ctx.todos[-1]:
        raise NeedsReview("called with *args/**kwargs, or its arguments hold uses left as written")
    targets = _targets(read)
    fields = _fields(ctx, node, len(targets))
    shapes, dtypes = fields
    changed = _changed(before, set().union(*map(names_in, shapes)))
    if changed is not None:
        raise NeedsReview(f"`{changed}` may change between the reader and its read_file")
    if _returned(site, reader) is not None and not any(generator_loader.setter_call(s, reader, SETTERS) for s in later):
        return _convert_returned(ctx, site, node, statement, reader, read, targets, fields)
    setter, setter_statement, between = _setter(site, later, reader)
    method = setter.func.attr.value  # type: ignore[attr-defined]
    kind = SETTERS[method][0]
    double_buffer = call_args.get(node, "use_double_buffer")
    kept: Dict[str, cst.BaseExpression] = {"feed_list": cst.List([cst.Element(cst.Name(t)) for t in targets])}
    if double_buffer is not None:
        kept["use_buffer_reader"] = double_buffer.value
    changed = _changed(between, set(targets).union(*map(names_in, kept.values())))
    if changed is not None:
        raise NeedsReview(f"`{changed}` may change between the read_file and the reader's data source")
    loops = reading_loop.reading_loops(ctx, site, reader, setter_statement)
    _only_uses(site, reader, 3 + 2 * len(loops) + len(queue_size.calls(ctx, site.scope.node, reader)))
    generator_loader.setter_args(setter, SETTERS)  # (NeedsReview on arguments 1.8 did not take)
    feeder = None
    if kind == "set_sample_list_generator":
        if not all(_batch_first(shape) for shape in shapes):
            raise NeedsReview(f"{method}: a shape does not start with a negative batch size, so 1.8's DataFeeder "
                              f"prepended one")
        feeder = data_feeder.numpy_feeder(ctx, site, kept["feed_list"].deep_clone(), dtypes)

    ctx.replace(read, lambda updated: _data(ctx, site, updated, targets, fields))
    ctx.memo[(_OUTCOME, id(read.body[0].value))] = (reader,)  # type: ignore[attr-defined]
    return generator_loader.rewrite_loader(ctx, site, statement, reader, (method, SETTERS), kept, setter_statement,
                                          feeder, node, loops)


def _convert_returned(ctx: Context, site: Site, node: cst.Call, statement: cst.SimpleStatementLine, reader: str,
                      read: cst.SimpleStatementLine, targets: List[str],
                      fields: Tuple[List[cst.BaseExpression], List[str]]) -> cst.BaseExpression:
    """A reader its function returns (returned_reader): the variables where read_file was, then the
    DataLoader's arguments (`functools.partial`) bound to the reader's name, which the callers make into the
    loader where they set its source."""
    found = returned_reader.plan(ctx, site, reader, SETTERS)
    samples = [c.name for c in found if c.setter and
               SETTERS[c.setter[1].func.attr.value][0] != "set_batch_generator"]  # type: ignore[attr-defined]
    if samples and not all(_batch_first(shape) for shape in fields[0]):
        raise NeedsReview(f"`{samples[0]}` is given samples, and a shape does not start with a negative batch size, "
                          f"so 1.8's DataFeeder prepended one")
    loader = generator_loader.partial_loader(ctx, site, node, cst.List([cst.Element(cst.Name(t)) for t in targets]))
    moved: List[str] = []

    def remove(updated: cst.CSTNode) -> cst.FlattenSentinel:
        moved.extend(kept_comments.comments(updated))
        return cst.FlattenSentinel([])

    def data(updated: cst.CSTNode) -> cst.FlattenSentinel:
        made = _data(ctx, site, updated, targets, fields)
        assign = cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(reader))], value=loader)])
        return kept_comments.above(cst.FlattenSentinel([*made.nodes, assign]), moved)

    ctx.replace(statement, remove)
    ctx.replace(read, data)
    returned_reader.rewrite(ctx, site, found, SETTERS)
    ctx.memo[(_OUTCOME, id(read.body[0].value))] = (reader,)  # type: ignore[attr-defined]
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> paddle.static.data variables and "
                                                         f"paddle.io.DataLoader's arguments (functools.partial), "
                                                         f"made into the loader where each caller sets its source",
                              True)
    return emit.converted(site, node)


def _data(ctx: Context, site: Site, updated: cst.CSTNode, targets: Sequence[str],
          fields: Tuple[List[cst.BaseExpression], List[str]]) -> cst.FlattenSentinel:
    """`name = paddle.static.data(...)` for each variable read_file's statement (`updated`) bound."""
    made = [cst.SimpleStatementLine(body=[cst.Assign(
        targets=[cst.AssignTarget(cst.Name(name))],
        value=emit.call(ctx, site, "paddle.static.data", name=cst.SimpleString(repr(name)), shape=shape,
                        dtype=cst.SimpleString(repr(dtype))))]) for name, shape, dtype in zip(targets, *fields)]
    made[0] = made[0].with_changes(leading_lines=updated.leading_lines)  # type: ignore[attr-defined]
    return cst.FlattenSentinel(made)


def _read_file(ctx: Context, after: Sequence[cst.BaseStatement], reader: str) -> Optional[Tuple[
        cst.SimpleStatementLine, cst.Call, List[cst.CSTNode], List[cst.BaseStatement]]]:
    """The first statement after the reader's that uses it, when it is `... = read_file(reader)`, found in
    the `with` blocks that follow too: (it, its call, what runs before it (statements, `with` items), the
    statements run after)."""
    for index, stmt in enumerate(after):
        if reader not in names_in(stmt):
            continue
        if isinstance(stmt, cst.With):
            found = _read_file(ctx, stmt.body.body, reader)  # type: ignore[arg-type]
            if found is None:
                return None
            read, call, before, later = found
            return read, call, list(after[:index]) + list(stmt.items) + before, later + list(after[index + 1:])
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        call = small.value if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
        if not (isinstance(call, cst.Call) and len(call.args) == 1 and call.args[0].keyword is None and
                isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == reader):
            return None
        ref = ctx.resolver.references.get(id(call.func))
        matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref else None
        if matched is None or matched[0].transformer != "read_file_layer" or matched[1]:  # (the table's read_file)
            return None
        return stmt, call, list(after[:index]), list(after[index + 1:])  # type: ignore[return-value]
    return None


def _targets(read: cst.SimpleStatementLine) -> List[str]:
    """The names read_file's variables are bound to, one per field."""
    target = read.body[0].targets[0].target  # type: ignore[attr-defined]
    elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
    if not all(isinstance(e, cst.Name) for e in elements) or len(elements) == 1 and target is not elements[0] or \
            any(isinstance(e, cst.StarredElement) for e in getattr(target, "elements", ())):  # (one field: no tuple)
        raise NeedsReview("read_file's variables are not bound to one name each")
    names = [e.value for e in elements]  # type: ignore[attr-defined]
    if len(set(names)) != len(names):
        raise NeedsReview("read_file's variables are bound to the same name twice")
    return names


def _fields(ctx: Context, node: cst.Call, count: int) -> Tuple[List[cst.BaseExpression], List[str]]:
    """The shape expressions and dtype names of the reader's `count` fields; NeedsReview unless the call
    shows them, with every LoD level 0."""
    def elements(name: str) -> Optional[List[cst.BaseExpression]]:
        arg = call_args.get(node, name)
        if arg is None or not isinstance(arg.value, (cst.List, cst.Tuple)) or \
                any(isinstance(e, cst.StarredElement) for e in arg.value.elements):
            return None
        return [e.value for e in arg.value.elements]

    shapes, dtypes = elements("shapes"), elements("dtypes")
    if shapes is None or dtypes is None or len(shapes) != count or len(dtypes) != count:
        raise NeedsReview(f"shapes and dtypes are not lists of the {count} fields read_file's variables are bound "
                          f"to")
    names = [_string(d) for d in dtypes]
    if any(name not in _DTYPES for name in names):
        raise NeedsReview("a dtype is not a string literal naming a NumPy dtype")
    lod_levels = emit.value_of(ctx, node, "lod_levels", None)
    if lod_levels is not None and (not isinstance(lod_levels, (list, tuple)) or list(lod_levels) != [0] * count):
        raise NeedsReview(f"lod_levels={lod_levels!r}: 2.x's DataLoader feeds no LoD tensors")
    return shapes, names  # type: ignore[return-value]


def _string(node: cst.BaseExpression) -> Optional[str]:
    return node.evaluated_value if isinstance(node, cst.SimpleString) else None  # type: ignore[return-value]


def _batch_first(shape: cst.BaseExpression) -> bool:
    """`[-1, ...]` or `[-1] + ...`: a shape whose first size is a negative literal."""
    while isinstance(shape, cst.BinaryOperation) and isinstance(shape.operator, cst.Add):
        shape = shape.left
    first = shape.elements[0].value if isinstance(shape, (cst.List, cst.Tuple)) and shape.elements else None
    return isinstance(first, cst.UnaryOperation) and isinstance(first.operator, cst.Minus) and \
        isinstance(first.expression, cst.Integer) and int(first.expression.value) > 0


def _changed(nodes: Sequence[cst.CSTNode], names: Set[str]) -> Optional[str]:
    """A name of `names` that one of `nodes` (statements, `with` items) may rebind or change."""
    return next((name for name in (generator_loader.changes(n, names) for n in nodes) if name), None)


def _setter(site: Site, later: Sequence[cst.BaseStatement], reader: str) -> Tuple[
        cst.Call, cst.BaseStatement, List[cst.BaseStatement]]:
    """The setter statement that first uses the reader after its read_file, and the statements before it."""
    between: List[cst.BaseStatement] = []
    for stmt in later:
        setter = generator_loader.setter_call(stmt, reader, SETTERS)
        if setter is not None:
            return setter, stmt, between
        if reader in names_in(stmt):
            raise NeedsReview(_returned(site, reader) or f"`{reader}` is used (passed on, given its source in a nested "
                                                         f"block) before its data source is set in the same block")
        between.append(stmt)
    raise NeedsReview(_returned(site, reader) or f"no `{reader}.decorate_paddle_reader(...)` or "
                                                 f"`decorate_tensor_provider(...)` follows in the same block, so the "
                                                 f"batches it reads are not in sight")


def _returned(site: Site, reader: str) -> Optional[str]:
    """The reason, when the reader's function returns it: its callers set its source and read it."""
    if not any(isinstance(n, cst.Return) and n.value is not None and reader in names_in(n.value)
               for n in reading_loop.own_nodes(site.scope.node)):
        return None
    return f"`{reader}` is returned to callers, which set its source and read it; a reader the program reads " \
           f"(start(), reset()) is rewritten only where it is built, given its source and read in one function"


def _only_uses(site: Site, reader: str, expected: int) -> None:
    """NeedsReview unless the name appears only where the rewrite takes it (bound, read_file, setter, and
    the `start()`/`reset()` of each reading loop): passed on or returned, 2.x's loader would be misread."""
    attributes = {id(n.attr) for n in descendants(site.scope.node) if isinstance(n, cst.Attribute)}
    uses = sum(1 for n in descendants(site.scope.node)
               if isinstance(n, cst.Name) and n.value == reader and id(n) not in attributes)
    if uses != expected:
        raise NeedsReview(f"`{reader}` is used elsewhere in its function (passed on, returned, read by a nested "
                          f"function), which a paddle.io.DataLoader would not serve as 1.8's reader")


def _unnamed(statement: Optional[cst.CSTNode]) -> str:
    """Why a reader not bound to a name of its function is left, naming where it is kept."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
        return f"the reader is kept in `{target.value.value}.{target.attr.value}`, so where it is given its source " \
               f"and read (other methods, callers) is not in sight"
    return "the reader is not assigned to a name, so the program's reads of it are not in sight"
