"""Every value a name can hold where it is read, when the file shows them all: a small set, not one value.

`fluid.layers.affine_channel(..., act=act)` in `def _conv_norm(self, ..., act=None)`, which the file calls
with `act='relu'`, `act=None` and `act=act` from `for i, (c, k, s, act, g, _name) in enumerate(conv_def)`
over list displays: `act` is 'relu' or None. refactors.constants tells a name fixed to one value; this
module takes the union over everything that can bind it, and says which part leaves the set open:

- A name of a function's own scope (not `global`/`nonlocal`): each of its bindings gives values, and the
  name holds one of them at any read (or is unbound, an error either way). A binding is `name = <value>`,
  a `for` target (over a list or tuple display, a name whose every binding is one and which is only
  iterated, or `enumerate` of those), or the function's parameter. Any other binding leaves it open.
- A parameter has its default where a call passes nothing, and what each call passes, read in the
  caller: so every call must be in sight, by refactors.constants' rule (only ever called by name in the
  file, never passed around, not decorated, not `forward` or a method Python calls for you; nested, or
  `_private`) or, for a public function, no other module of the tree naming it (callers.named_elsewhere);
  a public method also needs its class built on `object` or on classes of the file (`Constants.own_bases`:
  a framework's base class may call the methods it defines).
  A method is called through an instance (`self._conv_norm(...)`): its `self` is not in the arguments;
  one called through a class of the file (`ResNet._conv_norm(self, ...)`) leaves it open. Another module
  that says the method's name only as `self.<name>` in classes of its own defining it calls its own.
  `__init__`'s calls are those of its class (`ConvPool(4, act='relu')`), which must not be subclassed
  (a subclass may pass anything through `super().__init__`); `super(ConvPool, self)` is no call of it.
- A value is what refactors.constants evaluates (a literal, a name bound once to one), or a choice
  `A if c else B` of two such.

Reads CPython's parse of the whole file (refactors.constants' index of it).
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Tuple, Union

import libcst as cst

from refactors import constants
from refactors.engine import Context, NeedsReview, Site
from refactors.cpython import own_nodes
from refactors.transformers.callers import named_elsewhere

_MAX_DEPTH = 6  # calls followed back from a parameter to the argument that sets it
_IMPLICIT = {"forward", "__call__", "__init__", "__new__"}
_OPEN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
                ast.DictComp, ast.GeneratorExp)
_MISSING = object()


class _Open(Exception):
    """The set is not closed; the message says what opens it."""


def values_at(ctx: Context, site: Site, node: cst.BaseExpression) -> Tuple[Any, ...]:
    """Every value `node`, read at the call `site`, can have, in the order the file first shows them;
    NeedsReview saying what leaves the set open."""
    shown = ctx.code(node).strip()
    expr = constants.parse_expression(shown)
    table, at = ctx.constants_at(site)
    if expr is None or table is None or at is None:
        raise NeedsReview(f"`{shown}` cannot be read")
    try:
        found = _Values(ctx, table, expr, shown).expression(expr, table.scope_at(*at), at, 0)
    except _Open as why:
        raise NeedsReview(str(why)) from None
    return tuple(dict.fromkeys(found))


def the_value(ctx: Context, site: Site, node: cst.BaseExpression) -> Any:
    """The one value `node`, read at the call `site`, can have; NeedsReview when it may have several, or
    the file does not show them all."""
    values = values_at(ctx, site, node)
    if len(values) != 1:
        raise NeedsReview(f"`{ctx.code(node).strip()}` is one of {', '.join(map(repr, values))}")
    return values[0]


class _Values:
    def __init__(self, ctx: Context, table: constants.Constants, read: ast.expr, shown: str) -> None:
        self.ctx, self.table, self.index = ctx, table, table.index
        self.read = {id(n) for n in ast.walk(read)}  # the expression at the site, parsed from `shown`
        self.shown = shown
        self.parameters: Dict[int, Union[List[Any], _Open]] = {}  # id(binding) -> its values, or why not
        self.busy: Set[Tuple[int, str]] = set()  # (scope, name) whose values are being found

    def text(self, node: ast.AST) -> str:
        source = self.shown if id(node) in self.read else self.ctx.source
        return (ast.get_source_segment(source, node) or "it").strip()

    def expression(self, expr: ast.expr, scope, at: Tuple[int, int], depth: int) -> List[Any]:
        value = self.table.evaluate(expr, scope, at)
        if constants.known(value) and _hashable(value):
            return [value]
        if isinstance(expr, ast.IfExp):
            return self.expression(expr.body, scope, at, depth) + self.expression(expr.orelse, scope, at, depth)
        if isinstance(expr, ast.Name):
            return self.name(expr.id, scope, depth)
        raise _Open(f"`{self.text(expr)}` is not a value the file shows")

    def name(self, name: str, scope, depth: int) -> List[Any]:
        found = _resolve(name, scope)
        if found is None or name in self.index.redirected or not isinstance(found.node, (ast.FunctionDef,
                                                                                         ast.AsyncFunctionDef)):
            raise _Open(f"`{name}` is not a name of the function's own")
        key = (id(found), name)
        if key in self.busy:
            raise _Open(f"`{name}` is bound to a value made from itself")
        self.busy.add(key)
        try:
            return self._bound(name, found, depth)
        finally:
            self.busy.discard(key)

    def _bound(self, name: str, found, depth: int) -> List[Any]:
        bindings = found.bindings[name]
        loops = _loops(found.node, name)
        if sum(b.kind == "other" for b in bindings) != sum(_count(loop.target, name) for loop in loops):
            raise _Open(f"`{name}` is bound in a way other than `=`, a `for` or as a parameter")
        values: List[Any] = []
        for binding in bindings:
            if binding.kind == "param":
                values += self.parameter(name, binding, found, depth)
            elif binding.kind == "assign":
                stmt = binding.stmt
                values += self.expression(binding.value, found, (stmt.lineno, stmt.col_offset), depth)
        for loop in loops:
            values += self.loop(loop, name, found, depth)
        return values

    # -- `for` targets ------------------------------------------------------------------------------------
    def loop(self, loop: ast.For, name: str, scope, depth: int) -> List[Any]:
        target, iterable = loop.target, loop.iter
        if _is_enumerate(iterable) and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
            if _count(target.elts[0], name):
                raise _Open(f"`{name}` counts the items")
            target, iterable = target.elts[1], iterable.args[0]  # type: ignore[attr-defined]
        values: List[Any] = []
        for element in self.elements(iterable, scope):
            values += self.match(target, element, name, scope, depth)
        return values

    def elements(self, iterable: ast.expr, scope) -> List[ast.expr]:
        if isinstance(iterable, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in iterable.elts):
            return list(iterable.elts)
        if isinstance(iterable, ast.Name):
            found = _resolve(iterable.id, scope)
            if found is not None and iterable.id not in self.index.redirected \
                    and isinstance(found.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and all(b.kind == "assign" for b in found.bindings[iterable.id]) \
                    and all(self._only_iterated(read) for read in _reads(found.node, iterable.id)) \
                    and (id(found), iterable.id) not in self.busy:
                self.busy.add((id(found), iterable.id))
                try:
                    return [e for b in found.bindings[iterable.id] for e in self.elements(b.value, found)]
                finally:
                    self.busy.discard((id(found), iterable.id))
        raise _Open(f"`{self.text(iterable)}` is not a list the file shows, or is changed")

    def _only_iterated(self, read: ast.Name) -> bool:
        """Whether this read of a list leaves it and its items as they are: `len` of it, or a loop over it
        (or `enumerate` of it) that unpacks each item into names, so no name holds an item to change."""
        parent = self.index.parents.get(id(read))
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len":
            return True
        counted = isinstance(parent, ast.Call) and _is_enumerate(parent)
        if counted:
            read, parent = parent, self.index.parents.get(id(parent))  # type: ignore[assignment]
        if not (isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is read):
            return False
        target = parent.target
        if counted:
            if not (isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2):
                return False
            target = target.elts[1]
        return isinstance(target, (ast.Tuple, ast.List)) and _unpacked(target)

    def match(self, target: ast.expr, element: ast.expr, name: str, scope, depth: int) -> List[Any]:
        if not _count(target, name):
            return []
        if isinstance(target, ast.Name):
            return self.expression(element, scope, (element.lineno, element.col_offset), depth)
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(element, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(element.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*target.elts, *element.elts)):
            return [v for t, e in zip(target.elts, element.elts) for v in self.match(t, e, name, scope, depth)]
        raise _Open(f"`{name}` is unpacked from `{self.text(element)}`")

    # -- parameters -----------------------------------------------------------------------------------
    def parameter(self, name: str, binding, scope, depth: int) -> List[Any]:
        """Each parameter once per question (a parameter passed on through many calls of many functions)."""
        found = self.parameters.get(id(binding))
        if found is None:
            try:
                found = self.parameters[id(binding)] = self._parameter(name, binding, scope, depth)
            except _Open as why:
                found = self.parameters[id(binding)] = why
        if isinstance(found, _Open):
            raise found
        return found

    def _parameter(self, name: str, binding, scope, depth: int) -> List[Any]:
        function = binding.stmt
        if isinstance(function, ast.Lambda):
            raise _Open(f"`{name}` is a parameter of a lambda")
        if depth >= _MAX_DEPTH:
            raise _Open(f"`{name}` comes through too many calls")
        fname, owner = function.name, scope.parent
        callee, method, offset = fname, owner.is_class, 1 if owner.is_class else 0
        if method and fname == "__init__" and not function.decorator_list:
            cls = owner.node  # called as the class: `Net(...)` passes what follows `self`
            if cls.decorator_list or cls.keywords:
                raise _Open(f"class `{cls.name}` is decorated or made by a metaclass")
            callee, method = cls.name, False
            self.closed(callee, owner.parent)
        elif function.decorator_list or fname in _IMPLICIT or fname.startswith("__"):
            raise _Open(f"`{fname}` may be called where the file does not show")
        else:
            self.closed(fname, owner)
        values: List[Any] = []
        calls = self.calls(callee, method)
        for call in calls:
            passed = _passed(call, name, binding.index - offset)
            if passed is _MISSING:
                if binding.value is None:
                    raise _Open(f"a call of `{callee}` passes no `{name}`")
                values += self.expression(binding.value, owner, (function.lineno, function.col_offset), depth + 1)
            else:
                at = (call.lineno, call.col_offset)
                values += self.expression(passed, self.table.scope_at(*at), at, depth + 1)  # type: ignore[arg-type]
        if not calls:
            raise _Open(f"the file does not call `{callee}`")
        return values

    def closed(self, fname: str, owner) -> None:
        """No call of the function can be out of sight (the module docstring)."""
        if isinstance(owner.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return  # nested: only its own function can call it
        if owner.is_class and not fname.startswith("_") and not self.table.own_bases(owner.node):
            raise _Open(f"`{fname}` is a public method of `{owner.node.name}`, whose base of another library "
                        "may call it with other values")
        if named_elsewhere(self.ctx, fname, _own_method if owner.is_class else None):  # type: ignore[arg-type]
            raise _Open(f"another module names `{fname}` and may call it with other values")
        if not fname.startswith("_") and self.ctx.other_modules is None:
            raise _Open(f"`{fname}` is public, and other modules may call it with other values")

    def calls(self, fname: str, method: bool) -> List[ast.Call]:
        """Every call of the function in the file."""
        if fname in self.index.strings:
            raise _Open(f"the file names `{fname}` in a string (getattr)")
        reads: List[ast.expr] = list(self.index.names.get(fname, ()))
        if method:
            if reads:
                raise _Open(f"`{fname}` is used bare somewhere, so what it is cannot be told")
            reads = list(self.index.attributes.get(fname, ()))
        found = []
        for read in reads:
            call = self.index.parents.get(id(read))
            if _names_super(call, read):
                continue  # `super(Net, self)`: the base class's methods, not this one
            if isinstance(call, ast.ClassDef):
                raise _Open(f"`{fname}` is subclassed, and a subclass may pass other values")
            if not (isinstance(call, ast.Call) and call.func is read):
                raise _Open(f"`{fname}` is passed around, so where it is called cannot be told")
            if method and isinstance(read.value, ast.Name) and read.value.id in self.index.classes:  # type: ignore[attr-defined]
                raise _Open(f"`{fname}` is called through its class")
            found.append(call)
        return found


def _names_super(call: Optional[ast.AST], read: ast.AST) -> bool:
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "super" \
        and bool(call.args) and call.args[0] is read


def _own_method(module: Optional[ast.Module], name: str) -> bool:
    """The module says `name` only of methods of its own: only as `<x>.name` in classes of it that define
    `name` (where `self.name` finds their own method, or an override, never one of another module), and
    in no other name, attribute, import or string."""
    if module is None:
        return False
    own = set()
    for cls in ast.walk(module):
        if isinstance(cls, ast.ClassDef) and any(
                isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in cls.body):
            own.update(id(n) for n in ast.walk(cls) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name))
    for node in ast.walk(module):
        if isinstance(node, ast.Attribute) and node.attr == name and id(node) not in own \
                or isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Constant) and node.value == name:
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                alias.name == "*" or name in alias.name.split(".") or alias.asname == name for alias in node.names):
            return False
    return True


def _passed(call: ast.Call, name: str, index: int) -> Any:
    """What `call` passes for the parameter (its position among the call's arguments: `index`, -1 for
    keyword-only); _MISSING when nothing."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise _Open(f"a call passes `*args` or `**kwargs`, so what it gives `{name}` cannot be told")
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if 0 <= index < len(call.args):
        return call.args[index]
    return _MISSING


def _resolve(name: str, scope):
    current = scope
    while current is not None:
        if (current is scope or not current.is_class) and name in current.bindings:
            return current
        current = current.parent
    return None


def _loops(function: ast.AST, name: str) -> List[ast.For]:
    return [n for n in own_nodes(function, _OPEN_SCOPES)
            if isinstance(n, (ast.For, ast.AsyncFor)) and _count(n.target, name)]


def _reads(function: ast.AST, name: str) -> List[ast.Name]:
    return [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]


def _count(target: ast.AST, name: str) -> int:
    return sum(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _unpacked(target: ast.AST) -> bool:
    """A target of names only, unpacked (`c, (k, act)`): each name takes an item of an item."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_unpacked(e) for e in target.elts)
    return isinstance(target, ast.Name)


def _is_enumerate(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "enumerate" \
        and len(node.args) == 1 and not node.keywords


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
