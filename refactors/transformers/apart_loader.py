"""A loader built in one place and given its data source in another of the same scope.

generator_loader rewrites a loader whose setter follows it in the same block. Real code often builds it
in the branches of an `if` (one loader per model kind) and sets its source later, in one place or in the
branches of another `if`:

    if kind == 'a':
        loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=4, iterable=True)
    else:
        loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4, iterable=True)
    ...
    loader.set_batch_generator(reader, places=place)
    for data in loader():

A 2.x `paddle.io.DataLoader` takes its dataset when it is made, so each build becomes the constructor
with the arguments 1.8 took there, `functools.partial(paddle.io.DataLoader, batch_size=None, feed_list=[x, y],
return_list=False)` (its arguments evaluated there, as 1.8 did), and each setter makes the loader from it,
`loader = loader(GeneratorBatches(reader, samples=False), places=place)` (checked on 1.8.5 and 3.3.1:
fixtures/legacy/apart_loader_static.py). It is written only where every path from a build to a read of
the loader sets the source exactly once: every binding of the name in its scope is such a build, none
in a loop; the setters come after the builds, in no loop, and are either one statement or one per branch
of one `if`/`elif` chain; each other use of the name follows a setter in its block (or the whole chain,
when every branch, `else` included, sets the source); nothing in a nested function or lambda uses it. In
a static graph a sample (list) generator is left: 1.8 converted its samples to the feed variables'
dtypes, which the setter cannot see.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview
from refactors.scopes import Scope, descendants

# A statement of the scope and the compound statements around it (in the scope), outermost first.
Path = Tuple[cst.CSTNode, ...]
_LOOPS = (cst.For, cst.While)
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


@dataclass
class Plan:
    builds: List[cst.SimpleStatementLine]
    setters: List[Tuple[cst.SimpleStatementLine, cst.Call]]


def _walk(body, path: Path) -> Iterator[Tuple[cst.BaseStatement, Path, List[cst.BaseStatement]]]:
    """Every statement of a scope's own code in source order, with its path and the block holding it."""
    block = list(body.body) if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else list(body)
    for stmt in block:
        yield stmt, path, block
        if isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, _NESTED):
            for inner in _inner_blocks(stmt):
                yield from _walk(inner, path + (stmt,))


def _inner_blocks(stmt: cst.BaseCompoundStatement) -> Iterator[cst.BaseSuite]:
    if not isinstance(stmt, cst.Match):
        yield stmt.body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    orelse = getattr(stmt, "orelse", None)
    if orelse is not None:  # an `elif` is an If nested in the one before (its own path step)
        yield cst.IndentedBlock(body=[orelse]) if isinstance(orelse, cst.If) else orelse.body
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        yield final.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def _chain(top: cst.If) -> List[cst.BaseSuite]:
    """The blocks of an `if`/`elif`/`else` chain, the `else` last (None when there is none)."""
    blocks: List[Optional[cst.BaseSuite]] = []
    node: Optional[cst.CSTNode] = top
    while isinstance(node, cst.If):
        blocks.append(node.body)
        node = node.orelse
    blocks.append(node.body if isinstance(node, cst.Else) else None)
    return blocks  # type: ignore[return-value]


def plan(scope: Scope, loader: str, setter_of: Callable[[cst.CSTNode], Optional[cst.Call]],
         is_build: Callable[[cst.Assign], bool]) -> Optional[Plan]:
    """The builds (assignments `is_build` accepts) and setters of `loader` in `scope` when the shape above
    holds; None when the uses have another shape (the caller gives its own reason); NeedsReview for a
    shape that comes close."""
    if scope.is_class or loader in scope.globals or loader in scope.nonlocals:
        return None
    walked = list(_walk(scope.node.body, ()))
    order = {id(stmt): i for i, (stmt, _, _) in enumerate(walked)}
    builds, setters, reads = [], [], []
    for stmt, path, block in walked:
        if isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, _NESTED):
            if _uses_in_header(stmt, loader):
                reads.append((stmt, path, block))
            continue
        uses = [n for n in descendants(stmt) if isinstance(n, cst.Name) and n.value == loader]
        if not uses:
            continue
        if any(isinstance(n, _NESTED) for n in descendants(stmt)) and _used_nested(stmt, loader):
            raise NeedsReview(f"`{loader}` is used in a nested function or lambda, so when it is read is not in sight")
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and loader in _targets(small):
            if not is_build(small):
                return None
            builds.append((stmt, path, block))
        elif setter_of(stmt) is not None:
            setters.append((stmt, path, block))
        else:
            reads.append((stmt, path, block))
    if len(builds) != len(scope.bindings.get(loader, ())) or not builds or not setters:
        return None
    if any(isinstance(p, _LOOPS) for _, path, _ in builds + setters for p in path):
        raise NeedsReview(f"`{loader}` is built or given its data source in a loop, so each build may be set "
                          f"more than once")
    if max(order[id(s)] for s, _, _ in builds) > min(order[id(s)] for s, _, _ in setters):
        return None
    chain = _setter_chain(setters) if len(setters) > 1 else None
    if len(setters) > 1 and chain is None:
        return None
    for stmt, _, _ in reads:
        attribute = next((n for n in descendants(stmt) if isinstance(n, cst.Attribute)
                          and isinstance(n.value, cst.Name) and n.value.value == loader), None)
        if attribute is not None:
            raise NeedsReview(f"`{loader}.{attribute.attr.value}` is used, which paddle.io.DataLoader does not have")
    if not all(_after_setter(order, setters, chain, stmt, path) for stmt, path, _ in reads):
        raise NeedsReview(f"`{loader}` is used where a path to it may not have set its data source, or set it twice")
    return Plan([b for b, _, _ in builds], [(s, setter_of(s)) for s, _, _ in setters])


def _targets(assign: cst.Assign) -> List[str]:
    """The names an assignment binds as a name or an element of a tuple or list target."""
    found = []
    for target in (t.target for t in assign.targets):
        elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        found += [e.value for e in elements if isinstance(e, cst.Name)]
    return found


def _uses_in_header(stmt: cst.BaseCompoundStatement, loader: str) -> bool:
    """`loader` in the part of a compound statement outside its blocks (an `if`'s test, a loop's iterable)."""
    blocks = {id(b) for b in _inner_blocks(stmt)}
    stack = [c for c in stmt.children if id(c) not in blocks and not isinstance(c, (cst.If, cst.Else))]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == loader:
            return True
        if not isinstance(node, (cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.Finally)):
            stack.extend(node.children)
    return False


def _used_nested(stmt: cst.CSTNode, loader: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == loader
               for d in descendants(stmt) if isinstance(d, _NESTED) for n in descendants(d))


def _setter_chain(setters) -> Optional[Tuple[cst.If, bool]]:
    """For several setters: the `if` chain with one of them directly in each of distinct branches, and
    whether every branch (an `else` too) has one; None for another shape."""
    top = _chain_top(setters[0][1])
    if top is None:
        return None
    blocks = _chain(top)
    taken = set()
    for _, setter_path, block in setters:
        if _chain_top(setter_path) is not top:
            return None
        owner = next((i for i, b in enumerate(blocks) if b is not None and _same(b.body, block)), None)
        if owner is None or owner in taken:
            return None
        taken.add(owner)
    return top, None not in blocks and len(taken) == len(blocks)


def _same(first, second) -> bool:
    return len(first) == len(second) and all(a is b for a, b in zip(first, second))


def _after_setter(order: Dict[int, int], setters, chain, stmt: cst.CSTNode, path: Path) -> bool:
    """Whether every path to `stmt` sets the source exactly once first: a setter earlier in a block
    around it (the same branch), or, after a whole `if` chain, a setter in every branch of it."""
    if any(_follows_in_block(order, setter, setter_path, block, stmt, path) for setter, setter_path, block in setters):
        return True
    if chain is None or not chain[1]:
        return False
    top = chain[0]
    outer = _chain_path(setters[0][1], top)
    return path[:len(outer)] == outer and order[id(stmt)] > order[id(top)] and \
        (len(path) == len(outer) or order[id(path[len(outer)])] > order[id(top)])


def _follows_in_block(order, setter, setter_path: Path, block, stmt: cst.CSTNode, path: Path) -> bool:
    """`stmt` is a later statement of the setter's block, or inside one."""
    if path[:len(setter_path)] != setter_path:
        return False
    outer = stmt if len(path) == len(setter_path) else path[len(setter_path)]
    return any(s is outer for s in block) and order[id(outer)] > order[id(setter)]


def _chain_top(path: Path) -> Optional[cst.If]:
    """The first `if` of the `elif` chain whose branch holds a statement of `path`."""
    if not path or not isinstance(path[-1], cst.If):
        return None
    i = len(path) - 1
    while i > 0 and isinstance(path[i - 1], cst.If) and path[i - 1].orelse is path[i]:
        i -= 1
    return path[i]  # type: ignore[return-value]


def _chain_path(path: Path, top: cst.If) -> Path:
    return path[:next(i for i, p in enumerate(path) if p is top)]


def check_build(ctx: Context, call: cst.Call, dygraph: bool, value_of) -> None:
    """NeedsReview unless the build `call` is one the rewrite keeps the meaning of (as generator_loader's)."""
    if call_args.has_star(call):
        raise NeedsReview("a build of the loader is called with *args/**kwargs")
    if value_of(call, "iterable", True) is not True:
        raise NeedsReview("a build of the loader is not iterable=True")
    if not dygraph:
        if call_args.get(call, "feed_list") is None:
            raise NeedsReview("a static-graph build of the loader without feed_list")
        if value_of(call, "return_list", False) is not False:
            raise NeedsReview("return_list=True in a static graph: 1.8 returned a list per place, 2.x one list")
        if value_of(call, "drop_last", True) is not True:
            raise NeedsReview("drop_last=False: 2.x always drops the batches that do not fill every place")
