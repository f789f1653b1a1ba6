"""`act=`: 1.8 layers and functions applied an activation to their output; 2.x ones do not.

- `act_to_call`: a function call `f(..., act='relu')` becomes `F.relu(f_2x(...))`, the activation
  applied through its own table entry (so 1.8 defaults such as leaky_relu's alpha=0.02 are kept). An
  `act` that is not a literal is passed on only when the table renames it to a keyword the 2.x
  target takes (`fc(act=a)` -> `static.nn.fc(activation=a)`); otherwise the call is left for review.
- `layer_act`: a layer built with `act=` (`self.fc = Linear(..., act='relu')`) becomes the 2.x layer,
  and the activation moves to where the layer is called: every `self.fc(...)` in the class becomes
  `F.relu(self.fc(...))`. This is only done when the class uses the attribute in no other way (an
  attribute read such as `self.fc.weight` is fine, passing the layer around is not); otherwise the
  constructor is left as written and reported.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Dict, List, Optional, Tuple

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.scopes import descendants
from refactors.transformers import CLASS, act_at_run_time, emit, register


@register("act_to_call")
def act_to_call(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    act = call_args.get(node, "act")
    assert site.entry is not None
    if act is not None and not emit.is_literal(ctx, act.value) and any(
            c.op == "rename" and c.arg == "act" for c in site.entry.args_change):
        # A name only known at run time: the table says the 2.x target takes it as a keyword.
        return emit.converted(site, emit.finish(ctx, site, node))
    apply = emit.activation(ctx, site, act.value if act else None)
    inner = emit.finish(ctx, site, call_args.remove(node, "act"))
    return emit.converted(site, apply(inner))


def _drop_none_defaults(ctx: Context, site: Site, node: cst.Call) -> cst.Call:
    """Remove arguments passed as a literal `None` where 1.8's default is `None`.

    For the layer classes this transformer serves, a 1.8 `None` default means the same as leaving the
    2.x argument out (e.g. `Conv2D(groups=None)` meant one group; 2.x wants an int there).
    """
    assert site.entry is not None
    for param in site.entry.args_list or ():
        arg = call_args.get(node, param.name)
        if arg is not None and param.default == "None" and same_literal(arg.value, "None", ctx):
            node = call_args.remove(node, param.name)
    return node


def _first_param(fn: cst.FunctionDef) -> Optional[str]:
    params = fn.params.posonly_params or fn.params.params
    return params[0].name.value if params else None


def _methods(cls: cst.ClassDef) -> List[cst.FunctionDef]:
    return [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]  # type: ignore[union-attr]


class _AttributeUses:
    """Every `<owner>.<attr>` in a method, counted per attribute: assignments, and uses other than a call."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.assigned: Counter = Counter()
        self.other: Counter = Counter()

    def _attr(self, node: cst.CSTNode) -> Optional[str]:
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self.owner:
            return node.attr.value
        return None

    def count(self, method: cst.FunctionDef) -> None:
        seen: set = set()  # callees and assignment targets: not "other" uses
        for node in descendants(method):  # a node comes before its children
            if isinstance(node, cst.Call) and self._attr(node.func) is not None:
                seen.add(id(node.func))
            elif isinstance(node, cst.AssignTarget):
                attr = self._attr(node.target)
                if attr is not None:
                    self.assigned[attr] += 1
                    seen.add(id(node.target))
            elif isinstance(node, cst.Attribute):
                attr = self._attr(node)
                if attr is not None and id(node) not in seen:
                    self.other[attr] += 1
                # `self.fc.weight` reads an attribute of the layer: the activation is not involved
                # (`self.fc.forward(x)` would bypass it, so that one still counts).
                attr = self._attr(node.value)
                if attr is not None and node.attr.value not in ("forward", "__call__"):
                    self.other[attr] -= 1


class _WrapCalls(cst.CSTTransformer):
    def __init__(self, owner: str, wraps: Dict[str, Callable[[cst.BaseExpression], cst.BaseExpression]]) -> None:
        super().__init__()
        self.owner, self.wraps = owner, wraps

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == self.owner:
            apply = self.wraps.get(func.attr.value)
            if apply is not None:
                return apply(updated)
        return updated


def _class_uses(ctx: Context, cls: cst.ClassDef, owner: str) -> Tuple[_AttributeUses, List[str]]:
    """The uses of `<owner>.<attr>` in the methods of `cls` taking `owner` first, and the code of its
    other methods; read once per class, however many of its layers have `act=`."""
    key = ("act-uses", id(cls), owner)
    found = ctx.memo.get(key)
    if found is None:
        uses, elsewhere = _AttributeUses(owner), []
        for method in _methods(cls):
            if _first_param(method) == owner:
                uses.count(method)
            else:
                elsewhere.append(ctx.code(method))
        found = ctx.memo[key] = (uses, elsewhere)
    return found  # type: ignore[return-value]


def _wrap_in_class(ctx: Context, cls: cst.ClassDef, owner: str, attr: str,
                   apply: Callable[[cst.BaseExpression], cst.BaseExpression]) -> None:
    """Have every `<owner>.<attr>(...)` of the class's methods wrapped by `apply`: one pass over the
    class when the upgrade leaves it, for all its layers."""
    key = ("act-wraps", id(cls), owner)
    wraps = ctx.memo.get(key)
    if wraps is None:
        wraps = ctx.memo[key] = {}

        def wrapped(node: cst.CSTNode) -> bool:
            func = node.func if isinstance(node, cst.Call) else None
            return (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                    and func.value.value == owner and func.attr.value in wraps)  # type: ignore[operator]

        def edit(updated: cst.ClassDef) -> cst.ClassDef:
            body = [ctx.rewrite(m, _WrapCalls(owner, wraps), where=wrapped)  # type: ignore[arg-type]
                    if isinstance(m, cst.FunctionDef) and _first_param(m) == owner else m
                    for m in updated.body.body]  # type: ignore[union-attr]
            return updated.with_changes(body=updated.body.with_changes(body=body))

        ctx.edit_class(cls, edit)
    wraps[attr] = apply  # type: ignore[index]


def _owner_class(ctx: Context, site: Site) -> Tuple[cst.ClassDef, cst.FunctionDef, str]:
    """The class and method whose body holds the call, and the method's `self` name."""
    scope = site.scope
    if not isinstance(scope.node, cst.FunctionDef) or scope.parent is None or not scope.parent.is_class:
        raise NeedsReview("a layer with `act=` that is not assigned to an attribute in a method; apply the "
                          "activation where the layer is called")
    owner = _first_param(scope.node)
    if owner is None:
        raise NeedsReview("a layer with `act=` in a method without `self`")
    return scope.parent.node, scope.node, owner  # type: ignore[return-value]


def _assigned_attribute(ctx: Context, site: Site, owner: str) -> str:
    """`attr` when the statement being upgraded is `<owner>.attr = <this call>`."""
    statement = ctx.statements[-1] if ctx.statements else None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call)
                and small.value.func is site.node):
            target = small.targets[0].target
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                    and target.value.value == owner:
                return target.attr.value
    raise NeedsReview("a layer with `act=` not assigned to an attribute of the layer; apply the activation "
                      "where it is called")


@register("layer_act", reads=(CLASS,))  # every method: where the layer is called
def layer_act(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    act = call_args.get(node, "act")
    layer = emit.finish(ctx, site, _drop_none_defaults(ctx, site, call_args.remove(node, "act")))
    if act is None or same_literal(act.value, "None", ctx):
        return emit.converted(site, layer)
    try:
        apply = emit.activation(ctx, site, act.value, at_run_time=False)
        cls, _method, owner = _owner_class(ctx, site)
        attr = _assigned_attribute(ctx, site, owner)
        uses, elsewhere = _class_uses(ctx, cls, owner)
        if uses.assigned[attr] != 1 or uses.other[attr] > 0 or any(f"{owner}.{attr}" in code for code in elsewhere):
            raise NeedsReview(f"`{owner}.{attr}` is assigned more than once or used other than by calling it; "
                              f"apply `act={ctx.code(act.value).strip()}` to its output by hand")
    except NeedsReview as why:  # the layer itself applies it, wherever it goes
        return emit.converted(site, act_at_run_time.layer(ctx, site, layer, act.value, why))
    _wrap_in_class(ctx, cls, owner, attr, apply)
    ctx.report(site, "act-moved", "info",
               f"{site.name}(act={ctx.code(act.value).strip()}): the activation now wraps each call of "
               f"{owner}.{attr}(...) in class {cls.name.value}", True)
    return emit.converted(site, layer)
