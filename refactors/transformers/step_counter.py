"""`_decay_step_counter(begin)`: 1.8's float32 global step of the learning-rate decays, as 2.x spells it.

1.8.5 `layers/learning_rate_scheduler.py:45` is `cast(autoincreased_step_counter(counter_name=
'@LR_DECAY_COUNTER@', begin=begin, step=1), 'float32')`: a persistable int64 counter the program
increments first thing on every run (`layers/nn.py:7283`, one counter per name and program). Paddle
2.6+ keeps that function as `paddle.optimizer.lr.autoincreased_step_counter` (the same code), so the
private helper becomes its definition.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site
from refactors.transformers import emit, register

COUNTER = "paddle.optimizer.lr.autoincreased_step_counter"


@register("decay_step_counter")
def decay_step_counter(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    begin = call_args.get(node, "begin")
    counter = emit.call(ctx, site, COUNTER, counter_name=cst.SimpleString("'@LR_DECAY_COUNTER@'"),
                        begin=begin.value if begin is not None else cst.Integer("0"), step=cst.Integer("1"))
    ctx.report_newer(site, COUNTER)
    return emit.converted(site, emit.call(ctx, site, "paddle.cast", counter, cst.SimpleString("'float32'")))
