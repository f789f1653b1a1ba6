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
fixtures/legacy/apart_loader_static.py, returned_loader_dygraph.py). It is written only where every
path from a build to a use of the name sets the source exactly once, followed through the scope's own
code (`if` branches join; a loop or `try` may run any part of itself any number of times, so nothing there
may build or set it; a path knows the conditions of the `if`s it took, so an `if` with the same test goes the
same way: built, set and read under `if args.do_train:` each, refactors.branch_facts, checked on 1.8.5 and
3.3.1: fixtures/legacy/returned_reading_loop_flags_static.py): every binding of the name is such a build, no use of it (an attribute such as
`start()` included) can see a loader without its source, no setter one that has it already, and nothing in a
nested function or class uses it. generator_loader decides which builds of a scope take this route, all of
them or none. In a static graph a sample (list) generator is left: 1.8 converted its samples to the feed
variables' dtypes, which the setter cannot see.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from refactors import branch_facts, call_args, loader_across
from refactors.engine import Context, NeedsReview
from refactors.scopes import Scope, descendants

_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_LATER = (cst.Lambda, cst.GeneratorExp)  # code in a statement that may run after it
# What the name holds on one path: not bound yet, 1.8's loader without a source, or with one.
UNBOUND, BUILT, SET = "unbound", "built", "set"
# The paths reaching a point, by what the name holds, each with what the `if` tests taken on all of them
# tell (refactors.branch_facts); None where no path goes on.
States = Dict[str, branch_facts.Facts]


@dataclass
class Plan:
    builds: List[cst.SimpleStatementLine]
    setters: List[Tuple[cst.SimpleStatementLine, cst.Call]]


class _OtherShape(Exception):
    """The name is bound other than by a build: the shape does not apply."""


@dataclass
class _Flow:
    """Follows what `loader` holds along every path through a scope's own code (structured: `if`
    branches join, a loop or `try` may run any part, so nothing there may build or set it). A path knows
    the conditions of the `if`s it took (refactors.branch_facts), so an `if` whose test is one of them goes
    the same way: built and set under `if args.do_train:` each, the loader is read there with its source."""

    loader: str
    setter_of: Callable[[cst.CSTNode], Optional[cst.Call]]
    is_build: Callable[[cst.Assign], bool]
    allowed: FrozenSet[int] = frozenset()  # ids of attribute uses (`loader.start`) another check takes care of
    stable: Callable[[ast.AST], bool] = lambda test: False  # conditions that only the scope's code changes
    builds: List[cst.SimpleStatementLine] = field(default_factory=list)
    setters: List[Tuple[cst.SimpleStatementLine, cst.Call]] = field(default_factory=list)

    def block(self, body, states: Optional[States], fixed: bool) -> Optional[States]:
        """The states after the statements of `body` from `states` (None: no path goes on); `fixed` in a
        loop or `try`, where the name may not change."""
        if isinstance(body, cst.SimpleStatementSuite):  # `if x: a; b` on one line: no build or setter taken there
            return self.simple(body, states, True) if states is not None else None
        for stmt in body.body if isinstance(body, cst.IndentedBlock) else body:
            if states is None:
                return None
            states = self.statement(stmt, states, fixed)
        return states

    def statement(self, stmt: cst.CSTNode, states: States, fixed: bool) -> Optional[States]:
        if isinstance(stmt, _NESTED):
            if self._uses(stmt):
                raise NeedsReview(f"`{self.loader}` is used in a nested function or class, so when it is read is "
                                  f"not in sight")
            return _forget(states, stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            return self.simple(stmt, states, fixed)
        if isinstance(stmt, cst.If):
            return self.branches(stmt, states, fixed)
        self.read(self._header_uses(stmt), states)
        if isinstance(stmt, cst.With):
            return self.block(stmt.body, _forget(states, *(item for item in stmt.items)), fixed)
        states = _forget(states, stmt)  # a loop, `try` or `match`: any part may run, any number of times
        for inner in _inner_blocks(stmt):
            self.block(inner, states, True)
        return states

    def branches(self, stmt: cst.If, states: States, fixed: bool) -> Optional[States]:
        """An `if` with its `elif`s and `else`: each branch from the paths its test lets in."""
        after: List[Optional[States]] = []
        node: Optional[cst.CSTNode] = stmt
        while isinstance(node, cst.If):
            self.read(self._uses(node.test), states)
            states = _forget(states, node.test)
            test = branch_facts.parsed_test(node.test)
            after.append(self.block(node.body, self.assume(states, test, True), fixed))
            states = self.assume(states, test, False)
            node = node.orelse
            if states is None:
                break
        if states is not None:
            after.append(self.block(node.body, states, fixed) if node is not None else states)
        return _join(*after)

    def assume(self, states: Optional[States], test: Optional[ast.AST], truth: bool) -> Optional[States]:
        """The paths of `states` on which `test` may be `truth`, knowing it is."""
        if states is None or test is None:
            return states
        kept = {kind: facts | branch_facts.learned(test, truth, self.stable) for kind, facts in states.items()
                if branch_facts.decided(test, facts) in (None, truth)}
        return kept or None

    def simple(self, stmt: cst.CSTNode, states: States, fixed: bool) -> Optional[States]:
        """A line of small statements (`stmt` a SimpleStatementLine, or a one-line suite)."""
        if any(isinstance(n, _LATER) and self._uses(n) for n in descendants(stmt)):
            raise NeedsReview(f"`{self.loader}` is read by a lambda or generator expression, so when it is read is "
                              f"not in sight")
        small = stmt.body[0] if len(stmt.body) == 1 else None  # type: ignore[attr-defined]
        if isinstance(small, cst.Assign) and any(self.loader in _bound(t.target) for t in small.targets):
            if not self.is_build(small):
                raise _OtherShape
            self.change(fixed, "built")
            self.builds.append(stmt)  # type: ignore[arg-type]
            return _forget(_as(states, BUILT), stmt)
        setter = self.setter_of(stmt)
        if setter is not None:
            self.change(fixed, "given its data source")
            if SET in states:
                raise NeedsReview(f"`{self.loader}` may be given a data source twice")
            self.setters.append((stmt, setter))  # type: ignore[arg-type]
            return _forget(_as(states, SET), stmt)
        if any(self.loader in _bound(t.target) for t in descendants(stmt)
               if isinstance(t, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))):
            raise _OtherShape
        self.read(self._uses(stmt), states)
        if any(isinstance(s, (cst.Return, cst.Raise)) for s in stmt.body):  # type: ignore[attr-defined]
            return None
        return _forget(states, stmt)

    def change(self, fixed: bool, what: str) -> None:
        if fixed:
            raise NeedsReview(f"`{self.loader}` is {what} in a loop or `try`, so how often is known at run time only")

    def read(self, uses: List[cst.CSTNode], states: States) -> None:
        if not uses:
            return
        for node in uses:
            if isinstance(node, cst.Attribute) and id(node) not in self.allowed:
                raise NeedsReview(f"`{self.loader}.{node.attr.value}` is used, which paddle.io.DataLoader does not "
                                  f"have")
        if BUILT in states:
            raise NeedsReview(f"`{self.loader}` is used where a path to it has not set its data source")

    def _uses(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        """The uses of the name in `node`: `loader.attr` as the attribute, else the name."""
        found, seen = [], set()
        for n in descendants(node):
            if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value == self.loader:
                found.append(n)
                seen.add(id(n.value))
            elif isinstance(n, cst.Name) and n.value == self.loader and id(n) not in seen:
                found.append(n)
        return found

    def _header_uses(self, stmt: cst.BaseCompoundStatement) -> List[cst.CSTNode]:
        """The uses in the part of a compound statement outside its blocks (an `if`'s test, a loop's iterable)."""
        blocks = {id(b) for b in _inner_blocks(stmt)}
        found: List[cst.CSTNode] = []
        for child in stmt.children:
            if id(child) not in blocks and not isinstance(child, (cst.If, cst.Else, cst.ExceptHandler, cst.Finally,
                                                                  cst.BaseSuite, cst.MatchCase)):
                found += self._uses(child)
        return found


def _as(states: States, kind: str) -> States:
    """Every path of `states` now holding `kind`, knowing what all of them know."""
    return {kind: frozenset.intersection(*states.values())}


def _join(*states: Optional[States]) -> Optional[States]:
    """The paths of each of `states`: one per kind, knowing what all paths of that kind know."""
    joined: Dict[str, branch_facts.Facts] = {}
    for each in states:
        for kind, facts in (each or {}).items():
            joined[kind] = joined[kind] & facts if kind in joined else facts
    return joined or None


def _forget(states: States, *nodes: cst.CSTNode) -> States:
    """`states` without the facts about names one of `nodes` may change."""
    if not any(states.values()):
        return states
    return {kind: branch_facts.forget(facts, lambda names: any(branch_facts.changed_cst(n, names) for n in nodes))
            for kind, facts in states.items()}


def _inner_blocks(stmt: cst.BaseCompoundStatement) -> Iterator[cst.BaseSuite]:
    if not isinstance(stmt, cst.Match):
        yield stmt.body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    orelse = getattr(stmt, "orelse", None)
    if orelse is not None:
        yield cst.IndentedBlock(body=[orelse]) if isinstance(orelse, cst.If) else orelse.body
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        yield final.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def _bound(target: cst.CSTNode) -> List[str]:
    """The names an assignment target binds (not those an attribute or subscript target reads)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound(element.value)]
    if isinstance(target, cst.StarredElement):
        return _bound(target.value)
    return []


def plan(scope: Scope, loader: str, setter_of: Callable[[cst.CSTNode], Optional[cst.Call]],
         is_build: Callable[[cst.Assign], bool], allowed: FrozenSet[int] = frozenset(),
         provide: Callable[[Sequence[str]], None] = lambda words: None) -> Optional[Plan]:
    """The builds (assignments `is_build` accepts) and setters of `loader` in `scope` when every path from
    a build to a use of the name sets the source once; None when the name is bound otherwise or nothing
    sets it (the caller gives its own reason); NeedsReview where a path breaks the rule. The attribute
    uses `allowed` (ids) are read as the name is; `provide(words)` parses the parts of the module that say
    them where the fast way left them out (what may change an `if`'s test: branch_facts.stable_cst)."""
    if scope.is_class or loader in scope.globals or loader in scope.nonlocals:
        return None
    module = scope
    while module.parent is not None:
        module = module.parent
    flow = _Flow(loader, setter_of, is_build, allowed, branch_facts.stable_cst(module.node, scope.node, provide))
    try:
        flow.block(scope.node.body, {UNBOUND: branch_facts.NONE}, False)
    except _OtherShape:
        return None
    if not flow.builds or not flow.setters or len(flow.builds) != len(scope.bindings.get(loader, ())):
        return None
    return Plan(flow.builds, flow.setters)


def check_build(ctx: Context, call: cst.Call, dygraph: bool, value_of, iterable: bool = True) -> None:
    """NeedsReview unless the build `call` is one the rewrite keeps the meaning of (as generator_loader's);
    `iterable=False` where the plan also rewrites the loops that read it (loader_readers)."""
    if call_args.has_star(call):
        raise NeedsReview("a build of the loader is called with *args/**kwargs")
    if value_of(call, "iterable", True) is not iterable:
        raise NeedsReview(loader_across.READ_BY_PROGRAM)
    if not dygraph:
        if call_args.get(call, "feed_list") is None:
            raise NeedsReview("a static-graph build of the loader without feed_list")
        if value_of(call, "return_list", False) is not False:
            raise NeedsReview("return_list=True in a static graph: 1.8 returned a list per place, 2.x one list")
        if value_of(call, "drop_last", True) is not True:
            raise NeedsReview("drop_last=False: 2.x always drops the batches that do not fill every place")
