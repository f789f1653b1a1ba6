"""The hot-path rebuild against libcst's own `node.visit` (its field order is proven for every node class in
tests/test_libcst_assumptions.py)."""
from __future__ import annotations

from typing import List

import libcst as cst

from refactors.fast.hot_paths import rebuild, source_order

# Constructs whose fields are not declared in source order, and the common rest.
SOURCE = '''\
import os
from a import (b as c, d)

@deco(x=1)
@other
def f(p, /, q: int = 1, *args, r, s=2, **kw) -> ret:
    """doc"""
    return g(p) if cond(q) else h(r)

class K(Base, metaclass=Meta):
    attr: T = v
    def m(self, *, k=lambda y: y + 1):
        try:
            pass
        except (E1, E2) as err:
            raise Wrapped(err) from err
        finally:
            z = [i for i in it if i]
        return {k2: v2 for k2, v2 in items}

match subject:
    case Point(x=0) if guard(x):
        pass
    case [first, *rest]:
        pass

with open(p) as fh, other() as (a, b):
    print(f"{fh!r:>{width}}", a[1:2:3], not b, -a ** b)
'''


def _all_nodes(node: cst.CSTNode) -> List[cst.CSTNode]:
    nodes = [node]
    for child in node.children:
        nodes.extend(_all_nodes(child))
    return nodes


class _Recorder(cst.CSTTransformer):
    """Renames `g`/`h`/`Base`/`x`, records every call it receives, and splits one statement in two."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: List[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.calls.append(("visit", type(node).__name__, id(node)))
        return super().on_visit(node)

    def on_leave(self, original, updated):
        self.calls.append(("leave", type(original).__name__, id(original)))
        return super().on_leave(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        renamed = updated.value in {"g", "h", "Base", "x"}
        return updated.with_changes(value=updated.value.upper()) if renamed else updated

    def leave_SimpleStatementLine(self, original, updated):
        if "attr" in cst.Module([]).code_for_node(original):
            return cst.FlattenSentinel([updated, cst.parse_statement("extra = 1\n")])
        return updated


def _reachable(node: cst.CSTNode) -> List[int]:
    """Nodes the rebuild can enter: through name-bearing fields only (never whitespace or tokens)."""
    out = [id(node)]
    for name in source_order(type(node)):
        value = getattr(node, name)
        for child in value if isinstance(value, (tuple, list)) else [value]:
            if isinstance(child, cst.CSTNode):
                out.extend(_reachable(child))
    return out


def test_all_hot_is_the_same_as_visit():
    module = cst.parse_module(SOURCE)
    reachable = _reachable(module)
    libcst_way, ours = _Recorder(), _Recorder()
    expected = module.visit(libcst_way)
    got = rebuild(module, ours, set(reachable))
    assert got.code == expected.code
    assert "G(p)" in got.code and "class K(BASE" in got.code and "extra = 1" in got.code
    # The same calls in the same order, for every node the rebuild may enter (libcst also enters
    # whitespace and punctuation).
    assert ours.calls == [call for call in libcst_way.calls if call[2] in set(reachable)]
    assert len(ours.calls) == 2 * len(reachable)


def test_cold_nodes_are_neither_entered_nor_rebuilt():
    module = cst.parse_module(SOURCE)
    func = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    klass = next(s for s in module.body if isinstance(s, cst.ClassDef))
    ret = func.body.body[1].body[0]
    call_g = ret.value.body
    hot = {id(module), id(func), id(func.body), id(func.body.body[1]), id(ret), id(ret.value), id(call_g),
           id(call_g.func)}
    recorder = _Recorder()
    got = rebuild(module, recorder, hot)
    assert "return G(p) if cond(q) else h(r)" in got.code  # h is cold: not renamed
    assert got.body[got.body.index(next(s for s in got.body if isinstance(s, cst.ClassDef)))] is klass
    assert all(call[1] != "ClassDef" for call in recorder.calls)
    assert len(recorder.calls) == 2 * len(hot)


def test_nothing_changed_returns_the_same_tree():
    module = cst.parse_module(SOURCE)
    everything = {id(n) for n in _all_nodes(module)}
    assert rebuild(module, cst.CSTTransformer(), everything) is module
