"""`reset_profiler()` where the module does not show the profiler it resets: the running Profiler, found.

PaddleCV/gan (release/1.7 and 1.8) resets the profiler after the warm-up batches in `build_model()` of
each trainer class (`trainer/CycleGAN.py`), and its `train.py` starts it with a block around the call, the
trainer picked at run time (`trainer.__dict__[cfg.model_net](...)`):

    # trainer/CycleGAN.py                              # train.py
    if self.cfg.profile and batch_id == N:              with fluid.profiler.profiler('All', 'total', path) as prof:
        profiler.reset_profiler()                           train(cfg)   # -> model.build_model()

1.8's profiler is one per process, so the reset reached the block of the other module. A 2.x Profiler is
an object of the code that made it, and no call path the tree shows carries it there; but Paddle 3.3.1
runs one at a time (SEMANTICS 48), so "the running Profiler" is one object of the process. The reset
becomes a call of PROFILER_RESET (api_mapping/kernels.py), written once in the module: it finds, among the
live objects, the Profiler that is started and not stopped, and stops and starts it (the summary then
holds only the later events, as 1.8's report did); with none running it does nothing, as 1.8.5's reset
did. The same where a reset's function is called nowhere in the module (paddle-ce-latest-kpis'
inference/ocr_recognition/ce/infer_ce.py), or where `profiler_passed` cannot pass the block's Profiler.

Only where the module runs no 1.8 profiler that stays for the shim: each other use of fluid.profiler
in it is a reset statement, a `profiler()` block `profiler_block` converts, or a `cuda_profiler` block
(nvprof, which 1.8's reset never touched). A module of the tree left to the shim still runs 1.8's
profiler, which this reset does not reach (nor the other way round: the shim's reset resets 1.8's core
profiler and the running Profiler both, runtime_shim/adapters/profiling.py).
"""
from __future__ import annotations

from typing import List, Tuple

import libcst as cst

from api_mapping.kernels import PROFILER_RESET
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import all_statements
from refactors.scopes import Reference
from refactors.transformers import emit, module_definitions, profiler_passed
from refactors.warning_evidence import report_warning

_FAMILY = "paddle.fluid.profiler."
LEFT_FOR_THE_SHIM = ("the module runs a 1.8 profiler otherwise than by `with profiler.profiler(...)` blocks the "
                     "upgrade converts (start/stop calls, or a block left as written): its reset stays 1.8's, "
                     "which the shim serves")


def reset(ctx: Context, site: Site, references: List[Tuple[Reference, str]]) -> cst.BaseExpression:
    """The reset call `site` as a call of PROFILER_RESET written in the module; NeedsReview when the module
    runs a 1.8 profiler that stays (`references`: every use of fluid.profiler and paddle.profiler there)."""
    legacy = [(ref, name) for ref, name in references if name.startswith(_FAMILY)]
    try:
        found = profiler_passed.blocks(ctx, legacy)
    except NeedsReview:
        raise NeedsReview(LEFT_FOR_THE_SHIM) from None
    for stmt in all_statements(ctx.module):
        if found.get(id(stmt)) == profiler_passed.BLOCK and not profiler_passed.converted(ctx, stmt):  # type: ignore
            raise NeedsReview(LEFT_FOR_THE_SHIM)
    name = module_definitions.define_once(ctx, site, "reset_profiler", PROFILER_RESET, stdlib=("gc",))
    report_warning(ctx, site)
    ctx.report_newer(site, "paddle.profiler.Profiler")
    return emit.converted(site, cst.Call(func=cst.Name(name)))
