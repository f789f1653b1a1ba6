"""`fluid.clip.set_gradient_clip(clip)`: the clip goes to the optimizer that minimizes after it (`grad_clip=`).

1.8.5 (`clip.py:692`, `optimizer.py:712`): `set_gradient_clip` puts a copy of `clip` on each parameter
the program has when it is called (`param_list=None`); the `minimize()` of an optimizer without a
`grad_clip` of its own then clips the gradients with it, provided every parameter with a gradient has
that copy: one made after the call turns the clipping off altogether (checked on 1.8.5). 2.x gives the
clip to the optimizer (`grad_clip=`), with the same formulas (SEMANTICS 30).

Converted where one block of the file shows all of it: the call is a statement of its own, without
`param_list` or `program` (the default main program, where the block builds); after it in that block,
`opt = <1.8 optimizer>(...)` without `grad_clip` (or an `if`/`elif`/`else` each of whose branches makes
one under that name or ends by raising), then `opt.minimize(loss)`, the only optimizer step of the
module (1.8 clipped any later one of the program too); `loss` (or an item or attribute of it) bound
once, before the call or by a statement in between, so every parameter it has gradients for was made
before the call; in between, only calls that make no parameter (optimizers, regularizers, clips,
learning rates, `fluid.layers` functions given no parameter attribute, initializer or code to run
(`cast`, `topk`, `cross_entropy`, ...: `_makes_no_parameter`), evaluators, `print`, `dict()` and
exceptions, methods reading a Program, `all_parameters()`, `fluid.io.is_parameter`, `append` to a list
written in the function; a branch that ends by raising or
exiting never reaches `minimize`, so what it runs does not count), in statements of their own or in
`if`/`for`/`while` statements that leave by no `return` or outer `break` (as XLNet's optimization.py
copies the parameters for weight decay there). The statement goes, and `grad_clip=<clip>` joins each
optimizer's arguments. An optimizer made before the call in the same block (one statement) takes it
alike, provided nothing in between rebinds what the clip reads (it is then evaluated there). Otherwise
the call becomes `paddle.nn.clip.set_gradient_clip` (Paddle >= 2.5 keeps 1.8's function and the step of
`minimize` that reads it, with the same rule, on the legacy-IR programs converted static code builds),
and the finding says why it could not move.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from api_mapping.namespaces import OPTIMIZERS
from api_mapping.schema import ApiEntry
from refactors import call_args, kept_comments
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import binding_statements
from refactors.scopes import bound_names, descendants, dotted
from refactors.transformers import SCOPE, emit, register

# What a statement between the call and `minimize` may call: APIs that make no parameter, in their 1.8
# and 2.x names (a second run sees the 2.x ones): whole modules, and names in others.
_NO_PARAMETERS = (OPTIMIZERS, "paddle.fluid.regularizer.", "paddle.fluid.clip.", "paddle.fluid.unique_name.",
                  "paddle.optimizer.", "paddle.regularizer.", "paddle.utils.unique_name.")
# (each 1.8 name with its 2.x one: a second run reads what the first converted the same way)
_NO_PARAMETER_NAMES = {"paddle.fluid.layers.": ("create_global_var",),
                       "paddle.static.": ("create_global_var", "default_main_program", "default_startup_program"),
                       "paddle.fluid.": ("default_main_program", "default_startup_program"),
                       "paddle.fluid.io.": ("is_parameter", "is_persistable"),
                       "paddle.nn.": ("ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue")}
_SCHEDULES = ("lr_decay_static", "lr_decay_dygraph", "decay_step_counter")
# A 1.8 `fluid.layers` function makes a parameter only through an argument saying how (`param_attr`,
# `bias_attr`, `attr`, `default_initializer`) or code it runs (a cell, a branch: these parameters)...
_LAYERS = "paddle.fluid.layers."
_CODE_PARAMETERS = {"cell", "decoder", "func", "fn", "body", "cond", "true_fn", "false_fn", "branch_fns",
                    "default", "pred_fn_pairs", "forward_func", "backward_func"}
# ...but for these two, whose `create_parameter` / `conv2d` inside take no such argument (1.8.5
# layers/nn.py, layers/detection.py: the functions of layers/ that reach `create_parameter`).
_HIDDEN_PARAMETERS = ("spectral_norm", "multi_box_head")
_EVALUATORS = "paddle.fluid.evaluator."  # keep their states in persistable variables, not parameters
_OPTIMIZERS = (OPTIMIZERS, "paddle.optimizer.")
_STEPS = ("minimize", "backward", "apply_gradients", "apply_optimize")
_BUILTINS = ("print", "len", "int", "float", "str", "bool", "range", "isinstance", "dict", "list", "enumerate",
             "zip", "Exception", "ValueError", "TypeError", "KeyError", "RuntimeError", "NotImplementedError",
             "AssertionError")
# Methods of 1.8's Program and Block (framework.py) that return what the program holds and make nothing.
_PROGRAM_READS = ("global_block", "current_block", "all_parameters", "iter_parameters", "list_vars", "has_var")
KEPT, KEPT_SINCE = "paddle.nn.clip.set_gradient_clip", "2.5"
_BRANCHES = (cst.If, cst.For, cst.While)  # compound statements whose every part runs or not as a whole
# the optimizer statements that take the clip, the statement that minimizes, and what runs in between
_Found = Tuple[List[cst.SimpleStatementLine], cst.SimpleStatementLine, List[cst.CSTNode]]


@register("set_gradient_clip", reads=(SCOPE,))  # the block after the call: the optimizer and its minimize
def set_gradient_clip(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    try:
        return _moved_to_optimizer(ctx, site, node)
    except NeedsReview as why:
        return _kept(ctx, site, node, str(why))


def _kept(ctx: Context, site: Site, node: cst.Call, why: str) -> cst.BaseExpression:
    """Paddle 2.5 moved 1.8's function to `paddle.nn.clip` with its rule (a copy of the clip on each
    parameter, used by a `minimize` without grad_clip when every parameter with a gradient has one), on
    the legacy-IR programs converted static code builds (`runtime_shim.enable_static`): the call keeps
    the 1.8 meaning wherever it is, only not in the 2.0 form."""
    new = emit.finish(ctx, site, node, KEPT)
    ctx.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(site.name, KEPT, KEPT_SINCE), True)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {KEPT}, 1.8's rule kept, not grad_clip= "
                                                         f"of an optimizer: {why}", True)
    return emit.converted(site, new)


def _moved_to_optimizer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    for name in ("param_list", "program"):
        given = call_args.get(node, name)
        if given is not None and not (isinstance(given.value, cst.Name) and given.value.value == "None"):
            raise NeedsReview(f"`{name}=` given: the parameters it clips are not those of one optimizer's minimize")
    clip = call_args.get(node, "clip")
    if clip is None:
        raise NeedsReview("`clip` is missing")
    statement, owner, block = _statement_and_block(ctx, site)
    at = block.index(statement)
    found = _optimizer_after(ctx, site, block, at)
    made_before = found is None
    if made_before:
        found = _optimizer_before(ctx, site, block, at, clip.value)
    if found is None:
        raise NeedsReview("no optimizer made and minimized after it in the same block; pass grad_clip= to the "
                          "optimizer whose minimize() it applied to")
    optimizers, minimize, between = found
    _check_loss_made_before(ctx, site, block, statement, minimize)
    _check_no_parameters_made(ctx, site, between, clip.value)
    for optimizer in optimizers:
        if call_args.get(optimizer.body[0].value, "grad_clip") is not None:  # type: ignore[attr-defined]
            raise NeedsReview("the optimizer has a grad_clip of its own, which 1.8 used instead")
    _check_only_step(ctx)
    moved: List[str] = []

    def remove(updated: cst.CSTNode) -> cst.FlattenSentinel:
        moved.extend(kept_comments.comments(updated))
        return cst.FlattenSentinel([])

    def with_clip(updated: cst.CSTNode) -> cst.CSTNode:
        assign = updated.body[0]  # type: ignore[attr-defined]
        new = call_args.with_args(assign.value, [*assign.value.args, call_args.keyword_arg("grad_clip", clip.value)])
        kept, moved[:] = list(moved), []  # above the first optimizer only
        return kept_comments.above(updated.with_changes(body=[assign.with_changes(value=new)]), kept)

    if made_before and not ctx.edit_left(owner, optimizers[0], with_clip):
        raise NeedsReview("the statement making the optimizer was rewritten into several")
    ctx.replace(statement, remove)
    for optimizer in optimizers if not made_before else ():
        ctx.replace(optimizer, with_clip)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> grad_clip= of the optimizer "
                                                         f"that minimizes after it", True)
    return emit.converted(site, node)


def _earlier(ctx: Context) -> Iterator[cst.BaseStatement]:
    """The statements of the function (or module) that ran before the current one: those before it in
    its block, and before each enclosing statement in theirs."""
    for depth in range(len(ctx.statements) - 1, -1, -1):
        if isinstance(ctx.statements[depth], (cst.FunctionDef, cst.ClassDef)):
            return
        found = _block_of(ctx, depth)
        if found is not None:
            body = found[1]
            yield from body[:body.index(ctx.statements[depth])]


def _block_of(ctx: Context, depth: int) -> Optional[Tuple[cst.CSTNode, Sequence[cst.BaseStatement]]]:
    """The node whose body holds the open statement at `depth` (the module or an indented block), and
    that body; None when it is not a plain body or `else` of its parent."""
    statement = ctx.statements[depth]
    parent = ctx.statements[depth - 1] if depth else ctx.module
    for suite in (getattr(parent, "body", None), getattr(getattr(parent, "orelse", None), "body", None)):
        owner, body = (suite, suite.body) if isinstance(suite, cst.IndentedBlock) else (parent, suite)
        if isinstance(body, (list, tuple)) and statement in body:
            return owner, body
    return None


def _statement_and_block(ctx: Context, site: Site) -> Tuple[cst.SimpleStatementLine, cst.CSTNode,
                                                              Sequence[cst.BaseStatement]]:
    """The call's statement, the node whose body holds it (the module or an indented block), that body."""
    statement = ctx.statements[-1] if ctx.statements else None
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and statement.body[0].value is site.call):
        raise NeedsReview("not a statement of its own")
    found = _block_of(ctx, len(ctx.statements) - 1)
    if found is None:
        raise NeedsReview("the block around the call is not known")
    return statement, found[0], found[1]


def _optimizer_after(ctx: Context, site: Site, block: Sequence[cst.BaseStatement], at: int) -> Optional[_Found]:
    """After the call at `at` in the block: `opt = <optimizer>(...)`, or an `if` each of whose branches
    makes one under that name or raises, and then `opt.minimize(...)`, `opt` bound nowhere else."""
    for index, stmt in enumerate(block[at + 1:], at + 1):
        name = _optimizer_name(ctx, site, stmt)
        made = ([stmt], []) if name is not None else _made_in_branches(ctx, site, stmt)
        if made is None:
            continue
        name = name or _optimizer_name(ctx, site, made[0][0])
        minimize = _minimize_after(site, block, index, name, len(made[0]))  # type: ignore[arg-type]
        if minimize is None:
            return None
        between = [s for s in block[at + 1:block.index(minimize)] if s is not stmt] + made[1]
        return made[0], minimize, between
    return None


def _optimizer_before(ctx: Context, site: Site, block: Sequence[cst.BaseStatement], at: int,
                      clip: cst.BaseExpression) -> Optional[_Found]:
    """Before the call at `at`: `opt = <optimizer>(...)`, nothing after it rebinding what `clip` reads
    (the clip is evaluated there instead), and `opt.minimize(...)` after the call."""
    for index in range(at - 1, -1, -1):
        name = _optimizer_name(ctx, site, block[index])
        if name is None:
            continue
        read = {n.value for n in descendants(clip) if isinstance(n, cst.Name)}
        if any(read & bound_names(stmt) for stmt in block[index + 1:at]):
            raise NeedsReview("what the clip reads is bound between the optimizer and the call")
        minimize = _minimize_after(site, block, at, name, 1)
        if minimize is None:
            return None
        return [block[index]], minimize, list(block[at + 1:block.index(minimize)])  # type: ignore[list-item]
    return None


def _optimizer_name(ctx: Context, site: Site, stmt: cst.BaseStatement) -> Optional[str]:
    """The name the statement `name = <1.8 optimizer>(...)` binds, else None."""
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
            and isinstance(small.value, cst.Call):
        api = _api(ctx, site, small.value)[0]
        if api.startswith(_OPTIMIZERS) and not api.startswith("paddle.optimizer.lr."):
            return small.targets[0].target.value
    return None


def _made_in_branches(ctx: Context, site: Site, stmt: cst.BaseStatement) -> Optional[Tuple[List[cst.SimpleStatementLine], List[cst.CSTNode]]]:
    """`if a: opt = SGD(...) elif b: opt = Adam(...) else: raise ...`: each branch's optimizer statement
    (one name), and what else the statement runs (the tests, the other statements of the branches)."""
    optimizers: List[cst.SimpleStatementLine] = []
    others: List[cst.CSTNode] = []
    names = set()
    branch: Optional[cst.CSTNode] = stmt
    while branch is not None:
        if isinstance(branch, cst.If):
            others.append(branch.test)
        elif not isinstance(branch, cst.Else):
            return None
        body = branch.body.body if isinstance(branch.body, cst.IndentedBlock) else ()
        made = [s for s in body if _optimizer_name(ctx, site, s) is not None]
        raises = bool(body) and _ends(ctx, site, body[-1])
        if len(made) > 1 or not made and not raises:
            return None
        optimizers.extend(made)  # type: ignore[arg-type]
        names.update(_optimizer_name(ctx, site, s) for s in made)
        if not raises:  # a branch that raises never reaches minimize: what it runs does not matter
            others.extend(s for s in body if s not in made)
        branch = branch.orelse if isinstance(branch, cst.If) else None
    if not optimizers or len(names) != 1 or not isinstance(stmt, cst.If) or not _has_else(stmt):
        return None
    return optimizers, others


def _ends(ctx: Context, site: Site, stmt: cst.BaseStatement) -> bool:
    """The statement raises or exits: `raise ...`, or a call of Python's own `exit`/`quit`."""
    last = stmt.body[-1] if isinstance(stmt, cst.SimpleStatementLine) else None
    call = last.value if isinstance(last, cst.Expr) else None
    return isinstance(last, cst.Raise) or isinstance(call, cst.Call) and isinstance(call.func, cst.Name) \
        and call.func.value in ("exit", "quit") and ctx.resolver.binding_scope(call.func.value, site.scope) is None


def _has_else(stmt: cst.If) -> bool:
    while isinstance(stmt.orelse, cst.If):
        stmt = stmt.orelse
    return stmt.orelse is not None


def _minimize_after(site: Site, block: Sequence[cst.BaseStatement], index: int, name: str,
                    made: int) -> Optional[cst.SimpleStatementLine]:
    """The statement `name.minimize(...)` after `index` in the block; NeedsReview when `name` has other
    bindings than the `made` optimizer statements."""
    for stmt in block[index + 1:]:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        value = getattr(small, "value", None)
        if isinstance(value, cst.Call) and dotted(value.func) == f"{name}.minimize":
            if len(site.scope.bindings.get(name, ())) != made:
                raise NeedsReview("the optimizer's name is rebound")
            return stmt  # type: ignore[return-value]
    return None


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
    roots = _held_in(loss.value) if loss is not None else None
    if not roots:
        raise NeedsReview("the loss minimized is not a name (or an item or attribute of one, or arithmetic of those)")
    at = block.index(statement)
    earlier = list(_earlier(ctx))
    between = block[at + 1:block.index(minimize)]
    for root in roots:
        made_before = any(_binds(stmt, root) for stmt in earlier) or _is_parameter(site, root)
        made_between = not made_before and any(_binds(stmt, root) for stmt in between)
        if len(site.scope.bindings.get(root, ())) != 1 or not (made_before or made_between) \
                or made_before and any(_assigns(stmt, root) for stmt in between):
            raise NeedsReview("the loss is not made once, before minimize: parameters made after the call would "
                              "not be clipped by 1.8 (nor any other)")


def _held_in(node: cst.BaseExpression) -> Optional[Set[str]]:
    """The names `node` reads its value from: `loss`, `train_ret["avg_cost"]`, `model.loss` (a literal
    key, no call), or arithmetic of those and numbers (`model.loss * args.num_steps`: arithmetic makes
    no parameter), else None."""
    if isinstance(node, cst.BinaryOperation):
        left, right = _held_in(node.left), _held_in(node.right)
        return left | right if left is not None and right is not None else None
    if isinstance(node, (cst.Integer, cst.Float)):
        return set()
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Subscript) and not (len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                                                    and isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.Integer))):
            return None
        node = node.value
    return {node.value} if isinstance(node, cst.Name) else None


def _binds(stmt: cst.BaseStatement, name: str) -> bool:
    return any(isinstance(n, cst.AssignTarget) and any(isinstance(t, cst.Name) and t.value == name
                                                       for t in descendants(n.target)) for n in descendants(stmt)) \
        if isinstance(stmt, cst.SimpleStatementLine) else False


def _assigns(stmt: cst.BaseStatement, name: str) -> bool:
    """Anywhere in `stmt`, an assignment to `name` or to an item or attribute of it."""
    return any(isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and any(
        isinstance(t, cst.Name) and t.value == name for t in descendants(n.target)) for n in descendants(stmt))


def _is_parameter(site: Site, name: str) -> bool:
    node = site.scope.node
    params = getattr(node, "params", None)
    return params is not None and name in {p.name.value for p in (*params.posonly_params, *params.params,
                                                                   *params.kwonly_params)}


def _check_no_parameters_made(ctx: Context, site: Site, between: Sequence[cst.CSTNode],
                              clip: cst.BaseExpression) -> None:
    """Only calls that make no parameter in between (of 1.8 APIs that make none, or of Python's
    builtins that cannot), and nothing rebinding what `clip` reads (it is evaluated in the optimizer's
    call instead)."""
    read = {n.value for n in descendants(clip) if isinstance(n, cst.Name)}
    for stmt in between:
        if isinstance(stmt, cst.BaseCompoundStatement) and not (isinstance(stmt, _BRANCHES) and _falls_through(stmt)):
            raise NeedsReview("a compound statement between the call and minimize")
        for node in descendants(stmt):
            if isinstance(node, cst.Call) and not _builtin(ctx, site, node) and not _reads_program(node) \
                    and not _appends_to_list(site, node):
                name, entry = _api(ctx, site, node)
                module, _, last = name.rpartition(".")
                if not (name.startswith(_NO_PARAMETERS) or last in _NO_PARAMETER_NAMES.get(module + ".", ())
                        or entry is not None and (entry.transformer in _SCHEDULES or _makes_no_parameter(entry))):
                    raise NeedsReview("a call between it and minimize may make parameters, which 1.8 would not clip")
            if isinstance(node, cst.AssignTarget) and read & {n.value for n in descendants(node.target)
                                                               if isinstance(n, cst.Name)}:
                raise NeedsReview("what the clip reads is rebound before the optimizer is made")


def _makes_no_parameter(entry: ApiEntry) -> bool:
    """A 1.8 evaluator, or a `fluid.layers` function none of whose arguments says how to make a parameter
    or gives code to run (and not one of `_HIDDEN_PARAMETERS`)."""
    if entry.name.startswith(_EVALUATORS):
        return True
    module, _, last = entry.name.rpartition(".")
    if entry.kind != "function" or module + "." != _LAYERS or entry.args_list is None \
            or last in _HIDDEN_PARAMETERS:
        return False
    return not any(p.star or p.name.endswith("attr") or "initializer" in p.name or p.name in _CODE_PARAMETERS
                   for p in entry.args_list)


def _falls_through(stmt: cst.BaseCompoundStatement) -> bool:
    """Whatever its branches or loops do, the statement ends where it started: no `return`, and no `break`
    or `continue` but of a loop in it (else `minimize` may not run, and a later step of the caller's be
    clipped by 1.8 instead)."""
    def leaves(node: cst.CSTNode, in_loop: bool) -> bool:
        if isinstance(node, (cst.Return, cst.Break, cst.Continue)):
            return isinstance(node, cst.Return) or not in_loop
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        inner = in_loop or isinstance(node, (cst.For, cst.While))
        return any(leaves(child, inner) for child in node.children)
    return not leaves(stmt, False)


def _reads_program(call: cst.Call) -> bool:
    """`program.global_block()`, `block.all_parameters()`: a method that reads a 1.8 Program or Block, or
    copies it (`clone(for_test=...)`: the copy's parameters are not the program's)."""
    return isinstance(call.func, cst.Attribute) and (call.func.attr.value in _PROGRAM_READS or call.func.attr.value
                                                     == "clone" and call_args.get(call, "for_test") is not None)


def _appends_to_list(site: Site, call: cst.Call) -> bool:
    """`names.append(x)` where every binding of `names` in the scope is a list written there."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "append"
            and isinstance(call.func.value, cst.Name)):
        return False
    found = binding_statements(site.scope, call.func.value.value)
    return bool(found) and all(index is None and isinstance(small, cst.Assign) and isinstance(small.value, cst.List)
                               for small, index in found)  # type: ignore[union-attr]


def _builtin(ctx: Context, site: Site, call: cst.Call) -> bool:
    """A call of one of Python's builtins that run no code of the program's (`print`, an exception)."""
    return isinstance(call.func, cst.Name) and call.func.value in _BUILTINS \
        and ctx.resolver.binding_scope(call.func.value, site.scope) is None


def _check_only_step(ctx: Context) -> None:
    """1.8 clipped every later step of the program, of any optimizer without a grad_clip of its own."""
    ctx.reads(ctx.module, words=_STEPS)
    steps = [n for n in descendants(ctx.module) if isinstance(n, cst.Call)
             and isinstance(n.func, cst.Attribute) and n.func.attr.value in _STEPS]
    if len(steps) != 1:
        raise NeedsReview("another optimizer step in the module, which 1.8 clipped too")
