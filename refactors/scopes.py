"""Scope-aware resolution of names to the `paddle` modules they were imported from.

A cheap replacement for libcst's QualifiedNameProvider, which costs several times a parse on real
files: one pre-pass records, per scope, which names are bound and whether each binding is a `paddle`
import. A local `layers = []`, a parameter named `fluid` or an attribute `self.fluid` then never
resolves to an API. Python's rules kept: a name bound anywhere in a function is local to all of it,
class bodies do not enclose nested functions, `global`/`nonlocal` redirect a binding.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Union

import libcst as cst

ROOT = "paddle"

ScopeNode = Union[cst.Module, cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp,
                  cst.DictComp, cst.GeneratorExp]
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


@dataclass(eq=False)
class ImportBinding:
    """A name bound by an import of a `paddle` module or member."""

    name: str
    qualname: str
    statement: Union[cst.Import, cst.ImportFrom]
    alias: Optional[cst.ImportAlias]  # None for a star import
    module_level: bool
    uses: int = 0  # references resolved to this binding
    left: int = 0  # of those, references the upgrade left as they were


@dataclass(eq=False)
class Scope:
    node: ScopeNode
    parent: Optional["Scope"]
    is_class: bool = False
    bindings: Dict[str, List[Optional[ImportBinding]]] = field(default_factory=dict)
    globals: set = field(default_factory=set)
    nonlocals: set = field(default_factory=set)

    def bind(self, name: str, binding: Optional[ImportBinding] = None) -> None:
        self.bindings.setdefault(name, []).append(binding)


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` for a pure Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def module_dotted(node: Optional[Union[cst.Attribute, cst.Name]]) -> str:
    return "" if node is None else (dotted(node) or "")


class ScopeCollector(cst.CSTVisitor):
    """Pre-pass: build the scope tree and every scope's bindings."""

    def __init__(self, star_members: Callable[[str], Sequence[str]]) -> None:
        self.star_members = star_members
        self.scopes: Dict[int, Scope] = {}
        self.imports: List[ImportBinding] = []
        self.module_scope: Optional[Scope] = None
        self._stack: List[Scope] = []

    # -- scopes ---------------------------------------------------------------------------------
    def _push(self, node: ScopeNode, is_class: bool = False) -> Scope:
        parent = self._stack[-1] if self._stack else None
        scope = Scope(node=node, parent=parent, is_class=is_class)
        self.scopes[id(node)] = scope
        self._stack.append(scope)
        return scope

    def _pop(self, _node: cst.CSTNode) -> None:
        self._stack.pop()

    @property
    def _scope(self) -> Scope:
        return self._stack[-1]

    def visit_Module(self, node: cst.Module) -> None:
        self.module_scope = self._push(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._scope.bind(node.name.value)
        # Decorators, defaults and annotations are evaluated in the enclosing scope.
        for dec in node.decorators:
            dec.visit(self)
        node.params.visit(self)
        if node.returns is not None:
            node.returns.visit(self)
        self._push(node)
        self._bind_params(node.params)
        node.body.visit(self)
        self._stack.pop()
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        node.params.visit(self)
        self._push(node)
        self._bind_params(node.params)
        node.body.visit(self)
        self._stack.pop()
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._scope.bind(node.name.value)
        for dec in node.decorators:
            dec.visit(self)
        for arg in (*node.bases, *node.keywords):
            arg.visit(self)
        self._push(node, is_class=True)
        node.body.visit(self)
        self._stack.pop()
        return False

    def _visit_comprehension(self, node: cst.CSTNode) -> bool:
        self._push(node)  # type: ignore[arg-type]
        for child in node.children:
            child.visit(self)
        self._stack.pop()
        return False

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension

    def _bind_params(self, params: cst.Parameters) -> None:
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            self._scope.bind(p.name.value)
        for p in (params.star_arg, params.star_kwarg):
            if isinstance(p, cst.Param):
                self._scope.bind(p.name.value)

    # -- bindings -------------------------------------------------------------------------------
    def _bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._scope.bind(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._bind_target(el.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind_target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind_target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        # `with ... as x` and `except E as x`; import aliases are handled with their import.
        self._bind_target(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        scope = self._scope
        while isinstance(scope.node, _COMPREHENSIONS) and scope.parent is not None:
            scope = scope.parent
        if isinstance(node.target, cst.Name):
            scope.bind(node.target.value)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind_target(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self._scope.globals.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._scope.nonlocals.update(item.name.value for item in node.names)

    def _add_import(self, name: str, qualname: str, stmt, alias) -> None:
        binding = ImportBinding(name, qualname, stmt, alias, module_level=self._scope is self.module_scope)
        self.imports.append(binding)
        self._scope.bind(name, binding)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            full = module_dotted(alias.name)
            if alias.asname is not None:
                name = alias.asname.name.value  # type: ignore[union-attr]
                qual = full
            else:
                name = full.split(".")[0]
                qual = name
            if full.split(".")[0] == ROOT:
                self._add_import(name, qual, node, alias)
            else:
                self._scope.bind(name)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        module = module_dotted(node.module)
        is_paddle = not node.relative and module.split(".")[0] == ROOT
        if isinstance(node.names, cst.ImportStar):
            if is_paddle:
                for member in self.star_members(module):
                    self._add_import(member, f"{module}.{member}", node, None)
            return False
        for alias in node.names:
            member = module_dotted(alias.name)
            name = alias.asname.name.value if alias.asname is not None else member  # type: ignore[union-attr]
            if is_paddle:
                self._add_import(name, f"{module}.{member}", node, alias)
            else:
                self._scope.bind(name)
        return False


class Resolver:
    """Answers "what does this name denote here?" from the collected scopes."""

    def __init__(self, collector: ScopeCollector) -> None:
        self.scopes = collector.scopes
        self.module_scope = collector.module_scope
        self.imports = collector.imports

    def scope_of(self, node: cst.CSTNode) -> Optional[Scope]:
        return self.scopes.get(id(node))

    def lookup(self, name: str, scope: Scope) -> Optional[List[Optional[ImportBinding]]]:
        """The bindings `name` refers to from `scope`, or None when it is not bound (builtin)."""
        if name in scope.globals:
            scope = self.module_scope  # type: ignore[assignment]
        innermost = scope
        current: Optional[Scope] = scope
        while current is not None:
            # Class bodies are visible only to code directly inside them.
            if not (current.is_class and current is not innermost):
                if name in current.bindings and name not in current.nonlocals:
                    return current.bindings[name]
            current = current.parent
        return None

    def binding(self, name: str, scope: Scope) -> Optional[ImportBinding]:
        """The paddle import `name` refers to, when every binding in its scope is that import."""
        bindings = self.lookup(name, scope)
        if not bindings or any(b is None for b in bindings):
            return None
        first = bindings[0]
        if any(b.qualname != first.qualname for b in bindings):  # type: ignore[union-attr]
            return None
        return first

    def is_paddle_root(self, scope: Scope) -> bool:
        """True when emitting `paddle.x` here would reach the paddle package."""
        bindings = self.lookup(ROOT, scope)
        if bindings is None:
            return True  # bound by the `import paddle` the upgrade makes sure of at module level
        return all(b is not None and b.qualname == ROOT for b in bindings)


def collect(module: cst.Module, star_members: Callable[[str], Sequence[str]]) -> Resolver:
    collector = ScopeCollector(star_members)
    module.visit(collector)
    return Resolver(collector)
