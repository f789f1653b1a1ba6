"""`layer.sublayers(include_sublayers=False)`: an empty list in 1.8.

1.8.5 `dygraph/layers.py:309` returns the layers `named_sublayers(include_sublayers=...)` yields, and
that generator (`:395-409`) yields the sublayers only under `if include_sublayers:` (and the layer
itself only with `include_self`, False there): with False it yields nothing, whatever the layer holds
(checked on 1.8.5). 1.8 code counted on it unawares: `"layer_norm_%d" % len(self.sublayers(
include_sublayers=False))` names every such sublayer `layer_norm_0`, each `add_sublayer` replacing the
last, and the state dicts saved carry that name. 2.x's `sublayers(include_self=False)` has no such
switch (its direct sublayers are `children()`), so a literal False becomes the list 1.8 gave.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site, literal
from refactors.transformers import emit, register


@register("sublayers_flag")
def sublayers_flag(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    flag = call_args.get(node, "include_sublayers")
    if flag is None and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
        flag = node.args[0]
    if flag is None or not emit.is_literal(ctx, flag.value) or literal(flag.value, ctx) is not False:
        return node  # True or not known: the table's argument change decides
    ctx.report(site, "converted-note", "info", "1.8's sublayers(include_sublayers=False) is always empty "
               "(dygraph/layers.py:395-409); written as the empty list it returned", True)
    return emit.converted(site, cst.List(elements=[]))
