"""1.8's `sequence_unpad(x, length)` and the LoD-only layers after it, kept on the padded tensor and its lengths.

`sequence_unpad` turned a padded `[batch, steps, ...]` tensor into a LoD tensor of `sum(length)` rows; what
follows it in real code (PaddleNLP's classification nets, PaddleRec's text classifier, the NAACL2019-MPM
heads) works on that LoD tensor only, until a sequence pool makes it dense again:

    emb = fluid.layers.sequence_unpad(emb, length=seq_len)
    fc0 = fluid.layers.fc(input=emb, size=hid_dim * 4)
    lstm_h, c = fluid.layers.dynamic_lstm(input=fc0, size=hid_dim * 4, is_reverse=False)
    lstm_max = fluid.layers.sequence_pool(input=lstm_h, pool_type='max')

2.x has no LoD tensors. Where the lengths are the unpad's, the whole chain has a padded form with the same
numbers: the unpad is dropped (its name keeps the padded tensor), `fc` flattens one more leading axis
(`num_flatten_dims=2`, the same weight), `concat` on the feature axis moves one axis up, and `dynamic_lstm`,
`dynamic_gru`, `sequence_conv` (also inside `nets.sequence_conv_pool`) and the pools (`sequence_pool`,
`sequence_last_step`, `sequence_first_step`) become functions written once into the module, taking the padded
tensor and the lengths:

    fc0 = paddle.static.nn.fc(x=emb, size=hid_dim * 4, num_flatten_dims=2)
    lstm_h, c = padded_dynamic_lstm(input=fc0, length=seq_len, size=hid_dim * 4, is_reverse=False)
    lstm_max = padded_sequence_pool(input=lstm_h, length=seq_len, pool_type='max')

1.8.5's rules (checked: fixtures/legacy/padded_{lstm,gru,conv_pool,options}_static, api_mapping/SEMANTICS.md
56): the LSTM's gates in the order candidate, input, forget, output, peepholes after the bias (`[1, 7 * hidden]`),
no gradient back through its cell output; the GRU's `[hidden, 3 * hidden]` weight read as a `[hidden, 2 *
hidden]` then a `[hidden, hidden]` block, `origin_mode`; `is_reverse` within each sequence; `sequence_conv`
padding each sequence with zeros at its own ends (the padded steps of the input are not zero: the padding id
has an embedding); each pool over the steps of its sequence only, an empty one giving `pad_value`. Parameters
are made with 1.8's shapes, attributes, initializers and names (`lstm_N.w_0`, `gru_N.b_0`,
`sequence_conv_N.w_0`), so a 1.8 checkpoint loads. The functions build static programs (as the 1.8 layers did)
on the legacy IR the upgraded file selects.

The plan is made before the pass, for each `y = sequence_unpad(x, length=n)` in a function: it follows the
names holding LoD values through the statements after it (branches and loops too, a name LoD on one path
only being read nowhere), and gives up, leaving everything as today with the reason on the unpad, when a LoD
value is read by anything else (returned, stored, passed to a function or an operator not above, read in a
nested function), the unpad is in a loop, a `try`, a dygraph block or at module level, or a layer is given
what 1.8.5 computed wrong gradients for (`h_0`, a `padding_start` past the step). Lengths that are
not a name of the function bound nowhere after the unpad (`self.seq_len`, `inputs[2]`) are bound to a fresh
name where the unpad read them (`emb = unpad(emb, length=self.seq_len)` becomes `emb_length = self.seq_len`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from api_mapping.namespaces import ACTIVATIONS
from refactors import call_args, kept_comments
from refactors import findings as F
from refactors.engine import LEGACY_ROOT, Context, NeedsReview, Site, short_name
from refactors.scopes import descendants
from refactors.transformers import emit, module_definitions

# The 1.8 APIs of a chain, by their table names (composed: what this module emits is 2.x only)
_LAYERS, _NETS = LEGACY_ROOT + ".layers.", LEGACY_ROOT + ".nets."
UNPAD = _LAYERS + "sequence_unpad"
FC, CONCAT = _LAYERS + "fc", _LAYERS + "concat"
LSTM, GRU = _LAYERS + "dynamic_lstm", _LAYERS + "dynamic_gru"
CONV, CONV_POOL = _LAYERS + "sequence_conv", _NETS + "sequence_conv_pool"
POOLS = {_LAYERS + "sequence_pool": None, _LAYERS + "sequence_last_step": "'last'",
         _LAYERS + "sequence_first_step": "'first'"}
# The activations of sequence_conv the written function applies as 1.8's op did.
_ACTS = (None, "tanh", "sigmoid", "relu", "softmax")
_LAYERS = (FC, CONCAT, LSTM, GRU, CONV, CONV_POOL, *POOLS)
_PLANS = "padded sequence plans"  # memo: id(unpad call) -> Chain, or the reason it is left

PARAM_ATTR = '''\
def {name}(attr, prefix, suffix):
    """The ParamAttr 1.8's LayerHelper gave a parameter of layer `prefix` (paddle-upgrade): its own name, else
    <prefix>.w_N / .b_N, so that 1.8 checkpoints load by name."""
    if attr is None or attr is True or isinstance(attr, str):
        return {paddle}.ParamAttr(name=attr if isinstance(attr, str) else
                                {paddle}.utils.unique_name.generate(prefix + suffix))
    if attr.name is None:
        attr = {copy}.copy(attr)
        attr.name = {paddle}.utils.unique_name.generate(prefix + suffix)
    return attr
'''

STEPS_MASK = '''\
def {name}(input, length):
    """[batch, steps, 1, ...] bool, true at the steps within each sequence's length (paddle-upgrade)."""
    steps = {paddle}.arange({paddle}.shape(input)[1], dtype=length.dtype)
    mask = steps.unsqueeze(0) < {paddle}.reshape(length, [-1, 1])
    return {paddle}.reshape(mask, [0, 0] + [1] * (len(input.shape) - 2))
'''

LSTM_TEMPLATE = '''\
def {name}(input, length, size, h_0=None, c_0=None, param_attr=None, bias_attr=None,
        use_peepholes=True, is_reverse=False, gate_activation="sigmoid", cell_activation="tanh",
        candidate_activation="tanh", dtype="float32", name=None):
    """fluid.layers.dynamic_lstm of Paddle 1.8 on the padded [batch, steps, 4 * hidden] input of
    sequence_unpad and its lengths (paddle-upgrade): (hidden, cell), [batch, steps, hidden] each, meaningful
    within each length. 1.8's gate order (candidate, input, forget, output), peepholes after the bias,
    is_reverse within each sequence; no gradient flows back through the cell output, as in 1.8."""
    d = size // 4
    prefix = name or {paddle}.utils.unique_name.generate("lstm")
    acts = {{"sigmoid": {paddle}.nn.functional.sigmoid, "tanh": {paddle}.tanh, "relu": {paddle}.nn.functional.relu,
            "identity": lambda v: v}}
    gate_act, cell_act, candidate_act = acts[gate_activation], acts[cell_activation], acts[candidate_activation]
    weight = {paddle}.static.create_parameter([d, 4 * d], dtype, attr={param_attr}(param_attr, prefix, ".w"))
    bias = {paddle}.static.create_parameter([1, 7 * d if use_peepholes else 4 * d], dtype,
                                          attr={param_attr}(bias_attr, prefix, ".b"), is_bias=True)

    class Step({paddle}.nn.Layer):
        def forward(self, x, states):
            h, c = states
            candidate, i, f, o = {paddle}.split(x + {paddle}.matmul(h, weight) + bias[:, :4 * d], 4, axis=-1)
            if use_peepholes:
                i, f = i + c * bias[:, 4 * d:5 * d], f + c * bias[:, 5 * d:6 * d]
            c = gate_act(f) * c + gate_act(i) * candidate_act(candidate)
            if use_peepholes:
                o = o + c * bias[:, 6 * d:]
            h = gate_act(o) * cell_act(c)
            return {paddle}.concat([h, c], axis=-1), (h, c)

    zeros = {paddle}.zeros_like(input[:, 0, :d])
    states = (zeros if h_0 is None else h_0, zeros if c_0 is None else c_0)
    rnn = {paddle}.nn.RNN(Step(), is_reverse=is_reverse)
    out, _ = rnn(input, states, sequence_length={paddle}.reshape(length, [-1]))
    cell = out[:, :, d:]
    cell.stop_gradient = True  # 1.8.5's lstm_grad reads no gradient of its Cell output (checked)
    return out[:, :, :d], cell
'''

GRU_TEMPLATE = '''\
def {name}(input, length, size, param_attr=None, bias_attr=None, is_reverse=False,
        gate_activation="sigmoid", candidate_activation="tanh", h_0=None, origin_mode=False):
    """fluid.layers.dynamic_gru of Paddle 1.8 on the padded [batch, steps, 3 * size] input of sequence_unpad and
    its lengths (paddle-upgrade): [batch, steps, size], meaningful within each length. 1.8 read its
    [size, 3 * size] weight as a [size, 2 * size] (update, reset) then a [size, size] (candidate) block;
    is_reverse within each sequence."""
    d = size
    prefix = {paddle}.utils.unique_name.generate("gru")
    acts = {{"sigmoid": {paddle}.nn.functional.sigmoid, "tanh": {paddle}.tanh, "relu": {paddle}.nn.functional.relu,
            "identity": lambda v: v}}
    gate_act, candidate_act = acts[gate_activation], acts[candidate_activation]
    weight = {paddle}.static.create_parameter([d, 3 * d], input.dtype, attr={param_attr}(param_attr, prefix, ".w"))
    bias = None
    if bias_attr is not False:
        bias = {paddle}.static.create_parameter([1, 3 * d], input.dtype, attr={param_attr}(bias_attr, prefix, ".b"),
                                              is_bias=True)
    flat = {paddle}.reshape(weight, [-1])
    gates_weight = {paddle}.reshape(flat[:2 * d * d], [d, 2 * d])
    candidate_weight = {paddle}.reshape(flat[2 * d * d:], [d, d])

    class Step({paddle}.nn.Layer):
        def forward(self, x, h):
            if bias is not None:
                x = x + bias
            gates = gate_act(x[:, :2 * d] + {paddle}.matmul(h, gates_weight))
            u, r = gates[:, :d], gates[:, d:]
            c = candidate_act(x[:, 2 * d:] + {paddle}.matmul(r * h, candidate_weight))
            h = u * h + (1 - u) * c if origin_mode else (1 - u) * h + u * c
            return h, h

    state = {paddle}.zeros_like(input[:, 0, :d]) if h_0 is None else h_0
    rnn = {paddle}.nn.RNN(Step(), is_reverse=is_reverse)
    out, _ = rnn(input, state, sequence_length={paddle}.reshape(length, [-1]))
    return out
'''

CONV_TEMPLATE = '''\
def {name}(input, length, num_filters, filter_size=3, filter_stride=1, padding=True,
        padding_start=None, bias_attr=None, param_attr=None, act=None, name=None):
    """fluid.layers.sequence_conv of Paddle 1.8 on the padded [batch, steps, size] input of sequence_unpad and
    its lengths (paddle-upgrade): [batch, steps, num_filters], meaningful within each length. Each sequence
    is padded with zeros at its own ends (1.8 ignored `padding`); each window holds its step
    (-filter_size < padding_start <= 0)."""
    if filter_stride != 1:
        raise ValueError("sequence_conv: Paddle 1.8 supported filter_stride=1 only")
    prefix = name or {paddle}.utils.unique_name.generate("sequence_conv")
    d = input.shape[2]
    weight = {paddle}.static.create_parameter([filter_size * d, num_filters], input.dtype,
                                            attr={param_attr}(param_attr, prefix, ".w"))
    start = -(filter_size // 2) if padding_start is None else padding_start
    x = {paddle}.where({mask}(input, length), input, {paddle}.zeros_like(input))
    kernel = {paddle}.transpose({paddle}.reshape(weight, [filter_size, d, num_filters]), [2, 1, 0])
    out = {paddle}.nn.functional.conv1d(x, kernel, padding=[-start, start + filter_size - 1], data_format="NLC")
    if bias_attr is not False:
        out = out + {paddle}.static.create_parameter([num_filters], input.dtype,
                                                   attr={param_attr}(bias_attr, prefix, ".b"), is_bias=True)
    acts = {{None: lambda v: v, "tanh": {paddle}.tanh, "sigmoid": {paddle}.nn.functional.sigmoid,
            "relu": {paddle}.nn.functional.relu, "softmax": {paddle}.nn.functional.softmax}}
    return acts[act](out)
'''

POOL_TEMPLATE = '''\
def {name}(input, length, pool_type, is_test=False, pad_value=0.0):
    """fluid.layers.sequence_pool of Paddle 1.8 on a padded [batch, steps, ...] tensor and the lengths of
    sequence_unpad (paddle-upgrade): each sequence pooled over its own steps, an empty one giving pad_value."""
    mask = {mask}(input, length)
    count = {paddle}.reshape(length, [-1] + [1] * (len(input.shape) - 2)).astype(input.dtype)
    kind = pool_type.lower()
    if kind == "max":
        out = {paddle}.max({paddle}.where(mask, input, {paddle}.full_like(input, float("-inf"))), axis=1)
    elif kind in ("sum", "average", "sqrt"):
        out = {paddle}.sum({paddle}.where(mask, input, {paddle}.zeros_like(input)), axis=1)
        if kind != "sum":  # (an empty sequence's 0 / 0 kept out of the gradient: pad_value replaces it)
            safe = {paddle}.maximum(count, {paddle}.ones_like(count))
            out = out / (safe if kind == "average" else {paddle}.sqrt(safe))
    elif kind in ("last", "first"):  # the one step picked (none in an empty sequence)
        at = length - 1 if kind == "last" else {paddle}.zeros_like(length)
        steps = {paddle}.arange({paddle}.shape(input)[1], dtype=length.dtype)
        pick = steps.unsqueeze(0) == {paddle}.reshape(at, [-1, 1])
        pick = {paddle}.reshape(pick, [0, 0] + [1] * (len(input.shape) - 2))
        out = {paddle}.sum({paddle}.where(pick, input, {paddle}.zeros_like(input)), axis=1)
    else:
        raise ValueError("sequence_pool: unknown pool_type " + repr(pool_type))
    return {paddle}.where(count > 0, out, {paddle}.full_like(out, pad_value))
'''


class _Left(Exception):
    """The chain cannot be planned: why (the unpad is left as today)."""


@dataclass
class Chain:
    """One unpad and the layers that read its LoD values, by id of their original call."""

    unpad: cst.Call
    statement: cst.SimpleStatementLine
    target: str
    length: str  # the name the layers read the lengths from: the unpad's own, or one bound to its `length` there
    bind: bool  # `length` is an expression (or a name that may change) bound to a fresh name at the unpad
    roles: Dict[int, Tuple[str, object]] = field(default_factory=dict)  # id(call) -> (role, detail)
    names: Dict[str, str] = field(default_factory=dict)  # definitions written (kind -> name), at the unpad
    active: bool = False  # the unpad was rewritten: every site of `roles` must be
    after: Optional[cst.BaseStatement] = None  # the statement after the unpad's (where its dropped comments go)


def plan(ctx: Context) -> None:
    """Before the pass: each `y = sequence_unpad(x, length=n)` of a function, its chain or why it is left."""
    if "sequence_unpad" not in ctx.source:
        return
    plans: Dict[int, object] = {}
    for _, stmt in _statements(ctx.module.body, ()):
        call = _unpad_in(ctx, stmt)
        if call is not None:
            plans[id(call)] = "at module level, where other modules may import the names holding its LoD values"
    for fn in (n for n in descendants(ctx.module) if isinstance(n, cst.FunctionDef)):
        found = [(path, stmt) for path, stmt in _statements(fn.body.body, ()) if _unpad_in(ctx, stmt)]
        if not found:
            continue
        ctx.reads(fn)  # every statement of it: where a LoD value may escape
        for path, stmt in found:
            call = _unpad_in(ctx, stmt)
            try:
                plans[id(call)] = _Planner(ctx, fn).chain(path, stmt, call)  # type: ignore[arg-type]
            except _Left as why:
                plans[id(call)] = str(why)
    ctx.memo[_PLANS] = plans


def call(ctx: Context, site: Site, node: cst.Call) -> Optional[cst.BaseExpression]:
    """The site's padded form when a planned chain holds it; None to go on as usual (the fc and concat of a
    chain are given their padded axes here and go on)."""
    plans = ctx.memo.get(_PLANS)
    original = site.call
    if not plans or original is None:
        return None
    if site.name == UNPAD:
        found = plans.get(id(original))  # type: ignore[union-attr]
        if isinstance(found, Chain):
            return _unpad(ctx, site, node, found)
        if isinstance(found, str):
            _left(ctx, site, found)
        return None
    for chain in plans.values():  # type: ignore[union-attr]
        if isinstance(chain, Chain) and chain.active and id(original) in chain.roles:
            return _member(ctx, site, node, chain, *chain.roles[id(original)])
    return None


# -- the rewrite, site by site -----------------------------------------------------------------------------
def _unpad(ctx: Context, site: Site, node: cst.Call, chain: Chain) -> cst.BaseExpression:
    """Write the definitions the chain calls (here, before any other site of it is rewritten: a refusal now
    leaves the whole chain as today), then drop the unpad."""
    try:
        if ctx.todos[-1]:
            raise NeedsReview("its arguments hold uses left as written")
        if not ctx.resolver.is_paddle_root(site.scope):
            raise NeedsReview("`paddle` is rebound here")
        kinds = {role for role, _ in chain.roles.values()}
        if "conv_pool" in kinds:
            kinds |= {"conv", "pool"}
        helpers = {"param_attr": ("lod_param_attr", PARAM_ATTR, ("copy",)),
                   "mask": ("padded_steps_mask", STEPS_MASK, ())}
        for kind, base, template in (("lstm", "padded_dynamic_lstm", LSTM_TEMPLATE),
                                     ("gru", "padded_dynamic_gru", GRU_TEMPLATE),
                                     ("conv", "padded_sequence_conv", CONV_TEMPLATE),
                                     ("pool", "padded_sequence_pool", POOL_TEMPLATE)):
            if kind not in kinds:
                continue
            for helper, (helper_base, helper_template, stdlib) in helpers.items():  # (only those it calls)
                if "{%s}" % helper in template:
                    template = template.replace("{%s}" % helper, module_definitions.define_once(
                        ctx, site, helper_base, helper_template, stdlib=stdlib))
            chain.names[kind] = module_definitions.define_once(ctx, site, base, template)
    except NeedsReview as why:
        _left(ctx, site, str(why))
        return node
    chain.active = True
    given = _keywords(site, node)
    padded = call_args.get(given, "x").value  # type: ignore[union-attr]  # (planned: both are given)
    statement = chain.statement
    same = isinstance(padded, cst.Name) and padded.value == chain.target
    if chain.bind:  # the lengths as the unpad read them, in a name of their own
        chain.length = ctx.fresh_name(site.scope, f"{chain.target}_length")
        bound = cst.Assign([cst.AssignTarget(cst.Name(chain.length))],
                           call_args.get(given, "length").value)  # type: ignore[union-attr]
        if same:  # `x = unpad(x, length=...)` becomes `x_length = ...`
            ctx.replace(statement, lambda updated: updated.with_changes(body=[bound]))
        else:
            ctx.insert_around(statement, after=[cst.SimpleStatementLine([bound])])
    elif same and (chain.after is not None or not kept_comments.comments(statement)):
        ctx.replace(statement, lambda updated: cst.FlattenSentinel([]))  # `x = unpad(x, ...)`: the line goes,
        if chain.after is not None:  # the blank and comment lines above it, and its comments, above the next one
            lines = statement.leading_lines
            moved = kept_comments.comments(statement.with_changes(leading_lines=()))
            ctx.replace(chain.after, lambda updated: kept_comments.above(
                updated.with_changes(leading_lines=(*lines, *updated.leading_lines)), moved))  # type: ignore
    site.finding = ctx.report(site, F.CONVERTED, "info",
                              f"{site.name} dropped: `{chain.target}` keeps the padded tensor, and the LoD layers "
                              f"after it ({len(chain.roles)}) take it with the lengths `{chain.length}`", True)
    return emit.converted(site, padded)


def _member(ctx: Context, site: Site, node: cst.Call, chain: Chain, role: str, detail: object
            ) -> Optional[cst.BaseExpression]:
    length = cst.Name(chain.length)
    node = _keywords(site, node)
    if role == "fc":
        return call_args.set_value(node, "num_flatten_dims", cst.Integer(str(detail)))
    if role == "concat":
        return call_args.set_value(node, "axis", _integer(detail))  # type: ignore[arg-type]
    if role in ("lstm", "gru", "conv"):
        made = _with_length(node, length).with_changes(func=cst.Name(chain.names[role]))
    elif role == "pool":
        made = _with_length(node, length).with_changes(func=cst.Name(chain.names["pool"]))
        if detail is not None:  # sequence_last_step / sequence_first_step
            made = call_args.add(made, "pool_type", cst.SimpleString(detail))  # type: ignore[arg-type]
    else:  # conv_pool: 1.8's sequence_conv then sequence_pool, with the composite's defaults
        conv = call_args.remove(_with_length(node, length), "pool_type")
        if call_args.get(conv, "act") is None:
            conv = call_args.add(conv, "act", cst.SimpleString("'sigmoid'"))
        pool = call_args.get(node, "pool_type")
        made = cst.Call(func=cst.Name(chain.names["pool"]), args=[
            call_args.keyword_arg("input", conv.with_changes(func=cst.Name(chain.names["conv"]))),
            call_args.keyword_arg("length", length),
            call_args.keyword_arg("pool_type", pool.value if pool is not None else cst.SimpleString("'max'"))])
    site.finding = ctx.report(site, F.CONVERTED, "info",
                              f"{site.name} -> {made.func.value}, a function of the module on the padded tensor "
                              f"and the lengths of the sequence_unpad it followed", True)  # type: ignore
    return emit.converted(site, made)


def _left(ctx: Context, site: Site, why: str) -> None:
    """The unpad left as today, its finding saying why its chain is not in padded form."""
    entry = site.entry
    ne = entry.no_equivalent if entry is not None else None
    said = f" ({ne.reason}); instead: {ne.suggest}" if ne is not None else ""
    site.finding = ctx.report(site, F.NO_EQUIVALENT, "warning",
                              f"{site.name} has no 2.x equivalent{said}; the layers after it are not rewritten to "
                              f"the padded tensor and its lengths: {why}", False)
    ctx.todo(f"{short_name(site.name)}: no 2.x equivalent{', runs through runtime_shim' if ctx.shim else ''}")


def _keywords(site: Site, node: cst.Call) -> cst.Call:
    """Every argument a keyword, named by the 1.8 parameter order (args_to_kwargs keeps those 2.x takes at
    the same place; a function of the module takes `length` second)."""
    params = [p.name for p in site.entry.args_list or ()] if site.entry is not None else []
    return node.with_changes(args=[call_args.as_keyword(arg, params[index])
                                   if arg.keyword is None and not arg.star and index < len(params) else arg
                                   for index, arg in enumerate(node.args)])


def _with_length(node: cst.Call, length: cst.Name) -> cst.Call:
    """The call with `length=` after its `input=`."""
    args: List[cst.Arg] = []
    for arg in node.args:
        args.append(arg)
        if arg.keyword is not None and arg.keyword.value == "input":  # (on its line, where input= has its own)
            args.append(call_args.keyword_arg("length", length).with_changes(comma=arg.comma))
    return call_args.with_args(node, args)


def _integer(value: int) -> cst.BaseExpression:
    return cst.Integer(str(value)) if value >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))


# -- the plan ----------------------------------------------------------------------------------------------
_Path = Tuple[Tuple[Sequence[cst.BaseStatement], int, cst.CSTNode], ...]


def _statements(body: Sequence[cst.BaseStatement], path: _Path) -> Iterator[Tuple[_Path, cst.BaseStatement]]:
    """Each statement of a function's own blocks with the blocks around it: (block, index, owner) outermost
    first, the statement's own last."""
    for index, stmt in enumerate(body):
        here = path + ((body, index, stmt),)
        yield here, stmt
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        for block in _bodies(stmt):
            yield from _statements(block, here)


def _bodies(stmt: cst.CSTNode) -> Iterator[Sequence[cst.BaseStatement]]:
    """The statement lists of a compound statement (an `elif` is the `If` in `orelse`)."""
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.IndentedBlock):
        yield body.body
    for name in ("orelse", "finalbody"):
        part = getattr(stmt, name, None)
        if isinstance(part, cst.If):
            yield [part]
        elif part is not None and isinstance(getattr(part, "body", None), cst.IndentedBlock):
            yield part.body.body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body.body


def _unpad_in(ctx: Context, stmt: cst.CSTNode) -> Optional[cst.Call]:
    """The call of `y = sequence_unpad(...)`, when `stmt` is that."""
    assign = _assignment(stmt)
    if assign is None:
        return None
    value = assign.value
    return value if isinstance(value, cst.Call) and _api(ctx, value) == UNPAD else None


def _assignment(stmt: cst.CSTNode) -> Optional[cst.Assign]:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign) \
            and len(stmt.body[0].targets) == 1:
        return stmt.body[0]
    return None


def _api(ctx: Context, node: cst.Call) -> Optional[str]:
    ref = ctx.resolver.references.get(id(node.func))
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref else None
    return matched[0].name if matched is not None and not matched[1] else None


class _Planner:
    """Follows the LoD values of one unpad through its function. The state maps each name that may hold one
    to "lod" (on every path) or "mixed" (on some): a layer of the chain takes "lod" names only, and nothing
    else reads either."""

    def __init__(self, ctx: Context, fn: cst.FunctionDef) -> None:
        self.ctx = ctx
        self.fn = fn
        self.nested: Set[str] = set()  # names nested functions and lambdas read
        self.calls: List[cst.Call] = []  # the layers of the chain

    def chain(self, path: tuple, stmt: cst.SimpleStatementLine, unpad: cst.Call) -> Chain:
        ctx = self.ctx
        if ctx.in_dygraph_guard(unpad):
            raise _Left("in a dygraph block, where 1.8 ran no LoD layers")
        if call_args.has_star(unpad) or any(isinstance(owner, (cst.For, cst.While, cst.Try))
                                            for _, _, owner in path[:-1]):
            raise _Left("it runs in a loop or a `try`, or takes *args")
        target = _assignment(stmt).targets[0].target  # type: ignore[union-attr]
        if not isinstance(target, cst.Name):
            raise _Left("its result is not bound to a name")
        length = _by_name(ctx, unpad).get("length")
        if "x" not in _by_name(ctx, unpad) or length is None:
            raise _Left("no `x` or `length` is given")
        fixed = isinstance(length, cst.Name) and self._length_fixed(stmt, length.value)
        self._no_hidden_reads()
        if target.value in self.nested:
            raise _Left(f"`{target.value}` is read by a nested function or lambda, or declared global")
        chain = self.chain_ = Chain(unpad, stmt, target.value, length.value if fixed else "", not fixed)  # type: ignore
        state: Dict[str, str] = {target.value: "lod"}
        for depth in range(len(path) - 1, -1, -1):
            block, index, owner = path[depth]
            if depth < len(path) - 1 and isinstance(path[depth][2], cst.If):
                state = {name: "mixed" for name in state}  # the other branches never bound them
            state = self._block(block[index + 1:], state)
        if not chain.roles:
            raise _Left("no layer reads its LoD value")
        if any(ctx.in_dygraph_guard(call) for call in self.calls):
            raise _Left("a layer after it is in a dygraph block, where 1.8 ran no LoD layers")
        block, index, _ = path[-1]
        chain.after = block[index + 1] if index + 1 < len(block) else None
        return chain

    def _length_fixed(self, unpad_stmt: cst.CSTNode, length: str) -> bool:
        """Whether the lengths are the function's own name (a parameter, or bound before the unpad), bound
        nowhere after it: every layer of the chain may read it (else the unpad binds a fresh name to it)."""
        params = self.fn.params
        own = length in {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        seen = False
        for node in descendants(self.fn.body):
            if node is unpad_stmt:
                if not own:
                    return False
                seen = True
            elif not seen and isinstance(node, (cst.BaseSmallStatement, cst.For, cst.With)) and length in _binds(node):
                own = True
            elif isinstance(node, (cst.Global, cst.Nonlocal)) and length in {n.name.value for n in node.names}:
                return False
            elif seen and isinstance(node, (cst.BaseSmallStatement, cst.For, cst.With, cst.FunctionDef, cst.ClassDef,
                                            cst.NamedExpr)) and length in _binds(node):
                return False
        return True

    def _no_hidden_reads(self) -> None:
        """Nested functions and lambdas read names when called, where the plan does not follow them; the
        builtins that read a frame's names do so unseen."""
        for node in descendants(self.fn.body):
            if isinstance(node, cst.Name) and node.value in ("locals", "vars", "eval", "exec"):
                raise _Left(f"the function calls `{node.value}`")
        self.nested = {n.value for node in descendants(self.fn.body)
                       if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and node is not self.fn
                       for n in descendants(node) if isinstance(n, cst.Name)}
        # a name declared global or nonlocal is read where the plan does not look, as the nested ones
        self.nested |= {n.name.value for node in descendants(self.fn.body)
                        if isinstance(node, (cst.Global, cst.Nonlocal)) for n in node.names}

    # statements ---------------------------------------------------------------------------------------------
    def _block(self, stmts: Sequence[cst.BaseStatement], state: Dict[str, str]) -> Dict[str, str]:
        for stmt in stmts:
            state = self._statement(stmt, state)
        return state

    def _statement(self, stmt: cst.BaseStatement, state: Dict[str, str]) -> Dict[str, str]:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                state = self._small(small, state)
            return state
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            self._no_reads(stmt, state)
            return _without(state, {stmt.name.value})
        if isinstance(stmt, cst.If):
            self._no_reads(stmt.test, state)
            then = self._block(stmt.body.body, state)
            other = state if stmt.orelse is None else self._block(
                [stmt.orelse] if isinstance(stmt.orelse, cst.If) else stmt.orelse.body.body, state)
            return _merge(then, other)
        if isinstance(stmt, (cst.For, cst.While)):
            self._no_reads(stmt.iter if isinstance(stmt, cst.For) else stmt.test, state)
            entry = _without(state, _binds(stmt)) if isinstance(stmt, cst.For) else state
            once = self._block(stmt.body.body, entry)
            again = self._block(stmt.body.body, _merge(entry, _without(once, _binds(stmt))))  # the next turn
            after = _merge(state, again)
            return self._block(stmt.orelse.body.body, after) if stmt.orelse is not None else after
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self._no_reads(item.item, state)
            return self._block(stmt.body.body, _without(state, _binds(stmt)))
        self._no_reads(stmt, state)  # try, match, ...: read nothing of the chain, and end what they bind
        return {name: kind for name, kind in state.items() if name not in _all_binds(stmt)}

    def _small(self, small: cst.BaseSmallStatement, state: Dict[str, str]) -> Dict[str, str]:
        """A simple statement: it reads the chain's values only as the `input` of layers of the chain; a layer
        whose result is LoD is the whole value of an assignment (its names then hold LoD values), a pool
        may sit anywhere in it (its result is dense)."""
        reads = [n for n in _load_nodes(small) if n.value in state]
        if not reads:
            return _without(state, _binds(small))
        taken: Set[int] = set()  # ids of the names read as the input of a layer of the chain
        layers = []
        for node in descendants(small):
            if isinstance(node, cst.Call) and _api(self.ctx, node) in _LAYERS and \
                    _names(node) & set(state) and not call_args.has_star(node):
                args = _by_name(self.ctx, node)
                inputs = self._inputs(_api(self.ctx, node), args, state, node)  # type: ignore[arg-type]
                if inputs:
                    taken.update(map(id, inputs))
                    layers.append((node, args))
        stray = next((n for n in reads if id(n) not in taken), None)
        if stray is not None:
            raise _Left(f"`{stray.value}`, a LoD value, is read by `{self._code(small)[:80]}`, which has no "
                        f"padded form here")
        whole = small.value if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
        lod_targets: List[str] = []
        for call, args in layers:
            role, detail, lod_out = self._role(_api(self.ctx, call), args, call)  # type: ignore[arg-type]
            if lod_out:
                names = _target_names(small.targets[0].target) if call is whole else None  # type: ignore
                if names is None or (len(names) != 2 if role == "lstm" else
                                     not isinstance(small.targets[0].target, cst.Name)):  # type: ignore
                    raise _Left(f"the LoD result of `{self._code(call.func)}` is not bound to "
                                f"{'two names' if role == 'lstm' else 'a name'}")
                lod_targets = names
            self.chain_.roles[id(call)] = (role, detail)
            self.calls.append(call)
        targets = sorted(_binds(small))
        if self.chain_.length in targets:  # (a fixed length is bound nowhere after the unpad)
            raise AssertionError(f"`{self.chain_.length}` bound again")
        state = _without(state, set(targets))
        state.update({name: "lod" for name in lod_targets})
        if set(lod_targets) & self.nested:
            raise _Left(f"`{lod_targets[0]}` is read by a nested function or lambda, or declared global")
        return state

    def _inputs(self, api: str, args: Dict[str, cst.BaseExpression], state: Dict[str, str],
                call: cst.Call) -> List[cst.Name]:
        """The names the layer reads as its input, when they hold LoD values (none of them: [])."""
        value = args.get("input")
        many = api in (FC, CONCAT) and isinstance(value, (cst.List, cst.Tuple))
        elements = [e.value for e in value.elements] if many else [value]  # type: ignore[union-attr]
        names = [e for e in elements if isinstance(e, cst.Name)]
        if not any(n.value in state for n in names):
            return []
        if len(names) != len(elements) or any(state.get(n.value) != "lod" for n in names):
            raise _Left(f"`{self._code(call)[:80]}` takes LoD values with other values, or one that may not be LoD")
        return names

    def _role(self, api: str, args: Dict[str, cst.BaseExpression], call: cst.Call) -> Tuple[str, object, bool]:
        """(role, what its rewrite needs, whether its result is a LoD value)."""
        if api == FC:
            flatten = self._literal(args.get("num_flatten_dims"), 1)
            if not isinstance(flatten, int) or isinstance(flatten, bool) or flatten < 1:
                raise _Left("an fc of the chain has a num_flatten_dims that is not a literal")
            act = self._literal(args.get("act"), None)
            entry = self.ctx.table.lookup(ACTIVATIONS + act) if isinstance(act, str) else None
            if act is not None and act is not _Unknown and (entry is None or entry.update_to is None or
                                                           entry.transformer is not None):
                raise _Left(f"an fc of the chain has act={act!r}, which the upgrade does not apply")
            return "fc", flatten + 1, True
        if api == CONCAT:
            axis = self._literal(args.get("axis"), 0)
            if not isinstance(axis, int) or axis == 0:
                raise _Left("a concat of LoD values joins their rows (axis 0), or its axis is not a literal")
            return "concat", axis + 1 if axis > 0 else axis, True
        if api in (CONV, CONV_POOL):
            act = self._literal(args.get("act"), None if api == CONV else "sigmoid")
            stride = self._literal(args.get("filter_stride"), 1)
            if act not in _ACTS or stride != 1:
                raise _Left(f"`{self._code(call.func)}` has an act or filter_stride the padded form is not sure of")
            start, size = self._literal(args.get("padding_start"), None), self._literal(args.get("filter_size"), 3)
            if start is not None and not (isinstance(start, int) and isinstance(size, int) and -size < start <= 0):
                raise _Left(f"`{self._code(call.func)}` has a padding_start that may put a window past its step, "
                            f"where 1.8.5's gradient is not that of its output (checked)")
            return ("conv", None, True) if api == CONV else ("conv_pool", None, False)
        if any(self._literal(args.get(state), None) is not None for state in ("h_0", "c_0")):
            raise _Left(f"`{self._code(call.func)}` starts from h_0, where 1.8.5's gradient is not that of its "
                        f"output (dynamic_gru always, dynamic_lstm once a sequence is empty; checked against "
                        f"finite differences), which the padded form would not reproduce")
        if api in (LSTM, GRU):
            return ("lstm" if api == LSTM else "gru"), None, True
        return "pool", POOLS[api], False

    def _literal(self, node: Optional[cst.BaseExpression], default: object) -> object:
        if node is None:
            return default
        try:
            return ast.literal_eval(self.ctx.code(node).strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return _Unknown

    def _no_reads(self, node: cst.CSTNode, state: Dict[str, str]) -> None:
        reads = _loads(node) & set(state)
        if reads:
            raise _Left(f"`{sorted(reads)[0]}`, a LoD value, is read by `{self._code(node)[:60]}`")

    def _code(self, node: cst.CSTNode) -> str:
        return " ".join(self.ctx.code(node).split())


class _Unknown:
    """A value the plan cannot read as a literal."""


def _by_name(ctx: Context, node: cst.Call) -> Dict[str, cst.BaseExpression]:
    """The arguments by 1.8 parameter name (positional ones by the table's parameter order)."""
    ref = ctx.resolver.references.get(id(node.func))
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref else None
    params = [p.name for p in matched[0].args_list or ()] if matched is not None else []
    found: Dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(node.args):
        if arg.keyword is not None:
            found[arg.keyword.value] = arg.value
        elif not arg.star and index < len(params):
            found[params[index]] = arg.value
    return found


def _merge(one: Dict[str, str], other: Dict[str, str]) -> Dict[str, str]:
    return {name: ("lod" if one.get(name) == other.get(name) == "lod" else "mixed") for name in {*one, *other}}


def _without(state: Dict[str, str], names: Set[str]) -> Dict[str, str]:
    return {name: kind for name, kind in state.items() if name not in names}


def _names(node: cst.CSTNode) -> Set[str]:
    return {n.value for n in descendants(node) if isinstance(n, cst.Name)}


def _target_names(target: cst.BaseExpression) -> Optional[List[str]]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name)
                                                         for e in target.elements):
        return [e.value.value for e in target.elements]  # type: ignore[attr-defined]
    return None


def _bound_by(target: cst.CSTNode) -> Set[str]:
    """Names a target binds (a bare name, or one in a tuple/list); `a.b`, `a[i]` bind none."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_bound_by(e.value) for e in target.elements))  # type: ignore[attr-defined]
    if isinstance(target, cst.StarredElement):
        return _bound_by(target.value)
    return set()


def _binds(node: cst.CSTNode) -> Set[str]:
    """The names a statement binds at its own level (not in the blocks of a compound one)."""
    if isinstance(node, cst.Assign):
        return set().union(*(_bound_by(t.target) for t in node.targets))
    if isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        return _bound_by(node.target)
    if isinstance(node, (cst.For,)):
        return _bound_by(node.target)
    if isinstance(node, cst.With):
        return set().union(*(_bound_by(i.asname.name) for i in node.items if i.asname is not None))
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return {node.name.value}
    if isinstance(node, cst.NamedExpr):
        return _bound_by(node.target)
    if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        return {(a.evaluated_alias or a.evaluated_name).split(".")[0] for a in node.names}
    if isinstance(node, cst.Del):
        return _bound_by(node.target)
    return set()


def _all_binds(node: cst.CSTNode) -> Set[str]:
    return set().union(*(_binds(n) for n in descendants(node)))


def _loads(node: cst.CSTNode) -> Set[str]:
    return {n.value for n in _load_nodes(node)}


def _load_nodes(node: cst.CSTNode) -> List[cst.Name]:
    """The names `node` reads (or deletes): every name but those only bound, the keywords of calls and the
    attributes after a dot."""
    skip: Set[int] = set()
    for n in descendants(node):
        if isinstance(n, cst.Attribute):
            skip.add(id(n.attr))
        elif isinstance(n, cst.Arg) and n.keyword is not None:
            skip.add(id(n.keyword))
        elif isinstance(n, cst.Assign):
            skip.update(id(t.target) for t in n.targets if isinstance(t.target, cst.Name))
            skip.update(id(e.value) for t in n.targets if isinstance(t.target, (cst.Tuple, cst.List))
                        for e in t.target.elements if isinstance(e.value, cst.Name))
        elif isinstance(n, (cst.AnnAssign, cst.For, cst.NamedExpr)) and isinstance(n.target, cst.Name):
            skip.add(id(n.target))
        elif isinstance(n, cst.For) and isinstance(n.target, (cst.Tuple, cst.List)):
            skip.update(id(e.value) for e in n.target.elements if isinstance(e.value, cst.Name))
        elif isinstance(n, cst.AsName):
            skip.add(id(n.name))
        elif isinstance(n, (cst.FunctionDef, cst.ClassDef)):
            skip.add(id(n.name))
        elif isinstance(n, cst.Param):
            skip.add(id(n.name))
        elif isinstance(n, (cst.Import, cst.ImportFrom)):
            skip.update(id(m) for m in descendants(n))
    return [n for n in descendants(node) if isinstance(n, cst.Name) and id(n) not in skip]
