"""What the name resolution and the fast way assume about libcst, proven for every libcst node class.

- `scopes.child_fields` skips fields that hold only whitespace and tokens: none of them can hold a
  name (read from the type annotations of every node class).
- `hot_paths.source_order` is the order in which libcst's own `visit` enters a node's children (read
  from each class's `_visit_and_replace_children`).
- `statement_visitor.HOLDS_STATEMENTS` are the classes that can hold a statement, and only `Module` and
  `IndentedBlock` hold statements directly, with `If` (its `elif`, which is never copied): the only
  parents of a copied statement (fast.codegen). Both generate a statement by its `_codegen` alone: a
  stand-in without any of a statement's fields gives the same code, for every kind of statement in
  every kind of block.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
import textwrap
import typing
from typing import Dict, Iterator, List, Set, Type

import libcst as cst
import pytest

from refactors.fast import codegen, positions
from refactors.fast.hot_paths import source_order
from refactors.scopes import child_fields
from refactors.statement_visitor import HOLDS_STATEMENTS


def node_classes() -> List[Type[cst.CSTNode]]:
    """Every concrete libcst node class (the public one where `add_slots` left a second copy)."""
    seen: Set[type] = set()
    stack: List[type] = [cst.CSTNode]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return sorted((c for c in seen if not inspect.isabstract(c) and c.__module__.startswith("libcst.")
                   and getattr(sys.modules[c.__module__], c.__qualname__, None) is c), key=lambda c: c.__name__)


CLASSES = node_classes()


def _mentioned(annotation) -> Iterator[type]:
    """The node classes a type annotation mentions (inside Sequence, Union, Optional...)."""
    if isinstance(annotation, type) and issubclass(annotation, cst.CSTNode):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _mentioned(arg)


def _concrete(kind: type) -> List[type]:
    return [c for c in CLASSES if issubclass(c, kind)]


FIELDS: Dict[type, Dict[str, List[type]]] = {
    c: {name: sorted({k for m in _mentioned(hint) for k in _concrete(m)}, key=lambda k: k.__name__)
        for name, hint in typing.get_type_hints(c).items() if name in {f.name for f in dataclasses.fields(c)}}
    for c in CLASSES}


def _closure(start: Set[type]) -> Set[type]:
    """The classes that are in `start` or have a field that can hold one of the closure."""
    found = set(start)
    grew = True
    while grew:
        grew = False
        for c in CLASSES:
            if c not in found and any(k in found for kinds in FIELDS[c].values() for k in kinds):
                found.add(c)
                grew = True
    return found


def test_the_classes_are_found() -> None:
    assert len(CLASSES) > 150 and cst.Name in CLASSES and cst.Lambda in CLASSES


def test_skipped_fields_cannot_hold_a_name() -> None:
    holds_name = _closure({cst.Name})
    wrong = [f"{c.__name__}.{name}: {[k.__name__ for k in kinds if k in holds_name]}"
             for c in CLASSES for name, kinds in FIELDS[c].items()
             if name not in child_fields(c) and any(k in holds_name for k in kinds)]
    assert not wrong


def _visiting_order(kind: type) -> List[str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(kind._visit_and_replace_children)))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id.startswith("visit_") and len(n.args) > 1 and isinstance(n.args[1], ast.Constant)]
    order: List[str] = []
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        if call.args[1].value not in order:
            order.append(call.args[1].value)
    return order


@pytest.mark.parametrize("kind", CLASSES, ids=lambda c: c.__name__)
def test_source_order_is_libcsts_visiting_order(kind: type) -> None:
    theirs = _visiting_order(kind)
    assert set(child_fields(kind)) - set(theirs) <= {f.name for f in dataclasses.fields(kind)
                                                       if not FIELDS[kind].get(f.name)}, "a node field libcst skips"
    assert [f for f in source_order(kind) if f in theirs] == [f for f in theirs if f in child_fields(kind)]


STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def test_only_modules_and_indented_blocks_hold_statements() -> None:
    statements = {c for c in CLASSES if issubclass(c, STATEMENTS)}
    direct = {c for c in CLASSES if any(k in statements for kinds in FIELDS[c].values() for k in kinds)}
    assert direct == {cst.Module, cst.IndentedBlock, cst.If}
    assert [n for n, kinds in FIELDS[cst.If].items() if set(kinds) & statements] == ["orelse"]  # an `elif`
    holders = _closure(statements) - {cst.SimpleStatementLine}
    assert {c for c in holders if not issubclass(c, HOLDS_STATEMENTS)} == set()


# Every kind of statement, in every kind of block; odd layout on purpose.
EVERY_STATEMENT = '''\
# a comment
import os, sys as system
from . import (a,
    b)
x = y = 1;  z: int = 2 ;w += 3
del x
assert x, "m"
global g
pass; break_ = continue_ = None
raise E from F
print(x) \\
    # after a continuation
@decorate
async def f(a, /, b=1, *c, d, **e) -> T:
    nonlocal q
    async with m() as n, o: return
    async for i in j:
        await k
    else:
        yield l
    return (yield from m)
class C(B, metaclass=M):
    """doc"""
    def g(self): return lambda: 1


    def h(self):
        pass
        # footer of h

if a:
    pass
elif b: c = 1
else:
        d = 2
for i in r: pass
else: pass
while t:
    break
else:
    continue_ = 1
try:
    pass
except E as err:
    raise
except (F, G):
    pass
else:
    pass
finally:
    pass
try:
    pass
except* E:
    pass
with a as b, c:
  with d:
            e = 1
match s:
    case [1, *rest] if rest:
        pass
    case {"k": v, **kw}:
        pass
    case Point(x=0) | None:
        pass
    case _:
        pass
lambda_ = [i for i in range(3) if i]
'''


def _statements(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for child in node.children:
        if isinstance(child, STATEMENTS):
            yield child
        yield from _statements(child)


def _ancestors(module: cst.Module) -> Dict[int, List[int]]:
    """id(statement) -> ids of the nodes above it."""
    out: Dict[int, List[int]] = {}

    def walk(node: cst.CSTNode, path: List[int]) -> None:
        for child in node.children:
            if isinstance(child, STATEMENTS):
                out[id(child)] = path
            walk(child, path + [id(child)])
    walk(module, [id(module)])
    return out


@pytest.mark.parametrize("ending", ["", "\n"], ids=["no-final-newline", "final-newline"])
def test_a_statement_is_generated_by_its_text_alone(ending: str) -> None:
    source = EVERY_STATEMENT.rstrip("\n") + ending
    module = cst.parse_module(source)
    above = _ancestors(module)
    statements = {id(s): s for s in _statements(module)}
    kinds = set()
    for stmt in statements.values():
        kinds.add(type(stmt))
        recorded = positions.layout(module, [], set(above[id(stmt)]), source).recorded
        elif_ = any(isinstance(s, cst.If) and s.orelse is stmt for s in statements.values())
        assert (id(stmt) in recorded) != elif_ and set(recorded) <= set(statements), "only statements are recorded"
        # A stand-in has none of a statement's fields: a parent that read one would fail.
        assert codegen.code(module, recorded) == source, type(stmt).__name__
    assert {c for c in CLASSES if issubclass(c, STATEMENTS)} <= kinds, "a statement class the sample lacks"
