"""What a local name holds, where the file itself says so: names bound once, in their scope, to a value.

Rewrites that follow a value beyond the call that makes it (a full reduction read as shape [1], the
methods of an optimizer) need to know which names hold it. The rule is deliberately simple and sound:
`name = <expression>` as a statement of its own, and no other binding of `name` in that scope
(parameters, loop targets, `global`, augmented assignments all count as bindings). A name bound twice,
or bound elsewhere, is unknown, and the code that reads it is left alone.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Set, Tuple

import libcst as cst

from refactors.scopes import Scope, descendants

_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def assigned_name(stmt: cst.CSTNode) -> Optional[Tuple[str, cst.BaseExpression]]:
    """(`name`, value) when `stmt` is the statement `name = value`, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value
    return None


def assigned_targets(stmt: cst.CSTNode) -> Optional[Tuple[List[Optional[str]], cst.BaseExpression]]:
    """([names], value) when `stmt` is `a, b = value` (a name or None for each element), else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return None
    target = small.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement) for e in target.elements):
        return None
    return [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements], small.value


def bound_once(scope: Scope, name: str) -> bool:
    """`name` has exactly one binding in `scope`, and the scope does not hand it to another."""
    return len(scope.bindings.get(name, ())) == 1 and name not in scope.globals and name not in scope.nonlocals


def statements(node: cst.CSTNode) -> Iterator[cst.BaseStatement]:
    """Every statement of a scope's own code (its body and the blocks in it, not nested definitions)."""
    body = node.body if isinstance(node, cst.Module) else getattr(node, "body", None)
    stack = list(reversed(_block(body)))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, _NESTED):
            inner: List[cst.BaseStatement] = []
            for block in _blocks(stmt):
                inner.extend(_block(block))
            stack.extend(reversed(inner))


def all_statements(node: cst.CSTNode) -> Iterator[cst.BaseStatement]:
    """Every statement in a module (or a compound statement's blocks), those of its functions and
    classes included, in source order."""
    stack = list(reversed(_block(node.body) if not isinstance(node, cst.Module) else node.body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, cst.BaseCompoundStatement):
            inner: List[cst.BaseStatement] = []
            for block in _blocks(stmt):
                inner.extend(_block(block))
            stack.extend(reversed(inner))


def consecutive(module: cst.Module) -> Iterator[Tuple[cst.BaseStatement, cst.BaseStatement]]:
    """Each pair of statements that follow one another in the same block, anywhere in `module`."""
    for owner in (module, *all_statements(module)):
        if owner is module:
            bodies: List[object] = [module.body]
        elif isinstance(owner, cst.BaseCompoundStatement):
            bodies = list(_blocks(owner))
        else:
            continue
        for body in bodies:
            block = _block(body)
            yield from zip(block, block[1:])


def held(stmt: cst.BaseCompoundStatement) -> List[cst.BaseStatement]:
    """The statements of the blocks of a compound statement (not those of the blocks in them)."""
    return [inner for block in _blocks(stmt) for inner in _block(block)]


def expressions(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and the nodes below it, not entering nested functions, classes or lambdas."""
    from refactors.scopes import children

    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed([c for c in children(current) if not isinstance(c, _NESTED)]))


def names_in(node: cst.CSTNode) -> Set[str]:
    """The names written in `node` (read or bound), not in nested functions, classes or lambdas."""
    return {n.value for n in expressions(node) if isinstance(n, cst.Name)}


def block_holding(owner: cst.CSTNode, stmt: cst.CSTNode) -> Optional[List[cst.BaseStatement]]:
    """The block of `owner` (a module, or a compound statement or definition) that holds `stmt` itself."""
    blocks = [owner.body] if isinstance(owner, cst.Module) else \
        list(_blocks(owner)) if isinstance(owner, cst.BaseCompoundStatement) else []
    for block in blocks:
        body = _block(block)
        if any(s is stmt for s in body):
            return body
    return None


def _block(body) -> List[cst.BaseStatement]:
    if isinstance(body, (list, tuple)):
        return list(body)
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return list(body.body)
    return []


def _blocks(stmt: cst.BaseCompoundStatement) -> Iterator[object]:
    if not isinstance(stmt, cst.Match):  # a `match` has its blocks in its cases only
        yield stmt.body
    for name in ("handlers", ):
        for handler in getattr(stmt, name, ()):
            yield handler.body
    orelse = getattr(stmt, "orelse", None)
    while isinstance(orelse, cst.If):  # elif chains
        yield orelse.body
        orelse = orelse.orelse
    if orelse is not None:
        yield orelse.body
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        yield final.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def binding_statements(scope: Scope, name: str) -> Optional[List[Tuple[cst.BaseSmallStatement, Optional[int]]]]:
    """Every binding of `name` in `scope`, when each is an assignment or an import statement of the
    scope's own code: (statement, None) for `name = value` and imports, (statement, i) for the
    i-th target of `a, name = value`. None when some binding is anything else (a parameter, a loop
    target, `with ... as`, `global`), which the caller cannot follow."""
    if name in scope.globals or name in scope.nonlocals or scope.is_class:
        return None
    found: List[Tuple[cst.BaseSmallStatement, Optional[int]]] = []
    for stmt in statements(scope.node):
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign):
                for target in (t.target for t in small.targets):
                    if isinstance(target, cst.Name) and target.value == name:
                        found.append((small, None))
                    elif isinstance(target, (cst.Tuple, cst.List)) \
                            and not any(isinstance(el, cst.StarredElement) for el in target.elements):
                        found.extend((small, i) for i, el in enumerate(target.elements)
                                     if isinstance(el.value, cst.Name) and el.value.value == name)
            elif isinstance(small, cst.Import):
                found.extend((small, None) for alias in small.names
                             if (alias.evaluated_alias or alias.evaluated_name.split(".")[0]) == name)
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                found.extend((small, None) for alias in small.names
                             if (alias.evaluated_alias or alias.evaluated_name) == name)
    return found if len(found) == len(scope.bindings.get(name, ())) else None


def changes(stmt: cst.CSTNode, names: Set[str]) -> Optional[str]:
    """A name of `names` that `stmt` may rebind or change (bound, or the receiver of a method call or
    an item/attribute assignment), else None."""
    for node in descendants(stmt):
        target = None
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            target = node.target
        elif isinstance(node, (cst.For, cst.CompFor)):
            target = node.target
        elif isinstance(node, (cst.AsName, cst.NamedExpr)):
            target = node.name if isinstance(node, cst.AsName) else node.target
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            target = node.name
        elif isinstance(node, cst.Del):
            target = node.target
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                while isinstance(bound, cst.Attribute):  # (`import a.b` binds `a`)
                    bound = bound.value
                if isinstance(bound, cst.Name) and bound.value in names:
                    return bound.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            target = node.func.value
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            found = [n.name.value for n in node.names if n.name.value in names]
            if found:
                return found[0]
        while isinstance(target, (cst.Subscript, cst.Attribute)):
            target = target.value
        for name in names_in(target) if target is not None else ():
            if name in names:
                return name
    return None
