"""Step 5: rename the callee (or a referenced class/constant) to its 2.x name.

An API without a 2.x equivalent is left as written and reported with the table's reason. A bare
reference to a function whose arguments change (e.g. `f = fluid.layers.split`) cannot be renamed
safely where the later calls are not seen: it is left, marked TODO and reported. Where a function
shows every call made through it, they are converted with it (refactors.called_through).

A guard used bare as a decorator (`@fluid.dygraph.no_grad`) becomes a call of its 2.x guard
(`@paddle.no_grad()`): 1.8's guard functions decorate either way, 2.x guard classes only when
instantiated. The entry's `warning`, if any, is reported with each conversion it is about.
"""
from __future__ import annotations

import libcst as cst

from refactors import findings as F
from refactors import called_through, methods, queue_size
from refactors.engine import Context, Site
from refactors.transformers import loader_callers
from refactors.warning_evidence import report_warning

NAME = "api_rename"


def _target(ctx: Context, site: Site, node: cst.BaseExpression):
    entry = site.entry
    if entry is None or entry.update_to is None or site.converted or entry.with_guard == "unwrap":
        return None
    if not ctx.resolver.is_paddle_root(site.scope):
        v2 = ctx.resolver.paddle_is_v2(site.scope)
        ctx.todo(v2 or "`paddle` is rebound here; rename by hand", node)
        site.finding = ctx.report(site, F.NEEDS_REVIEW, "warning",
                                  f"{entry.name}: {v2 or 'the name `paddle` is rebound in this scope'}", False)
        return None
    return ctx.name_node(entry.update_to + site.suffix)


def _converted(ctx: Context, site: Site) -> None:
    site.converted = True
    report_warning(ctx, site)
    if site.entry is not None and site.entry.update_to is not None:
        ctx.report_newer(site, site.entry.update_to + site.suffix)


def _mark_static(ctx: Context, site: Site) -> None:
    """A static-graph-only API means the file builds a static graph, unless it is used in a dygraph
    guard's block (1.8 ran it dynamically there: `fluid.default_main_program().random_seed = s`)."""
    if site.entry is not None and site.entry.static_graph and not ctx.in_dygraph_guard(site.node):
        ctx.static_graph = True


def prepare(ctx: Context) -> None:
    """Before the pass: the uses of changed methods and attributes of the objects 1.8 APIs make, the
    setters of loaders that functions of other modules return (refactors.loader_across), and the calls
    made through a function's names for references to functions whose arguments change; where the module's
    `loader.queue.size()` calls are (refactors.queue_size: their findings)."""
    methods.plan(ctx)
    queue_size.track(ctx)
    loader_callers.plan(ctx)
    called_through.plan(ctx)


def call(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    _mark_static(ctx, site)
    if not isinstance(node, cst.Call):
        return node
    target = _target(ctx, site, node)
    if target is None:
        return node
    _converted(ctx, site)
    return node.with_changes(func=target)


def reference(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    _mark_static(ctx, site)
    entry = site.entry
    guard_decorator = site.decorator and entry is not None and entry.with_guard == "rename" and not site.suffix
    if entry is not None and entry.kind == "function" and not site.suffix and not guard_decorator \
            and (entry.transformer is not None or entry.args_change) and entry.update_to is not None \
            and not called_through.converts(ctx, site):
        reason = f"reference to {entry.name}, whose arguments change in 2.x; rename it where it is called"
        ctx.todo(reason, node)
        site.finding = ctx.report(site, F.NEEDS_REVIEW, "warning", reason, False)
        return node
    target = _target(ctx, site, node)
    if target is None:
        return node
    _converted(ctx, site)
    return cst.Call(func=target) if guard_decorator else target
