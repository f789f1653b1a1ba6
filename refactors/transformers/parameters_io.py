"""`save_params` / `load_params`: 1.8's "the program's parameters, one file each", spelled with 2.x names.

1.8.5 `save_params(executor, dirname, main_program, filename)` (`io.py:362`) is `save_vars(executor,
dirname, main_program, vars=None, predicate=is_parameter, filename)`, and `save_vars` with a predicate
is `save_vars(..., vars=filter(predicate, main_program.list_vars()))`; `load_params` (`io.py:823`)
likewise. Parameters live in the global block, so that list is `main_program.all_parameters()` (the
same variables, in the same order, which matters when they share one `filename`). 2.x has no public
`is_parameter` before Paddle 3 (`paddle.static.io.is_parameter`), but `save_vars`/`load_vars` and
`Program.all_parameters` are in 2.0 and 3.x with these meanings, and write and read the same files.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site
from refactors.transformers import emit, register, static_program


def _parameters_call(ctx: Context, site: Site, node: cst.Call, target: str) -> cst.BaseExpression:
    program = static_program.given(ctx, site, node, repeated=True)
    owner = program if program is not None else static_program.default(ctx, site)
    parameters = ctx.template("{program}.all_parameters()", program=emit.receiver(owner))
    extra = {"main_program": program} if program is not None else {}
    extra["vars"] = parameters
    filename = call_args.get(node, "filename")
    if filename is not None:
        extra["filename"] = filename.value
    return emit.converted(site, emit.call(ctx, site, target, emit.required(node, "executor"),
                                          emit.required(node, "dirname"), **extra))


@register("save_params")
def save_params(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _parameters_call(ctx, site, node, "paddle.static.save_vars")


@register("load_params")
def load_params(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _parameters_call(ctx, site, node, "paddle.static.load_vars")
