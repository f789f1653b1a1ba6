"""What a name (or `self.x`) holds, told by what its scope (or class) does with it: `net.parameters()`
or `net(x)` where `net` also gives a state dict or takes one says it is a Layer, `opt.minimize(loss)` an
optimizer.

Of 1.8's objects with a state dict (a dygraph Layer, an optimizer; `dygraph/layers.py:589`,
`optimizer.py:165`), only a Layer is called and has `parameters`, `named_parameters`, `sublayers`,
`train`, `eval` (`dygraph/layers.py:94-444`), and only an optimizer has `minimize`, `current_step_lr`,
`apply_gradients`, `apply_optimize` (`optimizer.py`). Evidence is taken from every such use of the same
name in the scope that binds it (not in nested definitions, which may bind it again), or of `self.x` in
every method of the class; evidence of both kinds, or none, leaves the kind unknown. An object of another class that has these methods (duck-typed
like a Layer) is taken for one: the 2.x method it is then given fails loudly, it computes nothing else.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

import libcst as cst

from refactors.engine import Context
from refactors.local_values import statements
from refactors.scopes import Scope, children, normal

LAYER, OPTIMIZER = "layer", "optimizer"
_METHODS = {**{m: LAYER for m in ("parameters", "named_parameters", "sublayers", "named_sublayers",
                                   "train", "eval")},
            **{m: OPTIMIZER for m in ("minimize", "current_step_lr", "apply_gradients", "apply_optimize")}}
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def kind_by_use(ctx: Context, receiver: cst.BaseExpression, scope: Optional[Scope]) -> Optional[str]:
    """LAYER or OPTIMIZER when the uses of `receiver` say so, else None: of a name, in the scope binding
    it; of `self.x` in a method, in all the methods of its class."""
    if scope is None:
        return None
    if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name):
        cls = method_class(scope) if is_self(scope, receiver.value.value) else None
        if cls is None:
            return None
        attr = receiver.attr.value
        return _kind(ctx, ("used as", id(cls), "self." + attr), cls, attr, [
            (method, method.params.params[0].name.value) for method in cls.body.body  # type: ignore[union-attr]
            if isinstance(method, cst.FunctionDef) and not method.decorators and method.params.params])
    if not isinstance(receiver, cst.Name):
        return None
    name = normal(receiver.value)
    owner = ctx.resolver.binding_scope(name, scope)
    if owner is None or owner.is_class or name in owner.globals or name in owner.nonlocals:
        return None
    return _kind(ctx, ("used as", id(owner.node), name), owner.node, name, [(owner.node, None)])


def _kind(ctx: Context, key: Tuple[object, ...], root: cst.CSTNode, word: str,
          scopes: List[Tuple[cst.CSTNode, Optional[str]]]) -> Optional[str]:
    """The one kind the uses show in `scopes` (each a scope's node in `root`, and the name of its `self`
    when the uses are of `self.<word>`; None: of the name `word`), memoized under `key`."""
    if key not in ctx.memo:
        whole = isinstance(root, cst.ClassDef)  # its methods; else the scope's own statements
        ctx.reads(root, words=(word,), into_definitions=whole)  # every use says the word
        found = {kind for node, owner in scopes for kind, head in _uses(node) if _is(head, word, owner)}
        ctx.memo[key] = found.pop() if len(found) == 1 else None
    return ctx.memo[key]  # type: ignore[return-value]


def _is(head: cst.BaseExpression, word: str, owner: Optional[str]) -> bool:
    if owner is None:
        return isinstance(head, cst.Name) and normal(head.value) == word
    return isinstance(head, cst.Attribute) and head.attr.value == word and isinstance(head.value, cst.Name) \
        and head.value.value == owner


def is_self(scope: Scope, name: str) -> bool:
    """`name` is the first parameter of the method (not a static or class method) `scope` is."""
    method = scope.node
    return isinstance(method, cst.FunctionDef) and not method.decorators and bool(method.params.params) \
        and method.params.params[0].name.value == name


def method_class(scope: Scope) -> Optional[cst.ClassDef]:
    """The class whose method `scope` is (reading `self.x` there)."""
    parent = scope.parent
    if isinstance(scope.node, cst.FunctionDef) and parent is not None and isinstance(parent.node, cst.ClassDef):
        return parent.node
    return None


def _uses(root: cst.CSTNode) -> Iterator[Tuple[str, cst.BaseExpression]]:
    """(kind, x) for each `x(...)` and `x.<evidence method>(...)` in the own code of the scope `root`
    opens, `x` a name or an attribute of one."""
    for stmt in statements(root):
        stack = [stmt] if isinstance(stmt, cst.SimpleStatementLine) else list(_heads(stmt))
        while stack:
            node = stack.pop()
            if isinstance(node, _NESTED):
                continue
            if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)) \
                    and not (isinstance(node.func, cst.Attribute) and node.func.attr.value in _METHODS):
                yield LAYER, node.func
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                yield _METHODS[node.func.attr.value], node.func.value
            stack.extend(children(node))


def _heads(stmt: cst.BaseStatement) -> Iterator[cst.CSTNode]:
    """The expressions a compound statement holds outside its blocks (`if net.train():`, `for x in ...`)."""
    for child in children(stmt):
        if not isinstance(child, (cst.BaseSuite, cst.BaseStatement, cst.Else, cst.ExceptHandler, cst.Finally)):
            yield child
