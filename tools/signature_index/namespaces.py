"""The namespaces of one wheel's modules, by replaying their top-level statements until nothing
changes (modules import each other in cycles, so there is no order to follow), and the lookups the
replay and the description of signatures make in them."""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from tools.signature_index.state import API, MOD, OPAQUE, Definition, ModuleState, Ref, ReplayContext
from tools.signature_index.statements import StatementReplay
from tools.signature_index.syntax import dedupe, is_public, public_path, string_value
from tools.signature_index.wheels import SourceModule

_LIST_CALLS = {"list", "tuple", "sorted", "set", "frozenset"}


class Namespaces:
    """What every module of one wheel binds, replayed until nothing changes (a fixpoint)."""

    def __init__(self, modules: Dict[str, SourceModule], compiled: Set[str]):
        self.modules = modules
        self.compiled = compiled
        self.state: Dict[str, ModuleState] = {}
        self.collect = False
        self.issues: Set[str] = set()
        self.converged = False
        self.stub_classes = {id(item) for src in modules.values() if src.stub is not None
                             for item in ast.walk(src.stub) if isinstance(item, ast.ClassDef)}
        self._statements = StatementReplay(self)

    # ---- fixpoint

    def run(self, max_rounds: int = 60) -> None:
        for _ in range(max_rounds):
            changed = False
            for name in sorted(self.modules):
                new = self._replay(name)
                old = self.state.get(name)
                if old is None or old.key() != new.key():
                    changed = True
                self.state[name] = new
            if not changed:
                self.converged = True
                break
        self.collect = True
        for name in sorted(self.modules):
            self.state[name] = self._replay(name)
        self.collect = False

    def issue(self, ctx: ReplayContext, message: str) -> None:
        if self.collect and public_path(ctx.module) and not self.modules[ctx.module].stub_only:
            self.issues.add(f"{ctx.module}: {message}")

    def _replay(self, name: str) -> ModuleState:
        src = self.modules[name]
        st = ModuleState()
        if src.tree is not None:
            self._statements.stmts(src.tree.body, st, ReplayContext(name, src.is_package))
        if src.stub is not None:
            # A stub describes the module's interface (Paddle ships them for compiled and dynamically
            # filled modules such as `paddle._C_ops`): it adds what the .py source does not bind
            # itself. A module filled at runtime stays dynamic: stubs of compiled code can lag behind.
            only_new = set(st.ns) if src.tree is not None else None
            self._statements.stmts(src.stub.body, st, ReplayContext(name, src.is_package, stub=True, only_new=only_new))
        return st

    # ---- lookups

    def is_dynamic(self, module: str) -> bool:
        if module in self.compiled:
            return True  # even with a stub: compiled modules can hold more than their stub lists
        st = self.state.get(module)
        return bool(st and st.dynamic)

    def _namespace(self, module: str, st: ModuleState, ctx: ReplayContext) -> Optional[Dict[str, Ref]]:
        if module == ctx.module:
            return st.ns
        other = self.state.get(module)
        return other.ns if other else None

    def member(self, module: str, attr: str, st: ModuleState, ctx: ReplayContext) -> Optional[Ref]:
        """What `module.attr` is: a namespace entry, a submodule, or an opaque compiled name."""
        ns = self._namespace(module, st, ctx)
        if ns is not None and attr in ns:
            return ns[attr]
        sub = f"{module}.{attr}"
        if self.is_paddle_module(sub):
            return (MOD, sub)
        if self.is_dynamic(module):
            return (OPAQUE, sub)
        return None

    def is_paddle_module(self, module: str) -> bool:
        return module in self.modules or module in self.compiled

    def ref_of(self, expr: ast.expr, st: ModuleState, ctx: ReplayContext) -> Optional[Ref]:
        """The reference a Name/Attribute chain denotes, or None when not statically known."""
        if isinstance(expr, ast.Name):
            return st.ns.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.ref_of(expr.value, st, ctx)
            if base is None or base[0] != MOD:
                return None
            return self.member(base[1], expr.attr, st, ctx)
        return None

    # ---- string lists (`__all__` and friends)

    def strlist(self, expr: ast.expr, st: ModuleState, ctx: ReplayContext,
                env: Optional[dict] = None) -> Optional[List[str]]:
        """The value of a list-of-strings expression (`__all__` arithmetic), or None if not static."""
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            out: List[str] = []
            for elt in expr.elts:
                value = string_value(elt, env)
                if value is not None:
                    out.append(value)
                elif isinstance(elt, ast.Starred):
                    inner = self.strlist(elt.value, st, ctx, env)
                    if inner is None:
                        return None
                    out.extend(inner)
                else:
                    return None
            return out
        if isinstance(expr, ast.Name):
            if expr.id == "__all__":
                return list(st.all) if st.all is not None else None
            if expr.id in st.lists:
                return list(st.lists[expr.id])
            return None
        if isinstance(expr, ast.Attribute):
            base = self.ref_of(expr.value, st, ctx)
            if base is None or base[0] != MOD:
                return None
            other = st if base[1] == ctx.module else self.state.get(base[1])
            if other is None:
                return None
            if expr.attr == "__all__":
                return list(other.all) if other.all is not None else None
            return list(other.lists[expr.attr]) if expr.attr in other.lists else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left = self.strlist(expr.left, st, ctx, env)
            right = self.strlist(expr.right, st, ctx, env)
            return None if left is None or right is None else left + right
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in _LIST_CALLS \
                and len(expr.args) == 1 and not expr.keywords:
            inner = self.strlist(expr.args[0], st, ctx, env)
            if inner is None:
                return None
            if expr.func.id == "sorted":
                return sorted(inner)
            return dedupe(inner) if expr.func.id in ("set", "frozenset") else inner
        return None

    def exports(self, module: str, st: ModuleState, ctx: ReplayContext) -> Optional[List[Tuple[str, Ref]]]:
        """What `from module import *` binds, or None when the module is not statically known."""
        other = st if module == ctx.module else self.state.get(module)
        if other is None:
            return None
        if other.all is not None and not other.all_partial:
            out = []
            for name in other.all:
                ref = self.member(module, name, st, ctx)
                if ref is None:
                    self.issue(ctx, f"'{name}' is in {module}.__all__ but not defined there")
                    continue
                out.append((name, ref))
            return out
        return [(name, ref) for name, ref in other.ns.items() if is_public(name)]

    def definition(self, dotted: str) -> Optional[Tuple[str, Definition]]:
        """The module and definition of an API a module defines itself, or None."""
        module, name = dotted.rsplit(".", 1)
        st = self.state.get(module)
        if st is None or st.ns.get(name) != (API, dotted) or name not in st.defs:
            return None
        return module, st.defs[name]
