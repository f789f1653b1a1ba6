"""Dygraph checkpoints: 1.8 picked the file suffix and returned a pair; 2.x does neither.

- `save_dygraph(state_dict, model_path)` (`dygraph/checkpoint.py:33`) writes `model_path + '.pdparams'`
  for a Layer's state dict and `'.pdopt'` for an optimizer's (`:68`, `:73`, decided by the type of
  the first value at run time). 2.x `paddle.save(obj, path)` writes exactly `path`, so the suffix is
  written out where the source shows which kind of object the state dict comes from, read from how
  that object was created in the same function (an optimizer from the table, a Layer from the table,
  or a class of this module that derives from `fluid.dygraph.Layer`); elsewhere a function written
  into the module picks the suffix from the first value at run time, as 1.8 did.
- `load_dygraph(model_path)` (`:96`, `:152`) returns `(params, optimizer state or None)`; it becomes
  the same pair of `paddle.load` calls, the second one only when the `.pdopt` file exists.
  (1.8 returned NumPy arrays; `paddle.load` returns Tensors, which `set_state_dict` takes alike.)
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from api_mapping.namespaces import LAYER_BASE, OPTIMIZERS
from refactors import call_args, returns, tree_attributes, tree_index, used_as
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.local_values import binding_statements
from refactors.scopes import Scope, descendants, dotted
from refactors.statement_visitor import StatementVisitor
from refactors.transformers import SCOPE, bind, emit, module_definitions, register

PARAMS, OPTIMIZER = ".pdparams", ".pdopt"
_DEPTH = 6  # how many assignments and returns a value is followed through


class _Assignments(StatementVisitor):
    """Values assigned to a plain name in one function (or the module), not in nested functions."""

    def __init__(self, target: str, root: cst.CSTNode) -> None:
        super().__init__()
        self.target, self.root = target, root
        self.values: List[Optional[cst.BaseExpression]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is not self.root:
            return False
        if any(p.name.value == self.target for p in (*node.params.params, *node.params.kwonly_params,
                                                      *node.params.posonly_params)):
            self.values.append(None)  # a parameter: its value is not known here
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is self.root

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name) and target.target.value == self.target:
                self.values.append(node.value)
            elif not isinstance(target.target, (cst.Name, cst.Attribute, cst.Subscript)) \
                    and self.target in _target_names(target.target):
                self.values.append(None)

    def visit_For(self, node: cst.For) -> None:
        if self.target in _target_names(node.target):
            self.values.append(None)


def _target_names(node: cst.BaseExpression) -> List[str]:
    """Plain names an assignment or loop target binds."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for el in node.elements for n in _target_names(el.value)]
    return []


def _assigned(ctx: Context, scope: Scope, name: str) -> List[Optional[cst.BaseExpression]]:
    """What `name` is assigned in the scope that binds it (None entries: unknown values); each scope
    is read once per name, however many calls ask."""
    scope = ctx.resolver.binding_scope(name, scope)  # type: ignore[assignment]
    if scope is None:
        return [None]
    key = ("assigned", id(scope.node), name)
    values = ctx.memo.get(key)
    if values is None:
        finder = _Assignments(name, scope.node)
        scope.node.visit(finder)
        values = ctx.memo[key] = finder.values or [None]
    return values  # type: ignore[return-value]


def _kind_of_object(ctx: Context, scope: Scope, node: cst.BaseExpression, depth: int = 0) -> Optional[str]:
    """PARAMS or OPTIMIZER for an expression built by a Layer/optimizer constructor (or returned by a
    function of the module that returns one), else None."""
    if depth > _DEPTH:
        return None
    if isinstance(node, cst.Name):
        kinds = {_kind_of_object(ctx, scope, v, depth + 1) if v is not None else None
                 for v in _assigned(ctx, scope, node.value)}
        if kinds == {None}:
            return _unpacked_kind(ctx, scope, node.value, depth)
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return _attribute_kind(ctx, scope, node.value.value, node.attr.value)
    if not isinstance(node, cst.Call):
        return None
    chain = dotted(node.func)
    if chain is None:
        return None
    qualname = ctx.resolver.qualname(chain, scope)
    if qualname is None and "." not in chain:
        returned = _returned_kind(ctx, scope, chain, None, depth)
        if returned is not None:
            return returned
    if qualname is not None:
        return _kind_of_class(ctx, qualname)
    local = emit.module_class(ctx, chain) if "." not in chain else None
    if local is not None:
        return PARAMS if emit.is_layer_class(ctx, local, ctx.resolver.module_scope) else None
    classified = tree_index.imported_class(ctx, chain, scope)  # a class of another module of the tree
    for facts in ctx.table.classes.values() if classified is not None else ():
        if classified in (facts.name, facts.update_to):
            return PARAMS if facts is ctx.table.class_facts(LAYER_BASE) else \
                OPTIMIZER if facts.name.startswith(OPTIMIZERS) else None
    return None


def _kind_of_class(ctx: Context, qualname: str) -> Optional[str]:
    """PARAMS or OPTIMIZER for an object of the paddle class `qualname`, else None."""
    entry = ctx.table.lookup(qualname)
    if entry is None:
        return None
    if entry.name.startswith(OPTIMIZERS):
        return OPTIMIZER
    facts = ctx.table.class_facts(entry.name) if entry.kind == "class" else None
    if facts is not None and facts is ctx.table.class_facts(LAYER_BASE) or \
            entry.kind == "class" and (entry.update_to or "").startswith("paddle.nn."):
        return PARAMS  # a Layer (`DataParallel(model)` too: its state dict is the model's)
    return None


def _attribute_kind(ctx: Context, scope: Scope, name: str, attr: str) -> Optional[str]:
    """The kind of `name.attr` where `name` is only ever assigned objects of one plain class of another
    module of the tree, whose every assignment of `self.attr` makes objects of that kind
    (`tree_attributes`), and no code of this module assigns an attribute `attr` of anything."""
    chains = {dotted(v.func) if isinstance(v, cst.Call) else None for v in _assigned(ctx, scope, name)}
    chain = chains.pop() if len(chains) == 1 else None
    if chain is None or ctx.other_modules is None:
        return None
    ctx.reads(ctx.module, words=(attr,))
    if any(isinstance(t, cst.Attribute) and t.attr.value == attr for n in descendants(ctx.module)
           for t in _targets(n)):
        return None
    kinds = {_kind_of_class(ctx, made) for made in tree_attributes.made_by(ctx, chain, scope, attr) or (None,)
             if made is not None}
    return kinds.pop() if len(kinds) == 1 else None


def _targets(node: cst.CSTNode) -> List[cst.BaseExpression]:
    """What an assignment statement assigns to (each element of an unpacking too)."""
    if isinstance(node, cst.Assign):
        tops = [t.target for t in node.targets]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        tops = [node.target]
    else:
        return []
    return [n for top in tops for n in descendants(top) if isinstance(n, cst.BaseExpression)]


def _unpacked_kind(ctx: Context, scope: Scope, name: str, depth: int) -> Optional[str]:
    """The kind of `name` where every binding of it unpacks a call of a function of the module
    (`model, opt = build()`) whose every return gives that element one kind."""
    owner = ctx.resolver.binding_scope(name, scope)
    found = binding_statements(owner, name) if owner is not None else None
    kinds = set()
    for stmt, index in found or ():
        call = stmt.value if isinstance(stmt, cst.Assign) and index is not None else None
        chain = dotted(call.func) if isinstance(call, cst.Call) else None
        kinds.add(_returned_kind(ctx, owner, chain, index, depth) if chain is not None and "." not in chain else None)
    return kinds.pop() if len(kinds) == 1 else None


def _returned_kind(ctx: Context, scope: Scope, name: str, index: Optional[int], depth: int) -> Optional[str]:
    """The kind of what the module's function `name`, called in `scope`, returns (element `index` of the
    tuple it returns), where every return agrees."""
    found = returns.returned(ctx, scope, name, index)
    if found is None:
        return None
    inner, values = found
    kinds = {_kind_of_object(ctx, inner, value, depth + 1) if value is not None else None for value in values}
    return kinds.pop() if len(kinds) == 1 else None


def _state_dict_kind(ctx: Context, scope: Scope, node: cst.BaseExpression, depth: int = 0) -> Optional[str]:
    """The suffix 1.8 would pick for this state dict, when it can be told from the source."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value == "state_dict":
        made = _kind_of_object(ctx, scope, node.func.value)
        if made is None:  # `net.state_dict()` with `net.parameters()` beside it: a Layer's
            made = {used_as.LAYER: PARAMS, used_as.OPTIMIZER: OPTIMIZER}.get(
                used_as.kind_by_use(ctx, node.func.value, scope))  # type: ignore[arg-type]
        return made
    if isinstance(node, cst.Name) and depth < 3:
        kinds = {_state_dict_kind(ctx, scope, v, depth + 1) if v is not None else None
                 for v in _assigned(ctx, scope, node.value)}
        return kinds.pop() if len(kinds) == 1 else None
    return None


def _with_suffix(ctx: Context, path: cst.BaseExpression, suffix: str) -> cst.BaseExpression:
    if isinstance(path, cst.SimpleString) and emit.is_literal(ctx, path):
        return cst.SimpleString(repr(literal(path, ctx) + suffix))
    return cst.BinaryOperation(left=emit.parenthesized(path), operator=cst.Add(),
                               right=cst.SimpleString(repr(suffix)))


@register("save_dygraph", reads=(SCOPE,))
def save_dygraph(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    state_dict, path = emit.required(node, "state_dict"), emit.required(node, "model_path")
    suffix = _state_dict_kind(ctx, site.scope, state_dict)
    if suffix is None:  # told at run time, as 1.8 did
        return module_definitions.call_definition(ctx, site, node, "save_dygraph", SAVE_DYGRAPH)
    return emit.converted(site, emit.call(ctx, site, "paddle.save", state_dict, _with_suffix(ctx, path, suffix)))


# Written once into a module that saves a state dict whose kind the source does not show. 1.8 looked at
# the first value: a parameter (ParamBase) made it a Layer's. 2.x parameters have `trainable`, which
# tensors (an optimizer's accumulators) lack, in 2.0.2 and 3.3.1 alike.
SAVE_DYGRAPH = '''\
def {name}(state_dict, model_path):
    """1.8's fluid.dygraph.save_dygraph (paddle-upgrade): a state dict whose first value is a parameter
    (a Layer's) is saved as model_path + '.pdparams', any other (an optimizer's) as model_path + '.pdopt'."""
    first = next(iter(state_dict.values()))
    {paddle}.save(state_dict, model_path + (".pdparams" if hasattr(first, "trainable") else ".pdopt"))
'''


def _prefix(ctx: Context, path: cst.BaseExpression) -> cst.BaseExpression:
    """1.8 strips a `.pdparams`/`.pdopt` suffix from the path it is given (`checkpoint.py:129-132`)."""
    if isinstance(path, cst.SimpleString) and emit.is_literal(ctx, path):
        text = literal(path, ctx)
        for suffix in (PARAMS, OPTIMIZER):
            if text.endswith(suffix):
                return cst.SimpleString(repr(text[:-len(suffix)]))
    return path


def _repeatable_path(ctx: Context, site: Site, node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _repeatable_path(ctx, site, node.left) and _repeatable_path(ctx, site, node.right)
    return emit.repeatable(ctx, site, node)


@register("load_dygraph")
def load_dygraph(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    path = _prefix(ctx, emit.required(node, "model_path"))
    if not _repeatable_path(ctx, site, path):  # evaluated once, into a fresh name bound first
        [path] = bind.first(ctx, site, [("model_path", path)],
                            "the path is written three times in the 2.x form; bind it to a name first")
    keep = call_args.get(node, "keep_name_table")
    extra = {} if keep is None or emit.is_literal(ctx, keep.value) and literal(keep.value, ctx) is False \
        else {"keep_name_table": keep.value}
    os_name = emit.stdlib_module(ctx, site, "os")
    params = emit.call(ctx, site, "paddle.load", _with_suffix(ctx, path, PARAMS), **extra)
    opt_path = _with_suffix(ctx, path, OPTIMIZER)
    exists = cst.Call(func=cst.Attribute(cst.Attribute(os_name, cst.Name("path")), cst.Name("exists")),
                      args=[cst.Arg(opt_path)])
    optimizer = cst.IfExp(test=exists, body=emit.call(ctx, site, "paddle.load", opt_path), orelse=cst.Name("None"))
    pair = cst.Tuple(elements=[cst.Element(params, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                               cst.Element(optimizer)])
    if not isinstance(path, cst.SimpleString):
        ctx.report(site, "converted-note", "info", "1.8 also accepted a path ending in .pdparams/.pdopt; the 2.x "
                   "form appends the suffixes to the path as given", True)
    return emit.converted(site, pair)
