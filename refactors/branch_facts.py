"""What a path through a function knows from the `if` tests it took: a later `if` with an equal test goes
the same way.

1.8 scripts build, set and read one object under one flag, each time in an `if` of its own:

    if args.do_train:
        train_loader, loss = create_model(args)
    ...
    if args.do_train:
        train_loader.set_batch_generator(reader)
    if args.do_train:
        train_loader.start()

Every path that built the loader took the first `if`, so it takes the second and third too: the setter runs
on each of them. A test counts when it is a condition: names and attributes of them, constants, `not`,
`and`/`or` and comparisons, no call (which may change what it reads) and no walrus. Two tests are equal
when CPython parses them alike (`ast.dump`). What a branch tells holds until a statement of the path may
change a name the test reads (rebinds it, assigns an attribute or item of it, calls a method of it:
`changed`), and the test counts only where nothing out of the path may: no `global` or `nonlocal` of its
names anywhere in the module, no nested function or class of the scope that changes them, and no code of
the module outside the scope's own (other functions, which the scope may call) assigning an attribute the
test reads, nor `setattr`/`delattr`. A function of another module given `args` is taken not to assign its
attributes (the flags a script parsed), the one assumption beyond the file.

The core reads CPython's parse (`ast`); a libcst test is read through it (`parsed_test`), and libcst's
statements through `changed_cst`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

from refactors.cpython import NESTED, own_nodes, parse


@dataclass(frozen=True)
class Fact:
    """A test's value on a path: `key` the test as CPython dumps it, `names` the names it reads."""

    key: str
    truth: bool
    names: FrozenSet[str]


Facts = FrozenSet[Fact]
NONE: Facts = frozenset()
_COMPARE = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def is_condition(test: ast.AST) -> bool:
    """A test whose value is fixed while the names it reads and their attributes are (see the docstring)."""
    if isinstance(test, ast.Name) or isinstance(test, ast.Constant):
        return True
    if isinstance(test, ast.Attribute):
        return is_condition(test.value) and not isinstance(test.value, ast.Constant)
    if isinstance(test, ast.UnaryOp):
        return isinstance(test.op, (ast.Not, ast.USub)) and is_condition(test.operand)
    if isinstance(test, ast.BoolOp):
        return all(is_condition(v) for v in test.values)
    if isinstance(test, ast.Compare):
        return all(isinstance(op, _COMPARE) for op in test.ops) and \
            all(is_condition(v) for v in (test.left, *test.comparators))
    return False


def names(test: ast.AST) -> FrozenSet[str]:
    return frozenset(n.id for n in ast.walk(test) if isinstance(n, ast.Name))


def attributes(test: ast.AST) -> FrozenSet[str]:
    return frozenset(n.attr for n in ast.walk(test) if isinstance(n, ast.Attribute))


def learned(test: ast.AST, truth: bool, stable: Callable[[ast.AST], bool]) -> Facts:
    """What taking the branch where `test` is `truth` tells: the test's value and, through `not`, `and`
    (true) and `or` (false), its parts'; only of conditions `stable` accepts."""
    if not is_condition(test) or isinstance(test, ast.Constant):
        return NONE
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return learned(test.operand, not truth, stable)
    found: Set[Fact] = set()
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if truth else ast.Or):
        for value in test.values:
            found |= learned(value, truth, stable)
    if stable(test):
        found.add(Fact(ast.dump(test), truth, names(test)))
    return frozenset(found)


def decided(test: ast.AST, facts: Facts) -> Optional[bool]:
    """The value of `test` on a path that knows `facts`; None when they do not tell it."""
    if not facts or not is_condition(test):
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = decided(test.operand, facts)
        return None if inner is None else not inner
    key = ast.dump(test)
    known = {f.truth for f in facts if f.key == key}
    if len(known) == 1:
        return known.pop()
    if isinstance(test, ast.BoolOp):
        parts = [decided(v, facts) for v in test.values]
        short = isinstance(test.op, ast.Or)  # (the value that decides the whole)
        if short in parts:
            return short
        if all(p is (not short) for p in parts):
            return not short
    return None


def forget(facts: Facts, changed: Callable[[FrozenSet[str]], bool]) -> Facts:
    """`facts` but those about names `changed` says a statement may change."""
    return frozenset(f for f in facts if not changed(f.names)) if facts else facts


def changed(stmt: ast.AST, watched: Iterable[str]) -> bool:
    """Whether `stmt` (CPython's) may change a name of `watched`: binds it, assigns or deletes an attribute or
    item of it, calls a method of it, or names it `global`/`nonlocal` (nested definitions included)."""
    watched = set(watched)
    for node in ast.walk(stmt):
        target: Optional[ast.AST] = None
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            target = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            if watched.intersection(node.names):
                return True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in watched:
                return True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) in watched for a in node.names):
                return True
        while isinstance(target, (ast.Attribute, ast.Subscript, ast.Starred)):
            target = target.value
        if isinstance(target, ast.Name) and target.id in watched:
            return True
    return False


def stable_cpython(module: ast.Module, scope: ast.AST) -> Callable[[ast.AST], bool]:
    """Whether a condition read in the own code of `scope` (a function or the module) can change only by
    statements of that code (see the docstring)."""
    own = {id(n) for n in own_nodes(scope)}
    nested = [n for n in own_nodes(scope) if isinstance(n, NESTED)]
    declared = {name for n in ast.walk(module) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    elsewhere = {n.attr for n in ast.walk(module) if isinstance(n, ast.Attribute) and
                 not isinstance(n.ctx, ast.Load) and id(n) not in own}
    reflective = any(isinstance(n, ast.Name) and n.id in ("setattr", "delattr") for n in ast.walk(module))

    def stable(test: ast.AST) -> bool:
        read = names(test)
        return not reflective and not read & declared and not attributes(test) & elsewhere and \
            not any(changed(n, read) for n in nested)
    return stable


def path_after(scope: ast.AST, stmt: ast.stmt, stable: Callable[[ast.AST], bool]) -> List[ast.stmt]:
    """The statements of `scope`'s own code (CPython's) that run after `stmt` on the paths that ran it, in
    order, as far as one list tells them: the rest of its block and, past the end of a `with`'s body (run
    once) or of a branch of an `if`, what follows that statement in the block around it; an `if` there whose
    test the tests taken to `stmt` decide (a fact `stable` accepts, not changed in between) gives the
    statements of the branch it takes, and none where no branch is taken."""
    parents: Dict[int, Tuple[ast.AST, str, List[ast.stmt]]] = {}
    for node in (scope, *own_nodes(scope)):
        if node is not scope and isinstance(node, NESTED):
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for child in block:
                    parents[id(child)] = (node, name, block)
        for handler in getattr(node, "handlers", ()):
            for child in handler.body:
                parents[id(child)] = (handler, "body", handler.body)
    levels: List[Tuple[ast.AST, str, List[ast.stmt], int]] = []
    current: ast.AST = stmt
    while id(current) in parents:
        parent, name, block = parents[id(current)]
        levels.append((parent, name, block, next(i for i, s in enumerate(block) if s is current)))
        if not isinstance(parent, (ast.With, ast.AsyncWith, ast.If)):
            break
        current = parent
    facts = NONE
    for parent, name, block, index in reversed(levels):  # what the path knows at `stmt`, outermost first
        if isinstance(parent, ast.If):
            facts |= learned(parent.test, name == "body", stable)
        elif isinstance(parent, (ast.With, ast.AsyncWith)):
            facts = forget(facts, lambda watched: any(changed(item, watched) for item in parent.items))
        facts = forget(facts, lambda watched: any(changed(s, watched) for s in block[:index]))
    found: List[ast.stmt] = []

    def run(statements: Sequence[ast.stmt]) -> None:
        nonlocal facts
        for each in statements:
            if isinstance(each, ast.If) and decided(each.test, facts) is not None:
                run(each.body if decided(each.test, facts) else each.orelse)
                continue
            found.append(each)
            facts = forget(facts, lambda watched: changed(each, watched))

    for parent, name, block, index in levels:
        run(block[index + 1:])
        if not isinstance(parent, (ast.With, ast.AsyncWith, ast.If)):
            break
    return found


def parsed_test(test: cst.BaseExpression) -> Optional[ast.AST]:
    """CPython's parse of a libcst test, when it is a condition."""
    tree = parse(cst.Module([]).code_for_node(test).strip(), mode="eval")
    body = tree.body if isinstance(tree, ast.Expression) else None
    return body if body is not None and is_condition(body) else None


def changed_cst(stmt: cst.CSTNode, watched: Iterable[str]) -> bool:
    """`changed` for a libcst statement (or part of one)."""
    from refactors.local_values import changes  # (the rule generator_loader reads its arguments by)

    return changes(stmt, set(watched)) is not None


def stable_cst(module: cst.Module, scope: cst.CSTNode,
               provide: Callable[[Sequence[str]], None] = lambda words: None) -> Callable[[ast.AST], bool]:
    """`stable_cpython` for the libcst scope node `scope` (a function, or `module` itself); `provide(words)`
    first parses the parts of the module that say one of the words, where the fast way left them out
    (`Context.reads`): those that may change what a test reads."""
    from refactors.scopes import descendants

    known: Dict[str, bool] = {}

    def stable(test: ast.AST) -> bool:
        key = ast.dump(test)
        if key not in known:
            read, attrs = names(test), attributes(test)
            provide(sorted(read | attrs | {"setattr", "delattr"}))  # (`global`s are never left out)
            own = list(_own_cst(scope))
            nested = [n for n in own if isinstance(n, _NESTED_CST) and n is not scope]
            own_ids = {id(n) for n in own}
            found = True
            for node in descendants(module):
                if isinstance(node, (cst.Global, cst.Nonlocal)) and read & {n.name.value for n in node.names} or \
                        isinstance(node, cst.Name) and node.value in ("setattr", "delattr"):
                    found = False
                elif isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)) and \
                        id(node) not in own_ids and attrs & {p.attr.value for p in descendants(node.target)
                                                             if isinstance(p, cst.Attribute)}:
                    found = False
                if not found:
                    break
            known[key] = found and not any(changed_cst(n, read) for n in nested)
        return known[key]
    return stable


_NESTED_CST = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _own_cst(scope: cst.CSTNode):
    """The nodes of `scope`'s own code, with the definitions in it (not what is inside them)."""
    from refactors.scopes import children

    stack = [scope]
    while stack:
        node = stack.pop()
        yield node
        if node is scope or not isinstance(node, _NESTED_CST):
            stack.extend(children(node))
