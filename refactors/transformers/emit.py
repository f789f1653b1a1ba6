"""Building blocks the transformers share: finish a call as its 2.x form, read literal arguments,
apply a 1.8 `act=` string, and tell whether an expression may be written twice.

Not a transformer itself (nothing here is registered).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

import libcst as cst

from api_mapping.namespaces import ACTIVATIONS, LAYER_BASE
from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.scopes import Scope, descendants, dotted
from refactors.target_signatures import target_params
from refactors.warning_evidence import report_warning


_UNSET = object()


def name(ctx: Context, site: Site, qualname: str) -> cst.BaseExpression:
    """The expression for a 2.x name, or NeedsReview when `paddle` is rebound where the call is."""
    if qualname.split(".")[0] == "paddle" and not ctx.resolver.is_paddle_root(site.scope):
        raise NeedsReview(ctx.resolver.paddle_is_v2(site.scope) or "`paddle` is rebound here; rewrite by hand")
    return ctx.name_node(qualname)


def call(ctx: Context, site: Site, qualname: str, *args: cst.BaseExpression,
         **kwargs: cst.BaseExpression) -> cst.Call:
    """`qualname(*args, **kwargs)`, positional arguments first."""
    arguments = [cst.Arg(value=a) for a in args]
    arguments += [call_args.keyword_arg(k, v) for k, v in kwargs.items()]
    return call_args.with_args(cst.Call(func=name(ctx, site, qualname)), arguments)


def finish(ctx: Context, site: Site, node: cst.Call, target: Optional[str] = None) -> cst.Call:
    """The call in its final 2.x form: the entry's `args_change` applied and the callee renamed.

    Reports the entry's `warning` (where the use shows it applies), and that its target needs a newer
    Paddle when the entry says `since`, since the rename step will not see this call again.
    """
    from refactors.refactor_kwargs import apply_changes  # import here: that module imports this package

    entry = site.entry
    assert entry is not None
    qualname = target or entry.update_to
    if qualname is None:
        raise NeedsReview(f"{entry.name} has no 2.x target in the table")
    node = positional_again(ctx, site, apply_changes(ctx, entry, node), qualname)
    func = name(ctx, site, qualname)
    report_warning(ctx, site)
    ctx.report_newer(site, qualname)
    return node.with_changes(func=func)


def original_call(ctx: Context, site: Site) -> Optional[cst.Call]:
    """The call as the user wrote it (the pass hands transformers the updated node)."""
    return site.call


def positional_again(ctx: Context, site: Site, node: cst.Call, target: str,
                     params: Optional[Sequence[str]] = None) -> cst.Call:
    """Leading arguments the user passed by position go back to positions where the 2.x target has
    the same parameter there (step 3 made them keywords so that transformers see them by name).
    `params`: the called function's parameters, when it is not a 2.x API (a function the upgrade
    writes into the module)."""
    original = original_call(ctx, site)
    params = list(params) if params is not None else target_params(target)
    entry = site.entry
    if original is None or params is None or entry is None or not entry.args_list:
        return node
    count = 0
    for arg in original.args:
        if arg.keyword is not None or arg.star:
            break
        count += 1
    was_positional = {p.name for p in entry.args_list[:count]}
    was_positional |= {c.to for c in entry.args_change if c.op == "rename" and c.arg in was_positional}
    args = list(node.args)
    for i in range(min(len(args), len(params))):
        keyword = args[i].keyword.value if args[i].keyword is not None else None
        if keyword is None or keyword != params[i] or keyword not in was_positional:
            break
        args[i] = args[i].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
    return node.with_changes(args=args)


def converted(site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    """Mark the site as fully rewritten by its transformer and return the new expression."""
    site.converted = True
    return node


def value_of(ctx: Context, node: cst.Call, arg: str, default: Any = _UNSET) -> Any:
    """The literal value of keyword `arg`; `default` when absent; NeedsReview when not a literal."""
    found = call_args.get(node, arg)
    if found is None:
        if default is _UNSET:
            raise NeedsReview(f"`{arg}` is missing")
        return default
    try:
        return literal(found.value, ctx)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise NeedsReview(f"`{arg}={ctx.code(found.value).strip()}` is not a literal, and the 2.x form "
                          f"depends on its value") from None


def is_literal(ctx: Context, node: cst.BaseExpression) -> bool:
    try:
        literal(node, ctx)
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def pure(node: cst.BaseExpression) -> bool:
    """True when writing the expression twice evaluates the same thing twice, with no side effect:
    a name, an attribute chain, a literal, or a subscript of those by a literal."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return pure(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    if isinstance(node, cst.Subscript):
        return pure(node.value) and all(
            isinstance(el.slice, cst.Index) and pure(el.slice.value) for el in node.slice)
    return False


def repeatable(ctx: Context, site: Site, node: cst.BaseExpression) -> bool:
    """True when a rewrite may write the expression more than once: it is `pure`, and names no paddle
    API (each copy would be a use site of its own to the next run, which would convert it)."""
    return pure(node) and not any(
        ctx.resolver.qualname(chain, site.scope) for chain in (dotted(n) for n in descendants(node)) if chain)


def required(node: cst.Call, arg: str) -> cst.BaseExpression:
    found = call_args.get(node, arg)
    if found is None:
        raise NeedsReview(f"`{arg}` is missing")
    return found.value


def receiver(node: cst.BaseExpression) -> cst.BaseExpression:
    """The expression, safe before `.attr` or `[index]` (`1.shape` does not parse; `(a + b).shape` is
    not `a + b.shape`)."""
    if isinstance(node, cst.Integer) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return parenthesized(node)


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """The expression, safe as an operand of `*` or `not`."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
                         cst.SimpleString, cst.List, cst.Tuple)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def negated(ctx: Context, node: cst.BaseExpression) -> cst.BaseExpression:
    """`not <node>`, folded when the node is a literal bool."""
    if is_literal(ctx, node) and isinstance(literal(node, ctx), bool):
        return cst.Name("False" if literal(node, ctx) else "True")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return node.expression.with_changes(lpar=[], rpar=[]) if isinstance(
            node.expression, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else node.expression
    return cst.UnaryOperation(operator=cst.Not(), expression=parenthesized(node))


def activation(ctx: Context, site: Site, act: Optional[cst.BaseExpression],
               at_run_time: bool = True) -> Callable[[cst.BaseExpression], cst.BaseExpression]:
    """A function applying the 1.8 activation `act` to an expression, as `fluid.layers.<act>` would.

    Resolved now (so that NeedsReview is raised while the call can still be left as written); the
    activation's own table entry gives its 2.x name and any argument it must carry (e.g. a 1.8
    default that 2.x changed). An `act` whose values the file does not show, or not where a statement
    may follow, is applied when the program runs (act_at_run_time), unless `at_run_time` is False.
    """
    if act is None or (is_literal(ctx, act) and literal(act, ctx) is None):
        return lambda inner: inner
    if not is_literal(ctx, act):
        from refactors.transformers import act_at_run_time, act_values  # they import this module

        try:
            return act_values.activation(ctx, site, act, lambda op: literal_activation(ctx, site, op))
        except NeedsReview as why:
            if not at_run_time:
                raise
            return act_at_run_time.applied(ctx, site, act, why)
    if not isinstance(literal(act, ctx), str):
        raise NeedsReview(f"`act={ctx.code(act).strip()}` is not an activation name; apply the activation to "
                          f"the output by hand")
    return literal_activation(ctx, site, literal(act, ctx))


# Transformers of activation entries that, given the tensor alone, make the plain 2.x call of the entry
# (`relu6`'s is about a threshold other than 6, which an `act=` never passes).
_DEFAULTS_ONLY = ("relu6_threshold",)


def literal_activation(ctx: Context, site: Site, op: str) -> Callable[[cst.BaseExpression], cst.BaseExpression]:
    """Apply 1.8's activation operator `op` with its default attributes, through its table entry."""
    entry = ctx.table.lookup(ACTIVATIONS + op)
    if entry is None or entry.update_to is None or entry.transformer not in (None, *_DEFAULTS_ONLY) \
            or not entry.args_list:
        raise NeedsReview(f"`act='{op}'`: no 2.x activation known for it; apply it to the output by hand")
    from refactors.refactor_kwargs import apply_changes

    first = entry.args_list[0].name
    target = name(ctx, site, entry.update_to)

    def apply(inner: cst.BaseExpression) -> cst.BaseExpression:
        node = cst.Call(func=target, args=[call_args.keyword_arg(first, inner)])
        node = apply_changes(ctx, entry, node)
        # The tensor goes first in every 2.x activation: write it positionally.
        return node.with_changes(args=[node.args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT),
                                       *node.args[1:]])

    # Fail now, not when applied, if the activation's own changes cannot be made.
    apply(cst.Name("x"))
    return apply


def keyword_names(node: cst.Call) -> Tuple[str, ...]:
    return tuple(a.keyword.value for a in node.args if a.keyword is not None)


def module_class(ctx: Context, name_: str) -> Optional[cst.ClassDef]:
    """The module-level class `name_` of the module being upgraded."""
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == name_:
            return stmt
    return None


def is_layer_class(ctx: Context, cls: cst.ClassDef, scope: Optional[Scope], depth: int = 0) -> bool:
    """True when a base of `cls` is 1.8's dygraph Layer, directly or through classes of this module."""
    for base in cls.bases:
        chain = dotted(base.value)
        if chain is None or scope is None:
            continue
        qualname = ctx.resolver.qualname(chain, scope)
        if qualname is not None:
            entry = ctx.table.lookup(qualname)
            if entry is not None and entry.name == LAYER_BASE:
                return True
        elif "." not in chain and depth < 8:
            local = module_class(ctx, chain)
            if local is not None and local is not cls and is_layer_class(ctx, local, ctx.resolver.module_scope,
                                                                           depth + 1):
                return True
    return False


def stdlib_module(ctx: Context, site: Site, module: str) -> cst.Name:
    """A reference to a standard-library module, imported at module level if needed.

    NeedsReview when the name is bound to something else where the call is.
    """
    if not stdlib_free(ctx, site.scope, module):
        raise NeedsReview(f"the name `{module}` is bound to something else here")
    if ctx.resolver.binding_scope(module, site.scope) in (None, ctx.resolver.module_scope):
        ctx.imports.add(module)  # (a function that imports it itself needs no module-level import)
    return cst.Name(module)


def stdlib_free(ctx: Context, at: Scope, module: str) -> bool:
    """Whether the name `module` in scope `at` is free, or that module imported once at module level, or
    once by a statement of a function's own body before the statement being upgraded (`import os` first
    thing in a method)."""
    scope = ctx.resolver.binding_scope(module, at)
    if scope is None:
        return True
    if len(scope.bindings[module]) != 1:
        return False
    if scope is ctx.resolver.module_scope:
        return any(_imports(stmt, module) for stmt in ctx.module.body)
    if not isinstance(scope.node, cst.FunctionDef) or not isinstance(scope.node.body, cst.IndentedBlock):
        return False
    body = list(scope.node.body.body)
    current = next((i for i, stmt in enumerate(body) if any(stmt is s for s in ctx.statements)), None)
    return current is not None and any(_imports(stmt, module) for stmt in body[:current])


def _imports(stmt: cst.CSTNode, module: str) -> bool:
    """Whether the statement is `import <module>` (among others, without `as`)."""
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Import) and any(a.asname is None and dotted(a.name) == module for a in small.names)
        for small in stmt.body)
