"""`fluid.contrib.memory_usage(program, batch_size)`: no 2.x API estimates a program's memory.

1.8.5 (`contrib/memory_usage_calc.py`) summed, over the variables the operators of the program's global
block write, each dense tensor's size (a negative dimension counted as batch_size times its magnitude,
the bytes of its dtype), and returned 1.05 and 1.1 times the total with its unit (B, KB above 1024 B, MB
above 1024 KB). The call goes to a function written once in the module that computes that rule
(`api_mapping/kernels.py` MEMORY_USAGE, which the shim serves too) over the program it is given,
legacy IR or PIR (api_mapping/SEMANTICS.md 55). It has 1.8's parameters, so the arguments stay as written.
The estimate is over the operators Paddle 3 builds: where a 2.x layer is made of other operators than
1.8's, their tensors count (the finding says so). Checked on 1.8.5 and 3.3.1 over a program of operators
both build alike: fixtures/legacy/memory_usage_static.py.
"""
from __future__ import annotations

import libcst as cst

from api_mapping.kernels import MEMORY_USAGE
from refactors import findings as F
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register


@register("memory_usage_estimate")
def memory_usage_estimate(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    # The function's parameters are 1.8's, names and order: any call of 1.8's (`*args` too) calls it alike.
    name = module_definitions.define_once(ctx, site, "memory_usage", MEMORY_USAGE)
    site.finding = ctx.report(site, F.CONVERTED, "info",
                              f"{site.name} -> {name}, 1.8's estimate over the operators of the program "
                              f"Paddle 3 builds (where a layer is made of other operators than 1.8's, their "
                              f"tensors count)", True)
    return emit.converted(site, node.with_changes(func=cst.Name(name)))
