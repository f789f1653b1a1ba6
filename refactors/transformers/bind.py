"""Bind an operand to a fresh name in a statement of its own, before the statement being upgraded.

Some 2.x forms read an operand more than once (`elementwise_*`'s axis alignment reads `x` and `y`
again for their ranks; `load_dygraph` writes its path three times). An operand that is not a plain
name must then be evaluated once, into a new variable, first:

    out = fluid.layers.elementwise_mul(layers.log(p), q, axis=0)
becomes
    x = paddle.log(p)
    out = paddle.multiply(x, paddle.unsqueeze(q, list(range(len(q.shape), len(x.shape)))))

This keeps the 1.8 meaning only when moving the evaluation earlier changes nothing else, so it is done
only when: the call is in a simple statement (`name = ...`, `return ...`, an expression statement), not
under a lambda, a comprehension, a conditional expression or `and`/`or` (evaluated a different number
of times, or not at all); nothing evaluated before it in that statement calls anything (a static graph
names its layers in the order they are made, and random operators draw in that order) but the 1.8
tensor operators of `PURE_OPS`, which make no parameter and draw no random number, so that making them
after the operand changes no value, only the generated names of their outputs (`a(x, m, axis=0) -
a(y, m - 1, axis=0)`, fixtures/legacy/elementwise_bind_after_ops.py); and the operands keep their
order. The new names are fresh: bound nowhere the statement can see, and new to this upgrade
(`Context.fresh_name`).
"""
from __future__ import annotations

import ast
import re
from typing import Callable, List, Sequence, Tuple

import libcst as cst

from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import children, descendants, dotted

# Expressions that evaluate each of their parts once, unconditionally, in the order libcst lists them.
_ONCE = (cst.Call, cst.Arg, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget,
         cst.Subscript, cst.SubscriptElement, cst.Index, cst.Attribute, cst.List, cst.Tuple, cst.Set, cst.Element,
         cst.StarredElement, cst.Dict, cst.DictElement, cst.StarredDictElement)
_SIMPLE = (cst.Assign, cst.AnnAssign, cst.Return, cst.Expr)
_EFFECTS = (cst.Call, cst.Await, cst.Yield, cst.NamedExpr)
# 1.8 operators (table names) with no parameter, no random number and no effect beyond their output.
PURE_OPS = frozenset("paddle.fluid.layers." + name for name in (
    "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_max",
    "elementwise_min", "expand", "unsqueeze", "squeeze", "reshape", "transpose", "cast", "concat", "log", "exp",
    "scale", "reduce_sum", "reduce_mean"))


def first(ctx: Context, site: Site, operands: Sequence[Tuple[str, cst.BaseExpression]], why: str) -> List[cst.Name]:
    """Names bound, in statements inserted before the one being upgraded, to each `(base, operand)`, in
    order; NeedsReview(why) when that would change what the statement does."""
    statement = ctx.statements[-1] if ctx.statements else None
    refused = ctx.memo.setdefault("bind: refused where they stand", {})  # id -> the call (kept: ids are reused)
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], _SIMPLE) and site.call is not None
            and _evaluated_first(statement.body[0], site.call, lambda call: _pure_op(ctx, site, call))):
        if site.call is not None:
            refused[id(site.call)] = site.call
        raise NeedsReview(why)
    if any(refused.get(id(n)) is n for n in descendants(site.call) if n is not site.call):
        # An operand holds a use refused for where it stands: bound to a name of its own, it would stand
        # alone and be converted by the next run, so this run would not be the upgrade's last word.
        refused[id(site.call)] = site.call
        raise NeedsReview(f"{why}, after the use in its operand that cannot be bound where it stands")
    if any(_names_paddle(ctx, site, operand) for _, operand in operands):
        raise NeedsReview(why)  # a module or class of paddle itself, not a value: left as it is
    names, bindings = [], []
    for base, operand in operands:
        name = _unused_name(ctx, site, base)
        names.append(cst.Name(name))
        # Its parentheses go (the same node otherwise: marks on it), except where they are its syntax:
        # `y = z := x` and `y = a for a in b` do not parse.
        bare = operand.lpar and not isinstance(operand, (cst.NamedExpr, cst.GeneratorExp))
        value = operand.with_changes(lpar=[], rpar=[]) if bare else operand
        bindings.append(cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))],
                                                                 value=value)]))
    ctx.insert_around(statement, before=bindings)
    return names


def _unused_name(ctx: Context, site: Site, base: str) -> str:
    """A fresh name that the file does not even read (a name read but bound nowhere may be a global
    that some other module sets)."""
    read = ctx.memo.get("bind: names read")
    if read is None:
        tree = ctx.python_tree()
        if tree is not None:
            read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        else:
            read = set(re.findall(r"\w+", ctx.source))  # every word, then
        ctx.memo["bind: names read"] = read
    while True:
        name = ctx.fresh_name(site.scope, base)
        if name not in read:  # type: ignore[operator]
            return name


def _names_paddle(ctx: Context, site: Site, operand: cst.BaseExpression) -> bool:
    chain = dotted(operand)
    return chain is not None and ctx.resolver.qualname(chain, site.scope) is not None


def _pure_op(ctx: Context, site: Site, call: cst.Call) -> bool:
    chain = dotted(call.func)
    qualname = ctx.resolver.qualname(chain, site.scope) if chain else None
    entry = ctx.entry_for(qualname) if qualname else None
    return entry is not None and entry.name in PURE_OPS


def _evaluated_first(small: cst.BaseSmallStatement, call: cst.Call, pure: Callable[[cst.Call], bool]) -> bool:
    """Whether `call`, in the statement, is reached only through parts evaluated once and unconditionally,
    after nothing that calls anything but `pure` calls (an assignment's targets are evaluated after its
    value)."""
    value = getattr(small, "value", None)
    return value is not None and _reached_cleanly(value, call, pure)


def _reached_cleanly(node: cst.CSTNode, call: cst.Call, pure: Callable[[cst.Call], bool]) -> bool:
    if node is call:
        return True
    if not isinstance(node, _ONCE):
        return False
    for child in children(node):
        if _holds(child, call):
            return _reached_cleanly(child, call, pure)
        if _has_effects(child, pure):
            return False
    return False


def _holds(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    return any(n is target for n in descendants(node))


def _has_effects(node: cst.CSTNode, pure: Callable[[cst.Call], bool]) -> bool:
    return any(isinstance(n, _EFFECTS) and not (isinstance(n, cst.Call) and pure(n)) for n in descendants(node))

