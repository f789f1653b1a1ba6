"""1.8's RNN cell API in static programs: `layers.RNNCell` subclasses of the module, `layers.LSTMCell`,
`layers.GRUCell`, and `layers.rnn` running them.

2.x runs a cell through `paddle.nn.RNN(cell, is_reverse, time_major)(inputs, initial_states,
sequence_length)`, whose static loop is 1.8's (states kept past a sequence's end, the last states
returned), but its cells are Layers (`paddle.nn.RNNCellBase`) that compute in `forward`, and its
`get_initial_states` cannot size a batch known at run time only. So the module gets 1.8's RNNCell written
once on top of RNNCellBase (`forward` calls the user's `call`, `get_initial_states` fills 1.8's zeros for
the batch of `batch_ref`), a class of the module subclassing `layers.RNNCell` subclasses it instead, with
`super().__init__()` first in its `__init__` (a Layer's attributes exist only after it), and
`layers.LSTMCell` is 1.8's cell written once too: input size read on the first call, the weight
`[input + hidden, 4 * hidden]` and bias `[4 * hidden]` named `LSTMCell/BasicLSTMUnit_N.w_0`/`.b_0` as
1.8's BasicLSTMUnit named them (1.8 checkpoints load by name), gates i, j, f, o, and `forget_bias` added
to f. So is `layers.GRUCell`: a gate weight `[input + hidden, 2 * hidden]` (r, then u) and a candidate weight
`[input + hidden, hidden]`, with their biases, named `GRUCell/BasicGRUUnit_N.w_0`/`.w_1`/`.b_0`/`.b_1`, or an
attribute's name followed by `_gate`/`_candidate`, as 1.8's BasicGRUUnit named them. Both name their parameters
through one function written in the module (RNN_UNIT_PARAMETER). Checked on 1.8.5:
fixtures/legacy/rnn_cell_static.py and gru_cell_static.py.

Left with the reason: a file that is not a static program or holds a dygraph guard (the cells create
static parameters), a cell class whose family in the module overrides what the base serves
(`__call__`, `get_initial_states`, `forward`), has several bases, or sets attributes in an `__init__` before
calling another `__init__`, and an `rnn` whose cell the function does not show is made by one of these.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from api_mapping.kernels import GRU_CELL_CLASS, LSTM_CELL_CLASS, RNN_CELL_BASE, RNN_UNIT_PARAMETER
from refactors import call_args, findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import binding_statements, bound_once
from refactors.transformers import emit, module_definitions, register

_LAYERS = "paddle.fluid.layers."  # (legacy names: no 2.x name this module emits)
RNN_CELL = _LAYERS + "RNNCell"
LSTM_CELL = _LAYERS + "LSTMCell"
GRU_CELL = _LAYERS + "GRUCell"
RNN = _LAYERS + "rnn"
# The attributes and methods of Paddle 3.3.1's paddle.nn.Layer (its instance's `vars` and the class's
# names): a cell defining or setting one would change what the Layer does, or break it.
_LAYER_NAMES = frozenset("""
    _buffers _built _cast_to_low_precision _customized_attrs _dtype _forward_post_hooks
    _forward_post_hooks_always_called _forward_post_hooks_with_kwargs_flag _forward_pre_hooks
    _forward_pre_hooks_with_kwargs_flag _full_name _helper _init_in_dynamic_mode _loaddict_holder
    _non_persistable_buffer_names_set _op_recorder _original_funcs _parameters _state_dict_hooks _sub_layers
    training _apply _build_once _dygraph_call_func _get_name _modules _non_persistent_buffers_set
    _obtain_parameters_buffers _set_op_attrs _startup_program _state_dict_impl _to_impl _transform add_module
    add_parameter add_sublayer apply astype backward bfloat16 buffers children clear_gradients cpu
    create_parameter create_tensor create_variable cuda double eval extra_repr float float16 forward full
    full_name get_buffer get_extra_state get_parameter get_sublayer get_submodule half load_dict
    load_state_dict modules named_buffers named_children named_modules named_parameters named_sublayers
    parameters register_buffer register_forward_hook register_forward_post_hook register_forward_pre_hook
    register_module register_parameter register_state_dict_hook requires_grad_ set_dict set_state_dict
    set_sublayer set_submodule sharded_state_dict state_dict sublayers to to_static_state_dict train type xpu
    zero_grad""".split())
# What 1.8's RNNCell gave its subclasses, served by the written base class: a subclass overriding one
# would bypass it.
_SERVED = ("__call__", "get_initial_states", "forward")


def _api(ctx: Context, node: cst.BaseExpression) -> Optional[str]:
    """The table name `node` (a paddle name chain) denotes, else None."""
    site = ctx.by_node.get(id(node))
    if site is not None:
        return site.name if site.entry is not None and not site.suffix else None
    ref = ctx.resolver.references.get(id(node))
    if ref is None or ref.mixed or any(b.qualname != ref.bindings[0].qualname for b in ref.bindings):
        return None
    rest = ref.dotted.partition(".")[2]
    found = ctx.entry_of_chain(ref.bindings[0].qualname + ("." + rest if rest else ""))
    return found[0].name if found is not None and not found[1] else None


def _static_program(ctx: Context) -> bool:
    """Whether the module uses a static-graph-only API other than the cells (1.8's cells ran in dygraph
    too, so they do not make a file static)."""
    def make() -> bool:
        return any(ctx._static_only(ref) and _api(ctx, ref.node) not in (LSTM_CELL, GRU_CELL)
                   for ref in ctx.resolver.references.values())
    return bool(ctx.planned(("rnn cells", "static"), make))


def _mode_reason(ctx: Context) -> Optional[str]:
    if not _static_program(ctx):
        return "not a static program here (the cells create static parameters)"
    if ctx.dygraph_guards():
        return "the module holds a dygraph guard (the cells create static parameters)"
    return None


def _first_statement(fn: cst.FunctionDef) -> Optional[cst.BaseStatement]:
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if body and _docstring(body[0]):
        body = body[1:]
    return body[0] if body else None


def _docstring(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
        and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, (cst.SimpleString,
                                                                                    cst.ConcatenatedString))


def _self_attributes(body) -> set:
    """The attributes the methods of a class body assign on their first parameter (`self.x = ...`)."""
    found: set = set()
    for fn in body:
        params = fn.params.params if isinstance(fn, cst.FunctionDef) else ()
        if not params:
            continue
        me = params[0].name.value

        class Targets(cst.CSTVisitor):
            def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
                self.take(node.target)

            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                self.take(node.target)

            def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
                self.take(node.target)

            def take(self, target: cst.BaseExpression) -> None:
                for el in (e.value for e in target.elements) if isinstance(target, (cst.Tuple, cst.List)) \
                        else (target,):
                    if isinstance(el, cst.Attribute) and isinstance(el.value, cst.Name) and el.value.value == me:
                        found.add(el.attr.value)
        fn.visit(Targets())
    return found


def _calls_init(node: cst.CSTNode) -> bool:
    """Whether `node` holds a call of some `.__init__`."""
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "__init__":
                found.append(call)
    node.visit(Finder())
    return bool(found)


class _Cell:
    """A class of the module in the family of a `layers.RNNCell` subclass."""

    def __init__(self, node: cst.ClassDef, root: bool) -> None:
        self.node = node
        self.root = root  # subclasses `layers.RNNCell` itself
        self.reason: Optional[str] = None
        self.insert_init = False  # `super().__init__()` goes first in its `__init__`
        self.children: List[str] = []


def _examine(cell: _Cell) -> None:
    node = cell.node
    if len(node.bases) != 1 or node.keywords or node.bases[0].star:
        cell.reason = f"class {node.name.value} has other bases or class keywords"
        return
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
    defined = set()
    init: Optional[cst.FunctionDef] = None
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            defined.add(stmt.name.value)
            init = stmt if stmt.name.value == "__init__" else init
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    defined.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
    overridden = sorted(defined.intersection(_SERVED))
    if overridden:
        cell.reason = f"class {node.name.value} defines {', '.join(overridden)}, which the 2.x cell serves"
        return
    clashes = sorted((defined | _self_attributes(body)) & _LAYER_NAMES)
    if clashes:
        cell.reason = f"class {node.name.value} defines or sets {', '.join(clashes)}, which a 2.x Layer has"
        return
    if init is None:
        return
    if not isinstance(init.body, cst.IndentedBlock):
        cell.reason = f"{node.name.value}.__init__ is written on one line"
        return
    first = _first_statement(init)
    if first is not None and _calls_init(first) and isinstance(first, cst.SimpleStatementLine) \
            and len(first.body) == 1 and isinstance(first.body[0], cst.Expr):
        rest = list(init.body.body)  # type: ignore[union-attr]
        if not any(_calls_init(s) for s in rest[rest.index(first) + 1:]):
            return
    if _calls_init(init):
        cell.reason = f"{node.name.value}.__init__ calls an __init__ after its first statement"
    elif not cell.root:
        cell.reason = f"{node.name.value}.__init__ does not call its base's __init__ first"
    else:
        cell.insert_init = True


def _plan(ctx: Context) -> Dict[str, _Cell]:
    """The module-level cell classes by name (a class subclassing `layers.RNNCell` or such a class),
    each with the reason it is left, if it is; a family shares its root's fate."""
    def make() -> Dict[str, _Cell]:
        classes = {stmt.name.value: stmt for stmt in ctx.module.body if isinstance(stmt, cst.ClassDef)}
        scope = ctx.resolver.module_scope
        cells: Dict[str, _Cell] = {}
        changed = True
        while changed:
            changed = False
            for name, node in classes.items():
                if name in cells or not node.bases:
                    continue
                base = node.bases[0].value
                if _api(ctx, base) == RNN_CELL:
                    cells[name] = _Cell(node, root=True)
                elif isinstance(base, cst.Name) and base.value in cells:
                    cells[name] = _Cell(node, root=False)
                    cells[base.value].children.append(name)
                else:
                    continue
                changed = True
        mode = _mode_reason(ctx)
        uses = _instance_uses(ctx, cells)
        for name, cell in cells.items():
            _examine(cell)
            cell.reason = cell.reason or uses.get(name)
            if not bound_once(scope, name):
                cell.reason = cell.reason or f"{name} is bound more than once in the module"
            cell.reason = cell.reason or mode

        def family(name: str) -> List[str]:
            return [name] + [n for child in cells[name].children for n in family(child)]
        for name, cell in cells.items():
            if cell.root:
                members = family(name)
                reason = next((cells[n].reason for n in members if cells[n].reason), None)
                for n in members:
                    cells[n].reason = reason
        return cells
    return ctx.planned(("rnn cells",), make)  # type: ignore[return-value]


class _Parents(cst.CSTVisitor):
    """Each node's parent, and the function (or module) whose code holds it."""

    def __init__(self) -> None:
        self.parent: Dict[int, cst.CSTNode] = {}
        self.owner: Dict[int, cst.CSTNode] = {}
        self.stack: List[cst.CSTNode] = []
        self.owners: List[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.stack:
            self.parent[id(node)] = self.stack[-1]
        if isinstance(node, (cst.Module, cst.FunctionDef)):
            self.owners.append(node)
        self.owner[id(node)] = self.owners[-1]
        self.stack.append(node)
        return True

    def on_leave(self, original: cst.CSTNode) -> None:
        self.stack.pop()
        if isinstance(original, (cst.Module, cst.FunctionDef)):
            self.owners.pop()


def _walk(ctx: Context):
    """The module's parents (`_Parents`) and its Name nodes by name, made once."""
    def make():
        tree = _Parents()
        ctx.module.visit(tree)
        names: Dict[str, List[cst.Name]] = {}

        class Names(cst.CSTVisitor):
            def visit_Name(self, node: cst.Name) -> None:
                names.setdefault(node.value, []).append(node)
        ctx.module.visit(Names())
        return tree, names
    return ctx.planned(("rnn cells", "walk"), make)


# What an instance of a converted cell may meet: the 2.x cell serves these as 1.8's did.
_CELL_MEMBERS = ("call", "get_initial_states", "state_shape", "state_dtype")


def _instance_uses(ctx: Context, cells: Dict[str, _Cell]) -> Dict[str, str]:
    """Why each cell class is left for where its instances go (absent: each goes to `layers.rnn` as its
    cell, or is called, or asked its `call`/`get_initial_states`/`state_shape`/`state_dtype`). An
    instance is a name bound once by `v = C(...)` in a function (or the module); anything else, a
    decoder or a function it is passed to included, is a use not checked with the 2.x cell."""
    tree, names = _walk(ctx)

    def rnn_cell_arg(node: cst.CSTNode) -> bool:
        arg = tree.parent.get(id(node))
        call = tree.parent.get(id(arg)) if arg is not None else None
        if not (isinstance(arg, cst.Arg) and arg.value is node and isinstance(call, cst.Call)):
            return False
        cell = arg.keyword.value == "cell" if arg.keyword is not None else not arg.star and call.args[0] is arg
        return cell and _api(ctx, call.func) == RNN

    def instance_use(node: cst.Name) -> bool:
        parent = tree.parent.get(id(node))
        if rnn_cell_arg(node) or isinstance(parent, cst.Call) and parent.func is node:
            return True
        return isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in _CELL_MEMBERS

    found: Dict[str, str] = {}
    for name, cell in cells.items():
        for node in names.get(name, []):
            parent = tree.parent.get(id(node))
            outer = tree.parent.get(id(parent))
            if parent is cell.node or isinstance(parent, cst.Arg) and (
                    any(outer is c.node for c in cells.values()) or isinstance(outer, cst.Call)
                    and isinstance(outer.func, cst.Name) and outer.func.value == "super"):
                continue  # its own name, the base of a class of the family, or `super(C, self)`
            if isinstance(parent, cst.Attribute) and parent.value is node \
                    and parent.attr.value in _CELL_MEMBERS + ("__init__",):
                continue  # `Base.call(self, ...)` in a subclass
            if not (isinstance(parent, cst.Call) and parent.func is node):
                found.setdefault(name, f"{name} is used otherwise than called")
                continue
            if rnn_cell_arg(parent):
                continue
            assign = tree.parent.get(id(parent))
            if not (isinstance(assign, cst.Assign) and assign.value is parent and len(assign.targets) == 1
                    and isinstance(assign.targets[0].target, cst.Name)):
                found.setdefault(name, f"an instance of {name} is not bound to a name")
                continue
            target = assign.targets[0].target
            owner = tree.owner[id(assign)]
            for use in names.get(target.value, []):
                if use is target or tree.owner.get(id(use)) is not owner and \
                        not _inside(tree, use, owner):
                    continue
                if not instance_use(use):
                    found.setdefault(name, f"an instance of {name} (`{target.value}`) is used where the 2.x cell "
                                           "was not checked (only layers.rnn, calls and the cell's own members are)")
    return found


def _inside(tree: _Parents, node: cst.CSTNode, owner: cst.CSTNode) -> bool:
    at = tree.parent.get(id(node))
    while at is not None and at is not owner:
        at = tree.parent.get(id(at))
    return at is owner


def _base_class(ctx: Context, site: Site) -> str:
    return module_definitions.define_once(ctx, site, "RNNCell", RNN_CELL_BASE)


@register("rnn_cell_base", references=True)
def rnn_cell_base(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    cells = _plan(ctx)
    cell = next((c for c in cells.values() if c.root and c.node.bases[0].value is site.node), None)
    if cell is None:
        raise NeedsReview("not the base of a class of the module")
    if cell.reason is not None:
        raise NeedsReview(cell.reason)
    base = _base_class(ctx, site)
    if cell.insert_init:
        first = ctx.statement("super().__init__()")  # (the module's newlines)
        ctx.edit_class(cell.node, lambda cls: _init_first(cls, first))
    site.finding = ctx.report(site, F.CONVERTED, "info",
                              f"{site.name} -> {base}, 1.8's RNNCell written in the module over "
                              "paddle.nn.RNNCellBase (forward calls `call`)", True)
    return emit.converted(site, cst.Name(base))


def _init_first(cls: cst.ClassDef, first: cst.BaseStatement) -> cst.ClassDef:
    """`super().__init__()` as the first statement of the class's `__init__` (after its docstring)."""
    body = list(cls.body.body)  # type: ignore[union-attr]
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            inner = list(stmt.body.body)  # type: ignore[union-attr]
            at = 1 if inner and _docstring(inner[0]) else 0
            inner.insert(at, first)
            body[i] = stmt.with_changes(body=stmt.body.with_changes(body=inner))
    return cls.with_changes(body=cls.body.with_changes(body=body))


def _made_cell_reason(ctx: Context, node: cst.Call, original: Optional[cst.Call]) -> Optional[str]:
    """Why the LSTMCell or GRUCell made by `node` is left (None when it is converted)."""
    if call_args.has_star(node):
        return "called with *args/**kwargs"
    if original is not None and _given_to_api(ctx, original):
        return "the cell is given to a paddle API other than layers.rnn, not checked with the 2.x cell"
    return _mode_reason(ctx)


def _given_to_api(ctx: Context, call: cst.Call) -> bool:
    """Whether the LSTMCell or GRUCell made by `call` (as written) is an argument of a paddle API other than
    `layers.rnn`, directly or through the name it is bound to in its function."""
    tree, names = _walk(ctx)

    def to_api(node: cst.CSTNode) -> bool:
        arg = tree.parent.get(id(node))
        outer = tree.parent.get(id(arg)) if isinstance(arg, cst.Arg) else None
        return isinstance(outer, cst.Call) and id(outer.func) in ctx.resolver.references \
            and _api(ctx, outer.func) != RNN  # a 2.x API (a decoder converted) too

    if to_api(call):
        return True
    assign = tree.parent.get(id(call))
    if isinstance(assign, cst.Assign) and assign.value is call:
        owner = tree.owner[id(assign)]
        bound = [t.target.value for t in assign.targets if isinstance(t.target, cst.Name)]
        return any(to_api(use) for name in bound for use in names.get(name, [])
                   if tree.owner.get(id(use)) is owner or _inside(tree, use, owner))
    return False


def _cell_class(ctx: Context, site: Site, node: cst.Call, base: str, template: str) -> cst.BaseExpression:
    """`node` made by 1.8's cell `template` (LSTM_CELL_CLASS, GRU_CELL_CLASS) written in the module, over
    the module's RNNCell and the parameter function they share."""
    reason = _made_cell_reason(ctx, node, site.call)
    if reason is not None:
        raise NeedsReview(reason)
    template = template.replace("{base}", _base_class(ctx, site))
    parameter = module_definitions.define_once(ctx, site, "rnn_unit_parameter", RNN_UNIT_PARAMETER, stdlib=("copy",))
    template = template.replace("{parameter}", parameter)
    result = module_definitions.call_definition(ctx, site, node, base, template)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {ctx.code(result.func)}, 1.8's "
                              f"{base} written in the module (its parameter layout and names)", True)
    return result


@register("lstm_cell")
def lstm_cell(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _cell_class(ctx, site, node, "LSTMCell", LSTM_CELL_CLASS)


@register("gru_cell")
def gru_cell(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return _cell_class(ctx, site, node, "GRUCell", GRU_CELL_CLASS)


def _cell_reason(ctx: Context, site: Site, value: cst.BaseExpression) -> Optional[str]:
    """Why the object `value` is not known to be a cell converted here (None when it is)."""
    if isinstance(value, cst.Name):
        scope = ctx.resolver.binding_scope(value.value, site.scope)
        bindings = binding_statements(scope, value.value) if scope is not None else None
        if scope is None or not bound_once(scope, value.value) or not bindings or bindings[0][1] is not None \
                or not isinstance(bindings[0][0], cst.Assign):
            return f"the cell `{value.value}` is not bound once here to a cell made in sight"
        value = bindings[0][0].value
    if not isinstance(value, cst.Call):
        return "the cell is not made in sight"
    if _api(ctx, value.func) in (LSTM_CELL, GRU_CELL):
        return _made_cell_reason(ctx, value, value)
    cells = _plan(ctx)
    if isinstance(value.func, cst.Name) and value.func.value in cells \
            and ctx.resolver.binding_scope(value.func.value, site.scope) is ctx.resolver.module_scope:
        return cells[value.func.value].reason
    return "the cell is not made by a cell class of this module, layers.LSTMCell or layers.GRUCell"


@register("rnn_layer")
def rnn_layer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs")
    args = call_args.by_keyword(node)
    if "cell" not in args or "inputs" not in args or len(args) != len(node.args):
        raise NeedsReview("`cell` or `inputs` not given by keyword")
    reason = _cell_reason(ctx, site, args["cell"].value)
    if reason is not None:
        raise NeedsReview(reason)
    made = [cst.Arg(args["cell"].value)]
    made += [call_args.keyword_arg(k, args[k].value) for k in ("is_reverse", "time_major") if k in args]
    layer = cst.Call(emit.name(ctx, site, "paddle.nn.RNN"), made)
    ran = [cst.Arg(args["inputs"].value)]
    ran += [call_args.keyword_arg(k, a.value) for k, a in args.items()
            if k not in ("cell", "inputs", "is_reverse", "time_major")]
    site.finding = ctx.report(site, F.CONVERTED, "info",
                              f"{site.name} -> paddle.nn.RNN(cell, is_reverse, time_major)(inputs, ...) "
                              "(the cell is one converted here)", True)
    return emit.converted(site, cst.Call(layer, ran))
