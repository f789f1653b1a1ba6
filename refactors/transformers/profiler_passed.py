"""`reset_profiler()` in a function that `with profiler.profiler(...)` blocks of the module call.

PaddleCV/ocr_recognition (release/1.6 to 1.8) resets the profiler after the warm-up batches in
`train(args)`, and starts it in `main()` with a block around the call:

    def train(args):                            def train(args, prof=None):
        ...                                         ...
            profiler.reset_profiler()                   if prof is not None:
                                                            prof.stop()
                                                            prof.start()
    def main():                                 def main():
        with profiler.profiler("CPU") as p:         with paddle.profiler.Profiler(...) as p:
            train(args)                                 train(args, prof=p)
        ...                                         ...
        train(args)                                 train(args)

1.8's profiler is one per process; 2.x has none to reach from `train`, so the block's Profiler is
passed to it. A call of the function outside any profiler block of the module gives it nothing: no
profiler runs there, and 1.8.5's reset then does nothing (checked: a stopped profiler's events do not
reach the next one either); a `cuda_profiler` block runs nvprof, which 1.8's reset never touched.
Two more shapes (PaddleNLP language_model and seq2seq, release/1.7 and 1.8): the block is opened by a
`@contextlib.contextmanager` of the module, `with profiler.profiler(...): yield` when profiling and a
bare `yield` else, and the reset is in a function that a function called in `with profile_context(...):`
calls. The manager then yields its Profiler (None from its other yields, where 1.8 ran no profiler),
the `with` binds it to a new name and deletes it after the block, as the block deletes its own (3.3.1
makes no Profiler while another one lives), and each function between gets the new parameter too and
passes it on.

Converted only when the module shows all of it: every use of fluid.profiler in the module is such a
reset statement or the one item of a `with` block; every call of each function that gets the parameter
is a plain call (`callers.calls_of`), in a `profiler()` block profiler_block converts, in a `with` of
such a context manager (its only use: `with` statements binding nothing), in a `cuda_profiler` block,
in a function that gets the parameter, or in the module body or a function no such block runs. Calls
from other modules cannot be seen (the assumption of `callers`): one made while another module profiles
would no longer reset that profiler, which 2.x could not reach anyway.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from refactors.engine import Context, NeedsReview, literal
from refactors.local_values import all_statements, statements
from refactors.scopes import Reference, Scope, descendants, dotted, module_dotted
from refactors.transformers import callers, emit
from refactors.transformers.profiler_block import RUN_TIME, block_converted, block_name, refused

_FAMILY = "paddle.fluid.profiler."
RESET, BLOCK, CUDA_BLOCK = (_FAMILY + n for n in ("reset_profiler", "profiler", "cuda_profiler"))


def plan(ctx: Context, scope: Scope, references: List[Tuple[Reference, str]]) -> str:
    """The function's new parameter, made once with the Profilers its calls pass it; NeedsReview with the
    reason when the module does not show all of it."""
    function = scope.node
    if not isinstance(function, cst.FunctionDef):
        raise NeedsReview("the reset is not in a plain function of the module")
    found = blocks(ctx, references)

    def make() -> str:
        if not _reached(ctx, function, found):
            raise NeedsReview("no `with profiler.profiler(...)` block still ahead calls this function")
        return _param(ctx, function, found)
    return ctx.planned(("profiler passed", id(function)), make)  # type: ignore[return-value]


def _reached(ctx: Context, function: cst.FunctionDef, blocks: Dict[int, str],
             visiting: Tuple[cst.FunctionDef, ...] = ()) -> bool:
    """Whether a converted `profiler()` block of the module runs `function`: a call of it in the block, in
    a `with` of a context manager whose block yields (`_entered`), or in a function such a block runs (which
    then gets the Profiler too). NeedsReview when the module does not show every call, or one of them
    could not pass the Profiler on."""
    calls = callers.calls_of(ctx, function)
    if calls is None:
        raise NeedsReview("the function's calls are not all in sight")
    reached = False
    for call, where in calls:
        source = _source(ctx, call, where, blocks)
        if source is None:
            if isinstance(where.node, cst.Module):
                continue  # no profiler runs in the module body but in the blocks
            if not isinstance(where.node, cst.FunctionDef) or where.node is function or where.node in visiting:
                raise NeedsReview("the function is called from itself or from a lambda, class body or comprehension")
            if not _reached(ctx, where.node, blocks, (*visiting, function)):
                continue
        elif source[0] == CUDA_BLOCK:
            continue  # 1.8's reset never touched nvprof
        if any(arg.star for arg in call.args) or _left(ctx, call):
            raise NeedsReview("a call that would pass the Profiler on has *args or **kwargs, or was upgraded already")
        reached = True
    if reached and (function.params.star_kwarg is not None or _left(ctx, function)):
        raise NeedsReview("a function that would get the Profiler takes **kwargs, or was upgraded already")
    return reached


def _param(ctx: Context, function: cst.FunctionDef, blocks: Dict[int, str]) -> str:
    """The parameter `function` (which `_reached` found run by a profiler block) gets the Profiler by, its
    calls passing what runs where they are; made once."""
    key = ("profiler parameter", id(function))
    if key in ctx.memo:
        return ctx.memo[key]  # type: ignore[return-value]
    passing = []  # (call, the name of the Profiler it passes), the names taken before the parameter's
    for call, where in callers.calls_of(ctx, function) or ():
        source = _source(ctx, call, where, blocks)
        if source is None:
            prof = _param(ctx, where.node, blocks) \
                if isinstance(where.node, cst.FunctionDef) and _reached(ctx, where.node, blocks) else None
        else:
            prof = block_name(ctx, source[1], where) if source[0] == BLOCK \
                else _context_name(ctx, source[1], where, blocks) if source[0] == CONTEXT else None
        if prof is not None:
            passing.append((call, prof))
    param = ctx.memo[key] = ctx.fresh_name(ctx.resolver.scopes[id(function)], "prof")
    ctx.replace(function, lambda updated: _with_param(updated, param))  # type: ignore[arg-type]
    for call, prof in passing:
        ctx.replace(call, lambda updated, prof=prof: updated.with_changes(args=[
            *_comma_after_last(updated.args), cst.Arg(cst.Name(prof), keyword=cst.Name(param), equal=_EQUAL)]))
    return param


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
CONTEXT = "a context manager's profiler block"


def blocks(ctx: Context, references: List[Tuple[Reference, str]]) -> Dict[int, str]:
    """id of each `with` statement whose one item calls profiler()/cuda_profiler() -> that API; NeedsReview
    when the module uses fluid.profiler otherwise than by those and reset statements."""
    items = {id(ref.node): name for ref, name in references if name in (BLOCK, CUDA_BLOCK)}
    resets = {id(ref.node) for ref, name in references if name == RESET}
    found: Dict[int, str] = {}
    reset_statements = 0
    for stmt in descendants(ctx.module):
        if isinstance(stmt, cst.With) and len(stmt.items) == 1 and isinstance(stmt.items[0].item, cst.Call) \
                and id(stmt.items[0].item.func) in items:
            found[id(stmt)] = items[id(stmt.items[0].item.func)]
        elif isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
            call = stmt.body[0].value
            reset_statements += isinstance(call, cst.Call) and not call.args and id(call.func) in resets
    if len(found) != len(items) or reset_statements != len(resets) or len(items) + len(resets) != len(references):
        raise NeedsReview("the module uses fluid.profiler otherwise than by `with` blocks and reset statements")
    return found


def _source(ctx: Context, call: cst.Call, where: Scope, blocks: Dict[int, str]) -> Optional[Tuple[str, cst.With]]:
    """(BLOCK, CUDA_BLOCK or CONTEXT, the `with` statement) for the profiler block of the call's own scope
    whose body holds the call, or the `with` of a context manager that enters one; None when there is none.
    NeedsReview when two are around it, or the block stays as it is."""
    around = []
    for stmt in statements(where.node):
        if isinstance(stmt, cst.With) and any(node is call for node in descendants(stmt.body)):
            kind = blocks.get(id(stmt)) or (CONTEXT if _entered(ctx, stmt, where, blocks) is not None else None)
            if kind is not None:
                around.append((kind, stmt))
    if len(around) > 1:
        raise NeedsReview("profiler blocks nested in each other")
    if around and around[0][0] == BLOCK and not converted(ctx, around[0][1]):
        raise NeedsReview("a profiler block calling this function stays as it is")
    return around[0] if around else None


def converted(ctx: Context, block: cst.With) -> bool:
    """Whether profiler_block converts (or converted) this `profiler(...)` block."""
    return block_converted(ctx, block) if id(block) in ctx.left else _converts(ctx, block)


def _entered(ctx: Context, stmt: cst.With, where: Scope,
             blocks: Dict[int, str]) -> Optional[Tuple[cst.FunctionDef, cst.With]]:
    """`manager` and the `profiler()` block that `with manager(...):` enters, `manager` a
    `@contextlib.contextmanager` function of the module that yields inside it (language_model's and
    seq2seq's `profile_context`); None when `stmt` enters no generator of the module. The yield inside
    the block will give the block's Profiler to the `with` (bound by a new `as` name, deleted after it as
    the block deletes its own: 3.3.1 makes no Profiler while another one lives); the manager's other
    yields give None, where 1.8 ran no profiler. NeedsReview when that cannot be done."""
    item = stmt.items[0].item if len(stmt.items) == 1 else None
    if not (isinstance(item, cst.Call) and isinstance(item.func, cst.Name)):
        return None
    manager = callers.definition(ctx, where, item.func.value)
    if manager is None:
        return None
    inner = [s for s in statements(manager) if id(s) in blocks]
    if not inner and not any(isinstance(n, cst.Yield) for n in descendants(manager.body)):
        return None
    if not inner or ctx.resolver.scopes[id(manager)].parent is not ctx.resolver.module_scope:
        raise NeedsReview("a `with` around the call enters a generator of the module that may run a profiler "
                          "block otherwise than in its own code")
    if not _is_context_manager(ctx, manager):
        raise NeedsReview("a function with a profiler block around its call is no @contextlib.contextmanager")
    if len(inner) != 1 or blocks[id(inner[0])] != BLOCK or not converted(ctx, inner[0]):
        raise NeedsReview("the context manager around the call has other profiler blocks, or one that stays")
    yields = [n for n in descendants(manager.body) if isinstance(n, (cst.Yield, cst.FunctionDef, cst.Lambda))]
    bare = {id(line.body[0].value) for line in statements(manager) if isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1 and isinstance(line.body[0], cst.Expr)}
    if any(not isinstance(n, cst.Yield) or n.value is not None or id(n) not in bare for n in yields) \
            or len([n for n in descendants(inner[0].body) if isinstance(n, cst.Yield)]) != 1:
        raise NeedsReview("the context manager does not yield nothing, once in its profiler block, as a statement")
    if len(ctx.left.get(id(manager), [manager])) != 1 or not _entered_only(ctx, manager):
        raise NeedsReview("the context manager is used otherwise than by `with` statements without `as`")
    if stmt.items[0].asname is not None \
            or any(isinstance(n, (cst.Break, cst.Continue)) for n in descendants(stmt.body)):
        raise NeedsReview("the `with` around the call binds a name, or breaks or continues out of its block")
    return manager, inner[0]


def _context_name(ctx: Context, stmt: cst.With, where: Scope, blocks: Dict[int, str]) -> str:
    """The name `with manager(...):` binds the Profiler its manager yields to, made once (`_entered`)."""
    key = ("profiler context name", id(stmt))
    if key in ctx.memo:
        return ctx.memo[key]  # type: ignore[return-value]
    manager, block = _entered(ctx, stmt, where, blocks)  # type: ignore[misc]  # (_source found them)
    prof = block_name(ctx, block, ctx.resolver.scopes[id(manager)])
    if ("profiler yield", id(manager)) not in ctx.memo:
        ctx.memo[("profiler yield", id(manager))] = prof
        if id(manager) in ctx.left:
            ctx.edit_left(ctx.module, manager, lambda made: made.visit(_YieldProfiler(prof)))
        else:
            found = next(n for n in descendants(block.body) if isinstance(n, cst.Yield))
            ctx.replace(found, lambda updated: updated.with_changes(value=cst.Name(prof)))
    name = ctx.memo[key] = ctx.fresh_name(where, "prof")
    ctx.replace(stmt, lambda updated: updated.with_changes(items=[updated.items[0].with_changes(
        asname=cst.AsName(cst.Name(name)))]))
    ctx.insert_around(stmt, after=[cst.SimpleStatementLine([cst.Del(cst.Name(name))])])
    return name


def _is_context_manager(ctx: Context, function: cst.FunctionDef) -> bool:
    """Whether a module-level `function` has the one decorator `@contextlib.contextmanager` (after `import
    contextlib`) or `@contextmanager` (after `from contextlib import contextmanager`), bound once."""
    chain = dotted(function.decorators[0].decorator) or "" if len(function.decorators) == 1 else ""
    module, head = ctx.resolver.module_scope, chain.partition(".")[0]
    if chain not in ("contextlib.contextmanager", "contextmanager") \
            or ctx.resolver.binding_scope(head, module) is not module or len(module.bindings[head]) != 1:
        return False
    for small in (s for line in ctx.module.body if isinstance(line, cst.SimpleStatementLine) for s in line.body):
        if isinstance(small, cst.Import) and chain == "contextlib.contextmanager":
            found = [a for a in small.names if dotted(a.name) == "contextlib"]
        elif isinstance(small, cst.ImportFrom) and module_dotted(small.module) == "contextlib" \
                and not isinstance(small.names, cst.ImportStar) and chain == "contextmanager":
            found = [a for a in small.names if dotted(a.name) == "contextmanager"]
        else:
            continue
        if any(a.asname is None for a in found):
            return True
    return False


def _entered_only(ctx: Context, manager: cst.FunctionDef) -> bool:
    """Whether every use of the module-level `manager` is the one item of a `with` that binds no name (which
    its yield gave None, and so may give anything)."""
    name = manager.name.value
    ctx.reads(ctx.module, words=(name,))
    items = {id(stmt.items[0].item.func) for stmt in all_statements(ctx.module) if isinstance(stmt, cst.With)
             and len(stmt.items) == 1 and stmt.items[0].asname is None and isinstance(stmt.items[0].item, cst.Call)}
    module = ctx.resolver.module_scope
    return all(id(ref.node) in items for ref in ctx.resolver.chains.values()
               if ref.dotted.partition(".")[0] == name and ctx.resolver.binding_scope(name, ref.scope) is module)


def _left(ctx: Context, node: cst.CSTNode) -> bool:
    """Whether the pass has left a statement that holds `node` (too late to change it)."""
    key = id(node)
    while key:
        if key in ctx.left:
            return True
        key = ctx.resolver.parents.get(key, 0)
    return False


class _YieldProfiler(cst.CSTTransformer):
    """In an upgraded context manager: the bare `yield` in the Profiler block bound to `prof` yields it."""

    def __init__(self, prof: str) -> None:
        super().__init__()
        self.prof, self.depth = prof, 0

    def _block(self, node: cst.With) -> bool:
        return len(node.items) == 1 and node.items[0].asname is not None \
            and isinstance(node.items[0].asname.name, cst.Name) and node.items[0].asname.name.value == self.prof

    def visit_With(self, node: cst.With) -> None:
        self.depth += self._block(node)

    def leave_With(self, original: cst.With, updated: cst.With) -> cst.With:
        self.depth -= self._block(original)
        return updated

    def leave_Yield(self, original: cst.Yield, updated: cst.Yield) -> cst.Yield:
        return updated.with_changes(value=cst.Name(self.prof)) if self.depth and updated.value is None else updated


def _converts(ctx: Context, block: cst.With) -> bool:
    """Whether profiler_block converts this `profiler(...)` block (the checks it makes, on the call as
    written)."""
    call = block.items[0].item
    entry = ctx.entry_for(BLOCK)
    params = [p.name for p in entry.args_list or ()] if entry is not None else []
    given: Dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(call.args):  # type: ignore[attr-defined]
        if arg.star or (arg.keyword is None and i >= len(params)):
            return False
        given[arg.keyword.value if arg.keyword is not None else params[i]] = arg.value
    values = {}
    for name in ("state", "sorted_key", "tracer_option"):
        known = name not in given or emit.is_literal(ctx, given[name])
        values[name] = (literal(given[name], ctx) if name in given else None) if known else RUN_TIME
    return refused(values["state"], values["sorted_key"]) is None and values["tracer_option"] in (None, "Default")


def _with_param(function: cst.FunctionDef, name: str) -> cst.FunctionDef:
    """`function` with a last parameter `name=None` (keyword-only after `*args`)."""
    param = cst.Param(cst.Name(name), default=cst.Name("None"), equal=_EQUAL)
    params = function.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT:
        return function.with_changes(params=params.with_changes(
            kwonly_params=[*_comma_after_last(params.kwonly_params), param]))
    return function.with_changes(params=params.with_changes(params=[*_comma_after_last(params.params), param]))


def _comma_after_last(nodes):
    """The arguments or parameters with a comma after the last one, so that another can follow."""
    nodes = list(nodes)
    if nodes and nodes[-1].comma is cst.MaybeSentinel.DEFAULT:
        nodes[-1] = nodes[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return nodes
