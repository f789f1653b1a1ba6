"""`fluid.contrib.reader.distributed_batch_reader(batch_reader)`: a small function of the module that
splits the batches between trainers as 1.8 did.

1.8 (`contrib/reader/distributed_reader.py`) read `PADDLE_TRAINERS_NUM` (default 1) and
`PADDLE_TRAINER_ID` (default 0) when called, asserted the id is below the number, and returned a batch
reader: with one trainer every batch as it comes; with N > 1, of each N batches in a row, the one at
position `PADDLE_TRAINER_ID` (an incomplete last run dropped), after printing one log line. 2.x has no
such reader decorator (its `DistributedBatchSampler` shards a map-style dataset, not a reader), so

    train_reader = fluid.contrib.reader.distributed_batch_reader(train_reader)

becomes `train_reader = distributed_batches(train_reader)` over `DISTRIBUTED_BATCHES`
(`api_mapping/kernels.py`, which the shim serves too), written once per module (checked on 1.8.5
and 3.3.1 with the variables unset and set: fixtures/legacy/distributed_batch_reader_dygraph.py). The
arguments are kept as written: the function takes 1.8's. One difference is left: with N > 1 and a negative
`PADDLE_TRAINER_ID` (which no launcher sets) 1.8 failed its assertion at the first N batches, this function
reads the last of each N.
"""
from __future__ import annotations

import libcst as cst

from api_mapping.kernels import DISTRIBUTED_BATCHES
from refactors import findings as F
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions, register

@register("distributed_batch_reader")
def distributed_batch_reader(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    name = module_definitions.define_once(ctx, site, "distributed_batches", DISTRIBUTED_BATCHES, stdlib=("os",))
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {name}, which splits the batches "
                                                         f"between trainers as 1.8 did", True)
    return emit.converted(site, node.with_changes(func=cst.Name(name)))
