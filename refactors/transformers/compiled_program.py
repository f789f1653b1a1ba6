"""`fluid.CompiledProgram(program).with_data_parallel(...)`: Paddle 2.5 removed the multi-device method.

1.8.5 `CompiledProgram.with_data_parallel(loss_name, build_strategy, exec_strategy, share_vars_from,
places)` (`compiler.py:158`) made the program run on every place: `places`, else every visible GPU or
`CPU_NUM` CPU places (1 when unset, `framework.py:354`), one slice of each batch per place, the fetched
values concatenated per place. Its `build_strategy` replaces the constructor's (`compiler.py:269`);
the other arguments configure the devices (`loss_name` scales the gradients by their number,
`exec_strategy` schedules threads, `share_vars_from` shares another program's per-device scopes).
Paddle 3 has no multi-device executor: `paddle.static.CompiledProgram(program, build_strategy)` runs
the program on one place, which computes 1.8's numbers where 1.8 ran on one place (the table's
warning says so). The chained call becomes that constructor call; a program whose `with_data_parallel`
is called elsewhere (through a name) is left to runtime_shim's `CompiledProgram`, which keeps the method.
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import descendants
from refactors.transformers import emit, register
from refactors.warning_evidence import CHECKS

_METHOD = "with_data_parallel"
_PARAMS = ("loss_name", "build_strategy", "exec_strategy", "share_vars_from", "places")  # compiler.py:158


def _chained(ctx: Context, site: Site) -> Optional[cst.Call]:
    """The original `<site's call>.with_data_parallel(...)` call, in the statement being upgraded."""
    stmt = ctx.statements[-1] if ctx.statements else None
    if stmt is None:
        return None
    for node in descendants(stmt):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.value is site.call \
                and node.func.attr.value == _METHOD:
            return node
    return None


def droppable(node: cst.BaseExpression) -> bool:
    """Whether leaving the expression out drops no computation: names, attributes, literals, and
    comparisons and conditional expressions of those (`loss.name if mode == "train" else None`)."""
    if isinstance(node, cst.IfExp):
        return all(droppable(n) for n in (node.test, node.body, node.orelse))
    if isinstance(node, cst.Comparison):
        return droppable(node.left) and all(droppable(c.comparator) for c in node.comparisons)
    return emit.pure(node)


def _arguments(call: cst.Call) -> Dict[str, cst.BaseExpression]:
    if call_args.has_star(call):
        raise NeedsReview(f"{_METHOD} is called with *args/**kwargs; map its arguments by hand")
    found: Dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else (_PARAMS[index] if index < len(_PARAMS) else None)
        if name not in _PARAMS:
            raise NeedsReview(f"{_METHOD}: unexpected argument")
        found[name] = arg.value
    return found


def _folded(constructor: cst.Call, chained: cst.Call) -> Dict[str, cst.BaseExpression]:
    """The arguments of `chained` that go into the constructor call; NeedsReview when it cannot be
    rewritten so (what the transformer and exec_strategy's plan both ask)."""
    given = _arguments(chained)
    dropped = [name for name, value in given.items() if name != "build_strategy" and not droppable(value)]
    if dropped:
        raise NeedsReview(f"{_METHOD}({dropped[0]}=...) is dropped in the 2.x form and may compute "
                          f"something; bind it to a name first")
    if "build_strategy" in given and call_args.get(constructor, "build_strategy") is not None:
        raise NeedsReview(f"build_strategy is given twice; keep the one of {_METHOD}")
    return given


def argument(chained: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    """The value `chained`, a `with_data_parallel(...)` call, gives parameter `name`, if any."""
    try:
        return _arguments(chained).get(name) if _is_method(chained) else None
    except NeedsReview:
        return None


def converts(ctx: Context, chained: cst.Call) -> bool:
    """Before the pass: whether the transformer will fold `chained`, a call of the module, into the
    CompiledProgram constructor it is called on."""
    constructor = chained.func.value if _is_method(chained) else None  # type: ignore[attr-defined]
    ref = ctx.resolver.references.get(id(constructor.func)) if isinstance(constructor, cst.Call) else None
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "") if ref is not None else None
    if matched is None or matched[1] or matched[0].transformer != "compiled_program" \
            or call_args.has_star(constructor) or len(constructor.args) > 1:  # type: ignore[arg-type]
        return False  # (a second positional argument is build_strategy, named only later)
    try:
        _folded(constructor, chained)  # type: ignore[arg-type]
    except NeedsReview:
        return False
    return True


def _is_method(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == _METHOD


@register("compiled_program")
def compiled_program(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    chained = _chained(ctx, site)
    if chained is None:
        if CHECKS["result_calls"](ctx, site, [_METHOD]) is not False:
            raise NeedsReview(f"{_METHOD} is called on this program elsewhere; Paddle 3 runs it on one device: "
                              f"pass build_strategy to paddle.static.CompiledProgram and drop {_METHOD}")
        return emit.converted(site, emit.finish(ctx, site, node))
    given = _folded(node, chained)
    if "build_strategy" in given:
        node = call_args.add(node, "build_strategy", given["build_strategy"])
    result = emit.converted(site, emit.finish(ctx, site, node))
    ctx.replace(chained, lambda updated: updated.func.value)  # the constructor call, as converted
    return result
