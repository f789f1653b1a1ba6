"""Full reductions are 0-D in 2.x: the reads that relied on 1.8's shape [1] become scalar reads.

1.8 returned a full reduction (`mean`, `reduce_sum`, `accuracy`, ...) with shape [1] (api_mapping/SEMANTICS.md 8);
Paddle >= 2.5 returns the idiomatic 0-D result. The reduction is converted to its plain 2.x call, and in
the scope where its result is bound to a name (`name = <reduction>`, bound once), the reads that index
the [1] are made scalar reads, which work for both shapes:

    loss.numpy()[0]                                         -> loss.item()
    a, b = exe.run(prog, feed=f, fetch_list=[loss, acc])    (or fetch_list=[loss.name, ...])
    a[0]                                                    -> a.item()
    out = exe.run(prog, feed=f, fetch_list=[loss])
    out[0][0]                                               -> out[0].item()
    exe.run(prog, feed=f, fetch_list=[loss])[0][0]          -> exe.run(...)[0].item()

A reduction whose result leaves the scope (`return loss`, `self.loss = loss`) is reported: reads of it
elsewhere were not seen.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from refactors.engine import Context, Site
from refactors.hot_paths import descendants
from refactors.local_values import all_statements, assigned_name, assigned_targets, bound_once, expressions, statements
from refactors.scopes import Scope

# The transformers whose results are 0-D in 2.x: full reductions, and static learning-rate schedules (the
# program's rate variable that 1.8 code fetched).
PRODUCERS = ("full_reduce_shape1", "lr_decay_static")
_ZERO_D = "zero-d producers"  # ctx.memo key: ids of the original calls converted to a 0-D result
_ESCAPES = "zero-d unseen"  # ctx.memo key: id of an original call -> (its name, how its reads escape this analysis)


def produced(ctx: Context, site: Site) -> None:
    """Called by the transformer: this site's call now gives a 0-D result."""
    if site.call is None:
        return
    ctx.memo.setdefault(_ZERO_D, set()).add(id(site.call))  # type: ignore[union-attr]
    unseen = ctx.memo.get(_ESCAPES, {}).get(id(site.call))  # type: ignore[union-attr]
    if unseen is not None:
        name, how = unseen
        ctx.report(site, "converted-note", "info",
                   f"{site.name}: `{name}` is 0-D on Paddle >= 2.5 (shape [1] in 1.8) and {how}; where it is "
                   f"read as `{name}[0]`, or fetched and indexed with [0], read it with .item()", True)


def _is_zero_d(ctx: Context, call: cst.Call) -> bool:
    return id(call) in ctx.memo.get(_ZERO_D, ())  # type: ignore[operator]


def plan(ctx: Context) -> None:
    """Before the pass: find the reads of each reduction's result, to rewrite them if it becomes 0-D."""
    _plan_inline_reads(ctx)
    by_scope: Dict[int, Tuple[Scope, Dict[str, cst.Call]]] = {}
    for scope, name, call in _producers(ctx):
        # Its other bindings and its reads are statements of its scope, which may not mention paddle.
        ctx.require_parsed(scope.node, into_definitions=False, words=(name,))
        by_scope.setdefault(id(scope.node), (scope, {}))[1][name] = call
    for scope, calls in by_scope.values():
        body = scope.node if isinstance(scope.node, cst.Module) else getattr(scope.node, "body", None)
        if body is None:
            continue
        arrays: Dict[str, Set[str]] = {name: set() for name in calls}
        fetched: Dict[str, Dict[str, Set[int]]] = {name: {} for name in calls}
        for stmt in statements(scope.node):
            for name in calls:
                _fetch_targets(scope, stmt, name, arrays[name], fetched[name])
        for node in expressions(body):
            for name, call in calls.items():
                _plan_read(ctx, call, node, name, arrays[name], fetched[name])
                how = _unseen(node, name, arrays[name])
                if how is not None:
                    ctx.memo.setdefault(_ESCAPES, {}).setdefault(id(call), (name, how))  # type: ignore[union-attr]


def _plan_inline_reads(ctx: Context) -> None:
    """`<reduction>(...).numpy()[0]` read on the spot."""
    if ctx.source is not None and ".numpy()[0]" not in ctx.source:
        return
    for node in descendants(ctx.module):
        if isinstance(node, cst.Subscript) and _index(node) == 0 and isinstance(node.value, cst.Call) \
                and not node.value.args and isinstance(node.value.func, cst.Attribute) \
                and node.value.func.attr.value == "numpy" and isinstance(node.value.func.value, cst.Call) \
                and _reduction(ctx, node.value.func.value):
            call = node.value.func.value
            ctx.replace(node, lambda updated, call=call: _scalar(ctx, call, updated, "numpy"))


def _reduction(ctx: Context, call: cst.Call) -> bool:
    """The call is a legacy full reduction (whose transformer decides whether its result becomes 0-D)."""
    ref = ctx.resolver.references.get(id(call.func))
    if ref is None:
        return False
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "")
    return matched is not None and matched[0].transformer in PRODUCERS and not matched[1]


def _producers(ctx: Context) -> Iterator[Tuple[Scope, str, cst.Call]]:
    """(scope, name, call) for each `name = <legacy full reduction call>` bound once in its scope."""
    for stmt in all_statements(ctx.module):
        found = assigned_name(stmt)
        if found is None or not isinstance(found[1], cst.Call):
            continue
        ref = ctx.resolver.references.get(id(found[1].func))
        if ref is not None and bound_once(ref.scope, found[0]) and _reduction(ctx, found[1]):
            yield ref.scope, found[0], found[1]


def _fetch_list(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The `fetch_list` of an `Executor.run(program, feed, fetch_list, ...)` call, else None."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "run"):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "fetch_list":
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[2].value if len(positional) > 2 else None


def _fetched_at(call: cst.BaseExpression, name: str) -> Set[int]:
    """The positions in an `Executor.run` call's fetch list that fetch `name` (or `name.name`)."""
    if not isinstance(call, cst.Call):
        return set()
    fetch = _fetch_list(call)
    if not isinstance(fetch, (cst.List, cst.Tuple)):
        return set()
    found = set()
    for i, element in enumerate(fetch.elements):
        value = element.value
        if isinstance(value, cst.Attribute) and value.attr.value == "name":
            value = value.value
        if isinstance(value, cst.Name) and value.value == name and not isinstance(element, cst.StarredElement):
            found.add(i)
    return found


def _fetch_targets(scope: Scope, stmt: cst.CSTNode, name: str, arrays: Set[str],
                   fetched: Dict[str, Set[int]]) -> None:
    """Names bound (once) to what `Executor.run` fetched for `name`: the 0-D array itself (`arrays`),
    or the list of fetched values with the positions that hold it (`fetched`)."""
    unpacked = assigned_targets(stmt)
    if unpacked is not None:
        targets, value = unpacked
        for i in _fetched_at(value, name):
            if i < len(targets) and targets[i] is not None and bound_once(scope, targets[i]):  # type: ignore[arg-type]
                arrays.add(targets[i])  # type: ignore[arg-type]
        return
    single = assigned_name(stmt)
    if single is None or not bound_once(scope, single[0]):
        return
    target, value = single
    positions = _fetched_at(value, name)
    if positions:
        fetched[target] = positions
    elif isinstance(value, cst.Subscript) and _index(value) in _fetched_at(value.value, name):
        arrays.add(target)


def _index(node: cst.Subscript) -> Optional[int]:
    """`i` for `x[i]` with a literal non-negative integer index, else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    return int(value.value) if isinstance(value, cst.Integer) and value.value.isdigit() else None


def _plan_read(ctx: Context, call: cst.Call, node: cst.CSTNode, name: str, arrays: Set[str],
               fetched: Dict[str, Set[int]]) -> None:
    """Register `node` for rewriting when it reads `name`'s value as shape [1]: `x[0]` of it."""
    if not isinstance(node, cst.Subscript) or _index(node) != 0:
        return
    inner = node.value
    reads, scalar_of = False, "array"
    if isinstance(inner, cst.Call) and not inner.args and isinstance(inner.func, cst.Attribute) \
            and inner.func.attr.value == "numpy" and isinstance(inner.func.value, cst.Name):
        reads, scalar_of = inner.func.value.value == name, "numpy"  # name.numpy()[0]
    elif isinstance(inner, cst.Name):
        reads = inner.value in arrays  # a[0], a fetched 0-D array
    elif isinstance(inner, cst.Subscript):
        position = _index(inner)
        holder = inner.value
        reads = position is not None and (
            (isinstance(holder, cst.Name) and position in fetched.get(holder.value, ()))
            or position in _fetched_at(holder, name))  # out[i][0], exe.run(...)[i][0]
    if reads:
        ctx.replace(node, lambda updated: _scalar(ctx, call, updated, scalar_of))


def _scalar(ctx: Context, call: cst.Call, updated: cst.Subscript, kind: str) -> cst.BaseExpression:
    if not _is_zero_d(ctx, call):
        return updated
    inner = updated.value
    receiver = inner.func.value if kind == "numpy" else inner  # type: ignore[union-attr]
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) \
            and receiver.func.attr.value == "numpy":  # the read of a reduction made on the spot
        receiver = receiver.func.value
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("item")))


def _unseen(node: cst.CSTNode, name: str, arrays: Set[str]) -> Optional[str]:
    """How `node` lets `name`'s value be read where this analysis does not look, or None: returned,
    yielded or stored on an object, or its shape read (`[1]` in 1.8, `()` in 2.x)."""
    if isinstance(node, cst.Attribute) and node.attr.value == "shape" and isinstance(node.value, cst.Name) \
            and (node.value.value == name or node.value.value in arrays):
        return "its shape is read here"
    return "leaves this function" if _escapes(node, name) else None


def _escapes(node: cst.CSTNode, name: str) -> bool:
    value = None
    if isinstance(node, (cst.Return, cst.Yield)):
        value = node.value
    elif isinstance(node, cst.Assign) and all(isinstance(t.target, (cst.Attribute, cst.Subscript)) for t in node.targets):
        value = node.value
    if isinstance(value, (cst.Tuple, cst.List)):
        return any(isinstance(e.value, cst.Name) and e.value.value == name for e in value.elements)
    return isinstance(value, cst.Name) and value.value == name
