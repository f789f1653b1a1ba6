"""`act=` whose value only the run shows: 1.8's activation, chosen by name when the program runs.

    out = fluid.layers.elementwise_add(x=a, y=b, act=act)       # act: a parameter callers out of sight set
    ->  out = fluid_act(paddle.add(x=a, y=b), act)
    self._i2h = Linear(..., act=hidden_act)                     # a layer: 1.8 applied act in its forward
    ->  self._i2h = fluid_layer_act(paddle.nn.Linear(...), hidden_act)

`fluid_act(x, act)`, written once into the module, is 1.8's `LayerHelper.append_activation` (layer_helper.py:
139) and dygraph_utils `_append_activation_in_dygraph`: None applies nothing; the name of one of 1.8's
activation operators (api_mapping.namespaces.ACTIVATION_OPS) applies that operator with its default
attributes, through the activation's own table entry, as a literal `act=` is (emit.activation), so
`leaky_relu` keeps 1.8's slope 0.02; any other string raises ValueError, as 1.8's static graph did
('Operator "foo" has not been registered.'; dygraph raised AttributeError), and a value that is no string
TypeError, as 1.8's did. An operator of that list the table gives no 2.x form raises NotImplementedError
saying so. `fluid_layer_act(layer, act)` registers a forward post-hook applying `fluid_act` to each output
of the 2.x layer, which keeps its parameters and their names (a state dict saved by 1.8 loads the same).

Used where the value set of `act` is open (refactors.value_sets) or holds several values where no
statement can follow the call, and for a layer with `act=` whose calls the class does not all show (kept
in a list, a local, or several values). The `act` expression is evaluated after the call instead of
before it, so it must be `pure` (names, attributes, subscripts: nothing the call can run or change), or a
comparison or choice of such (`"softmax" if dec_inputs is None else None`);
where the file shows a value the function cannot apply, the call is left for review. Checked against
1.8.5, every operator of the list in a static graph and in dygraph: fixtures/legacy/act_at_run_time_static.py
and act_at_run_time_dygraph.py.
"""
from __future__ import annotations

from typing import Callable, List, Tuple

import libcst as cst

from api_mapping.namespaces import ACTIVATION_OPS
from refactors import value_sets
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, module_definitions

Apply = Callable[[cst.BaseExpression], cst.BaseExpression]

_ACT = '''\
def {{name}}(x, act):
    """The `act=` of a Paddle 1.8 layer, applied when the program runs (paddle-upgrade): None applies nothing,
    the name of a 1.8 activation operator applies it with its default attributes; anything else raises, as
    1.8 did."""
    if act is None:
        return x
    if not isinstance(act, str):
        raise TypeError("%r should be unicode or str" % (act,))
    activations = {{{{
{entries}
    }}}}
    if act in {unknown}:
        raise NotImplementedError("act=%r: 1.8's activation has no 2.x form paddle-upgrade knows" % act)
    if act not in activations:
        raise ValueError('Operator "%s" has not been registered.' % act)
    return activations[act](x)
'''

_LAYER_ACT = '''\
def {{name}}(layer, act):
    """The `act=` of a Paddle 1.8 layer (paddle-upgrade): 1.8 applied it to the output of the layer's forward;
    here a forward post-hook applies it ({act}) to each output of the 2.x layer, whose parameters keep their
    names."""
    if act is not None:
        layer.register_forward_post_hook(lambda _layer, _inputs, output: {act}(output, act))
    return layer
'''


def _entries(ctx: Context, site: Site) -> Tuple[List[str], Tuple[str, ...]]:
    """The dictionary lines of `fluid_act` (1.8 name: its 2.x callable) and the names with no 2.x form."""
    lines: List[str] = []
    unknown: List[str] = []
    x = cst.Name("x")
    for op in ACTIVATION_OPS:
        try:
            applied = emit.literal_activation(ctx, site, op)(x)
        except NeedsReview:
            unknown.append(op)
            continue
        if isinstance(applied, cst.Call) and len(applied.args) == 1 and applied.args[0].value is x:
            value = ctx.code(applied.func)
        else:
            value = "lambda x: " + ctx.code(applied)
        lines.append(f'        "{op}": {value},')
    return lines, tuple(unknown)


def _act_function(ctx: Context, site: Site) -> str:
    """The name of `fluid_act` in the module, written there once."""
    key = ("act at run time", "template")
    template = ctx.memo.get(key)
    if template is None:
        lines, unknown = _entries(ctx, site)
        text = "\n".join(line.replace("{", "{{").replace("}", "}}") for line in lines)
        template = ctx.memo[key] = _ACT.format(entries=text, unknown=repr(unknown))
    return module_definitions.define_once(ctx, site, "fluid_act", template)  # type: ignore[arg-type]


def _movable(node: cst.BaseExpression) -> bool:
    """Whether evaluating `node` after the call instead of before changes nothing: `pure` parts, compared,
    negated, joined by and/or or chosen between (`"softmax" if dec_inputs is None else None`)."""
    if isinstance(node, cst.IfExp):
        return all(_movable(n) for n in (node.test, node.body, node.orelse))
    if isinstance(node, cst.Comparison):
        return _movable(node.left) and all(_movable(c.comparator) for c in node.comparisons)
    if isinstance(node, cst.BooleanOperation):
        return _movable(node.left) and _movable(node.right)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _movable(node.expression)
    return emit.pure(node)


def _check(ctx: Context, site: Site, act: cst.BaseExpression, why: NeedsReview) -> None:
    """NeedsReview (`why`) unless `act` may move after the call and every value the file shows for it is
    one `fluid_act` applies."""
    if not _movable(act):
        raise why
    try:
        values = value_sets.values_at(ctx, site, act)
    except (NeedsReview, TypeError):  # open: only the run tells
        return
    supported = set(ACTIVATION_OPS)
    for value in values:
        if value is not None and value not in supported:
            raise why
        if value is not None:
            emit.literal_activation(ctx, site, value)  # NeedsReview where the table has no 2.x form


def _reason(why: NeedsReview) -> str:
    """Why the activation cannot be written after the call, without the advice to do it by hand."""
    text = str(why.args[0]) if why.args else str(why)
    return text.split("; apply ", 1)[0]


def applied(ctx: Context, site: Site, act: cst.BaseExpression, why: NeedsReview) -> Apply:
    """Apply `act` to an output by `fluid_act(output, act)`; NeedsReview `why` where that cannot be done."""
    _check(ctx, site, act, why)

    def apply(inner: cst.BaseExpression) -> cst.BaseExpression:
        name = _act_function(ctx, site)
        ctx.report(site, "act-at-run-time", "info",
                   f"{site.name}: {_reason(why)}; `{name}` applies 1.8's activation of that name when the program "
                   f"runs", True)
        return cst.Call(cst.Name(name), [cst.Arg(inner), cst.Arg(act)])
    return apply


def layer(ctx: Context, site: Site, made: cst.BaseExpression, act: cst.BaseExpression,
          why: NeedsReview) -> cst.BaseExpression:
    """The 2.x layer `made`, its outputs going through 1.8's activation `act`: `fluid_layer_act(made, act)`."""
    _check(ctx, site, act, why)
    act_name = _act_function(ctx, site)
    name = module_definitions.define_once(ctx, site, "fluid_layer_act", _LAYER_ACT.format(act=act_name))
    ctx.report(site, "act-at-run-time", "info",
               f"{site.name}: {_reason(why)}; 1.8 applied it in the layer's forward, and a forward post-hook, "
               f"`{name}`, applies it to each output of the layer", True)
    return cst.Call(cst.Name(name), [cst.Arg(made), cst.Arg(act)])

