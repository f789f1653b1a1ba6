"""Values the file (and its tree) fixes: a name bound once to a literal, where a rewrite needs the literal.

`fluid.layers.data(shape=image_shape)` with `image_shape = [3, 224, 224]` in the same function, a
module constant, a class attribute read as `self.X`, a parameter's default: the table's transformers
need the value (`emit.value_of`, `engine.literal`), and this module gives it when the file proves it.
The rule is simple and sound, and says "unknown" otherwise:

- A name is known when its scope binds it exactly once, by `name = <value>` (or `name: T = <value>`),
  and `<value>` is known. Any other binding makes it unknown: a second assignment, augmented
  assignment, `for`/`with`/`except`/`del` targets, unpacking, a walrus, a comprehension
  target, `global`/`nonlocal` anywhere in the file for that name, a star import in that scope after
  the assignment (one before it brings nothing the assignment does not rebind). In a
  module or class body the assignment must be one of the body's own statements (not under `if`,
  `try`, ...; a `with` block is fine), and a use in that same body must come after it. A name bound
  once by an import is known by the rule for other modules below.
- A parameter is known when it is bound only as the parameter, every call of its function is in sight,
  and all of them give it one value: the same known value passed (by keyword, by position; a call
  through `*args`/`**kwargs` is not read), or the default where a call passes nothing (a mutable default
  is shared between calls: unknown). The calls are in sight when the function is only ever called by name
  in this file (never passed around, not decorated, not `forward` or a dunder method that Python or a
  Layer calls for you; a method passed a value by position only through `self.` or `super()`, as
  `Cls.m(obj, ...)` gives `self` too), and other modules cannot call it: it is defined in another
  function, or named `_private`, or, where the file's tree is in sight (`others`), no other module of the
  tree says its name (`loader_across.named_elsewhere`; a model zoo's `train.py` passes `data_format=` to
  `models/resnet.py`'s `net()`), a public method being of a class on `object` or on classes of the file
  alone (a framework's base class calls the methods it defines: a PaddleHub Module's `context()`). A
  name said only outside Python files (a YAML config naming a function for a framework to call) is not
  seen. A class's `__init__` is called by the class's calls: the class is bound
  once, not decorated, no metaclass, its name only called or given to `super(Cls, self)` (no subclass),
  no instance made without its name (`self.__class__(...)`, `type(self)(...)`), and private, nested or
  named by no other module.
- A name another module of the tree binds (`from config import X`, `import config` + `config.X`, or a
  name this module binds nowhere, from the last of its star imports that gives it, `from desc import *`)
  is known when that module fixes it by these rules once it has run, and nothing can change it after: that
  module calls no `setattr` (nor `globals()`, `vars()`, ...), no module of the tree assigns or deletes an
  attribute of that name (of anything), none that names the module calls `setattr`, and the value holds no
  list, dict or set (another module may change one it imports). A star import whose module is out of the
  tree (paddle's) may bring any name: a name read where one ran is unknown. Modules are found as
  `tree_index` finds them (beside the script, relative, above its packages), read through
  `Context.other_modules` (the result then depends on the tree, for the content cache): a module reached
  through a `sys.path` entry set at run time, or from outside the tree, is not seen, the one assumption
  beyond the tree (`tree_index`'s too).
- `Cls.X` (and `self.X` in a method of a `_private` class: another module may subclass a public one
  and bind its own X) is known when the class body binds `X` once (as above), no other class of the
  file binds `X`, and nothing in the file assigns or deletes an attribute `X` or calls `setattr`.
- A list, dict or set value is known only while every read of the name (or attribute) is one that
  cannot change it: an operand, an index, iteration, an element of a display via `*`, or an argument
  of a builtin, a paddle or a numpy function.
- Values combine: literals, displays, unary and binary arithmetic, concatenation and indexing by a
  known index (`[3, IMAGE_SIZE[1], IMAGE_SIZE[0]]`). Where part of a list is unknown the known items
  are still told (`Some`), which is all 1.8's `layers.data` rule needs when one of them is negative.

Reads CPython's parse of the whole file (and of the other modules it consults), so it does not depend on
which parts libcst parsed (refactors.fast.partial_parse).
"""
from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from refactors import cpython, loader_across
from refactors.tree_index import TreeIndex, either_tree, file_stat

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()


class Some(tuple):
    """A list or tuple of which only these items are known (in no particular place)."""


_SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_MAX_DEPTH = 12
_MAX_ITEMS = 4096
# Calls that never change an argument: Python's builtins that only read, and any paddle or numpy function.
_READERS = {"len", "list", "tuple", "sum", "min", "max", "print", "str", "repr", "int", "float", "sorted",
            "reversed", "enumerate", "zip", "range", "any", "all", "set", "isinstance", "bool", "abs", "round"}
_READER_MODULES = {"fluid", "layers", "paddle", "np", "numpy", "F", "nn", "dygraph"}
_MUTATORS = {"shuffle", "copyto", "put", "place", "putmask", "fill_diagonal"}  # numpy functions that write
_IMPLICIT_METHODS = {"forward", "__call__", "__init__", "__new__"}


@dataclass(eq=False)
class _Binding:
    kind: str  # "assign", "param", "import" or "other"
    value: Optional[ast.expr] = None  # the assigned value, or the parameter's default
    stmt: Optional[ast.AST] = None  # the assignment, the function of the parameter, or the import
    index: int = -1  # a parameter's position (-1: keyword-only)
    alias: Optional[ast.alias] = None  # what an import binds


@dataclass(eq=False)
class _Scope:
    node: ast.AST
    parent: Optional["_Scope"]
    bindings: Dict[str, List[_Binding]] = field(default_factory=dict)
    stars: List[ast.stmt] = field(default_factory=list)  # its star imports

    def past_stars(self, binding: _Binding) -> bool:
        """No star import of this scope can rebind the name after `binding`: there is none, or every
        one comes before the binding, an assignment of the body itself (which rebinds whatever the
        star import brought)."""
        stmt = binding.stmt
        return not self.stars or binding.kind in ("assign", "import") and stmt is not None \
            and all(_at(star) < _at(stmt) for star in self.stars)

    @property
    def is_class(self) -> bool:
        return isinstance(self.node, ast.ClassDef)

    @property
    def is_comprehension(self) -> bool:
        return isinstance(self.node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))

    def bind(self, name: str, binding: _Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


class _Index(ast.NodeVisitor):
    """One walk over the file: its scopes and their bindings, and what the soundness checks need."""

    def __init__(self, tree: ast.Module) -> None:
        self.scope = _Scope(tree, None)
        self.module = self.scope
        self.scopes: List[_Scope] = [self.scope]
        self.of_node: Dict[int, _Scope] = {id(tree): self.scope}  # id(scope node) -> scope
        self.parents: Dict[int, ast.AST] = {}
        self.redirected: Set[str] = set()  # names some scope declares global or nonlocal
        self.attr_stores: Set[str] = set()  # attributes assigned or deleted anywhere
        self.class_attrs: Dict[str, int] = {}  # attribute name -> how many class bodies bind it
        self.setattr_used = False
        self.names: Dict[str, List[ast.Name]] = {}  # every Name read, by id
        self.attributes: Dict[str, List[ast.Attribute]] = {}  # every `<expr>.attr` read, by attr
        self.strings: Set[str] = set()  # string literals that may name a function to call (getattr, globals())
        self.classes: Set[str] = set()  # the names of the file's classes
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
        self.generic_visit(tree)
        for scope in self.scopes:
            if scope.is_class:
                for name in scope.bindings:
                    self.class_attrs[name] = self.class_attrs.get(name, 0) + 1

    # -- scopes ---------------------------------------------------------------------------------------
    def _open(self, node: ast.AST) -> _Scope:
        scope = _Scope(node, self.scope)
        self.scopes.append(scope)
        self.of_node[id(node)] = scope
        return scope

    def _in(self, scope: _Scope, nodes) -> None:
        outer, self.scope = self.scope, scope
        for node in nodes:
            if node is not None:
                self.visit(node)
        self.scope = outer

    def _function(self, node) -> None:
        if not isinstance(node, ast.Lambda):
            self.scope.bind(node.name, _Binding("other", stmt=node))
            for dec in node.decorator_list:
                self.visit(dec)
            if node.returns is not None:
                self.visit(node.returns)
        args = node.args
        for default in (*args.defaults, *[d for d in args.kw_defaults if d is not None]):
            self.visit(default)
        scope = self._open(node)
        positional = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for i, (arg, default) in enumerate(zip(positional, defaults)):
            scope.bind(arg.arg, _Binding("param", default, node, i))
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            scope.bind(arg.arg, _Binding("param", default, node, -1))
        for arg in (args.vararg, args.kwarg):
            if arg is not None:
                scope.bind(arg.arg, _Binding("other"))
        self._in(scope, node.body if isinstance(node.body, list) else [node.body])

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.bind(node.name, _Binding("other", stmt=node))
        self.classes.add(node.name)
        for part in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(part)
        self._in(self._open(node), node.body)

    def _comprehension(self, node) -> None:
        first = node.generators[0]
        self.visit(first.iter)  # evaluated in the enclosing scope
        scope = self._open(node)
        outer, self.scope = self.scope, scope
        for i, gen in enumerate(node.generators):
            self._target(gen.target)
            if i:
                self.visit(gen.iter)
            for cond in gen.ifs:
                self.visit(cond)
        for part in ("elt", "key", "value"):
            if hasattr(node, part):
                self.visit(getattr(node, part))
        self.scope = outer

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    # -- bindings -------------------------------------------------------------------------------------
    def _target(self, target: ast.AST, binding: Optional[_Binding] = None) -> None:
        if isinstance(target, ast.Name):
            self.scope.bind(target.id, binding or _Binding("other"))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element)
        elif isinstance(target, ast.Starred):
            self._target(target.value)
        else:
            if isinstance(target, ast.Attribute):
                self.attr_stores.add(target.attr)
            self.visit(target)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self._target(target, _Binding("assign", node.value, node) if isinstance(target, ast.Name) else None)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        simple = node.value is not None and isinstance(node.target, ast.Name)
        self._target(node.target, _Binding("assign", node.value, node) if simple else None)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self._target(node.target)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target)

    def visit_For(self, node) -> None:
        self._target(node.target)
        for part in (node.iter, *node.body, *node.orelse):
            self.visit(part)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        self.visit(node.context_expr)
        if node.optional_vars is not None:
            self._target(node.optional_vars)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.scope.bind(node.name, _Binding("other"))
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        scope = self.scope
        while scope.is_comprehension and scope.parent is not None:
            scope = scope.parent
        scope.bind(node.target.id, _Binding("other"))
        self.visit(node.value)

    def visit_Import(self, node) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.scope.stars.append(node)
            else:
                self.scope.bind((alias.asname or alias.name).split(".")[0], _Binding("import", stmt=node, alias=alias))

    visit_ImportFrom = visit_Import

    def visit_Global(self, node) -> None:
        self.redirected.update(node.names)

    visit_Nonlocal = visit_Global

    def visit_MatchAs(self, node) -> None:
        if node.name:
            self.scope.bind(node.name, _Binding("other"))
        self.generic_visit(node)

    def visit_MatchStar(self, node) -> None:
        if node.name:
            self.scope.bind(node.name, _Binding("other"))

    def visit_MatchMapping(self, node) -> None:
        if node.rest:
            self.scope.bind(node.rest, _Binding("other"))
        self.generic_visit(node)

    # -- reads ----------------------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.names.setdefault(node.id, []).append(node)
        else:  # a Store or Del this walk did not see as a target (cannot happen in valid code)
            self.scope.bind(node.id, _Binding("other"))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self.attributes.setdefault(node.attr, []).append(node)
        else:
            self.attr_stores.add(node.attr)
        self.visit(node.value)

    def visit_Constant(self, node: ast.Constant) -> None:
        # a piece of a built string (`name + '_bn'`, an f-string's text) or a docstring names nothing alone
        if isinstance(node.value, str) and not isinstance(self.parents.get(id(node)), (ast.BinOp, ast.JoinedStr, ast.Expr)):
            self.strings.add(node.value)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr", "globals", "locals", "vars",
                                                                "exec", "eval", "__import__"):
            self.setattr_used = True
        self.generic_visit(node)


class Constants:
    """What the file fixes about the names a use site reads (see the module docstring). `others`, when the
    file has a tree around it: asked (only when a rule needs the tree) for the `TreeIndex` of the module
    being upgraded (`engine.Context.other_modules`, which marks the result as depending on the tree)."""

    def __init__(self, tree: ast.Module, others: Optional[Callable[[], Optional[TreeIndex]]] = None,
                 path: Optional[str] = None, modules: Optional[Dict[str, Optional["Constants"]]] = None) -> None:
        self.index = _Index(tree)
        self._scope_ranges = sorted(
            ((_body_range(s.node), s) for s in self.index.scopes if s.parent is not None),
            key=lambda item: item[0])
        self._busy: Set[int] = set()
        self._others = others
        self._path = path  # None: the module being upgraded (the TreeIndex's origin)
        self._modules: Dict[str, Optional[Constants]] = {} if modules is None else modules  # path -> its constants
        self._said: Dict[Tuple[str, str], bool] = {}  # memo of `_patched`

    def scope_at(self, line: int, col: int) -> "_Scope":
        """The innermost scope whose code holds the position (1-based line, 0-based byte column)."""
        found = self.index.module
        for (start, end), scope in self._scope_ranges:
            if start <= (line, col) < end:
                found = scope  # sorted by start: a later match is nested in an earlier one
        return found

    # -- evaluation -----------------------------------------------------------------------------------
    def evaluate(self, expr: ast.expr, scope: _Scope, at: Tuple[int, int], depth: int = 0) -> Any:
        """The value of `expr` read in `scope` at position `at`; UNKNOWN (or a `Some`, or containers
        holding UNKNOWN) for what the file does not fix."""
        if depth > _MAX_DEPTH:
            return UNKNOWN
        try:
            return self._evaluate(expr, scope, at, depth)
        except (TypeError, ValueError, ArithmeticError, IndexError, KeyError, RecursionError, MemoryError):
            return UNKNOWN

    def _evaluate(self, expr: ast.expr, scope: _Scope, at: Tuple[int, int], depth: int) -> Any:
        go = lambda e: self.evaluate(e, scope, at, depth + 1)  # noqa: E731
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, ast.Name):
            return self._name(expr.id, scope, at, depth)
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr, scope, at, depth)
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return _display(expr, [go(e.value) if isinstance(e, ast.Starred) else go(e) for e in expr.elts])
        if isinstance(expr, ast.Dict):
            if any(k is None for k in expr.keys):
                return UNKNOWN
            keys, values = [go(k) for k in expr.keys], [go(v) for v in expr.values]
            return UNKNOWN if any(not known(k) for k in keys) else dict(zip(keys, values))
        if isinstance(expr, ast.UnaryOp):
            return _unary(expr.op, go(expr.operand))
        if isinstance(expr, ast.BinOp):
            return _binary(expr.op, go(expr.left), go(expr.right))
        if isinstance(expr, ast.Subscript):
            container = go(expr.value)
            key = slice(*(go(part) if part is not None else None
                          for part in (expr.slice.lower, expr.slice.upper, expr.slice.step))) \
                if isinstance(expr.slice, ast.Slice) else go(expr.slice)
            if isinstance(key, slice) and not all(known(v) and not isinstance(v, bool)
                                                  for v in (key.start, key.stop, key.step)):
                return UNKNOWN
            if isinstance(container, (list, tuple, dict, str)) and not isinstance(container, Some) and known(key) \
                    and not isinstance(key, bool):
                return container[key]
        return UNKNOWN

    def _name(self, name: str, scope: _Scope, at: Tuple[int, int], depth: int) -> Any:
        if name in self.index.redirected:
            return UNKNOWN
        found = _resolve(self.index, name, scope)
        if found is None:
            return self._starred(name, scope, at, depth)
        binding = self._bound_once(name, scope, found, at)
        if binding is None or id(binding) in self._busy:
            return UNKNOWN
        self._busy.add(id(binding))
        try:
            if binding.kind == "param":
                value = self._parameter(name, binding, found, depth)
            elif binding.kind == "import":
                value = self._imported(binding, depth)
            else:
                value = self.evaluate(binding.value, found, _at(binding.stmt), depth + 1)  # type: ignore[arg-type]
            if _mutable(value) and not all(self._only_read(n) for n in self.index.names.get(name, ())):
                return UNKNOWN
            return value
        finally:
            self._busy.discard(id(binding))

    def _bound_once(self, name: str, scope: _Scope, found: _Scope, at: Tuple[int, int]) -> Optional[_Binding]:
        """The one binding of `name` in `found` a read in `scope` at `at` sees, when it is sure to have run."""
        bindings = found.bindings[name]
        if len(bindings) != 1 or bindings[0].kind == "other" or not found.past_stars(bindings[0]):
            return None
        binding = bindings[0]
        if binding.kind != "param" and not isinstance(found.node, _FUNCTIONS):  # a module or class body, run once
            if not self._unconditional(binding.stmt, found.node):  # type: ignore[arg-type]
                return None  # under `if`/`try`/...: may not have run
            if _runs_now(scope, found) and _at(binding.stmt) >= at:  # type: ignore[arg-type]
                return None  # read before it is bound (a builtin, or an error)
        return binding

    # -- parameters -----------------------------------------------------------------------------------
    def _parameter(self, name: str, binding: _Binding, scope: _Scope, depth: int) -> Any:
        """The default where no call passes the parameter, or the one value all calls give it, when every
        call of its function is in sight."""
        function = binding.stmt
        owner = scope.parent
        if owner is None or isinstance(function, ast.Lambda) or function.decorator_list:  # type: ignore[union-attr]
            return UNKNOWN
        found = self._calls(function, owner)  # type: ignore[arg-type]
        if found is None:
            return UNKNOWN
        shift, calls = found
        default = UNKNOWN
        if binding.value is not None:
            default = self.evaluate(binding.value, owner, _at(function), depth + 1)  # type: ignore[arg-type]
            default = UNKNOWN if _mutable(default) else default  # a mutable default is shared between calls
        values = [default] if not calls else []
        for call in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return UNKNOWN
            passed = next((k.value for k in call.keywords if k.arg == name), None)
            position = binding.index - shift
            if passed is None and 0 <= position < len(call.args):
                if not self._bound_receiver(call):
                    return UNKNOWN  # `Cls.method(obj, ...)` passes `self` too: cannot tell which it is
                passed = call.args[position]
            if passed is None:
                values.append(default)
            else:
                values.append(self.evaluate(passed, self.scope_at(*_at(call)), _at(call), depth + 1))
        first = values[0]
        if not all(known(v) and type(v) is type(first) and repr(v) == repr(first) for v in values):
            return UNKNOWN
        return first

    def _calls(self, function: ast.FunctionDef, owner: _Scope) -> Optional[Tuple[int, List[ast.Call]]]:
        """Every call of the function (and how many positionals the call gives before the first one it
        passes: 1 for a method, whose `self` is bound); None when it may be called where the file does not
        show: passed around, decorated, called for you (`forward`), or public where other modules call it."""
        fname = function.name
        if fname in self.index.strings:
            return None  # `getattr(self, '_block')(...)` or `globals()['f'](...)` calls it out of sight
        if owner.is_class:
            if fname == "__init__":
                return self._constructions(owner)
            if fname in _IMPLICIT_METHODS or fname.startswith("__") or self.index.names.get(fname):
                return None  # called for you, or the name used bare somewhere: cannot tell what it is
            shift, reads = 1, self.index.attributes.get(fname, [])
        else:
            shift, reads = 0, self.index.names.get(fname, [])
        if (owner.is_class or owner.parent is None) and not fname.startswith("_") and (
                self._named_elsewhere(fname) or owner.is_class and not self.own_bases(owner.node)):  # type: ignore
            return None  # a public function or method another module (or a base's framework) may call so
        calls = []
        for read in reads:
            call = self.index.parents.get(id(read))
            if not (isinstance(call, ast.Call) and call.func is read):
                return None  # passed around: called where the file does not show
            calls.append(call)
        return shift, calls

    def _constructions(self, owner: _Scope) -> Optional[Tuple[int, List[ast.Call]]]:
        """The calls of a class, which run its `__init__`, when they are all in sight: the class is bound
        once, not decorated, no metaclass, no subclass (its name is only called, or given to `super`), no
        instance made without its name (`self.__class__(...)`, `type(self)(...)`), and, public, not named by
        another module."""
        cls = owner.node
        outer = owner.parent
        if outer is None or outer.is_class or cls.decorator_list or cls.keywords \
                or len(outer.bindings.get(cls.name, ())) != 1:  # type: ignore[attr-defined]
            return None
        if self.index.attributes.get("__class__") or self.index.names.get("type") or cls.name in self.index.strings:
            return None
        if outer.parent is None and not cls.name.startswith("_") and self._named_elsewhere(cls.name):  # type: ignore
            return None
        calls = []
        for read in self.index.names.get(cls.name, ()):  # type: ignore[attr-defined]
            parent = self.index.parents.get(id(read))
            if isinstance(parent, ast.Call) and parent.func is read:
                calls.append(parent)
            elif not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "super"
                      and parent.args and parent.args[0] is read):
                return None
        return 1, calls

    def own_bases(self, cls: ast.ClassDef, depth: int = 0) -> bool:
        """The class derives from `object` alone, or from classes of this module bound once that do: no
        base of another library (a Layer, a framework's Module) calls its methods for it."""
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            found = _resolve(self.index, base.id, self.index.module) if isinstance(base, ast.Name) else None
            bindings = found.bindings[base.id] if found is not None else []  # type: ignore[attr-defined]
            if depth > _MAX_DEPTH or len(bindings) != 1 or not isinstance(bindings[0].stmt, ast.ClassDef) \
                    or not self.own_bases(bindings[0].stmt, depth + 1):
                return False
        return not cls.keywords

    def _bound_receiver(self, call: ast.Call) -> bool:
        """The call is a plain call or a class's, or a method's through `self` or `super(...)`: it gives the
        function's parameters after `self` in order."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return True
        receiver = func.value
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
            return True
        if not isinstance(receiver, ast.Name):
            return False
        found = _resolve(self.index, receiver.id, self.scope_at(*_at(call)))
        bindings = found.bindings[receiver.id] if found is not None else []
        return len(bindings) == 1 and bindings[0].kind == "param" and bindings[0].index == 0 \
            and found.parent is not None and found.parent.is_class and not bindings[0].stmt.decorator_list  # type: ignore

    def _named_elsewhere(self, name: str) -> bool:
        """Whether a module of the tree other than this one may say `name` (so true where the tree is not in
        sight, and for a module read across the tree, whose own parameters no value here depends on)."""
        index = self._tree()
        return index is None or self._path is not None or loader_across.named_elsewhere(index, name)

    # -- across modules -------------------------------------------------------------------------------
    def _tree(self) -> Optional[TreeIndex]:
        return self._others() if self._others is not None else None

    def _module_path(self, dotted: str, level: int) -> Optional[str]:
        """The path of the module of the tree this module imports as `dotted` (`level` dots before it)."""
        index = self._tree()
        if index is None:
            return None
        return index.file_of(self._path or os.path.abspath(index.origin), dotted, level)

    def _module(self, path: str) -> Optional["Constants"]:
        """The constants of the module of the tree at `path` (read once per file being upgraded)."""
        if path not in self._modules:
            stat = file_stat(path)
            read = either_tree(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None
            index = self._tree()
            if read is not None and index is not None:
                index.reads[path] = read[1]
            self._modules[path] = Constants(read[0], self._others, path, self._modules) if read is not None else None
        return self._modules[path]

    def _imported(self, binding: _Binding, depth: int) -> Any:
        """`X` bound by `from m import X`: the value module m fixes."""
        stmt, alias = binding.stmt, binding.alias
        if not isinstance(stmt, ast.ImportFrom) or alias is None:
            return UNKNOWN  # `import m` binds a module (`_attribute` reads `m.X`)
        path = self._module_path(stmt.module or "", stmt.level)
        return self._from_module(path, alias.name, depth) if path is not None else UNKNOWN

    def _imported_module(self, name: str, scope: _Scope, at: Tuple[int, int]) -> Optional[str]:
        """The path of the module of the tree `name` is bound to by an import (`import config`, `from pkg
        import config`)."""
        found = _resolve(self.index, name, scope)
        binding = self._bound_once(name, scope, found, at) if found is not None else None
        if binding is None or binding.kind != "import" or binding.alias is None:
            return None
        stmt, alias = binding.stmt, binding.alias
        if isinstance(stmt, ast.Import):
            return None if alias.asname is None and "." in alias.name else self._module_path(alias.name, 0)
        assert isinstance(stmt, ast.ImportFrom)
        package = self._module_path(stmt.module or "", stmt.level)
        given = self._module(package) if package is not None else None
        if given is not None and alias.name in given.index.module.bindings:
            return None  # the package binds that name itself: `from pkg import x` gives that, not the submodule
        return self._module_path(f"{stmt.module}.{alias.name}" if stmt.module else alias.name, stmt.level)

    def _starred(self, name: str, scope: _Scope, at: Tuple[int, int], depth: int) -> Any:
        """A name the module binds nowhere, read where its star imports have run: the value the last of them
        that binds it gives, when each one after it is of a module of the tree that does not."""
        module = self.index.module
        stars = [s for s in module.stars if not _runs_now(scope, module) or _at(s) < at]
        if not stars or any(s.stars for s in self.index.scopes if s is not module):
            return UNKNOWN
        for star in reversed(stars):
            path = self._module_path(star.module or "", star.level)  # type: ignore[attr-defined]
            given = self._module(path) if path is not None else None
            exported = given.exports(name) if given is not None else None
            if exported is None:
                return UNKNOWN  # a module out of sight (paddle's, say) may bind it
            if exported:
                return self._from_module(path, name, depth)  # type: ignore[arg-type]
        return UNKNOWN  # a builtin, or an error

    def exports(self, name: str) -> Optional[bool]:
        """Whether `from <this module> import *` binds `name`; None when the module does not tell."""
        module = self.index.module
        listed = module.bindings.get("__all__")
        if self.index.setattr_used or "__all__" in self.index.redirected:
            return None
        if listed:
            if len(listed) != 1 or listed[0].kind != "assign" or not self._unconditional(listed[0].stmt, module.node) \
                    or not all(self._only_read(n) for n in self.index.names.get("__all__", ())):
                return None
            try:
                return name in ast.literal_eval(listed[0].value)  # type: ignore[arg-type]
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
        if name.startswith("_"):
            return False
        if name in module.bindings or name in self.index.redirected:
            return True
        return None if module.stars else False

    def _from_module(self, path: str, name: str, depth: int) -> Any:
        """The value the module of the tree at `path` gives `name` once it has run, when nothing in the tree
        can change it afterwards; an immutable value only (another module may change a list it imports)."""
        given = self._module(path)
        if given is None or given.index.setattr_used or name in given.index.attr_stores \
                or name in self.index.attr_stores or self._patched(path, name):
            return UNKNOWN
        value = given.evaluate(ast.Name(id=name, ctx=ast.Load()), given.index.module, _END, depth + 1)
        return UNKNOWN if _holds_mutable(value) else value

    def _patched(self, path: str, name: str) -> bool:
        """Whether another module of the tree may rebind `name` of the module at `path`: it assigns or
        deletes an attribute `name` (of anything), or it names that module and calls `setattr` (or reads
        `globals()`, `vars()`, ...); or one such module cannot be read."""
        key = (path, name)
        if key not in self._said:
            index = self._tree()
            self._said[key] = index is None or any(
                self._risky(other, word, index, name)
                for other in loader_across.modules(path) for word in (name, _module_name(path)))
        return self._said[key]

    def _risky(self, path: str, word: str, index: TreeIndex, name: str) -> bool:
        found = loader_across.text_naming(path, word)
        if found is None:
            return False  # says neither the name nor the module: can change neither
        index.reads[path] = found
        other = self._module(path)
        return other is None or (name in other.index.attr_stores if word == name else other.index.setattr_used)

    def _attribute(self, expr: ast.Attribute, scope: _Scope, at: Tuple[int, int], depth: int) -> Any:
        """`self.X` in a method of the class whose body binds X, `Cls.X`, or `m.X` of a module of the tree."""
        if not isinstance(expr.value, ast.Name):
            return UNKNOWN
        owner = self._class_of(expr.value.id, scope)
        attr = expr.attr
        if owner is None:
            path = self._imported_module(expr.value.id, scope, at)
            return self._from_module(path, attr, depth) if path is not None else UNKNOWN
        if self.index.setattr_used or attr in self.index.attr_stores or self.index.class_attrs.get(attr, 0) != 1:
            return UNKNOWN
        bindings = owner.bindings.get(attr, [])
        if len(bindings) != 1 or bindings[0].kind != "assign" or not owner.past_stars(bindings[0]) \
                or not self._unconditional(bindings[0].stmt, owner.node):
            return UNKNOWN
        binding = bindings[0]
        value = self.evaluate(binding.value, owner, _at(binding.stmt), depth + 1)  # type: ignore
        if _mutable(value) and not all(self._only_read(a) for a in self.index.attributes.get(attr, ())):
            return UNKNOWN
        return value

    def _class_of(self, name: str, scope: _Scope) -> Optional[_Scope]:
        """The class scope `name` stands for: the class itself (`Cls`), or `self` in one of its methods."""
        found = _resolve(self.index, name, scope)
        if found is None or name in self.index.redirected or len(found.bindings[name]) != 1:
            return None
        binding = found.bindings[name][0]
        if binding.kind == "other" and isinstance(binding.stmt, ast.ClassDef):
            return self.index.of_node.get(id(binding.stmt))
        function = binding.stmt
        if binding.kind != "param" or binding.index != 0 or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or function.decorator_list or found.parent is None or not found.parent.is_class:
            return None
        if not found.parent.node.name.startswith("_"):  # type: ignore[attr-defined]
            return None  # `self` may be of a subclass another module defines, with its own X
        return found.parent

    def _unconditional(self, stmt: ast.AST, body: ast.AST) -> bool:
        """Whether `stmt` runs whenever the module or class body `body` does: one of its statements, or in
        `with` blocks there."""
        parent = self.index.parents.get(id(stmt))
        while isinstance(parent, (ast.With, ast.AsyncWith)):
            parent = self.index.parents.get(id(parent))
        return parent is body

    def _only_read(self, node: ast.expr) -> bool:
        """Whether this read of a list (dict, set) leaves it as it is."""
        parent = self.index.parents.get(id(node))
        if isinstance(parent, ast.Starred):
            node, parent = parent, self.index.parents.get(id(parent))
            return isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Call))
        if isinstance(parent, (ast.BinOp, ast.Compare, ast.UnaryOp, ast.FormattedValue, ast.comprehension, ast.For)):
            return not isinstance(parent, (ast.For, ast.comprehension)) or parent.iter is node
        if isinstance(parent, ast.Subscript):
            return parent.value is node and isinstance(parent.ctx, ast.Load) or parent.slice is node
        if isinstance(parent, ast.keyword):
            parent = self.index.parents.get(id(parent))
        if isinstance(parent, ast.Call) and parent.func is not node:
            func = parent.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if not isinstance(func, ast.Name):
                return False
            if parent.func is func:
                return func.id in _READERS
            return func.id in _READER_MODULES and parent.func.attr not in _MUTATORS  # type: ignore[attr-defined]
        return False


def _resolve(index: _Index, name: str, scope: _Scope) -> Optional[_Scope]:
    """The scope whose binding of `name` a read in `scope` refers to (Python's rules; None: a builtin)."""
    current: Optional[_Scope] = scope
    while current is not None:
        if (current is scope or not current.is_class) and name in current.bindings:
            return current
        current = current.parent
    return None


def _at(node: ast.AST) -> Tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


_END = (sys.maxsize, 0)  # a read once the module has run


def _module_name(path: str) -> str:
    """What other modules call the module at `path` (a package's `__init__.py`: the package)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem


def _runs_now(scope: _Scope, found: _Scope) -> bool:
    """Whether code read in `scope` runs as part of `found`'s body (not later, from a function)."""
    while scope is not found:
        if not scope.is_comprehension or scope.parent is None:
            return False
        scope = scope.parent
    return True


def _body_range(node: ast.AST) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    """Where the code read in a scope's own namespace is: a function's or class's body, a lambda's
    expression, a comprehension's whole text."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        first, last = node.body[0], node.body[-1]
    elif isinstance(node, ast.Lambda):
        first = last = node.body
    else:
        first = last = node
    return (first.lineno, first.col_offset), (last.end_lineno or 0, last.end_col_offset or 0)


def known(value: Any) -> bool:
    """Whether the value is fully known (no UNKNOWN in it, no `Some`)."""
    if value is UNKNOWN or isinstance(value, Some):
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(known(v) for v in value)
    if isinstance(value, dict):
        return all(known(v) for v in value.values())
    return True


def _mutable(value: Any) -> bool:
    return isinstance(value, (list, dict, set))


def _holds_mutable(value: Any) -> bool:
    if isinstance(value, (tuple, frozenset)):
        return any(_holds_mutable(v) for v in value)
    return _mutable(value)


def _display(expr: ast.expr, items: List[Any]) -> Any:
    values: List[Any] = []
    partial = False
    for element, item in zip(expr.elts, items):  # type: ignore[attr-defined]
        if isinstance(element, ast.Starred):
            if isinstance(item, (list, tuple)) and not isinstance(item, Some):
                values.extend(item)
                continue
            partial = True
            values.extend(item if isinstance(item, Some) else ())
        else:
            values.append(item)
    if partial:
        return Some(values)
    if isinstance(expr, ast.Tuple):
        return tuple(values)
    if isinstance(expr, ast.Set):
        return set(values) if all(known(v) for v in values) else UNKNOWN
    return values


def _number(value: Any) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _unary(op: ast.unaryop, value: Any) -> Any:
    if not _number(value):
        return UNKNOWN
    if isinstance(op, ast.USub):
        return -value
    if isinstance(op, ast.UAdd):
        return +value
    return UNKNOWN


def _binary(op: ast.operator, left: Any, right: Any) -> Any:
    if isinstance(op, ast.Add) and _sequence(left) and _sequence(right):
        if isinstance(left, Some) or isinstance(right, Some) or type(left) is not type(right):
            return Some([*_items(left), *_items(right)])
        return left + right
    if isinstance(op, ast.Add) and (_sequence(left) or _sequence(right)) and UNKNOWN in (left, right):
        return Some(_items(left if left is not UNKNOWN else right))
    if not (_number(left) and _number(right)):
        if isinstance(op, ast.Add) and isinstance(left, str) and isinstance(right, str):
            return left + right
        return UNKNOWN
    if isinstance(op, ast.Add):
        return left + right
    if isinstance(op, ast.Sub):
        return left - right
    if isinstance(op, ast.Mult):
        return left * right
    if isinstance(op, ast.Div):
        return left / right
    if isinstance(op, ast.FloorDiv):
        return left // right
    if isinstance(op, ast.Mod):
        return left % right
    if isinstance(op, ast.Pow) and isinstance(right, int) and abs(right) <= 64 and abs(left) <= _MAX_ITEMS:
        return left ** right
    return UNKNOWN


def _sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _items(value: Any) -> List[Any]:
    return list(value) if _sequence(value) else []


def of_file(tree: Optional[ast.Module], others: Optional[Callable[[], Optional[TreeIndex]]] = None) -> Optional[Constants]:
    """The constants of a file (None when CPython cannot parse it); `others`: see `Constants`."""
    return Constants(tree, others) if tree is not None else None


def parse_expression(text: str) -> Optional[ast.expr]:
    expr = cpython.parse(text.strip(), mode="eval")
    return expr.body if isinstance(expr, ast.Expression) else None

