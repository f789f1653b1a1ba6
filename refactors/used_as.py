"""What a name holds, told by what its scope does with it: `net.parameters()` or `net(x)` where `net`
also gives a state dict or takes one says it is a Layer, `opt.minimize(loss)` an optimizer.

Of 1.8's objects with a state dict (a dygraph Layer, an optimizer; `dygraph/layers.py:589`,
`optimizer.py:165`), only a Layer is called and has `parameters`, `named_parameters`, `sublayers`,
`train`, `eval` (`dygraph/layers.py:94-444`), and only an optimizer has `minimize`, `current_step_lr`,
`apply_gradients`, `apply_optimize` (`optimizer.py`). Evidence is taken from every such use of the same
name in the scope that binds it (not in nested definitions, which may bind it again); evidence of both
kinds, or none, leaves the kind unknown. An object of another class that has these methods (duck-typed
like a Layer) is taken for one: the 2.x method it is then given fails loudly, it computes nothing else.
"""
from __future__ import annotations

from typing import Iterator, Optional, Tuple

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
    """LAYER or OPTIMIZER when the uses of the name `receiver` in the scope binding it say so, else None."""
    if not isinstance(receiver, cst.Name) or scope is None:
        return None
    name = normal(receiver.value)
    owner = ctx.resolver.binding_scope(name, scope)
    if owner is None or owner.is_class or name in owner.globals or name in owner.nonlocals:
        return None
    key = ("used as", id(owner.node), name)
    if key not in ctx.memo:
        ctx.reads(owner.node, words=(name,), into_definitions=False)  # every use says the name
        found = {kind for kind, head in _uses(owner.node) if normal(head.value) == name}
        ctx.memo[key] = found.pop() if len(found) == 1 else None
    return ctx.memo[key]  # type: ignore[return-value]


def _uses(root: cst.CSTNode) -> Iterator[Tuple[str, cst.Name]]:
    """(kind, x) for each `x(...)` and `x.<evidence method>(...)` in the own code of the scope `root` opens."""
    for stmt in statements(root):
        stack = [stmt] if isinstance(stmt, cst.SimpleStatementLine) else list(_heads(stmt))
        while stack:
            node = stack.pop()
            if isinstance(node, _NESTED):
                continue
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                yield LAYER, node.func
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                    and isinstance(node.func.value, cst.Name) and node.func.attr.value in _METHODS:
                yield _METHODS[node.func.attr.value], node.func.value
            stack.extend(children(node))


def _heads(stmt: cst.BaseStatement) -> Iterator[cst.CSTNode]:
    """The expressions a compound statement holds outside its blocks (`if net.train():`, `for x in ...`)."""
    for child in children(stmt):
        if not isinstance(child, (cst.BaseSuite, cst.BaseStatement, cst.Else, cst.ExceptHandler, cst.Finally)):
            yield child
