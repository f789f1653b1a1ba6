"""`with fluid.layers.Switch() as switch:` blocks become `paddle.static.nn.case(...)`.

1.8.5 `Switch` (`layers/control_flow.py`) builds, for each `with switch.case(cond):` block in order, a
conditional block that runs when `cond` holds and no earlier case did, and for `with switch.default():`
one that runs when none did; the blocks' operators write their results into variables of the program
(`assign(x, lr)`). 2.x `paddle.static.nn.case(pred_fn_pairs, default)` runs the function of the first
true predicate, else `default`: the same choice, with each block's statements as a function of the
scope the `with` is in, defined where the `with` was and called once in its place. Without a default,
`case` would run the last pair's function when no predicate holds, so `default=lambda: None` keeps
1.8's "none".

It keeps the meaning when the block reads as a plain choice: only `case`/`default` blocks, each taking
effect through the program (no `return`, `break`, `continue`, `yield`, `global`); every name a block
binds used nowhere else in the scope (it becomes the function's local); and no later condition reading
a variable an earlier block assigns into, since `case` builds all conditions before the blocks.
Otherwise the block is left for review (runtime_shim serves `Switch`).
"""
from __future__ import annotations

from typing import FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import children, descendants
from refactors.transformers import emit, register

_EXITS = (cst.Return, cst.Yield, cst.Global, cst.Nonlocal)
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_CONVERTED = "switch blocks converted"  # ctx.memo key: the bodies of the blocks of the Switches converted
_WRITERS = {"assign": (1, "output"), "increment": (0, "x")}  # calls writing into an argument: (position, keyword)


def _blocks(stmt: cst.With, switch: str) -> List[Tuple[Optional[cst.BaseExpression], cst.With]]:
    """(condition or None for `default`, the `with` of the block) for each block of the switch."""
    if not isinstance(stmt.body, cst.IndentedBlock):
        raise NeedsReview("the Switch body is on the `with` line")
    blocks: List[Tuple[Optional[cst.BaseExpression], cst.With]] = []
    for inner in stmt.body.body:
        call = inner.items[0].item if isinstance(inner, cst.With) and len(inner.items) == 1 else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and isinstance(call.func.value, cst.Name) and call.func.value.value == switch
                and inner.items[0].asname is None and isinstance(inner.body, cst.IndentedBlock)):
            raise NeedsReview(f"the Switch body holds more than `with {switch}.case(...)` / `.default()` blocks")
        kind = call.func.attr.value
        if kind == "case" and len(call.args) == 1 and not call.args[0].star and (
                call.args[0].keyword is None or call.args[0].keyword.value == "condition"):
            blocks.append((call.args[0].value, inner))
        elif kind == "default" and not call.args:
            blocks.append((None, inner))
        else:
            raise NeedsReview(f"`{switch}.{kind}(...)` is not a case with one condition or one default")
    if not blocks or blocks[0][0] is None or any(c is None for c, _ in blocks[:-1]):
        raise NeedsReview("the Switch does not read as cases then at most one default")
    return blocks


def _names(node: cst.CSTNode) -> Set[str]:
    return {n.value for n in descendants(node) if isinstance(n, cst.Name)}


def _bound(block: cst.With) -> Set[str]:
    """Names the block's statements bind (they become the function's locals)."""
    found: Set[str] = set()
    for node in descendants(block.body):
        targets: List[cst.CSTNode] = []
        if isinstance(node, cst.AssignTarget):
            targets.append(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets.append(node.target)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets.append(node.asname.name)
        elif isinstance(node, cst.NamedExpr):
            targets.append(node.target)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            found.add(node.name.value)
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            raise NeedsReview("a Switch block imports")
        for target in targets:
            found |= {n.value for n in descendants(target) if isinstance(n, cst.Name)}
    return found


def _exit(node: cst.CSTNode, in_loop: bool = False) -> Optional[str]:
    """The first statement of a block that would leave it: `return`, `yield`, `global`, or a `break` /
    `continue` of a loop around the `with` (not of functions or loops inside the block)."""
    if isinstance(node, _NESTED):
        return None
    if isinstance(node, (cst.Break, cst.Continue)):
        return None if in_loop else type(node).__name__.lower()
    if isinstance(node, _EXITS):
        return type(node).__name__.lower()
    for child in children(node):
        found = _exit(child, in_loop or isinstance(node, (cst.For, cst.While)))
        if found:
            return found
    return None


def _region(ctx: Context, site: Site, stmt: cst.With) -> cst.CSTNode:
    """Where the names a block binds must not be used otherwise: the scope of the Switch or, for one in
    a block of a Switch this upgrade converts, that block (the function it becomes, in which the next
    run sees it: the same answer both times)."""
    inner: Optional[cst.CSTNode] = None
    for block in ctx.memo.get(_CONVERTED, ()):  # type: ignore[union-attr]
        if any(node is stmt for node in descendants(block)):
            inner = block if inner is None or any(node is block for node in descendants(inner)) else inner
    return inner if inner is not None else site.scope.node


def _check(ctx: Context, site: Site, stmt: cst.With, switch: str,
           blocks: List[Tuple[Optional[cst.BaseExpression], cst.With]]) -> None:
    for _, block in blocks:
        found = _exit(block.body)
        if found:
            raise NeedsReview(f"a Switch block has `{found}`, which would act on the function the block becomes")
    inside = {id(n) for n in descendants(stmt)}
    bound = set().union(*(_bound(block) for _, block in blocks)) | {switch}
    region = _region(ctx, site, stmt)
    ctx.reads(region, words=sorted(bound))  # the parts of it that say one of them
    for node in _names_in_scope(region, frozenset()):
        if node.value in bound and id(node) not in inside:
            raise NeedsReview(f"`{node.value}` is bound in the Switch and used outside it")
    for index, (condition, _) in enumerate(blocks[1:], start=1):
        read = _names(condition) if condition is not None else set()
        for _, earlier in blocks[:index]:
            for node in descendants(earlier.body):
                if isinstance(node, cst.Call) and read & _written(node):
                    raise NeedsReview("a later case condition reads a variable an earlier block assigns into; "
                                      "paddle.static.nn.case builds the conditions first")


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _names_in_scope(node: cst.CSTNode, local: FrozenSet[str]) -> Iterator[cst.Name]:
    """The names under `node` that may mean the scope's variables: not those a comprehension's own `for`
    targets bind (its variables, in Python 3: `[reduce_sum(g) for [_, g] in pairs]` beside a block's
    `for _, g in pairs:`), but its first iterable, which the scope evaluates, with them."""
    if isinstance(node, cst.Name):
        if node.value not in local:
            yield node
        return
    if not isinstance(node, _COMPREHENSIONS):
        for child in children(node):
            yield from _names_in_scope(child, local)
        return
    fors: List[cst.CompFor] = []
    comp: Optional[cst.CompFor] = node.for_in
    while comp is not None:
        fors.append(comp)
        comp = comp.inner_for_in
    yield from _names_in_scope(fors[0].iter, local)
    own = local | {n.value for f in fors for n in descendants(f.target) if isinstance(n, cst.Name)}
    parts: List[cst.CSTNode] = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
    parts += [f.iter for f in fors[1:]] + [test for f in fors for test in f.ifs]
    for part in parts:
        yield from _names_in_scope(part, own)


def _written(call: cst.Call) -> Set[str]:
    """The names in the argument an `assign(x, output)` / `increment(x)` writes into."""
    func = call.func
    callee = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if callee not in _WRITERS:
        return set()
    position, keyword = _WRITERS[callee]
    for index, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == keyword or arg.keyword is None and index == position:
            return _names(arg.value)
    return set()


def _function(name: str, block: cst.With) -> cst.FunctionDef:
    body = block.body
    assert isinstance(body, cst.IndentedBlock)
    return cst.FunctionDef(name=cst.Name(name), params=cst.Parameters(), body=body, leading_lines=block.leading_lines)


@register("switch_case")
def switch_case(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    stmt = ctx.statements[-1] if ctx.statements else None
    if not (isinstance(stmt, cst.With) and len(stmt.items) == 1 and stmt.items[0].item is site.call
            and stmt.items[0].asname is not None and isinstance(stmt.items[0].asname.name, cst.Name)):
        raise NeedsReview("Switch() is not the one item of a `with ... as name:` statement")
    if node.args and not all(emit.is_literal(ctx, a.value) for a in node.args):
        raise NeedsReview("Switch(name=...) is not a literal; the 2.x form drops it")
    ctx.reads(stmt)
    switch = stmt.items[0].asname.name.value
    blocks = _blocks(stmt, switch)
    _check(ctx, site, stmt, switch, blocks)
    converted = ctx.memo.setdefault(_CONVERTED, [])
    converted.extend(block.body for _, block in blocks)  # type: ignore[union-attr]
    names = [ctx.fresh_name(site.scope, f"{switch}_case_{i}" if condition is not None else f"{switch}_default")
             for i, (condition, _) in enumerate(blocks)]
    case = emit.name(ctx, site, "paddle.static.nn.case")
    ctx.replace(stmt, lambda updated: _rebuilt(ctx, updated, switch, names, case))
    return emit.converted(site, node)


def _rebuilt(ctx: Context, updated: cst.With, switch: str, names: List[str], case: cst.BaseExpression):
    """The function of each block, then `paddle.static.nn.case([(cond, fn), ...], default=fn)`."""
    blocks = _blocks(updated, switch)
    functions = [_function(name, block) for name, (_, block) in zip(names, blocks)]
    pairs = [ctx.template("({condition}, {fn})", condition=condition, fn=cst.Name(name))
             for name, (condition, _) in zip(names, blocks) if condition is not None]
    # Without a default, case() would run the last pair's function when no predicate holds; 1.8 ran none.
    default = cst.Name(names[-1]) if blocks[-1][0] is None else ctx.expr("lambda: None")
    args = [cst.Arg(cst.List([cst.Element(p) for p in pairs])),
            cst.Arg(default, keyword=cst.Name("default"),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))]
    call = cst.SimpleStatementLine([cst.Expr(cst.Call(func=case, args=args))])
    functions[0] = functions[0].with_changes(leading_lines=[*updated.leading_lines, *functions[0].leading_lines])
    return cst.FlattenSentinel([*functions, call])
