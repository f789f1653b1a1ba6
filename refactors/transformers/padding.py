"""`layers.pad2d` (`layers/nn.py:10253`) becomes `paddle.nn.functional.pad`, with the paddings reordered.

1.8 reads `paddings` as (top, bottom, left, right) (`layers/nn.py:10267`); 2.x `F.pad` on a 4-D tensor
reads (left, right, top, bottom) (it pads the last axis first). 1.8 calls the border-copying mode
'edge', 2.x 'replicate'; 'constant' and 'reflect' keep their names. A list or tuple of four written in
the call is reordered in place. `paddings` given by a name, an attribute or an item of those (a list,
a tuple, an array or 1.8's Tensor form, `self.outpadding`) is read item by item in 2.x's order,
`[p[2], p[3], p[0], p[1]]`, which 3.3.1's `F.pad` takes in dygraph, Tensor items too
(`fixtures/legacy/pad2d_paddings_dygraph.py`). In a static graph on the legacy IR it refuses Tensor items
(checked on 3.3.1), so there, unless every value the file gives the name is a list or tuple
(refactors.value_sets), the choice is made when the program runs: a Tensor (`paddle.is_tensor`) is reordered
as a Tensor, `paddle.concat([p[2:4], p[0:2]])`, which F.pad takes whole, anything else item by item
(`fixtures/legacy/pad2d_paddings_static.py`). Any other expression is left for review, as is a `mode` that is
not a literal.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args, value_sets
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register
from refactors.transformers.lr_decay import static_graph

_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate"}
_SIDE_EFFECTS = (cst.Call, cst.Await, cst.Yield, cst.NamedExpr)


def _has_side_effects(node: cst.CSTNode) -> bool:
    return isinstance(node, _SIDE_EFFECTS) or any(_has_side_effects(c) for c in node.children)


def _reordered(ctx: Context, site: Site, paddings: cst.BaseExpression) -> cst.BaseExpression:
    """[top, bottom, left, right] written as [left, right, top, bottom], keeping the layout."""
    if not isinstance(paddings, (cst.List, cst.Tuple)) and emit.repeatable(ctx, site, paddings):
        items = ctx.template("[{p}[2], {p}[3], {p}[0], {p}[1]]", p=emit.receiver(paddings))
        if static_graph(ctx, site.node) and not _sequences(ctx, site, paddings):
            # A Tensor is reordered as a Tensor, which F.pad takes whole; a list item by item.
            return ctx.template("{paddle}.concat([{p}[2:4], {p}[0:2]]) if {paddle}.is_tensor({p}) else {items}",
                                paddle=emit.name(ctx, site, "paddle"), p=emit.receiver(paddings), items=items)
        return items
    if not isinstance(paddings, (cst.List, cst.Tuple)) or len(paddings.elements) != 4 \
            or any(isinstance(e, cst.StarredElement) for e in paddings.elements):
        raise NeedsReview(f"`paddings={ctx.code(paddings).strip()}` is neither a list of four nor a name: 1.8 "
                          f"reads it as [top, bottom, left, right] and 2.x F.pad as [left, right, top, bottom]; "
                          f"reorder it by hand")
    if _has_side_effects(paddings):
        raise NeedsReview("reordering `paddings` would change the order its calls run in; bind them to names "
                          "first")
    top, bottom, left, right = (e.value for e in paddings.elements)
    elements = [e.with_changes(value=v) for e, v in zip(paddings.elements, (left, right, top, bottom))]
    return paddings.with_changes(elements=elements)


def _sequences(ctx: Context, site: Site, node: cst.BaseExpression) -> bool:
    """Whether every value the file gives `node` where it is read is a list or a tuple."""
    if isinstance(ctx.value(node, site), (list, tuple)):  # a name bound once to one (refactors.constants)
        return True
    try:
        values = value_sets.values_at(ctx, site, node)
    except (NeedsReview, TypeError):  # (TypeError: a list value the set cannot hold)
        return False
    return bool(values) and all(isinstance(v, (list, tuple)) for v in values)


def _mode(ctx: Context, node: cst.Call) -> cst.Call:
    mode = emit.value_of(ctx, node, "mode", "constant")
    if mode not in _MODES:
        raise NeedsReview(f"mode={mode!r} is not a 1.8 pad2d mode")
    if _MODES[mode] == mode:
        return node
    written = call_args.get(node, "mode").value  # type: ignore[union-attr]
    quote = written.quote if isinstance(written, cst.SimpleString) else "'"
    return call_args.set_value(node, "mode", cst.SimpleString(f"{quote}{_MODES[mode]}{quote}"))


@register("pad2d_order")
def pad2d_order(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    paddings = call_args.get(node, "paddings")
    if paddings is not None:
        node = call_args.set_value(node, "paddings", _reordered(ctx, site, paddings.value))
    node = _mode(ctx, node)
    return emit.converted(site, emit.finish(ctx, site, node))
