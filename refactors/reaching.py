"""Which bindings of a name reach each read of it, following one function's statements.

A small reaching-definitions reading for one name: a binding the caller plans to follow is told by the
id of its statement (`name = value` alone on its line), any other binding (a parameter, another
assignment, a loop target, `with ... as`, `except ... as`, an import, `del`) is `OTHER`. Branches join
what each way gives, loops run to their fixed point (with `break` and `continue`), a `try` handler
sees what any statement of its body may have left, and so does the code after a `with` (its context
manager may swallow an exception). A read in a nested function, lambda or comprehension may see any
binding of the function. What this reading does not follow (`match`, `:=`, `global` or `nonlocal` of
the name) makes it give up.
"""
from __future__ import annotations

from typing import FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from refactors.engine import Context
from refactors.scopes import children

OTHER = "other"  # a binding of the name that is not one of the planned assignments
NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)

State = Optional[FrozenSet[object]]  # what bindings may reach a point; None: the point is not reached


def reads(ctx: Context, function: cst.FunctionDef, name: str,
          planned: Set[int]) -> Optional[List[Tuple[cst.Name, FrozenSet[object]]]]:
    """Each read of `name` in `function` with the bindings that may reach it (ids of `planned`
    statements, or OTHER); None when the reading gives up."""
    flow = _Flow(ctx, function, name, planned)
    flow.run()
    if flow.failed:
        return None
    return [*flow.reads, *((node, flow.everywhere) for node in flow.nested)]


def is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def walk(node: cst.CSTNode, skip: Optional[cst.CSTNode] = None, nested: bool = True):
    """`node` and the nodes under it, but `skip` (and, without `nested`, the definitions in it)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is skip or (not nested and current is not node and isinstance(current, NESTED)):
            continue
        yield current
        stack.extend(children(current))


class _Flow:
    """The statements of one function, read for one name: the bindings each read of it may see."""

    def __init__(self, ctx: Context, function: cst.FunctionDef, name: str, planned: Set[int]) -> None:
        self.ctx, self.function, self.name, self.planned = ctx, function, name, planned
        self.reads: List[Tuple[cst.Name, FrozenSet[object]]] = []
        self.nested: List[cst.Name] = []  # reads in nested scopes, which any binding may reach
        self.everywhere: FrozenSet[object] = frozenset()  # every binding of the name in the function
        self.failed = False
        self.loops: List[Tuple[List[State], List[State]]] = []  # per open loop: states at `break`, at `continue`

    def run(self) -> None:
        params = self.function.params
        start = frozenset([OTHER]) if self.name in {p.name.value for p in (
            *params.posonly_params, *params.params, *params.kwonly_params,
            *(p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)))} else frozenset()
        self.everywhere = start
        self._block(self.function.body.body, start)

    # statements
    def _block(self, body, state: State, trace: Optional[List[State]] = None) -> State:
        for stmt in body:
            state = self._statement(stmt, state)
            if trace is not None:
                trace.append(state)
        return state

    def _statement(self, stmt: cst.CSTNode, state: State) -> State:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                state = self._small(small, stmt, state)
            return state
        if isinstance(stmt, cst.If):
            self._reads(stmt.test, state)
            then = self._block(stmt.body.body, state)
            other = state if stmt.orelse is None else self._statement(stmt.orelse, state) \
                if isinstance(stmt.orelse, cst.If) else self._block(stmt.orelse.body.body, state)
            return _join(then, other)
        if isinstance(stmt, (cst.For, cst.While)):
            return self._loop(stmt, state)
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self._reads(item.item, state)
                if item.asname is not None and self._binds(item.asname.name):
                    state = self._bound(None, state)
            trace: List[State] = []
            out = self._block(stmt.body.body, state, trace)
            return _join(state, out, *trace)  # a context manager may swallow an exception midway
        if isinstance(stmt, cst.Try):
            trace = []
            body = self._block(stmt.body.body, state, trace)
            caught = _join(state, *trace)
            outs = [self._block(stmt.orelse.body.body, body) if stmt.orelse is not None else body]
            for handler in stmt.handlers:
                self._reads(handler.type, caught)
                start = self._bound(None, caught) if handler.name is not None and self._binds(handler.name.name) \
                    else caught
                outs.append(self._block(handler.body.body, start))
            after = _join(*outs)
            if stmt.finalbody is not None:
                return self._block(stmt.finalbody.body.body, _join(after, caught))
            return after
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            self._reads(stmt, state)
            return self._bound(None, state) if stmt.name.value == self.name else state
        if any(is_name(n, self.name) for n in walk(stmt)):
            self.failed = True  # a statement this reading does not follow (`match`, ...)
        return state

    def _loop(self, stmt, state: State) -> State:
        self._reads(stmt.iter if isinstance(stmt, cst.For) else stmt.test, state)
        breaks: List[State] = []
        continues: List[State] = []
        self.loops.append((breaks, continues))
        head, out = state, None
        for _ in range(4):  # the states are small sets: a few passes reach the fixed point
            start = head
            if isinstance(stmt, cst.For) and self._binds(stmt.target):
                start = self._bound(None, head)
            out = self._block(stmt.body.body, start)
            again = _join(head, out, *continues)
            if again == head:
                break
            head = again
        self.loops.pop()
        finished = _join(head, out, *continues)
        if stmt.orelse is not None:
            finished = self._block(stmt.orelse.body.body, finished)
        return _join(finished, *breaks)

    def _small(self, small: cst.CSTNode, line: cst.SimpleStatementLine, state: State) -> State:
        if isinstance(small, (cst.Global, cst.Nonlocal)):
            if any(n.name.value == self.name for n in small.names):
                self.failed = True
            return state
        if isinstance(small, cst.Assign):
            self._reads(small.value, state)
            for target in small.targets:
                self._reads(target.target, state, stores=True)
                if self._binds(target.target):
                    whole = isinstance(target.target, cst.Name) and len(small.targets) == 1
                    state = self._bound(line if whole else None, state)
            return state
        if isinstance(small, (cst.AugAssign, cst.AnnAssign)):
            self._reads(small.value, state)
            self._reads(small.target, state, stores=not isinstance(small, cst.AugAssign))
            return self._bound(None, state) if self._binds(small.target) and (
                isinstance(small, cst.AugAssign) or small.value is not None) else state
        if isinstance(small, cst.Del):
            self._reads(small.target, state, stores=True)
            return frozenset() if self._binds(small.target) and state is not None else state
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            names = small.names if not isinstance(small.names, cst.ImportStar) else ()
            bound = {(a.asname.name.value if a.asname else cst.helpers.get_full_name_for_node(a.name) or "")
                     .split(".")[0] for a in names if not a.asname or isinstance(a.asname.name, cst.Name)}
            return self._bound(None, state) if self.name in bound else state
        self._reads(small, state)
        if isinstance(small, (cst.Return, cst.Raise)):
            return None
        if isinstance(small, (cst.Break, cst.Continue)) and self.loops:
            self.loops[-1][0 if isinstance(small, cst.Break) else 1].append(state)
            return None
        return state

    def _binds(self, target: cst.CSTNode) -> bool:
        return any(is_name(n, self.name) for n in walk(target))

    def _bound(self, line: Optional[cst.CSTNode], state: State) -> State:
        token: object = id(line) if line is not None and id(line) in self.planned else OTHER
        self.everywhere |= {token}
        return None if state is None else frozenset([token])

    def _reads(self, node: Optional[cst.CSTNode], state: State, stores: bool = False) -> None:
        """Note the reads of the name in `node`; one in a nested scope that does not bind the name may
        see any binding of the function (`nested`)."""
        if node is None:
            return
        stack = [(node, False)]
        while stack:
            current, nested = stack.pop()
            if isinstance(current, cst.NamedExpr) and self._binds(current.target):
                self.failed = True
            if isinstance(current, NESTED):
                scope = self.ctx.resolver.scopes.get(id(current))
                if scope is not None and self.name in scope.nonlocals:
                    self.failed = True  # a nested function rebinds it when it is called
                if scope is not None and self.name in scope.bindings:
                    # a name of its own there; what the definition evaluates here is read here
                    stack.extend((part, nested) for part in _evaluated_outside(current))
                    continue
                nested = True
            if is_name(current, self.name) and not (stores and current is node):
                if nested:
                    self.nested.append(current)
                elif state is not None:
                    self.reads.append((current, state))
            stack.extend((child, nested) for child in children(current))


def _evaluated_outside(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The parts of a definition (or comprehension) evaluated in the scope around it: decorators,
    defaults, bases, the first iterable."""
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        params = node.params
        parts: List[cst.CSTNode] = [p.default for p in (*params.posonly_params, *params.params,
                                                        *params.kwonly_params) if p.default is not None]
        return parts + [d.decorator for d in getattr(node, "decorators", ())]
    if isinstance(node, cst.ClassDef):
        return [*(d.decorator for d in node.decorators), *(a.value for a in (*node.bases, *node.keywords))]
    return [node.for_in.iter]  # type: ignore[attr-defined]


def _join(*states: State) -> State:
    reached = [s for s in states if s is not None]
    return frozenset().union(*reached) if reached else None
