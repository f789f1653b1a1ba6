"""Replaying a module's top-level statements into its namespace: definitions, imports (`from x import
*` honouring `__all__`), aliases, `__all__` arithmetic, and loops that generate names through
`globals()`. Both arms of an `if` run (only the `TYPE_CHECKING` arm of that test), a `try` body after
its handlers so that the normal path wins."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from tools.signature_index.state import API, EXT, MOD, OPAQUE, Definition, ModuleState, Ref, ReplayContext
from tools.signature_index.syntax import (dedupe, decorator_name, is_globals_call, is_globals_subscript, is_overload,
                                          is_public, is_type_checking, pick_overload, string_value)

if TYPE_CHECKING:
    from tools.signature_index.namespaces import Namespaces

# A bug in Paddle 3's generated eager-op stub writes the in-place variant `tanh_` as a second
# `def tanh(...)`; its docstring still names the real function.
_STUB_DOC_NAME = re.compile(r"C\+\+ interface function for (\w+)")


class StatementReplay:
    """Replays statements into the state of the module being read, looking other modules up in `ns`."""

    def __init__(self, ns: "Namespaces") -> None:
        self.ns = ns

    def bind(self, st: ModuleState, ctx: ReplayContext, name: str, ref: Ref,
             definition: Optional[Definition] = None) -> None:
        if ctx.only_new is not None and name in ctx.only_new:
            return
        if ref[0] == API and not self.ns.modules[ctx.module].stub_only:
            home, attr = ref[1].rsplit(".", 1)
            if home in self.ns.modules and self.ns.modules[home].stub_only and home not in self.ns.compiled:
                # A definition from a typing-only package (e.g. `paddle._typing.libs...`, which does
                # not exist at runtime) re-exported into a real module: that module is its home.
                found = self.ns.state[home].defs.get(attr) if home in self.ns.state else None
                if found is not None:
                    ref, definition = (API, f"{ctx.module}.{name}"), found
        st.ns[name] = ref
        if definition is not None and ref == (API, f"{ctx.module}.{name}"):
            st.defs[name] = definition
        else:
            st.defs.pop(name, None)

    def _absolute(self, ctx: ReplayContext, level: int, module: Optional[str]) -> str:
        if level == 0:
            return module or ""
        parts = ctx.module.split(".")
        if not ctx.is_package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        base = ".".join(parts)
        return f"{base}.{module}" if module else base

    def _set_all(self, st: ModuleState, ctx: ReplayContext, value: Optional[List[str]], how: str) -> None:
        if value is None:
            st.all_partial = True
            self.ns.issue(ctx, f"cannot evaluate {how} statically")
            if st.all is None:
                st.all = []
            return
        st.all = value

    # ---- statements

    def stmts(self, body: Sequence[ast.stmt], st: ModuleState, ctx: ReplayContext) -> None:
        for node in body:
            self._stmt(node, st, ctx)

    def _stmt(self, node: ast.stmt, st: ModuleState, ctx: ReplayContext) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
            if ctx.stub and isinstance(node, ast.FunctionDef):
                doc = ast.get_docstring(node) or ""
                match = _STUB_DOC_NAME.search(doc)
                if match:
                    name = match.group(1)
            if is_overload(node) and name in st.defs and st.ns.get(name) == (API, f"{ctx.module}.{name}"):
                if pick_overload([st.defs[name].node, node]) is not node:
                    return  # a later plain def (the implementation) still replaces it
            self.bind(st, ctx, name, (API, f"{ctx.module}.{name}"), Definition(node, ctx.module))
            if not ctx.stub and not isinstance(node, ast.ClassDef):
                self._function_globals(node, st, ctx)
        elif isinstance(node, ast.Import):
            self._import(node, st, ctx)
        elif isinstance(node, ast.ImportFrom):
            self._import_from(node, st, ctx)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self._assign(target, node.value, st, ctx)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._assign(node.target, node.value, st, ctx)
            elif ctx.stub and isinstance(node.target, ast.Name):
                name = node.target.id
                self.bind(st, ctx, name, (API, f"{ctx.module}.{name}"), Definition(node, ctx.module))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                and isinstance(node.target, ast.Name):
            self._extend(node.target.id, node.value, st, ctx)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self._call_stmt(node.value, st, ctx)
        elif isinstance(node, ast.If):
            if is_type_checking(node.test):
                # The typing branch names the real classes; the runtime branch usually reaches
                # into compiled modules we cannot see.
                self.stmts(node.body, st, ctx)
            else:
                self.stmts(node.body, st, ctx)
                self.stmts(node.orelse, st, ctx)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for handler in node.handlers:
                self.stmts(handler.body, st, ctx)
            self.stmts(node.body, st, ctx)
            self.stmts(node.orelse, st, ctx)
            self.stmts(node.finalbody, st, ctx)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self.stmts(node.body, st, ctx)
        elif isinstance(node, ast.For):
            self._for(node, st, ctx)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    st.ns.pop(target.id, None)
                    st.defs.pop(target.id, None)

    def _function_globals(self, node: ast.FunctionDef, st: ModuleState, ctx: ReplayContext) -> None:
        """Names a module-level function assigns through `global` (e.g. Paddle 3's dtype set-up)."""
        declared = {name for item in ast.walk(node) if isinstance(item, ast.Global) for name in item.names}
        if not declared:
            return
        for item in ast.walk(node):
            if isinstance(item, ast.Assign):
                for target in item.targets:
                    if isinstance(target, ast.Name) and target.id in declared and target.id not in st.ns:
                        self.bind(st, ctx, target.id, (API, f"{ctx.module}.{target.id}"),
                                   Definition(ast.Constant(None), ctx.module))

    def _import(self, node: ast.Import, st: ModuleState, ctx: ReplayContext) -> None:
        for alias in node.names:
            target = alias.name
            self._bind_child_module(target, st, ctx)
            if alias.asname:
                ref = (MOD, target) if self.ns.is_paddle_module(target) else (EXT, target)
                self.bind(st, ctx, alias.asname, ref)
            else:
                top = target.split(".")[0]
                self.bind(st, ctx, top, (MOD, top) if self.ns.is_paddle_module(top) else (EXT, top))

    def _bind_child_module(self, imported: str, st: ModuleState, ctx: ReplayContext) -> None:
        # Importing `pkg.sub` sets attribute `sub` on `pkg`; inside `pkg` that is a binding.
        if ctx.is_package and imported.startswith(ctx.module + "."):
            child = imported[len(ctx.module) + 1:].split(".")[0]
            path = f"{ctx.module}.{child}"
            if path in self.ns.modules:
                self.bind(st, ctx, child, (MOD, path))

    def _import_from(self, node: ast.ImportFrom, st: ModuleState, ctx: ReplayContext) -> None:
        source = self._absolute(ctx, node.level or 0, node.module)
        if not self.ns.is_paddle_module(source):
            for alias in node.names:
                if alias.name != "*":
                    self.bind(st, ctx, alias.asname or alias.name, (EXT, f"{source}.{alias.name}"))
            return
        self._bind_child_module(source, st, ctx)
        for alias in node.names:
            if alias.name == "*":
                self._star(source, st, ctx)
                continue
            ref: Optional[Ref]
            sub = f"{source}.{alias.name}"
            if source == ctx.module and sub in self.ns.modules:
                ref = (MOD, sub)
            else:
                ref = self.ns.member(source, alias.name, st, ctx)
            if ref is None:
                if is_public(alias.asname or alias.name):
                    self.ns.issue(ctx, f"cannot resolve 'from {source} import {alias.name}'")
                ref = (EXT, f"unresolved:{sub}")
            self.bind(st, ctx, alias.asname or alias.name, ref)

    def _star(self, source: str, st: ModuleState, ctx: ReplayContext) -> None:
        if self.ns.is_dynamic(source) or source not in self.ns.modules:
            st.dynamic = True
        names = self.ns.exports(source, st, ctx) if source in self.ns.modules else None
        for name, ref in names or ():
            self.bind(st, ctx, name, ref)

    def _assign(self, target: ast.expr, value: ast.expr, st: ModuleState, ctx: ReplayContext) -> None:
        if is_globals_subscript(target):
            key = target.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self._assign_name(key.value, value, st, ctx, generated=True)
            else:
                st.dynamic = True
            return
        if isinstance(target, ast.Name):
            self._assign_name(target.id, value, st, ctx)
        elif isinstance(target, ast.Attribute) and target.attr == "__signature__" \
                and isinstance(target.value, ast.Name) and isinstance(value, ast.Call) \
                and decorator_name(value.func) == "signature" and len(value.args) == 1:
            # Paddle 3 dispatchers: `def gather(*args, **kwargs)` then
            # `gather.__signature__ = inspect.signature(_gather_wrapper)`: index what inspect shows.
            st.signature_from[target.value.id] = value.args[0]
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = None
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                values = value.elts
            for i, elt in enumerate(target.elts):
                if isinstance(elt, ast.Name):
                    if values is not None:
                        self._assign_name(elt.id, values[i], st, ctx)
                    else:
                        self.bind(st, ctx, elt.id, (API, f"{ctx.module}.{elt.id}"),
                                   Definition(ast.Constant(None), ctx.module))

    def _assign_name(self, name: str, value: ast.expr, st: ModuleState, ctx: ReplayContext,
                     env: Optional[dict] = None, generated: bool = False) -> None:
        if name == "__all__":
            self._set_all(st, ctx, self.ns.strlist(value, st, ctx, env), "__all__")
            return
        strings = self.ns.strlist(value, st, ctx, env)
        if strings is not None:
            st.lists[name] = strings
        loop_local = env is not None and isinstance(value, ast.Name) and value.id in env
        if isinstance(value, (ast.Name, ast.Attribute)) and not loop_local:
            ref = self.ns.ref_of(value, st, ctx)
            if ref is not None and ref[0] in (API, MOD, OPAQUE):
                self.bind(st, ctx, name, ref)  # an alias: the same object under another name
                return
        self.bind(st, ctx, name, (API, f"{ctx.module}.{name}"),
                   Definition(value, ctx.module, env=env, generated=generated))

    def _extend(self, name: str, value: ast.expr, st: ModuleState, ctx: ReplayContext,
                env: Optional[dict] = None) -> None:
        extra = self.ns.strlist(value, st, ctx, env)
        if name == "__all__":
            if extra is None:
                self._set_all(st, ctx, None, "__all__ +=")
            else:
                st.all = (st.all or []) + extra
        elif name in st.lists:
            if extra is None:
                del st.lists[name]
            else:
                st.lists[name] = st.lists[name] + extra

    def _call_stmt(self, call: ast.Call, st: ModuleState, ctx: ReplayContext, env: Optional[dict] = None) -> None:
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner, method = func.value.id, func.attr
            if owner == "__all__" or owner in st.lists:
                current = (st.all or []) if owner == "__all__" else st.lists[owner]
                arg = call.args[0] if len(call.args) == 1 else None
                if method == "extend" and arg is not None:
                    extra = self.ns.strlist(arg, st, ctx, env)
                elif method == "append" and arg is not None:
                    extra = string_value(arg, env)
                    extra = None if extra is None else [extra]
                elif method == "remove" and arg is not None:
                    gone = string_value(arg, env)
                    extra = [] if gone is not None else None
                    if gone is not None:
                        current = [n for n in current if n != gone]
                else:
                    return
                if owner == "__all__":
                    if extra is None:
                        self._set_all(st, ctx, None, f"__all__.{method}(...)")
                    else:
                        st.all = current + extra
                elif extra is None:
                    del st.lists[owner]
                else:
                    st.lists[owner] = current + extra
                return
        if isinstance(func, ast.Attribute) and func.attr == "update" and is_globals_call(func.value):
            st.dynamic = True
        if any(is_globals_call(arg) for arg in call.args):
            # e.g. protobuf's `_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, ..., globals())`
            st.dynamic = True

    def _for(self, node: ast.For, st: ModuleState, ctx: ReplayContext) -> None:
        """`for OP in NAMES: ... globals()[OP] = make(OP)`: one generated definition per name."""
        if not _writes_names(node):
            return
        names = self.ns.strlist(node.iter, st, ctx) if isinstance(node.target, ast.Name) else None
        if names is None:
            st.dynamic = True
            st.all_partial = st.all_partial or _touches_all(node)
            self.ns.issue(ctx, f"names generated in the loop at line {node.lineno} are not statically known")
            return
        for value in dedupe(names):
            env: Dict[str, Tuple[ast.expr, dict]] = {node.target.id: (ast.Constant(value), {})}
            self._loop_body(node.body, st, ctx, env)

    def _loop_body(self, body: Sequence[ast.stmt], st: ModuleState, ctx: ReplayContext,
                   env: Dict[str, Tuple[ast.expr, dict]]) -> None:
        """One iteration of a generator loop; `env` maps loop-local names to (value, env then)."""
        for stmt in body:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if is_globals_subscript(target):
                        key = string_value(target.slice, env)
                        if key is None:
                            st.dynamic = True
                        else:
                            self._assign_name(key, stmt.value, st, ctx, env=dict(env), generated=True)
                    elif isinstance(target, ast.Name):
                        env[target.id] = (stmt.value, dict(env))
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
                    and stmt.target.id == "__all__":
                self._extend("__all__", stmt.value, st, ctx, env)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                self._call_stmt(stmt.value, st, ctx, env)
            elif isinstance(stmt, ast.If):
                self._loop_body(stmt.body, st, ctx, env)
                self._loop_body(stmt.orelse, st, ctx, env)


def _writes_names(loop: ast.For) -> bool:
    """Whether a module-level loop binds names (`globals()[...] = ...`) or edits `__all__`."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign) and any(is_globals_subscript(t) for t in node.targets):
            return True
    return _touches_all(loop)


def _touches_all(loop: ast.For) -> bool:
    return any(isinstance(node, ast.Name) and node.id == "__all__" for node in ast.walk(loop))
