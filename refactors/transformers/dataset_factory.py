"""`ds = fluid.DatasetFactory().create_dataset()` and its setters: a `paddle.distributed.QueueDataset`.

1.8.5 `DatasetFactory().create_dataset(datafeed_class="QueueDataset")` (`dataset.py:40`) returns a
QueueDataset, which public setters configure one field at a time (`set_use_var`, `set_pipe_command`,
`set_batch_size`, `set_thread`: `dataset.py:113-260`), each writing the field of its data-feed
description. 2.x `paddle.distributed.QueueDataset` has the same fields behind one `init(use_var=...,
pipe_command=..., batch_size=..., thread_num=...)` whose other fields keep 1.8's defaults (a second
`init` would reset the fields it is not given), and the same `set_filelist` and `Executor.
train_from_dataset` (checked on 1.8.5 and 3.3.1, fixtures/legacy/dataset_factory_static.py):

    dataset = fluid.DatasetFactory().create_dataset()
    dataset.set_use_var([x, y])
    pipe_command = 'python reader.py {}'.format(vocab)
    dataset.set_pipe_command(pipe_command)
    dataset.set_batch_size(32)

becomes `dataset = paddle.distributed.QueueDataset()`, the same assignment to `pipe_command`, and
`dataset.init(use_var=[x, y], pipe_command=pipe_command, batch_size=32)` where the last setter was.
The setters' values are then read there, later than 1.8 read them, so the rewrite is done only where
that changes nothing: each value but the last one's computes nothing (a name, an attribute, a literal,
a list of those, lists joined to one written there), each setter is an expression statement of the
creation's block, set once, and what stands between the first and the last one is a setter, a
`set_filelist`, or an assignment to names the values before it do not read, of a value that computes
nothing but a string or a number (string formatting, text joined, `int(...)`). The dataset must be a
name bound once, used only so and by `set_filelist` and as the dataset of `train_from_dataset` /
`infer_from_dataset` in its scope, or returned (alone or as one element of a tuple) by a function whose
every call is in this module (no other module of the tree says its name, `callers.named_elsewhere`) and
binds it to a name used only those ways (fixtures/legacy/dataset_returned_static.py): those are the
methods 1.8's QueueDataset and 2.x's share (2.x has no public setter; a second `init` would add the
variables again). Passed on, its uses are out of sight. A field set again in each branch of an
`if`/`elif`/`else` after the setters (the thread count picked by device) becomes a name each branch
binds, and the init() follows the `if`, when nothing but Paddle, `os` and Python's builtins runs from
the first setter to there (`_set_in_branches`, fixtures/legacy/dataset_thread_branches_static.py). An
InMemoryDataset (loaded, shuffled, released by other methods) is left.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from refactors import call_args, kept_comments
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import assigned_name, bound_once, consecutive, names_in, statements
from refactors.scopes import Scope, bound_names, descendants, dotted
from refactors.transformers import SCOPE, callers, emit, register

_SETTERS = {"set_use_var": "use_var", "set_pipe_command": "pipe_command", "set_batch_size": "batch_size",
            "set_thread": "thread_num"}
_KEPT = ("set_filelist",)  # the same method in 2.x
_RUNS = ("train_from_dataset", "infer_from_dataset")  # Executor methods taking it as `dataset` (second)
_KINDS = {"QueueDataset": "paddle.distributed.QueueDataset"}
_CONVERSIONS = ("int", "float", "str", "len")  # builtins (where the file does not rebind them)
_BUILTINS = (*_CONVERSIONS, "range", "next", "sorted", "list", "print", "min", "max")  # that run no code of the program's


@register("dataset_factory", reads=(SCOPE,))
def dataset_factory(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = ctx.statements[-1] if ctx.statements else None
    created = _create_dataset(site, stmt)
    kind = _kind(ctx, created)
    bound = assigned_name(stmt) if isinstance(stmt, cst.SimpleStatementLine) else None
    if bound is None or bound[1] is not created or not bound_once(site.scope, bound[0]):
        raise NeedsReview("the dataset is not a name assigned once, so its setters are not in sight")
    name = bound[0]
    setters = _setters(ctx, site, stmt, name)  # type: ignore[arg-type]
    branches = _set_in_branches(ctx, site, setters, name)
    _check_uses(ctx, site, stmt, name, setters + (branches[1] if branches else []))  # type: ignore[arg-type]
    values = {_SETTERS[_method(s)]: _value(s) for s in setters}
    if branches is None:
        for setter in setters[:-1]:
            ctx.replace(setter, lambda updated: cst.FlattenSentinel([]))
        ctx.replace(setters[-1], lambda updated: updated.with_changes(body=[cst.Expr(_init(name, values))]))
    else:
        statement, again = branches
        field = _SETTERS[_method(again[0])]  # type: ignore[index]
        held = ctx.fresh_name(site.scope, field)
        values[field] = cst.Name(held)
        for setter in setters:
            ctx.replace(setter, lambda updated: cst.FlattenSentinel([]))
        for setter in again:
            ctx.replace(setter, lambda updated: updated.with_changes(body=[cst.Assign(
                [cst.AssignTarget(cst.Name(held))], updated.body[0].value.args[0].value)]))
        ctx.insert_around(statement, after=[cst.SimpleStatementLine([cst.Expr(_init(name, values))])])
    ctx.replace(created, lambda updated: updated.func.value)  # the constructor, as converted
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name}().create_dataset() -> {_KINDS[kind]}, "
                                                         f"its setters one init()", True)
    return emit.converted(site, emit.call(ctx, site, _KINDS[kind]))


def _init(name: str, values: Dict[str, cst.BaseExpression]) -> cst.Call:
    return cst.Call(func=cst.Attribute(cst.Name(name), cst.Name("init")),
                    args=[call_args.keyword_arg(k, v) for k, v in values.items()])


def _create_dataset(site: Site, stmt: Optional[cst.CSTNode]) -> cst.Call:
    for found in descendants(stmt) if stmt is not None else ():
        if isinstance(found, cst.Call) and isinstance(found.func, cst.Attribute) and found.func.value is site.call \
                and found.func.attr.value == "create_dataset":
            return found
    raise NeedsReview("DatasetFactory() is not followed by .create_dataset(...)")


def _kind(ctx: Context, created: cst.Call) -> str:
    if call_args.has_star(created) or len(created.args) > 1 or any(
            a.keyword is not None and a.keyword.value != "datafeed_class" for a in created.args):
        raise NeedsReview("create_dataset() takes only datafeed_class")
    kind = emit.value_of(ctx, created.with_changes(args=[call_args.as_keyword(a, "datafeed_class")
                                                         for a in created.args]),
                         "datafeed_class", "QueueDataset")
    if kind not in _KINDS:
        raise NeedsReview(f"datafeed_class={kind!r}: only a QueueDataset reads its data the same way in 2.x")
    return kind


def _method(stmt: cst.CSTNode) -> Optional[str]:
    """`m` of an expression statement `<name>.m(...)`."""
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    call = small.value if isinstance(small, cst.Expr) else None
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):
        return call.func.attr.value
    return None


def _value(stmt: cst.SimpleStatementLine) -> cst.BaseExpression:
    return stmt.body[0].value.args[0].value  # type: ignore[attr-defined]


def _setters(ctx: Context, site: Site, stmt: cst.SimpleStatementLine, name: str) -> List[cst.SimpleStatementLine]:
    """The setter statements after `stmt` in its block, in order; NeedsReview unless moving their values to
    the last one changes nothing and every other use of `name` is one 2.x takes alike."""
    following = {id(s): after for s, after in consecutive(ctx.module)}
    setters: List[cst.SimpleStatementLine] = []
    between: List[cst.SimpleStatementLine] = []  # statements after the first setter
    seen: Set[str] = set()
    current = following.get(id(stmt))
    while current is not None and len(seen) < len(_SETTERS):
        method = _method(current)
        if method in _SETTERS and current.body[0].value.func.value.value == name:  # type: ignore[attr-defined]
            _check_setter(current, method, seen)  # type: ignore[arg-type]
            _check_between(ctx, site, between, [_value(s) for s in setters])
            setters.append(current)  # type: ignore[arg-type]
            between = []
        elif setters:
            between.append(current)  # type: ignore[arg-type]
        current = following.get(id(current))
    if not setters:
        raise NeedsReview("no setter follows in the same block, so the 2.x init() has nothing to take")
    if not all(_computes_nothing(_value(s)) for s in setters[:-1]):
        raise NeedsReview("the value of a setter before the last computes something; bind it to a name first")
    return setters


def _set_in_branches(ctx: Context, site: Site, setters: List[cst.SimpleStatementLine],
                     name: str) -> Optional[Tuple[cst.If, List[cst.SimpleStatementLine]]]:
    """`if c: ... name.set_thread(1) else: ... name.set_thread(n)` after the setters (PaddleRec's ctr
    scripts pick the thread count by device so): the `if` and its setters, one of the same field in each
    branch, when the `init()` can go after it: each branch holds one, there is an `else`, every value
    of the setters before computes nothing, and what runs from the last of them to the end of the `if` is
    simple statements that rebind no name those values read and call only Paddle, `os` or Python's
    builtins (no code of the program's, which could change what the values hold). None when no `if` after
    the setters sets a field; NeedsReview when one does otherwise."""
    following = {id(s): after for s, after in consecutive(ctx.module)}
    passed: List[cst.CSTNode] = []
    current = following.get(id(setters[-1]))
    while current is not None and not (isinstance(current, cst.If) and _sets(current, name)):
        passed.append(current)
        current = following.get(id(current))
    if current is None:
        return None
    again: List[cst.SimpleStatementLine] = []
    branch: Optional[cst.CSTNode] = current
    while isinstance(branch, (cst.If, cst.Else)):
        if isinstance(branch, cst.If):
            passed.append(branch.test)
        body = branch.body.body if isinstance(branch.body, cst.IndentedBlock) else ()
        mine = [s for s in body if _method(s) in _SETTERS and _sets(s, name)]
        if len(mine) != 1:
            raise NeedsReview("a setter is called in some branches of an `if` only, or twice in one")
        _check_setter(mine[0], _method(mine[0]), set())  # type: ignore[arg-type]
        again.append(mine[0])  # type: ignore[arg-type]
        passed.extend(s for s in body if s is not mine[0])
        if isinstance(branch, cst.If) and branch.orelse is None:
            raise NeedsReview("a setter is called in an `if` without `else`, so the field 2.x's init() "
                              "takes is known at run time only")
        branch = branch.orelse if isinstance(branch, cst.If) else None
    if len({_method(s) for s in again}) != 1:
        raise NeedsReview("the branches of the `if` call different setters")
    values = [_value(s) for s in setters]
    if not all(_computes_nothing(v) for v in values):
        raise NeedsReview("the value of a setter before the `if` computes something; bind it to a name first")
    read = set().union(*(names_in(v) for v in values))
    for node in passed:
        if isinstance(node, cst.BaseCompoundStatement) or read & bound_names(node) \
                or not _runs_no_program_code(ctx, site, node, name):
            raise NeedsReview("a statement between the setters and the `if` that sets one again may change "
                              "what they were given")
    return current, again


def _sets(node: cst.CSTNode, name: str) -> bool:
    """`node` calls a setter of `name`."""
    return any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _SETTERS
               and isinstance(n.func.value, cst.Name) and n.func.value.value == name for n in descendants(node))


def _runs_no_program_code(ctx: Context, site: Site, node: cst.CSTNode, name: str) -> bool:
    """Every call in `node` is of a Paddle API, an `os` function, one of Python's builtins, or the dataset's
    `set_filelist`, and nothing is stored into an attribute or item."""
    for n in descendants(node):
        if isinstance(n, cst.Del) or isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and any(
                isinstance(t, (cst.Attribute, cst.Subscript)) for t in descendants(n.target)):
            return False
        if not isinstance(n, cst.Call):
            continue
        chain = dotted(n.func)
        head = chain.partition(".")[0] if chain else None
        if chain is None or not (
                chain == f"{name}.{_KEPT[0]}"
                or "." not in chain and chain in _BUILTINS and ctx.resolver.lookup(chain, site.scope) is None
                or (ctx.resolver.qualname(chain, site.scope) or "").startswith("paddle.")
                or head == "os" and _imports_os(ctx)):
            return False
    return True


def _imports_os(ctx: Context) -> bool:
    """`os` names the standard module: bound once in the module, by a top-level `import os`."""
    module = ctx.resolver.module_scope
    return bound_once(module, "os") and any(
        isinstance(small, cst.Import) and any(dotted(a.name) in ("os", "os.path") and a.asname is None
                                              for a in small.names)
        for stmt in ctx.module.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body)


def _check_setter(stmt: cst.SimpleStatementLine, method: str, seen: Set[str]) -> None:
    call = stmt.body[0].value  # type: ignore[attr-defined]
    if method in seen:
        raise NeedsReview(f"{method}() is called twice; the 2.x init() takes each field once")
    seen.add(method)
    if len(call.args) != 1 or call.args[0].star or call.args[0].keyword is not None:
        raise NeedsReview(f"{method}() takes one value, given by position")
    if kept_comments.comments(stmt):
        raise NeedsReview(f"the {method}() statement carries a comment, which would have nowhere to stay")


def _check_between(ctx: Context, site: Site, between: List[cst.SimpleStatementLine],
                   values: List[cst.BaseExpression]) -> None:
    read = set().union(*(names_in(v) for v in values)) if values else set()
    for stmt in between:
        if _method(stmt) in _KEPT:
            continue
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if not (isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets)
                and _formats_only(ctx, site, small.value)):
            raise NeedsReview("a statement between the setters may change what they were given")
        if read & {t.target.value for t in small.targets}:  # type: ignore[attr-defined]
            raise NeedsReview("a statement between the setters rebinds a name their values read")


def _check_uses(ctx: Context, site: Site, stmt: cst.SimpleStatementLine, name: str,
                setters: List[cst.SimpleStatementLine]) -> None:
    ctx.reads(site.scope.node, words=(name,))
    allowed = _taken_alike(site.scope.node, name) | {id(stmt.body[0].targets[0].target)}  # type: ignore[attr-defined]
    allowed |= {id(s.body[0].value.func.value) for s in setters}  # type: ignore[attr-defined]
    left = [node for node in descendants(site.scope.node)
            if isinstance(node, cst.Name) and node.value == name and id(node) not in allowed]
    if left and not _returned_to_callers(ctx, site.scope, left):
        raise NeedsReview(f"`{name}` is used other than by its setters, set_filelist() and "
                          f"train_from_dataset(); the 2.x object has other methods")


def _taken_alike(root: cst.CSTNode, name: str) -> Set[int]:
    """The ids of the names in `root` that are no use of the variable `name` (an attribute's or a keyword's
    name) or a use 2.x's QueueDataset takes alike: the receiver of `set_filelist`, the dataset of
    `train_from_dataset` / `infer_from_dataset`."""
    allowed: Set[int] = set()
    for node in descendants(root):
        if isinstance(node, cst.Attribute):
            allowed.add(id(node.attr))  # (no reference to it: `x.dataset`, `f(dataset=...)`)
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            allowed.add(id(node.keyword))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver, method = node.func.value, node.func.attr.value
            if method in _KEPT and isinstance(receiver, cst.Name) and receiver.value == name:
                allowed.add(id(receiver))
            elif method in _RUNS:
                given = call_args.get(node, "dataset")
                given = given or (node.args[1] if len(node.args) > 1 and node.args[1].keyword is None else None)
                if given is not None and isinstance(given.value, cst.Name) and given.value.value == name:
                    allowed.add(id(given.value))
    return allowed


def _returned_to_callers(ctx: Context, scope: Scope, left: List[cst.Name]) -> bool:
    """Each of `left` is what a `return` of the function gives, alone or as the same element of a tuple,
    and every call of the function (all in this module, `callers`) binds that to a name its scope uses
    only as `_taken_alike` says: the callers then see nothing of the 2.x object but what 1.8's has too.
    NeedsReview when it is returned but a caller is not so (or may be out of sight)."""
    function = scope.node
    if not isinstance(function, cst.FunctionDef):
        return False
    ids = {id(node) for node in left}
    places: Set[Optional[int]] = set()
    for stmt in statements(function):
        for ret in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            value = ret.value if isinstance(ret, cst.Return) else None
            if id(value) in ids:
                places.add(None)
                ids.discard(id(value))
            elif isinstance(value, cst.Tuple) and not any(isinstance(e, cst.StarredElement) for e in value.elements):
                for index, element in enumerate(value.elements):
                    if id(element.value) in ids:
                        places.add(index)
                        ids.discard(id(element.value))
    if ids or len(places) != 1:
        return False
    place = places.pop()
    calls = callers.calls_of(ctx, function)
    if not calls or callers.named_elsewhere(ctx, function.name.value) \
            or not all(_bound_and_taken_alike(ctx, call, where, place) for call, where in calls):
        raise NeedsReview(f"`{function.name.value}` returns the dataset to a caller that uses it other than by "
                          f"set_filelist() and train_from_dataset(), or to one out of sight")
    return True


def _bound_and_taken_alike(ctx: Context, call: cst.Call, where: Scope, place: Optional[int]) -> bool:
    """`x = call` (`place` None) or `a, x = call` (`x` at `place`), a statement of `where`, with `x` bound
    once there and each use of it one `_taken_alike` allows."""
    found = next((small for stmt in statements(where.node) if isinstance(stmt, cst.SimpleStatementLine)
                  for small in stmt.body if isinstance(small, cst.Assign) and small.value is call), None)
    target = found.targets[0].target if found is not None and len(found.targets) == 1 else None
    if place is not None:
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
        target = elements[place].value if place < len(elements) and not any(
            isinstance(e, cst.StarredElement) for e in elements) else None
    if not isinstance(target, cst.Name):
        return False
    name = target.value
    if len(where.bindings.get(name, ())) != 1 or name in where.globals or name in where.nonlocals:
        return False
    ctx.reads(where.node, words=(name,))
    allowed = _taken_alike(where.node, name) | {id(target)}
    return all(id(node) in allowed for node in descendants(where.node)
               if isinstance(node, cst.Name) and node.value == name)


def _computes_nothing(node: cst.BaseExpression) -> bool:
    """A name, an attribute, a literal, a list or tuple of those, or lists joined (`[x] + inputs + [y]`:
    the leftmost one a list written there, so each `+` is a list's)."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(type(e) is cst.Element and _computes_nothing(e.value) for e in node.elements)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        leftmost = node.left
        while isinstance(leftmost, cst.BinaryOperation) and isinstance(leftmost.operator, cst.Add):
            leftmost = leftmost.left
        return isinstance(leftmost, cst.List) and _computes_nothing(node.left) and _computes_nothing(node.right)
    return emit.pure(node)


def _formats_only(ctx: Context, site: Site, node: cst.BaseExpression) -> bool:
    """Computes nothing but a string or number: `'...'.format(...)`, `'...' % (...)`, an f-string,
    `int(...)`, of pure parts, or such text joined to another (`PYTHON_PATH + ' reader.py %d' % n`)."""
    if _computes_nothing(node) or isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) \
            and (_text(node.left) or _text(node.right)):
        return _formats_only(ctx, site, node.left) and _formats_only(ctx, site, node.right)
    if isinstance(node, cst.FormattedString):
        return all(_computes_nothing(p.expression) for p in node.parts if isinstance(p, cst.FormattedStringExpression))
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and isinstance(node.func.value, (cst.SimpleString, cst.ConcatenatedString)) \
            and node.func.attr.value == "format":
        return all(not a.star and _computes_nothing(a.value) for a in node.args)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo) \
            and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString)):
        return _computes_nothing(node.right)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _CONVERSIONS \
            and ctx.resolver.lookup(node.func.value, site.scope) is None:
        return all(not a.star and a.keyword is None and _computes_nothing(a.value) for a in node.args)
    return False


def _text(node: cst.BaseExpression) -> bool:
    """A string written there or made by formatting one (then `+` joins strings)."""
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, cst.Modulo) and _text(node.left) \
            or isinstance(node.operator, cst.Add) and (_text(node.left) or _text(node.right))
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
        return _text(node.func.value)
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
