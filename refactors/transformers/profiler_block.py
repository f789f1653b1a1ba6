"""`with fluid.profiler.profiler(state, sorted_key, profile_path):` becomes a `paddle.profiler.Profiler` block.

1.8.5 `profiler.profiler` (`profiler.py:253`) starts the operator profiler for `state` ('CPU', 'GPU' or
'All'), runs the block, then stops it: it prints the table of the recorded events sorted by `sorted_key`
and writes the profile to `profile_path` (a protobuf file for `tools/timeline.py`). Paddle 2.3 replaced
the module by `paddle.profiler.Profiler`:

    with paddle.profiler.Profiler(targets=[...], on_trace_ready=paddle.profiler.export_protobuf(path)) as prof:
        ...
    prof.summary(sorted_by=paddle.profiler.SortedKeys.CPUTotal)
    del prof

(`del`: Paddle 3.3.1 creates its profiler once at a time, so a second block could not start while the
first Profiler object lives.)

The block runs as before; what changes is the report (the 2.x table has other columns) and the profile's
file (a directory named `profile_path` holding the protobuf trace): the table's warning says so. Left for
review: a state, key or tracer option that is not a literal 1.8 accepted, a `sorted_key='calls'` (2.x
sorts by times only), and an `as name` the block reads (1.8 bound it to None).
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import descendants
from refactors.transformers import emit, register
from refactors.warning_evidence import report_warning

_TARGETS: Dict[str, Optional[str]] = {"CPU": "CPU", "GPU": "GPU", "All": None}  # None: every device there is
_KEYS = {None: None, "default": None, "total": "CPUTotal", "max": "CPUMax", "min": "CPUMin", "ave": "CPUAvg"}
_PROFILE_PATH = "/tmp/profile"  # profiler.py:253


@register("profiler_block")
def profiler_block(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = ctx.statements[-1] if ctx.statements else None
    if not (isinstance(stmt, cst.With) and len(stmt.items) == 1 and stmt.items[0].item is site.call):
        raise NeedsReview("profiler() is not the one item of a `with` statement")
    state = emit.value_of(ctx, node, "state")
    key = emit.value_of(ctx, node, "sorted_key", None)
    if state not in _TARGETS:
        raise NeedsReview(f"state={state!r} is not one 1.8 accepted")
    if key not in _KEYS:
        raise NeedsReview(f"sorted_key={key!r}: 2.x sorts the summary by times only")
    if emit.value_of(ctx, node, "tracer_option", "Default") != "Default":
        raise NeedsReview("tracer_option: 2.x records every operator detail by default; drop it by hand")
    prof = _profiler_name(ctx, site, stmt)
    target = _TARGETS[state]
    path = call_args.get(node, "profile_path")
    kwargs = {}
    if target is not None:
        kwargs["targets"] = cst.List([cst.Element(emit.name(ctx, site, f"paddle.profiler.ProfilerTarget.{target}"))])
    kwargs["on_trace_ready"] = emit.call(ctx, site, "paddle.profiler.export_protobuf",
                                         path.value if path is not None else cst.SimpleString(repr(_PROFILE_PATH)))
    summary_args = [] if _KEYS[key] is None else [
        cst.Arg(emit.name(ctx, site, f"paddle.profiler.SortedKeys.{_KEYS[key]}"), keyword=cst.Name("sorted_by"),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))]
    summary = cst.SimpleStatementLine([cst.Expr(cst.Call(
        func=cst.Attribute(cst.Name(prof), cst.Name("summary")), args=summary_args))])
    # Paddle keeps one profiler at a time: a later block could not start one while this one lives on.
    ctx.insert_around(stmt, after=[summary, cst.SimpleStatementLine([cst.Del(cst.Name(prof))])])
    ctx.replace(stmt, lambda updated: updated.with_changes(items=[updated.items[0].with_changes(
        asname=cst.AsName(cst.Name(prof)))]))
    report_warning(ctx, site)
    ctx.report_newer(site, "paddle.profiler.Profiler")
    return emit.converted(site, emit.call(ctx, site, "paddle.profiler.Profiler", **kwargs))


def _profiler_name(ctx: Context, site: Site, stmt: cst.With) -> str:
    """The `as` name of the block when it has one the block does not read (1.8 bound it to None), else a
    new one."""
    asname = stmt.items[0].asname
    if asname is None:
        return ctx.fresh_name(site.scope, "prof")
    if not isinstance(asname.name, cst.Name):
        raise NeedsReview("the `as` target is not a name")
    name = asname.name.value
    ctx.reads(site.scope.node, words=(name,))
    uses = [n for n in descendants(site.scope.node) if isinstance(n, cst.Name) and n.value == name]
    if len(uses) != 1:
        raise NeedsReview(f"`{name}` (None in 1.8) is used; the 2.x block binds the Profiler to it")
    return name
