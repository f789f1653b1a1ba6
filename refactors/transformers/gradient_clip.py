"""`fluid.clip.set_gradient_clip(clip)`: the clip goes to the optimizer that minimizes after it (`grad_clip=`).

1.8.5 (`clip.py:692`, `optimizer.py:712`): `set_gradient_clip` puts a copy of `clip` on each parameter
the program has when it is called (`param_list=None`); the `minimize()` of an optimizer without a
`grad_clip` of its own then clips the gradients with it, provided every parameter with a gradient has
that copy: one made after the call turns the clipping off altogether (checked on 1.8.5). 2.x gives the
clip to the optimizer (`grad_clip=`), with the same formulas (SEMANTICS 30).

Converted where one block of the file shows all of it: the call is a statement of its own, without
`param_list` or `program` (the default main program, where the block builds); after it in that block,
`opt = <1.8 optimizer>(...)` without `grad_clip`, then `opt.minimize(loss)`, the only optimizer step of
the module (1.8 clipped any later one of the program too); `loss` bound once, before the call, so every parameter it has gradients for was made
before the call; in between, only calls that make no parameter (optimizers, regularizers, clips,
learning rates). The statement goes, and `grad_clip=<clip>` joins the optimizer's arguments. Otherwise
the call is left for review, with the reason.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import libcst as cst

from api_mapping.namespaces import OPTIMIZERS
from api_mapping.schema import ApiEntry
from refactors import call_args, kept_comments
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import descendants, dotted
from refactors.transformers import SCOPE, emit, register

# What a statement between the call and `minimize` may call: APIs that make no parameter, in their 1.8
# and 2.x names (a second run sees the 2.x ones): whole modules, and names in others.
_NO_PARAMETERS = (OPTIMIZERS, "paddle.fluid.regularizer.", "paddle.fluid.clip.", "paddle.fluid.unique_name.",
                  "paddle.optimizer.", "paddle.regularizer.", "paddle.utils.unique_name.")
_NO_PARAMETER_NAMES = {"paddle.fluid.layers.": ("create_global_var",), "paddle.static.": ("create_global_var",),
                       "paddle.nn.": ("ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue")}
_SCHEDULES = ("lr_decay_static", "lr_decay_dygraph", "decay_step_counter")
_OPTIMIZERS = (OPTIMIZERS, "paddle.optimizer.")
_STEPS = ("minimize", "backward", "apply_gradients", "apply_optimize")


@register("set_gradient_clip", reads=(SCOPE,))  # the block after the call: the optimizer and its minimize
def set_gradient_clip(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for name in ("param_list", "program"):
        given = call_args.get(node, name)
        if given is not None and not (isinstance(given.value, cst.Name) and given.value.value == "None"):
            raise NeedsReview(f"`{name}=` given: the parameters it clips are not those of one optimizer's minimize")
    clip = call_args.get(node, "clip")
    if clip is None:
        raise NeedsReview("`clip` is missing")
    statement, block = _statement_and_block(ctx, site)
    optimizer, minimize = _optimizer_after(ctx, site, block, block.index(statement))
    between = block[block.index(statement) + 1:block.index(minimize)]
    _check_loss_made_before(ctx, site, block, statement, minimize)
    _check_no_parameters_made(ctx, site, [s for s in between if s is not optimizer], clip.value)
    call = optimizer.body[0].value  # type: ignore[attr-defined]
    if call_args.get(call, "grad_clip") is not None:
        raise NeedsReview("the optimizer has a grad_clip of its own, which 1.8 used instead")
    _check_only_step(ctx)
    moved: List[str] = []

    def remove(updated: cst.CSTNode) -> cst.FlattenSentinel:
        moved.extend(kept_comments.comments(updated))
        return cst.FlattenSentinel([])

    def with_clip(updated: cst.CSTNode) -> cst.CSTNode:
        assign = updated.body[0]  # type: ignore[attr-defined]
        new = call_args.with_args(assign.value, [*assign.value.args, call_args.keyword_arg("grad_clip", clip.value)])
        return kept_comments.above(updated.with_changes(body=[assign.with_changes(value=new)]), moved)

    ctx.replace(statement, remove)
    ctx.replace(optimizer, with_clip)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> grad_clip= of the optimizer "
                                                         f"that minimizes after it", True)
    return emit.converted(site, node)


def _statement_and_block(ctx: Context, site: Site) -> Tuple[cst.SimpleStatementLine, Sequence[cst.BaseStatement]]:
    statement = ctx.statements[-1] if ctx.statements else None
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and statement.body[0].value is site.call):
        raise NeedsReview("not a statement of its own")
    parent = ctx.statements[-2] if len(ctx.statements) > 1 else ctx.module
    for suite in (getattr(parent, "body", None), getattr(getattr(parent, "orelse", None), "body", None)):
        body = suite.body if isinstance(suite, cst.IndentedBlock) else suite
        if isinstance(body, (list, tuple)) and statement in body:
            return statement, body
    raise NeedsReview("the block around the call is not known")


def _optimizer_after(ctx: Context, site: Site, block: Sequence[cst.BaseStatement],
                     start: int) -> Tuple[cst.SimpleStatementLine, cst.SimpleStatementLine]:
    """`opt = <optimizer>(...)` and then `opt.minimize(...)` after `start` in the block, `opt` bound
    once."""
    optimizer: Optional[cst.SimpleStatementLine] = None
    name = None
    for stmt in block[start + 1:]:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if optimizer is None and isinstance(small, cst.Assign) and len(small.targets) == 1 \
                and isinstance(small.targets[0].target, cst.Name) and isinstance(small.value, cst.Call):
            api = _api(ctx, site, small.value)[0]
            if api.startswith(_OPTIMIZERS) and not api.startswith("paddle.optimizer.lr."):
                optimizer, name = stmt, small.targets[0].target.value  # type: ignore[assignment]
                continue
        value = getattr(small, "value", None)
        if name is not None and isinstance(value, cst.Call) and dotted(value.func) == f"{name}.minimize":
            if len(site.scope.bindings.get(name, ())) != 1:
                raise NeedsReview("the optimizer's name is rebound")
            return optimizer, stmt  # type: ignore[return-value]
    raise NeedsReview("no optimizer made and minimized after it in the same block; pass grad_clip= to the "
                      "optimizer whose minimize() it applied to")


def _api(ctx: Context, site: Site, call: cst.Call) -> Tuple[str, Optional[ApiEntry]]:
    """The paddle API a call calls (its table name when it has one; "" when none), and its entry."""
    chain = dotted(call.func)
    qualname = ctx.resolver.qualname(chain, site.scope) if chain else None
    entry = ctx.table.lookup(qualname) if qualname else None
    return (entry.name if entry is not None else qualname or ""), entry


def _check_loss_made_before(ctx: Context, site: Site, block: Sequence[cst.BaseStatement],
                            statement: cst.BaseStatement, minimize: cst.SimpleStatementLine) -> None:
    call = minimize.body[0].value  # type: ignore[attr-defined]
    loss = call_args.get(call, "loss") or (call.args[0] if call.args and call.args[0].keyword is None else None)
    if loss is None or not isinstance(loss.value, cst.Name):
        raise NeedsReview("the loss minimized is not a name")
    bindings = site.scope.bindings.get(loss.value.value, ())
    before = block[:block.index(statement)]
    made_before = any(_binds(stmt, loss.value.value) for stmt in before) or _is_parameter(site, loss.value.value)
    if len(bindings) != 1 or not made_before:
        raise NeedsReview("the loss is not made once, before the call: parameters made after it would not be "
                          "clipped by 1.8 (nor any other)")


def _binds(stmt: cst.BaseStatement, name: str) -> bool:
    return any(isinstance(n, cst.AssignTarget) and any(isinstance(t, cst.Name) and t.value == name
                                                       for t in descendants(n.target)) for n in descendants(stmt)) \
        if isinstance(stmt, cst.SimpleStatementLine) else False


def _is_parameter(site: Site, name: str) -> bool:
    node = site.scope.node
    params = getattr(node, "params", None)
    return params is not None and name in {p.name.value for p in (*params.posonly_params, *params.params,
                                                                   *params.kwonly_params)}


def _check_no_parameters_made(ctx: Context, site: Site, between: Sequence[cst.BaseStatement],
                              clip: cst.BaseExpression) -> None:
    """Only calls of 1.8 APIs that make no parameter in between, and none rebinding what `clip` reads
    (it is evaluated later, in the optimizer's call)."""
    read = {n.value for n in descendants(clip) if isinstance(n, cst.Name)}
    for stmt in between:
        if not isinstance(stmt, cst.SimpleStatementLine):
            raise NeedsReview("a compound statement between the call and minimize")
        for node in descendants(stmt):
            if isinstance(node, cst.Call):
                name, entry = _api(ctx, site, node)
                module, _, last = name.rpartition(".")
                if not (name.startswith(_NO_PARAMETERS) or last in _NO_PARAMETER_NAMES.get(module + ".", ())
                        or entry is not None and entry.transformer in _SCHEDULES):
                    raise NeedsReview("a call between it and minimize may make parameters, which 1.8 would not clip")
            if isinstance(node, cst.AssignTarget) and read & {n.value for n in descendants(node.target)
                                                               if isinstance(n, cst.Name)}:
                raise NeedsReview("what the clip reads is rebound before the optimizer is made")


def _check_only_step(ctx: Context) -> None:
    """1.8 clipped every later step of the program, of any optimizer without a grad_clip of its own."""
    ctx.reads(ctx.module, words=_STEPS)
    steps = [n for n in descendants(ctx.module) if isinstance(n, cst.Call)
             and isinstance(n.func, cst.Attribute) and n.func.attr.value in _STEPS]
    if len(steps) != 1:
        raise NeedsReview("another optimizer step in the module, which 1.8 clipped too")
