"""start/stop_profiler calls of a function kept apart from the module's `cuda_profiler` blocks.

paddle-ce-latest-kpis' fluid_benchmark.py starts and stops the operator profiler in `train_parallel()`
and runs `train()`, never `train_parallel()`, under nvprof in `main()`:

    def train_parallel(...):                  if args.use_nvprof and args.device == 'GPU':
        ...                                       with profiler.cuda_profiler("cuda_profiler.txt", 'csv'):
            profiler.start_profiler("All")            train(*train_args)
        ...                                   ...
            profiler.stop_profiler(...)       train_parallel(*train_args)

1.8's nvprof is no part of its operator profiler (1.8.5's `profiler.py`: `cuda_profiler` drives
`core.nvprof_*` only, which a CPU build lacks, so this is read, not run). In 3.3.1 both are
`paddle.profiler.Profiler`s, of which one may live at a time: the block deletes its own after it, and
the function's dies when the function returns (SEMANTICS 48, checked on 3.3.1). So the calls are
converted as when they are alone in the module (`profiler_calls`) when each other use of the profiler
modules is the item of a `with` that runs nvprof (1.8's `cuda_profiler`, or its 2.x form, a Profiler of
the GPU target only, which an upgraded file holds), and neither runs the other: the function is called
in the module, none of its calls is in the block, also through the functions calling it, the block is
in another function, not a generator (a context manager runs what its `with` holds), and that function
is not called by this one (nor through others). Calls from other modules cannot be seen (the assumption
of `callers`). A `profiler()` block is not kept apart: a 1.8 profiler started and not stopped by the
function runs on, and a later block would report its events too.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import libcst as cst

from refactors.engine import Context
from refactors.local_values import all_statements
from refactors.scopes import Reference, Scope, descendants, dotted
from refactors.transformers import callers
from refactors.transformers.profiler_passed import CUDA_BLOCK

PROFILER_2X = "paddle.profiler.Profiler"
_GPU_ONLY = ("paddle.profiler.ProfilerTarget.GPU",)


def apart(ctx: Context, scope: Scope, calls: List[cst.Call],
          references: List[Tuple[Reference, str]]) -> bool:
    """Whether every use in `references` (of fluid.profiler and paddle.profiler in the module) but the
    `calls` of the function `scope` is in an nvprof block neither runs while the other does."""
    function = scope.node
    if not isinstance(function, cst.FunctionDef) or _generator(function):
        return False  # (a generator's Profiler lives on between its steps)
    if not callers.calls_of(ctx, function):
        return False  # called nowhere here: the code that calls it, maybe in a block, is not in sight
    own = {id(call.func) for call in calls}
    blocks = _nvprof_blocks(ctx, references)
    for ref, _ in references:
        if id(ref.node) in own:
            continue
        block = blocks.get(id(ref.node))
        if block is None:
            return False
        stmt, where = block
        if where.node is function or _generator(where.node) or _runs_inside(ctx, function, stmt, ()) \
                or _calls(ctx, function, where.node, ()):
            return False  # (a block in a generator, a context manager, runs what its `with` holds)
    return True


def _generator(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.FunctionDef) and any(isinstance(n, (cst.Yield, cst.Await))
                                                     for n in descendants(node.body))


def _nvprof_blocks(ctx: Context, references: List[Tuple[Reference, str]]) -> Dict[int, Tuple[cst.With, Scope]]:
    """id of each reference in the item of a `with` that runs nvprof -> that statement and its scope."""
    names = {id(ref.node): (ref, name) for ref, name in references}
    found: Dict[int, Tuple[cst.With, Scope]] = {}
    for stmt in all_statements(ctx.module):
        if not (isinstance(stmt, cst.With) and len(stmt.items) == 1 and isinstance(stmt.items[0].item, cst.Call)):
            continue
        call = stmt.items[0].item
        ref, name = names.get(id(call.func), (None, None))
        if ref is None or not (name == CUDA_BLOCK or name == PROFILER_2X and _gpu_only(ctx, call, ref.scope)):
            continue
        for node in descendants(call):
            found[id(node)] = (stmt, ref.scope)
    return found


def _gpu_only(ctx: Context, call: cst.Call, scope: Scope) -> bool:
    """Whether a `paddle.profiler.Profiler(...)` call says `targets=[paddle.profiler.ProfilerTarget.GPU]`
    (what profiler_block makes of a cuda_profiler block)."""
    targets = next((arg.value for arg in call.args
                    if arg.keyword is not None and arg.keyword.value == "targets"), None)
    if not isinstance(targets, cst.List) or len(targets.elements) != len(_GPU_ONLY):
        return False
    chains = [ctx.resolver.qualname(dotted(e.value) or "", scope) for e in targets.elements]
    return tuple(chains) == _GPU_ONLY


def _runs_inside(ctx: Context, function: cst.FunctionDef, block: cst.With, seen: Tuple[cst.CSTNode, ...]) -> bool:
    """Whether a call of `function` may run in the block: a call in its body, or in a function that may;
    True when a call is not in sight."""
    calls = callers.calls_of(ctx, function)
    if calls is None:
        return True
    inside = {id(n) for n in descendants(block.body)}
    for call, where in calls:
        if id(call) in inside:
            return True
        if isinstance(where.node, cst.Module) or where.node in seen:
            continue
        if not isinstance(where.node, cst.FunctionDef) or _runs_inside(ctx, where.node, block, (*seen, function)):
            return True
    return False


def _calls(ctx: Context, function: cst.FunctionDef, target: cst.CSTNode, seen: Tuple[cst.CSTNode, ...]) -> bool:
    """Whether running `function` may run `target` (the module body never; a function when it is called
    from `function`, or from a function `function` may run); True when a call is not in sight."""
    if isinstance(target, cst.Module):
        return False
    if target is function or not isinstance(target, cst.FunctionDef):
        return True
    calls = callers.calls_of(ctx, target)
    if calls is None:
        return True
    return any(where.node is function
               or where.node not in seen and _calls(ctx, function, where.node, (*seen, target)) for _, where in calls)
