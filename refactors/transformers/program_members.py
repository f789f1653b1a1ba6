"""1.8 helpers that read a static program, written as the `Program` methods their bodies call (2.x API).

- `fluid.framework._get_var(name, program=None)` (`framework.py:5104`): the variable called `name` in the
  global block of `program`, or of the default main program when it is None: `program.global_block().var(name)`,
  with `paddle.static.default_main_program()` for a program left out or None (read as the other static-graph
  helpers read `main_program=`, refactors/transformers/static_program.py). 1.8 asserted that `name` is a str;
  3.3.1's `Block.var` raises TypeError for anything else.
- `fluid.io.get_program_parameter(program)` (`io.py:123`): `list(filter(is_parameter, program.list_vars()))`,
  the parameters of every block in order, which is what `program.all_parameters()` returns in 1.8.5 and in
  3.3.1's legacy IR (each block's variables that are Parameters, block after block).

Checked on 1.8.5 and 3.3.1: fixtures/legacy/matrix_channel_ops_static.py.
"""
from __future__ import annotations

import libcst as cst

from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register, static_program


@register("global_block_var")
def global_block_var(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    name = emit.required(node, "name")
    program = static_program.given(ctx, site, node, "program")
    if program is not None and not (emit.is_literal(ctx, name) or emit.pure(name) or emit.pure(program)):
        raise NeedsReview("the program would be evaluated before the name; bind one of them to a name first")
    program = static_program.default(ctx, site) if program is None else emit.receiver(program)
    return emit.converted(site, ctx.template("{program}.global_block().var({name})", program=program, name=name))


@register("program_parameters")
def program_parameters(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    program = emit.receiver(emit.required(node, "program"))
    return emit.converted(site, ctx.template("{program}.all_parameters()", program=program))
