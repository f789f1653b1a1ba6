"""Definitions a rewrite adds to the module once (a small class its 2.x form uses), and numpy's name there.

Not a transformer itself (nothing here is registered).
"""
from __future__ import annotations

from typing import Tuple

import libcst as cst

from refactors.cpython import WRITTEN_MARK
from refactors.engine import Context, NeedsReview, Site
from refactors import call_args
from refactors.local_values import bound_once
from refactors.scopes import descendants
from refactors.transformers import emit


def numpy_name(ctx: Context, site: Site) -> str:
    """The module's own name for numpy (`import numpy as np`), else `numpy`, imported."""
    scope = ctx.resolver.module_scope
    for stmt in ctx.module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            for alias in small.names if isinstance(small, cst.Import) else ():
                name = alias.evaluated_alias or alias.evaluated_name
                if alias.evaluated_name == "numpy" and bound_once(scope, name) and \
                        ctx.resolver.binding_scope(name, site.scope) is scope:
                    return name
    return emit.stdlib_module(ctx, site, "numpy").value


def define_once(ctx: Context, site: Site, base: str, template: str, stdlib: Tuple[str, ...] = ()) -> str:
    """The name of the module-level definition `template` (`{name}`, `{paddle}`, `{numpy}` and each
    standard-library module of `stdlib`, e.g. `{os}`, filled in; its docstring says WRITTEN_MARK), written once, before the module's
    statement that holds the first use site needing it (after the imports that statement may need).
    NeedsReview where that name means something else."""
    assert WRITTEN_MARK in template, f"the docstring of {base}'s template must say {WRITTEN_MARK}"
    key = ("module definition", template)
    name = ctx.memo.get(key)
    if name is None:
        name = ctx.fresh_name(ctx.resolver.module_scope, base, everywhere=True)
        fields = {module: emit.stdlib_module(ctx, site, module).value for module in stdlib}
        if "{numpy}" in template:  # (only what the template names is imported)
            fields["numpy"] = numpy_name(ctx, site)
        if "{paddle}" in template:
            fields["paddle"] = ctx.code(emit.name(ctx, site, "paddle"))
        definition = ctx.statement(template.format(name=name, **fields))
        blank = cst.EmptyLine(indent=False)
        ctx.insert_around(ctx.statements[0], before=[definition.with_changes(leading_lines=[blank, blank])])
        ctx.memo[key] = name
    if ctx.resolver.lookup(name, site.scope) is not None:  # type: ignore[arg-type]
        raise NeedsReview(f"`{name}` is bound to something else here")
    return name  # type: ignore[return-value]


def call_definition(ctx: Context, site: Site, node: cst.Call, base: str, template: str,
                    stdlib: Tuple[str, ...] = ()) -> cst.BaseExpression:
    """The call `node`, converted to call the definition `template` takes the 1.8 arguments of (a
    class or function written once in the module, see define_once)."""
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs")
    name = define_once(ctx, site, base, template, stdlib)
    return emit.converted(site, node.with_changes(func=cst.Name(name)))


# What may do something when evaluated: a `name=` holding one is not dropped (`prefix + '_affine'` is).
_EFFECTS = (cst.Call, cst.NamedExpr, cst.Await, cst.Yield)


def call_definition_without_name(ctx: Context, site: Site, node: cst.Call, base: str,
                                 template: str) -> cst.BaseExpression:
    """call_definition for a 1.8 function whose `name` only named its output: the definition takes 1.8's
    parameters in 1.8's order up to `name`, and the call the same arguments but `name`."""
    dropped = call_args.get(node, "name")
    if dropped is not None and any(isinstance(n, _EFFECTS) for n in descendants(dropped.value)):
        raise NeedsReview(f"`name={ctx.code(dropped.value).strip()}` would no longer be evaluated")
    node = call_args.remove(node, "name")
    params = [p.name for p in site.entry.args_list or ()] if site.entry is not None else []
    params = params[:params.index("name")] if "name" in params else params
    node = emit.positional_again(ctx, site, node, base, params=params)
    return call_definition(ctx, site, node, base, template)
