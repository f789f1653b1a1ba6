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
file (a directory named `profile_path` holding the protobuf trace): the table's warning says so. A state
or key the file does not fix (`profiler.profiler(args.device, sorted_key)`, PaddleSpeech/DeepASR's
tools/profile.py) is given at run time to a context manager written once into the module
(`api_mapping.kernels.PROFILER_BLOCK`): it checks them when 1.8 did, the state before the block and the
key after it (ValueError, with 1.8's messages), makes and starts the same Profiler, gives it to the block,
and stops it and prints its summary after the block; a run-time key 'calls' sorts by CPU total time,
which the finding says (checked on 1.8.5 and 3.3.1: fixtures/legacy/profiler_run_time_static.py). Left
for review: a literal state or key 1.8 did not accept, a literal `sorted_key='calls'` (2.x sorts by times
only), a tracer option other than a literal 'Default', and an `as name` the block reads (1.8 bound it to
None).

`with fluid.profiler.cuda_profiler(output_file, output_mode, config):` (`profiler.py:39`) ran the block
under the CUDA command-line profiler (nvprof), which wrote its CSV or key-value log to `output_file`;
it printed nothing. A CPU build of 1.8.5 has no `core.nvprof_init` and raises AttributeError there
(checked on 1.8.5), so the block ran only on a CUDA build. Its 2.x form is the same block under a
GPU-target `paddle.profiler.Profiler` writing its trace to `output_file` (a directory, as above), with
no summary printed; on a CPU build 2.x warns that it cannot profile the GPU and runs the block.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

import libcst as cst

from api_mapping.kernels import PROFILER_BLOCK
from refactors import call_args, findings as F
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.scopes import Scope, descendants, dotted
from refactors.transformers import emit, module_definitions, register
from refactors.warning_evidence import report_warning

# 1.8's 'GPU' state lists the operators' host events too (checked on 1.8.5); None: every device there is.
TARGETS: Dict[str, Optional[Tuple[str, ...]]] = {"CPU": ("CPU",), "GPU": ("CPU", "GPU"), "All": None}
KEYS = {None: None, "default": None, "total": "CPUTotal", "max": "CPUMax", "min": "CPUMin", "ave": "CPUAvg"}
PROFILE_PATH = "/tmp/profile"  # profiler.py:253
_BLOCK = "profiler block"  # memo key of a converted block: (its Profiler's name, whether 1.8's reset reached it)


@register("profiler_block")
def profiler_block(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = _with_statement(ctx, site)
    if emit.value_of(ctx, node, "tracer_option", "Default") != "Default":
        raise NeedsReview("tracer_option: 2.x records every operator detail by default; drop it by hand")
    emit.required(node, "state")
    state, key = (_literal_arg(ctx, node, name) for name in ("state", "sorted_key"))
    why = refused(state, key)
    if why is not None:
        raise NeedsReview(why)
    if state is RUN_TIME or key is RUN_TIME:
        return _run_time_block(ctx, site, node, stmt)
    prof = block_name(ctx, stmt, site.scope)
    path = call_args.get(node, "profile_path")
    profiler = new_profiler(ctx, site, TARGETS[state], path.value if path is not None else None)  # type: ignore
    summary = cst.SimpleStatementLine([cst.Expr(cst.Call(
        func=cst.Attribute(cst.Name(prof), cst.Name("summary")), args=summary_args(ctx, site, key)))])  # type: ignore
    return _profiler_with(ctx, site, stmt, prof, profiler, after=[summary], resets=True)


RUN_TIME = object()  # an argument the file does not fix


def refused(state: object, key: object) -> Optional[str]:
    """Why a block whose `state` and `sorted_key` have these values (RUN_TIME: the run tells; None: not
    given) is left, else None; profiler_passed asks it of a block not yet converted."""
    if state is not RUN_TIME and (not isinstance(state, str) or state not in TARGETS):
        return f"state={state!r} is not one 1.8 accepted"
    if key is not RUN_TIME and (not isinstance(key, (str, type(None))) or key not in KEYS):
        return f"sorted_key={key!r}: 2.x sorts the summary by times only"
    return None


def _literal_arg(ctx: Context, node: cst.Call, name: str) -> object:
    """The literal value of the argument `name` (None when absent), or RUN_TIME."""
    found = call_args.get(node, name)
    if found is None:
        return None
    return literal(found.value, ctx) if emit.is_literal(ctx, found.value) else RUN_TIME


def _run_time_block(ctx: Context, site: Site, node: cst.Call, stmt: cst.With) -> cst.BaseExpression:
    """A block whose state or sorted_key the file does not fix: a context manager written into the module
    takes 1.8's arguments, checks them when 1.8 did and prints the summary (PROFILER_BLOCK)."""
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs")
    prof = block_name(ctx, stmt, site.scope)
    name = module_definitions.define_once(ctx, site, "profiler_block", PROFILER_BLOCK, stdlib=("contextlib",))
    item = call_args.remove(node, "tracer_option").with_changes(func=cst.Name(name))  # ('Default', checked)
    if _literal_arg(ctx, node, "sorted_key") is RUN_TIME:
        ctx.report(site, F.API_WARNING, "warning", f"{site.name}: sorted_key is known at run time only: "
                   "'calls', for which 2.x has no key, sorts the summary by CPU total time", True)
    return _profiler_with(ctx, site, stmt, prof, item, after=[], resets=True)


@register("cuda_profiler_block")
def cuda_profiler_block(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = _with_statement(ctx, site)
    if emit.value_of(ctx, node, "output_mode", None) not in (None, "csv", "kvp"):
        raise NeedsReview("output_mode is not one 1.8 accepted ('csv', 'kvp')")
    config = call_args.get(node, "config")
    if config is not None and not emit.is_literal(ctx, config.value):
        raise NeedsReview("config is not a literal: 2.x has no nvprof configuration, and dropping it would "
                          "drop what computing it does")
    output = call_args.get(node, "output_file")
    if output is None:
        raise NeedsReview("`output_file` is missing")
    prof = block_name(ctx, stmt, site.scope)
    return _profiler_with(ctx, site, stmt, prof, new_profiler(ctx, site, ("GPU",), output.value), after=[],
                          resets=False)  # (1.8's reset never touched nvprof)


def new_profiler(ctx: Context, site: Site, targets: Optional[Tuple[str, ...]],
                 path: Optional[cst.BaseExpression]) -> cst.Call:
    """`paddle.profiler.Profiler(targets=[...], on_trace_ready=paddle.profiler.export_protobuf(path))`,
    all devices when `targets` is None, 1.8's default path when `path` is."""
    kwargs = {} if targets is None else {"targets": cst.List([
        cst.Element(emit.name(ctx, site, f"paddle.profiler.ProfilerTarget.{t}")) for t in targets])}
    kwargs["on_trace_ready"] = emit.call(ctx, site, "paddle.profiler.export_protobuf",
                                         path if path is not None else cst.SimpleString(repr(PROFILE_PATH)))
    return emit.call(ctx, site, "paddle.profiler.Profiler", **kwargs)


def summary_args(ctx: Context, site: Site, key: Optional[str]) -> List[cst.Arg]:
    """The arguments of `summary()` sorting as 1.8's `sorted_key` (in KEYS) did."""
    if KEYS[key] is None:
        return []
    return [call_args.keyword_arg("sorted_by", emit.name(ctx, site, f"paddle.profiler.SortedKeys.{KEYS[key]}"))]


def open_block_profiler(ctx: Context) -> Optional[str]:
    """The name of the Profiler of the innermost converted `profiler()` block around the statement being
    upgraded, in its scope (1.8's reset never touched a cuda_profiler block's nvprof)."""
    return next((prof for prof, resets in _open_blocks(ctx) if resets), None)


def block_converted(ctx: Context, stmt: cst.With) -> bool:
    """Whether this upgrade converted the `with` statement `stmt`, which the pass has left."""
    return (_BLOCK, id(stmt)) in ctx.memo


def _open_blocks(ctx: Context) -> Iterator[Tuple[Optional[str], bool]]:
    """(Profiler name, whether 1.8's reset_profiler reset it) of each block around the statement being
    upgraded that this upgrade converted or that was a Profiler already (an upgraded file upgraded
    again), innermost first, not across a `def` or `class`."""
    for stmt in reversed(ctx.statements):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return
        found = ctx.memo.get((_BLOCK, id(stmt)))
        if found is not None:
            yield found
        elif isinstance(stmt, cst.With) and ctx.site is not None and any(
                isinstance(item.item, cst.Call) and ctx.resolver.qualname(
                    dotted(item.item.func) or "", ctx.site.scope) == "paddle.profiler.Profiler"
                for item in stmt.items):
            yield None, False


def _with_statement(ctx: Context, site: Site) -> cst.With:
    stmt = ctx.statements[-1] if ctx.statements else None
    if not (isinstance(stmt, cst.With) and len(stmt.items) == 1 and stmt.items[0].item is site.call):
        raise NeedsReview(f"{site.name.rsplit('.', 1)[-1]}() is not the one item of a `with` statement")
    if next(_open_blocks(ctx), None) is not None:
        raise NeedsReview("inside a block converted to a paddle.profiler.Profiler: 2.x runs one profiler at a time")
    return stmt


def _profiler_with(ctx: Context, site: Site, stmt: cst.With, prof: str, profiler: cst.Call,
                   after: List[cst.SimpleStatementLine], resets: bool) -> cst.BaseExpression:
    """The `with` item as the `profiler` (an expression giving the Profiler) bound to `prof`, the statements
    `after` the block, then the Profiler deleted; `resets`: 1.8's reset_profiler reached it."""
    # Paddle keeps one profiler at a time: a later block could not start one while this one lives on.
    ctx.insert_around(stmt, after=[*after, cst.SimpleStatementLine([cst.Del(cst.Name(prof))])])
    ctx.replace(stmt, lambda updated: updated.with_changes(items=[updated.items[0].with_changes(
        asname=cst.AsName(cst.Name(prof)))]))
    ctx.memo[(_BLOCK, id(stmt))] = (prof, resets)
    report_warning(ctx, site)
    ctx.report_newer(site, "paddle.profiler.Profiler")
    return emit.converted(site, profiler)


def block_name(ctx: Context, stmt: cst.With, scope: Scope) -> str:
    """The name of the block's Profiler: its `as` name when the block does not read it (1.8 bound it to
    None), else a new one, the same when asked again (`profiler_passed` passes it on before the pass
    reaches the block)."""
    asname = stmt.items[0].asname
    if asname is None:
        key = ("profiler block name", id(stmt))
        if key not in ctx.memo:
            ctx.memo[key] = ctx.fresh_name(scope, "prof")
        return ctx.memo[key]  # type: ignore[return-value]
    if not isinstance(asname.name, cst.Name):
        raise NeedsReview("the `as` target is not a name")
    name = asname.name.value
    ctx.reads(scope.node, words=(name,))
    uses = [n for n in descendants(scope.node) if isinstance(n, cst.Name) and n.value == name]
    if len(uses) != 1:
        raise NeedsReview(f"`{name}` (None in 1.8) is used; the 2.x block binds the Profiler to it")
    return name
