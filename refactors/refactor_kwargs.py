"""Step 4: run the entry's named transformer, then rename, drop or add keywords.

The transformer sees the call with 1.8 keyword names (step 3 made them keywords) and handles what a
rename cannot express; it may consume arguments or return a different expression altogether. The
table's `args_change` then applies to what is left. A dropped argument whose value would change the
result is never dropped silently: a literal equal to the 1.8 default goes, anything else stops the
rewrite of this call (left as written, marked TODO, reported).
"""
from __future__ import annotations

import libcst as cst

from api_mapping import ApiEntry
from refactors import call_args
from refactors import findings as F
from refactors import zero_d
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.transformers import REGISTRY, exec_strategy, lr_decay_elsewhere, padded_sequences

NAME = "refactor_kwargs"


def prepare(ctx: Context) -> None:
    """Before the pass: the reads of full reductions' results that their transformer makes scalar."""
    zero_d.plan(ctx)
    lr_decay_elsewhere.plan(ctx)  # steps written before the pass reaches the schedule
    exec_strategy.plan(ctx)  # statements deleted before the pass reaches the call that drops them
    padded_sequences.plan(ctx)  # a sequence_unpad and the LoD layers after it, rewritten together


def _positionally_bound(entry: ApiEntry, node: cst.Call) -> set:
    """Parameter names (1.8 and renamed) that the call's leading positional arguments fill.

    `args_to_kwargs` keeps a positional argument only where it lands on the same parameter in 2.x,
    so an `add` for that parameter must not write it a second time as a keyword.
    """
    count = sum(1 for a in node.args if a.keyword is None)
    names = {p.name for p in (entry.args_list or ())[:count] if not p.star}
    return names | {c.to for c in entry.args_change if c.op == "rename" and c.arg in names}


def apply_changes(ctx: Context, entry: ApiEntry, node: cst.Call) -> cst.Call:
    """The entry's `args_change`, in order (transformers that build the final call use it too)."""
    bound = _positionally_bound(entry, node)
    for change in entry.args_change:
        arg = call_args.get(node, change.arg)
        if change.op == "rename" and arg is not None:
            node = call_args.rename(node, change.arg, change.to)  # type: ignore[arg-type]
        elif change.op == "drop" and arg is not None:
            param = entry.param(change.arg)
            if change.alters_result and not same_literal(arg.value, param.default if param else None, ctx):
                why = change.reason or "2.x has no such argument and its value changes the result"
                raise NeedsReview(f"`{change.arg}={ctx.code(arg.value).strip()}`: {why}")
            node = call_args.remove(node, change.arg)
        elif change.op == "add" and arg is None and change.arg not in bound:
            node = call_args.add(node, change.arg, ctx.expr(change.value))  # type: ignore[arg-type]
    return node


def call(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    entry = site.entry
    if not isinstance(node, cst.Call) or entry is None or site.suffix:
        return node  # `Entry.method(...)`: the entry's argument changes are not the method's
    padded = padded_sequences.call(ctx, site, node)
    if padded is not None:
        if site.converted:
            return padded
        node = padded  # an fc or concat of the chain, given its padded axis, goes on as usual
    if entry.update_to is None and entry.transformer is None:
        return node
    if entry.transformer is not None:
        node = REGISTRY[entry.transformer](ctx, site, node)
        if not isinstance(node, cst.Call) or site.converted:
            return node
    node = apply_changes(ctx, entry, node)
    for name, warning in entry.args_warning.items():
        arg = call_args.get(node, name)
        param = entry.param(name)
        if arg is not None and not same_literal(arg.value, param.default if param else None, ctx):
            ctx.report(site, "arg-warning", "warning", f"{entry.name}({name}=...): {warning}", False)
    return node


def reference(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    """A bare reference (`@api`, `f = api`) to an API whose transformer takes references too."""
    entry = site.entry
    if entry is None or site.suffix or entry.transformer is None or not REGISTRY[entry.transformer].references:
        return node
    try:
        return REGISTRY[entry.transformer](ctx, site, node)
    except NeedsReview as why:
        ctx.todo(str(why), node)
        site.finding = ctx.report(site, F.NEEDS_REVIEW, "warning", f"{site.name}: {why}", False)
        return node
