"""`act=<name>` whose every value the file shows (refactors.value_sets): the 1.8 activation, applied by hand.

    out = fluid.layers.affine_channel(x=conv, scale=s, bias=b, act=act)   # act: 'relu' or None
    ->  out = fluid_affine_channel(x=conv, scale=s, bias=b)
        out = paddle.nn.functional.relu(out) if act == "relu" else out

1.8 applied nothing for `None` only (layer_helper.py:139 `append_activation`; `''` is an error there:
'Operator "" has not been registered'), and otherwise the op named, with its default attributes: each
value goes through its own table entry, as a literal `act=` does (emit.activation), and a value without a
faithful 2.x activation leaves the call as written. One value needs no test: the activation wraps the
call. Several are tested, in the order the file shows them, in a statement after the call, which must be
the whole value of `name = <call>`: the name, not `act`, is what is re-bound, so the call still runs once.
"""
from __future__ import annotations

from typing import Callable, List, Tuple

import libcst as cst

from refactors import value_sets
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import descendants

Apply = Callable[[cst.BaseExpression], cst.BaseExpression]


def activation(ctx: Context, site: Site, act: cst.BaseExpression, one: Callable[[str], Apply]) -> Apply:
    """Apply the activation `act` holds; `one(op)` applies the literal activation `op`."""
    shown = ctx.code(act).strip()
    try:
        values = value_sets.values_at(ctx, site, act)
    except NeedsReview as why:
        raise NeedsReview(f"`act={shown}` is not a literal ({why}); "
                          f"apply the activation to the output by hand") from None
    for value in values:
        if value is not None and not isinstance(value, str):
            raise NeedsReview(f"`act={shown}` may be {value!r}, which names no activation")
    applies: List[Tuple[str, Apply]] = []
    for value in values:
        if value is not None:
            try:
                applies.append((value, one(value)))
            except NeedsReview as why:
                raise NeedsReview(f"`act={shown}` may be {value!r}: {why}") from None
    told = ", ".join(repr(v) for v in values)
    if not applies:
        return lambda inner: inner
    if len(values) == 1:
        ctx.report(site, "act-values", "info", f"{site.name}(act={shown}): `{shown}` is always {told}", True)
        return applies[0][1]
    statement, target = _assignment(ctx, site, shown, told)
    if not isinstance(act, cst.Name) or act.value == target.value \
            or any(isinstance(n, cst.NamedExpr) for n in descendants(statement)):
        raise NeedsReview(f"`act={shown}` is one of {told}; apply it to `{target.value}` by hand")
    name, act_name = target.value, act.value
    tests = [(_equals(act_name, value), cst.AssignTarget(cst.Name(name)), apply(cst.Name(name)))
             for value, apply in applies]
    if len(tests) == 1:  # and None: `out = relu(out) if act == "relu" else out`
        test, assigned, value = tests[0]
        after: cst.BaseStatement = cst.SimpleStatementLine([cst.Assign([assigned], cst.IfExp(test, value, cst.Name(name)))])
    else:  # if act == "relu": out = relu(out) / elif act == "sigmoid": ...
        after = None  # type: ignore[assignment]
        for test, assigned, value in reversed(tests):
            body = cst.IndentedBlock([cst.SimpleStatementLine([cst.Assign([assigned], value)])])
            after = cst.If(test, body, orelse=after)
    ctx.report(site, "act-values", "info", f"{site.name}(act={shown}): `{shown}` is one of {told} (every value "
               f"the file gives it); the activation is applied to `{target.value}` after the call", True)

    def apply(inner: cst.BaseExpression) -> cst.BaseExpression:
        ctx.insert_around(statement, after=[after])
        return inner
    return apply


def _equals(act: str, value: str) -> cst.Comparison:
    return cst.Comparison(cst.Name(act), [cst.ComparisonTarget(cst.Equal(), cst.SimpleString(f'"{value}"'))])


def _assignment(ctx: Context, site: Site, shown: str, told: str) -> Tuple[cst.SimpleStatementLine, cst.Name]:
    """The statement `name = <the call>` being upgraded, and its name."""
    statement = ctx.statements[-1] if ctx.statements else None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                and isinstance(small.value, cst.Call) and small.value.func is site.node:
            return statement, small.targets[0].target
    raise NeedsReview(f"`act={shown}` is one of {told}, and the call is not the whole value of `name = ...`; "
                      f"apply the activation to the output by hand")
