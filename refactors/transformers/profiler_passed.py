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
Converted only when the module shows all of it: every use of fluid.profiler in the module is such a
reset statement of the function or the one item of a `with` block; every call of the function is a
plain call (`callers.calls_of`), in a `profiler()` block profiler_block converts, in a `cuda_profiler`
block, or in the module body or a function that no such block calls. Calls from other modules cannot
be seen (the assumption of `callers`): one made while another module profiles would no longer reset
that profiler, which 2.x could not reach anyway.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from refactors.engine import Context, NeedsReview, literal
from refactors.local_values import statements
from refactors.scopes import Reference, Scope, descendants
from refactors.transformers import callers, emit
from refactors.transformers.profiler_block import KEYS, TARGETS, block_name

_FAMILY = "paddle.fluid.profiler."
RESET, BLOCK, CUDA_BLOCK = (_FAMILY + n for n in ("reset_profiler", "profiler", "cuda_profiler"))


def plan(ctx: Context, scope: Scope, references: List[Tuple[Reference, str]]) -> str:
    """The function's new parameter, made once with the Profilers its calls pass it; NeedsReview with the
    reason when the module does not show all of it."""
    return ctx.planned(("profiler passed", id(scope.node)), lambda: _make(ctx, scope, references))  # type: ignore


def _make(ctx: Context, scope: Scope, references: List[Tuple[Reference, str]]) -> str:
    function = scope.node
    if not isinstance(function, cst.FunctionDef) or function.params.star_kwarg is not None:
        raise NeedsReview("the reset is not in a plain function of the module")
    blocks = _blocks(ctx, references)
    calls = callers.calls_of(ctx, function)
    if not calls:
        raise NeedsReview("the function's calls are not all in sight")
    passing: List[Tuple[cst.Call, cst.With, Scope]] = []
    for call, where in calls:
        block = _block_around(call, where, blocks)
        if block is None:
            _no_profiler_runs(ctx, where, scope, blocks)
        elif blocks[id(block)] == BLOCK:
            passing.append((call, block, where))
    if not passing or any(id(block) in ctx.left for _, block, _ in passing):
        raise NeedsReview("no `with profiler.profiler(...)` block still ahead calls this function")
    for call, block, _ in passing:
        if any(arg.star for arg in call.args) or not _converts(ctx, block):
            raise NeedsReview("a profiler block calling this function stays as it is")
    profilers = [block_name(ctx, block, where) for _, block, where in passing]
    param = ctx.fresh_name(scope, "prof")
    ctx.replace(function, lambda updated: _with_param(updated, param))  # type: ignore[arg-type]
    for (call, _, _), prof in zip(passing, profilers):
        ctx.replace(call, lambda updated, prof=prof: updated.with_changes(args=[
            *_comma_after_last(updated.args), cst.Arg(cst.Name(prof), keyword=cst.Name(param), equal=_EQUAL)]))
    return param


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _blocks(ctx: Context, references: List[Tuple[Reference, str]]) -> Dict[int, str]:
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


def _block_around(call: cst.Call, where: Scope, blocks: Dict[int, str]) -> Optional[cst.With]:
    """The profiler block of the call's own scope whose body holds the call; NeedsReview when two do."""
    around = [stmt for stmt in statements(where.node) if id(stmt) in blocks
              and any(node is call for node in descendants(stmt.body))]  # type: ignore[attr-defined]
    if len(around) > 1:
        raise NeedsReview("profiler blocks nested in each other")
    return around[0] if around else None  # type: ignore[return-value]


def _no_profiler_runs(ctx: Context, where: Scope, function: Scope, blocks: Dict[int, str]) -> None:
    """A call outside the module's profiler blocks: no profiler may run there (the module body, or a
    function no such block calls)."""
    if isinstance(where.node, cst.Module):
        return
    if where is function or not isinstance(where.node, cst.FunctionDef):
        raise NeedsReview("the function is called from itself or from a lambda, class body or comprehension")
    outer = callers.calls_of(ctx, where.node)
    if outer is None or any(_block_around(call, scope, blocks) is not None for call, scope in outer):
        raise NeedsReview("a call outside the profiler blocks is in a function they may run")


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
        if name in given and not emit.is_literal(ctx, given[name]):
            return False
        values[name] = literal(given[name], ctx) if name in given else None
    return values["state"] in TARGETS and values["sorted_key"] in KEYS \
        and values["tracer_option"] in (None, "Default")


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
