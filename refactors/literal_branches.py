"""A call whose argument is one of two literals, chosen by a local name: converted once per literal.

    fluid.layers.elementwise_mul(x=a, y=s, axis=-1 if shared else 1)
    ->  (paddle.multiply(x=a, y=s) if shared else paddle.multiply(x=a, y=paddle.unsqueeze(s, ...)))

Where the 2.x form depends on an argument's value and the argument is `A if c else B` with `A` and `B`
literals, the call is converted with `A` and with `B`, and the two are put under the same condition.
Only one of them runs, so every other argument is evaluated once, as before; the condition is read
first instead of after the arguments before it, which is the same only when evaluating them cannot
change it: `c` must be a name of the function's own (not global, not rebound by a nested function's
`nonlocal`), and the call must hold no `:=` (nor a comment, which would be written twice).
"""
from __future__ import annotations

import ast
from typing import Optional, Tuple

import libcst as cst

from refactors.engine import Context, Site
from refactors.scopes import descendants
from refactors.zero_d import PRODUCERS


def split(ctx: Context, site: Site, call: cst.Call) -> Optional[Tuple[cst.Name, cst.Call, cst.Call]]:
    """(condition, the call with the first literal, the call with the second), when the call has
    exactly one argument of that form."""
    if site.entry is None or site.entry.transformer in PRODUCERS:
        return None  # a result whose later reads change with the branch taken (refactors.zero_d)
    found = [i for i, arg in enumerate(call.args) if _literal_choice(ctx, arg.value)]
    if len(found) != 1 or any(isinstance(n, (cst.NamedExpr, cst.Comment)) for n in descendants(call)):
        return None  # (a comment in it would be written twice)
    index = found[0]
    choice: cst.IfExp = call.args[index].value  # type: ignore[assignment]
    if not _own_name(ctx, site, choice.test):  # type: ignore[arg-type]
        return None

    def given(value: cst.BaseExpression) -> cst.Call:
        args = list(call.args)
        args[index] = args[index].with_changes(value=value.with_changes(lpar=[], rpar=[]))
        return call.with_changes(args=args)
    # The other arguments are written in both calls: the second gets nodes of its own.
    return choice.test, given(choice.body), given(choice.orelse).deep_clone()  # type: ignore[return-value]


def joined(test: cst.Name, when: cst.BaseExpression, otherwise: cst.BaseExpression) -> cst.BaseExpression:
    """`(when if test else otherwise)`, in parentheses so that it stays one operand wherever it is."""
    return cst.IfExp(test=test, body=when, orelse=otherwise, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _literal_choice(ctx: Context, value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.IfExp) and isinstance(value.test, cst.Name) \
        and _literal(ctx, value.body) and _literal(ctx, value.orelse)


def _literal(ctx: Context, node: cst.BaseExpression) -> bool:
    try:
        ast.literal_eval(ctx.code(node).strip())
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _own_name(ctx: Context, site: Site, test: cst.Name) -> bool:
    """`test` is bound in the function the call is in, and nothing else can rebind it meanwhile."""
    scope = site.scope
    name = test.value
    if scope.is_class or scope.parent is None or name not in scope.bindings or name in scope.globals \
            or name in scope.nonlocals:
        return False
    return not any(name in other.nonlocals for other in ctx.resolver.scopes.values())
