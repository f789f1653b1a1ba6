"""`loader.queue.size()` of a 1.8 loader the upgrade makes a 2.x `paddle.io.DataLoader`: the literal `0`.

1.8's loaders (`DataLoader.from_generator`, `PyReader`, `layers.py_reader`) fed the program from a blocking
queue of `capacity` batches, and `queue.size()` said how many batches it held at that instant: an int in
[0, capacity] that depends on how fast the reader fills it and the program drains it, so it changes from run
to run, and is 0 whenever the program waits on the reader (checked on 1.8.5: api_mapping/SEMANTICS.md 57,
fixtures/legacy/queue_size_static.py). Real code only logs it (BERT's `"train data_loader queue size: %d, " %
loader.queue.size()`). A 2.x DataLoader shows no queue (3.3.1: no `queue` attribute), so where every other
use of the loader is one the rewrite serves, such a call becomes `0`, a value 1.8 could give, with a finding
saying the logged number no longer tells anything.

Only that exact shape is taken: a call of `size()`, without arguments, on the `queue` attribute of the name
of the loader, in the own code of the scope that holds the name (not in a function or class defined there,
nor in one it is passed to), its value used (not a statement of its own); for an iterable loader, inside a
`for` loop that iterates it (its queue was None before: refactors.loader_receivers). Any other use of `queue`
stays what it was: refused by the check that judges the loader's uses. The checks count these calls as uses
served (CPython's parse: `names`), and the rewrites replace the same calls (libcst: `calls`, `rewrite`), so
both see one set.
"""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Iterator, List, Set

import libcst as cst

from refactors import findings as F
from refactors.cpython import own_nodes
from refactors.scopes import children, descendants

if TYPE_CHECKING:  # (the engine imports the steps that import this module)
    from refactors.engine import Context, Site

_WORDS = (re.compile(r"\bqueue\b"), re.compile(r"\bsize\b"))  # (a cheap test of the text first: both words)
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
SEMANTICS = "api_mapping/SEMANTICS.md 57"


# -- CPython's parse: what the checks count ------------------------------------------------------------

def _is_size_call(node: ast.AST, loader: str) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr == "size" and not node.args and \
        not node.keywords and isinstance(func.value, ast.Attribute) and func.value.attr == "queue" and \
        isinstance(func.value.value, ast.Name) and func.value.value.id == loader  # type: ignore[union-attr]


def size_calls(scope: ast.AST, loader: str) -> List[ast.Call]:
    """The calls `loader.queue.size()` in the own code of `scope` whose value is used."""
    alone = {id(s.value) for s in own_nodes(scope) if isinstance(s, ast.Expr)}
    return [n for n in own_nodes(scope) if _is_size_call(n, loader) and id(n) not in alone]  # type: ignore[misc]


def names(scope: ast.AST, loader: str) -> Set[int]:
    """The ids of the Name nodes of `loader` read by those calls (each a use the rewrite serves)."""
    return {id(call.func.value.value) for call in size_calls(scope, loader)}  # type: ignore[attr-defined]


def attributes(scope: ast.AST, loader: str) -> Set[int]:
    """The ids of their `loader.queue` attributes."""
    return {id(call.func.value) for call in size_calls(scope, loader)}  # type: ignore[attr-defined]


# -- libcst: what the rewrites replace ------------------------------------------------------------------

def _own(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of `root`'s scope, not those of the definitions in it (as cpython.own_nodes)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node is root or not isinstance(node, _NESTED):
            stack.extend(reversed(list(children(node))))


def _is_size(node: cst.CSTNode, loader: str) -> bool:
    func = node.func if isinstance(node, cst.Call) else None
    return isinstance(func, cst.Attribute) and func.attr.value == "size" and not node.args and \
        isinstance(func.value, cst.Attribute) and func.value.attr.value == "queue" and \
        isinstance(func.value.value, cst.Name) and func.value.value.value == loader  # type: ignore[union-attr]


def calls(ctx: "Context", scope: cst.CSTNode, loader: str) -> List[cst.Call]:
    """The calls `loader.queue.size()` in the own code of `scope` whose value is used (`size_calls`)."""
    if not _written(ctx.source):
        return []
    ctx.reads(scope, words=(loader,), into_definitions=False)
    alone = {id(small.value) for small in _own(scope) if isinstance(small, cst.Expr)}
    return [n for n in _own(scope) if _is_size(n, loader) and id(n) not in alone]  # type: ignore[misc]


def _written(text: str) -> bool:
    """The text says `queue` and `size` (as `(loader.queue).size()` or over a backslash still does)."""
    return all(word.search(text) for word in _WORDS)


def name_ids(found: List[cst.Call]) -> Set[int]:
    """The ids of the loader's Name nodes in `found`."""
    return {id(call.func.value.value) for call in found}  # type: ignore[attr-defined]


def attribute_ids(found: List[cst.Call]) -> Set[int]:
    """The ids of the `loader.queue` attributes in `found`."""
    return {id(call.func.value) for call in found}  # type: ignore[attr-defined]


def track(ctx: "Context") -> None:
    """Before the pass: the positions of the module's `<name>.queue.size()` calls, for their findings."""
    if not _written(ctx.source):
        return
    ctx.reads(ctx.module, words=("queue",))
    for node in descendants(ctx.module):
        if isinstance(node, cst.Call) and _is_size(node, _receiver(node)):
            ctx.track_position(node)


def _receiver(call: cst.Call) -> str:
    inner = getattr(getattr(call.func, "value", None), "value", None)
    return inner.value if isinstance(inner, cst.Name) else ""


def rewrite(ctx: "Context", site: "Site", scope: cst.CSTNode, loader: str) -> None:
    """Each `loader.queue.size()` of `calls` becomes `0` (parentheses kept), with an info finding at it."""
    for call in calls(ctx, scope, loader):
        ctx.replace(call, lambda updated, call=call: _zero(ctx, site, call, loader, updated))


def _zero(ctx: "Context", site: "Site", call: cst.Call, loader: str, updated: cst.CSTNode) -> cst.CSTNode:
    line, col = ctx.position_of(call)
    if not line:
        line, col = site.line, site.col
    ctx.report(None, F.CONVERTED, "info", f"{site.name}: `{loader}.queue.size()` -> 0: 2.x's paddle.io.DataLoader "
                                          f"shows no prefetch queue, so the queue size logged here is now always 0 "
                                          f"(1.8 gave the batches waiting at that instant, 0 to capacity, varying "
                                          f"with timing; {SEMANTICS})", True, line=line, col=col, api=site.name)
    return cst.Integer("0", lpar=updated.lpar, rpar=updated.rpar)  # type: ignore[attr-defined]
