"""Derive the signature indexes (`signatures/paddle-<version>.json.gz`) from the real Paddle wheels.

    python -m api_mapping.build [--wheel-dir DIR] [--versions 1.8.5 2.0.2 3.3.1] [--report]

Each wheel is read as a zip: the `paddle/**/*.py` sources (and the `.pyi` stubs Paddle ships for
compiled and runtime-filled modules) are parsed with `ast`, never imported, so building needs no
Paddle, no GPU and no matching Python. Test trees and `test_*`/`*_test*` modules are skipped. The index
layout is documented in `api_mapping/signatures.py`, its reader.

How names are found, statically:

- Every module's top-level statements are replayed in order (both arms of an `if`, the `try` body after
  its handlers so the normal path wins, `if TYPE_CHECKING:` bodies only) into a namespace of references:
  an API defined somewhere, a module, something outside Paddle, or an "opaque" name taken from a
  compiled module. `import`, `from x import name [as y]`, `from x import *` (honouring the source's
  `__all__`), `name = other.name` aliases, `__all__` arithmetic and `for NAME in LIST: globals()[NAME] =
  ...` generators are understood. Modules import each other in cycles, so all modules are replayed
  until nothing changes (a fixpoint) instead of following Python's import order.
- Signatures come from the `def`s; a class's parameters from its own `__init__` or the first base class
  (in the same wheel) that has one; a generated function's from the function its generator returns.

The output is byte-for-byte reproducible for a given wheel and Python version (defaults are rendered
with `ast.unparse`, so building needs Python >= 3.9, and one recent enough to parse the newest sources).
"""
from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

SIGNATURES_DIR = Path(__file__).with_name("signatures")
FORMAT = 1
DEFAULT_WHEEL_DIR = Path("build") / "wheels"

_PIP_LEGACY = ("--python-version", "3.8", "--only-binary=:all:", "--platform", "manylinux1_x86_64")


@dataclass(frozen=True)
class WheelSpec:
    """Where one Paddle version comes from: a PyPI project and extra `pip download` arguments."""

    version: str
    project: str
    pip_args: Tuple[str, ...] = ()

    @property
    def requirement(self) -> str:
        return f"{self.project}=={self.version}"

    @property
    def file_prefix(self) -> str:
        # Wheel file names spell the project with underscores (PEP 427).
        return f"{self.project.replace('-', '_')}-{self.version}-"


WHEELS: Dict[str, WheelSpec] = {
    "1.8.5": WheelSpec("1.8.5", "paddlepaddle", _PIP_LEGACY),
    # The CPU wheel paddlepaddle==2.0.2 has been deleted from PyPI; the GPU build of the same release
    # is still there and ships byte-for-byte the same Python sources (only the compiled core differs),
    # which is all this tool reads.
    "2.0.2": WheelSpec("2.0.2", "paddlepaddle-gpu", _PIP_LEGACY),
    # The current release is read for the running Python, as `pip install` would pick it.
    "3.3.1": WheelSpec("3.3.1", "paddlepaddle"),
}

# Reference kinds inside a namespace: an API defined in the wheel, a module of the wheel, a name taken
# from a compiled module (exists, nothing else known), something outside Paddle.
API, MOD, OPAQUE, EXT = "a", "m", "o", "x"
Ref = Tuple[str, str]

_TEST_DIRS = {"tests", "test", "unittests"}
_OBJECT_INIT = object()  # a class whose construction is `object.__init__`: no parameters
_LIST_CALLS = {"list", "tuple", "sorted", "set", "frozenset"}
_PROPERTY_DECORATORS = {"property", "cached_property", "abstractproperty", "setter", "getter", "deleter"}
# A bug in Paddle 3's generated eager-op stub writes the in-place variant `tanh_` as a second
# `def tanh(...)`; its docstring still names the real function.
_STUB_DOC_NAME = re.compile(r"C\+\+ interface function for (\w+)")


# --------------------------------------------------------------------------------------------------
# Reading a wheel


@dataclass
class SourceModule:
    """One module of the wheel: its `.py` tree and/or its `.pyi` stub tree."""

    name: str
    is_package: bool
    tree: Optional[ast.Module] = None
    stub: Optional[ast.Module] = None

    @property
    def stub_only(self) -> bool:
        return self.tree is None


def _is_test_path(parts: Sequence[str]) -> bool:
    stem = parts[-1].split(".", 1)[0]
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    return stem == "test" or stem.startswith("test_") or "_test" in stem


def _zip_member_path(name: str) -> Optional[str]:
    """The in-package path of a zip member (`paddle/...`), also for `*.data/purelib/` layouts."""
    parts = name.split("/")
    if len(parts) > 2 and parts[0].endswith(".data") and parts[1] in ("purelib", "platlib"):
        parts = parts[2:]
    if not parts or parts[0] != "paddle":
        return None
    return "/".join(parts)


def read_wheel(path: Path) -> Tuple[Dict[str, SourceModule], Set[str]]:
    """Parse the wheel's Python sources; also return the dotted names of its compiled modules."""
    modules: Dict[str, SourceModule] = {}
    compiled: Set[str] = set()
    with zipfile.ZipFile(path) as zf:
        for member in sorted(zf.namelist()):
            rel = _zip_member_path(member)
            if rel is None:
                continue
            parts = rel.split("/")
            if rel.endswith((".so", ".pyd")):
                compiled.add(".".join(parts[:-1] + [parts[-1].split(".", 1)[0]]))
                continue
            if not rel.endswith((".py", ".pyi")) or _is_test_path(parts):
                continue
            stem, ext = parts[-1].rsplit(".", 1)
            is_package = stem == "__init__"
            dotted = ".".join(parts[:-1] if is_package else parts[:-1] + [stem])
            if not all(p.isidentifier() for p in dotted.split(".")):
                continue
            tree = ast.parse(zf.read(member), filename=member)
            mod = modules.setdefault(dotted, SourceModule(dotted, is_package))
            mod.is_package = mod.is_package or is_package
            if ext == "py":
                mod.tree = tree
            else:
                mod.stub = tree
    return modules, compiled


# --------------------------------------------------------------------------------------------------
# Replaying modules into namespaces


@dataclass
class Definition:
    """A name a module binds itself: a def/class node, or an assigned value (with loop bindings)."""

    node: ast.AST
    module: str  # whose namespace the node's names are looked up in
    env: Optional[Dict[str, Tuple[ast.expr, dict]]] = None
    generated: bool = False  # bound through `globals()[...] = ...`


@dataclass
class ModuleState:
    ns: Dict[str, Ref] = field(default_factory=dict)
    defs: Dict[str, Definition] = field(default_factory=dict)
    all: Optional[List[str]] = None
    all_partial: bool = False
    lists: Dict[str, List[str]] = field(default_factory=dict)
    dynamic: bool = False
    signature_from: Dict[str, ast.expr] = field(default_factory=dict)  # `f.__signature__ = signature(g)`

    def key(self) -> tuple:
        """What other modules can observe; the fixpoint ends when no module's key changes."""
        return (
            tuple(sorted(self.ns.items())),
            None if self.all is None else tuple(self.all),
            self.all_partial,
            tuple(sorted((k, tuple(v)) for k, v in self.lists.items())),
            self.dynamic,
        )


@dataclass
class _Ctx:
    """Per-replay settings."""

    module: str
    is_package: bool
    stub: bool = False
    only_new: Optional[Set[str]] = None  # while merging a stub: names the .py already binds


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_globals_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "globals"


def _is_globals_subscript(node: ast.expr) -> bool:
    return isinstance(node, ast.Subscript) and _is_globals_call(node.value)


def _dedupe(names: Iterable[str]) -> List[str]:
    return list(dict.fromkeys(names))


def _is_public(name: str) -> bool:
    return not name.startswith("_")


def _public_path(dotted: str) -> bool:
    return all(_is_public(p) for p in dotted.split("."))


class Analyzer:
    """Static model of one wheel: namespaces by fixpoint, then signatures."""

    def __init__(self, modules: Dict[str, SourceModule], compiled: Set[str]):
        self.modules = modules
        self.compiled = compiled
        self.state: Dict[str, ModuleState] = {}
        self.collect = False
        self.issues: Set[str] = set()
        self.converged = False
        self.stub_classes = {id(item) for src in modules.values() if src.stub is not None
                             for item in ast.walk(src.stub) if isinstance(item, ast.ClassDef)}

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

    def _issue(self, ctx: _Ctx, message: str) -> None:
        if self.collect and _public_path(ctx.module) and not self.modules[ctx.module].stub_only:
            self.issues.add(f"{ctx.module}: {message}")

    def _replay(self, name: str) -> ModuleState:
        src = self.modules[name]
        st = ModuleState()
        if src.tree is not None:
            self._stmts(src.tree.body, st, _Ctx(name, src.is_package))
        if src.stub is not None:
            # A stub describes the module's interface (Paddle ships them for compiled and dynamically
            # filled modules such as `paddle._C_ops`): it adds what the .py source does not bind
            # itself. A module filled at runtime stays dynamic: stubs of compiled code can lag behind.
            only_new = set(st.ns) if src.tree is not None else None
            self._stmts(src.stub.body, st, _Ctx(name, src.is_package, stub=True, only_new=only_new))
        return st

    # ---- names

    def _bind(self, st: ModuleState, ctx: _Ctx, name: str, ref: Ref,
              definition: Optional[Definition] = None) -> None:
        if ctx.only_new is not None and name in ctx.only_new:
            return
        if ref[0] == API and not self.modules[ctx.module].stub_only:
            home, attr = ref[1].rsplit(".", 1)
            if home in self.modules and self.modules[home].stub_only and home not in self.compiled:
                # A definition from a typing-only package (e.g. `paddle._typing.libs...`, which does
                # not exist at runtime) re-exported into a real module: that module is its home.
                found = self.state[home].defs.get(attr) if home in self.state else None
                if found is not None:
                    ref, definition = (API, f"{ctx.module}.{name}"), found
        st.ns[name] = ref
        if definition is not None and ref == (API, f"{ctx.module}.{name}"):
            st.defs[name] = definition
        else:
            st.defs.pop(name, None)

    def _absolute(self, ctx: _Ctx, level: int, module: Optional[str]) -> str:
        if level == 0:
            return module or ""
        parts = ctx.module.split(".")
        if not ctx.is_package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        base = ".".join(parts)
        return f"{base}.{module}" if module else base

    def _is_dynamic(self, module: str) -> bool:
        if module in self.compiled:
            return True  # even with a stub: compiled modules can hold more than their stub lists
        st = self.state.get(module)
        return bool(st and st.dynamic)

    def _namespace(self, module: str, st: ModuleState, ctx: _Ctx) -> Optional[Dict[str, Ref]]:
        if module == ctx.module:
            return st.ns
        other = self.state.get(module)
        return other.ns if other else None

    def member(self, module: str, attr: str, st: ModuleState, ctx: _Ctx) -> Optional[Ref]:
        """What `module.attr` is: a namespace entry, a submodule, or an opaque compiled name."""
        ns = self._namespace(module, st, ctx)
        if ns is not None and attr in ns:
            return ns[attr]
        sub = f"{module}.{attr}"
        if self._is_paddle_module(sub):
            return (MOD, sub)
        if self._is_dynamic(module):
            return (OPAQUE, sub)
        return None

    def _is_paddle_module(self, module: str) -> bool:
        return module in self.modules or module in self.compiled

    def ref_of(self, expr: ast.expr, st: ModuleState, ctx: _Ctx) -> Optional[Ref]:
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

    def strlist(self, expr: ast.expr, st: ModuleState, ctx: _Ctx,
                env: Optional[dict] = None) -> Optional[List[str]]:
        """The value of a list-of-strings expression (`__all__` arithmetic), or None if not static."""
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            out: List[str] = []
            for elt in expr.elts:
                value = self._strvalue(elt, env)
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
            return _dedupe(inner) if expr.func.id in ("set", "frozenset") else inner
        return None

    def _set_all(self, st: ModuleState, ctx: _Ctx, value: Optional[List[str]], how: str) -> None:
        if value is None:
            st.all_partial = True
            self._issue(ctx, f"cannot evaluate {how} statically")
            if st.all is None:
                st.all = []
            return
        st.all = value

    # ---- statements

    def _stmts(self, body: Sequence[ast.stmt], st: ModuleState, ctx: _Ctx) -> None:
        for node in body:
            self._stmt(node, st, ctx)

    def _stmt(self, node: ast.stmt, st: ModuleState, ctx: _Ctx) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
            if ctx.stub and isinstance(node, ast.FunctionDef):
                doc = ast.get_docstring(node) or ""
                match = _STUB_DOC_NAME.search(doc)
                if match:
                    name = match.group(1)
            if _is_overload(node) and name in st.defs and st.ns.get(name) == (API, f"{ctx.module}.{name}"):
                if _pick_overload([st.defs[name].node, node]) is not node:
                    return  # a later plain def (the implementation) still replaces it
            self._bind(st, ctx, name, (API, f"{ctx.module}.{name}"), Definition(node, ctx.module))
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
                self._bind(st, ctx, name, (API, f"{ctx.module}.{name}"), Definition(node, ctx.module))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                and isinstance(node.target, ast.Name):
            self._extend(node.target.id, node.value, st, ctx)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self._call_stmt(node.value, st, ctx)
        elif isinstance(node, ast.If):
            if _is_type_checking(node.test):
                # The typing branch names the real classes; the runtime branch usually reaches
                # into compiled modules we cannot see.
                self._stmts(node.body, st, ctx)
            else:
                self._stmts(node.body, st, ctx)
                self._stmts(node.orelse, st, ctx)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for handler in node.handlers:
                self._stmts(handler.body, st, ctx)
            self._stmts(node.body, st, ctx)
            self._stmts(node.orelse, st, ctx)
            self._stmts(node.finalbody, st, ctx)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self._stmts(node.body, st, ctx)
        elif isinstance(node, ast.For):
            self._for(node, st, ctx)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    st.ns.pop(target.id, None)
                    st.defs.pop(target.id, None)

    def _function_globals(self, node: ast.FunctionDef, st: ModuleState, ctx: _Ctx) -> None:
        """Names a module-level function assigns through `global` (e.g. Paddle 3's dtype set-up)."""
        declared = {name for item in ast.walk(node) if isinstance(item, ast.Global) for name in item.names}
        if not declared:
            return
        for item in ast.walk(node):
            if isinstance(item, ast.Assign):
                for target in item.targets:
                    if isinstance(target, ast.Name) and target.id in declared and target.id not in st.ns:
                        self._bind(st, ctx, target.id, (API, f"{ctx.module}.{target.id}"),
                                   Definition(ast.Constant(None), ctx.module))

    def _import(self, node: ast.Import, st: ModuleState, ctx: _Ctx) -> None:
        for alias in node.names:
            target = alias.name
            self._bind_child_module(target, st, ctx)
            if alias.asname:
                ref = (MOD, target) if self._is_paddle_module(target) else (EXT, target)
                self._bind(st, ctx, alias.asname, ref)
            else:
                top = target.split(".")[0]
                self._bind(st, ctx, top, (MOD, top) if self._is_paddle_module(top) else (EXT, top))

    def _bind_child_module(self, imported: str, st: ModuleState, ctx: _Ctx) -> None:
        # Importing `pkg.sub` sets attribute `sub` on `pkg`; inside `pkg` that is a binding.
        if ctx.is_package and imported.startswith(ctx.module + "."):
            child = imported[len(ctx.module) + 1:].split(".")[0]
            path = f"{ctx.module}.{child}"
            if path in self.modules:
                self._bind(st, ctx, child, (MOD, path))

    def _import_from(self, node: ast.ImportFrom, st: ModuleState, ctx: _Ctx) -> None:
        source = self._absolute(ctx, node.level or 0, node.module)
        if not self._is_paddle_module(source):
            for alias in node.names:
                if alias.name != "*":
                    self._bind(st, ctx, alias.asname or alias.name, (EXT, f"{source}.{alias.name}"))
            return
        self._bind_child_module(source, st, ctx)
        for alias in node.names:
            if alias.name == "*":
                self._star(source, st, ctx)
                continue
            ref: Optional[Ref]
            sub = f"{source}.{alias.name}"
            if source == ctx.module and sub in self.modules:
                ref = (MOD, sub)
            else:
                ref = self.member(source, alias.name, st, ctx)
            if ref is None:
                if _is_public(alias.asname or alias.name):
                    self._issue(ctx, f"cannot resolve 'from {source} import {alias.name}'")
                ref = (EXT, f"unresolved:{sub}")
            self._bind(st, ctx, alias.asname or alias.name, ref)

    def exports(self, module: str, st: ModuleState, ctx: _Ctx) -> Optional[List[Tuple[str, Ref]]]:
        """What `from module import *` binds, or None when the module is not statically known."""
        other = st if module == ctx.module else self.state.get(module)
        if other is None:
            return None
        if other.all is not None and not other.all_partial:
            out = []
            for name in other.all:
                ref = self.member(module, name, st, ctx)
                if ref is None:
                    self._issue(ctx, f"'{name}' is in {module}.__all__ but not defined there")
                    continue
                out.append((name, ref))
            return out
        return [(name, ref) for name, ref in other.ns.items() if _is_public(name)]

    def _star(self, source: str, st: ModuleState, ctx: _Ctx) -> None:
        if self._is_dynamic(source) or source not in self.modules:
            st.dynamic = True
        names = self.exports(source, st, ctx) if source in self.modules else None
        for name, ref in names or ():
            self._bind(st, ctx, name, ref)

    def _assign(self, target: ast.expr, value: ast.expr, st: ModuleState, ctx: _Ctx) -> None:
        if _is_globals_subscript(target):
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
                and _decorator_name(value.func) == "signature" and len(value.args) == 1:
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
                        self._bind(st, ctx, elt.id, (API, f"{ctx.module}.{elt.id}"),
                                   Definition(ast.Constant(None), ctx.module))

    def _assign_name(self, name: str, value: ast.expr, st: ModuleState, ctx: _Ctx,
                     env: Optional[dict] = None, generated: bool = False) -> None:
        if name == "__all__":
            self._set_all(st, ctx, self.strlist(value, st, ctx, env), "__all__")
            return
        strings = self.strlist(value, st, ctx, env)
        if strings is not None:
            st.lists[name] = strings
        loop_local = env is not None and isinstance(value, ast.Name) and value.id in env
        if isinstance(value, (ast.Name, ast.Attribute)) and not loop_local:
            ref = self.ref_of(value, st, ctx)
            if ref is not None and ref[0] in (API, MOD, OPAQUE):
                self._bind(st, ctx, name, ref)  # an alias: the same object under another name
                return
        self._bind(st, ctx, name, (API, f"{ctx.module}.{name}"),
                   Definition(value, ctx.module, env=env, generated=generated))

    def _extend(self, name: str, value: ast.expr, st: ModuleState, ctx: _Ctx,
                env: Optional[dict] = None) -> None:
        extra = self.strlist(value, st, ctx, env)
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

    def _call_stmt(self, call: ast.Call, st: ModuleState, ctx: _Ctx, env: Optional[dict] = None) -> None:
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner, method = func.value.id, func.attr
            if owner == "__all__" or owner in st.lists:
                current = (st.all or []) if owner == "__all__" else st.lists[owner]
                arg = call.args[0] if len(call.args) == 1 else None
                if method == "extend" and arg is not None:
                    extra = self.strlist(arg, st, ctx, env)
                elif method == "append" and arg is not None:
                    extra = self._strvalue(arg, env)
                    extra = None if extra is None else [extra]
                elif method == "remove" and arg is not None:
                    gone = self._strvalue(arg, env)
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
        if isinstance(func, ast.Attribute) and func.attr == "update" and _is_globals_call(func.value):
            st.dynamic = True
        if any(_is_globals_call(arg) for arg in call.args):
            # e.g. protobuf's `_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, ..., globals())`
            st.dynamic = True

    @staticmethod
    def _strvalue(expr: ast.expr, env: Optional[dict]) -> Optional[str]:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if env and isinstance(expr, ast.Name) and expr.id in env:
            bound, _ = env[expr.id]
            if isinstance(bound, ast.Constant) and isinstance(bound.value, str):
                return bound.value
        return None

    def _for(self, node: ast.For, st: ModuleState, ctx: _Ctx) -> None:
        """`for OP in NAMES: ... globals()[OP] = make(OP)`: one generated definition per name."""
        if not _writes_names(node):
            return
        names = self.strlist(node.iter, st, ctx) if isinstance(node.target, ast.Name) else None
        if names is None:
            st.dynamic = True
            st.all_partial = st.all_partial or _touches_all(node)
            self._issue(ctx, f"names generated in the loop at line {node.lineno} are not statically known")
            return
        for value in _dedupe(names):
            env: Dict[str, Tuple[ast.expr, dict]] = {node.target.id: (ast.Constant(value), {})}
            self._loop_body(node.body, st, ctx, env)

    def _loop_body(self, body: Sequence[ast.stmt], st: ModuleState, ctx: _Ctx,
                   env: Dict[str, Tuple[ast.expr, dict]]) -> None:
        """One iteration of a generator loop; `env` maps loop-local names to (value, env then)."""
        for stmt in body:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if _is_globals_subscript(target):
                        key = self._strvalue(target.slice, env)
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

    # ---- signatures

    def definition(self, dotted: str) -> Optional[Tuple[str, Definition]]:
        module, name = dotted.rsplit(".", 1)
        st = self.state.get(module)
        if st is None or st.ns.get(name) != (API, dotted) or name not in st.defs:
            return None
        return module, st.defs[name]

    def describe(self, dotted: str) -> Tuple[dict, List[str]]:
        """The index entry of one API, plus other APIs it refers to (its base classes)."""
        found = self.definition(dotted)
        if found is None:
            return {"kind": "unknown"}, []
        definition = found[1]
        module, node = definition.module, definition.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            entry = {"kind": "function", "params": _params(node.args, drop_first=False)}
            declared = self.state[found[0]].signature_from.get(dotted.rsplit(".", 1)[1])
            if declared is not None:
                kind, params = self._value_signature(declared, None, found[0])
                if kind == "function" and params is not None:
                    entry["params"] = params
            kwalias = _kw_aliases(node.decorator_list)
            if kwalias:
                entry["kwalias"] = kwalias
            return entry, []
        if isinstance(node, ast.ClassDef):
            return self._describe_class(module, node)
        if isinstance(node, ast.expr):
            kind, params = self._value_signature(node, definition.env, module)
            if kind == "unknown":
                kind = "function" if definition.generated else "constant"
            entry = {"kind": kind}
            if params is not None:
                entry["params"] = params
            return entry, []
        return {"kind": "constant"}, []

    def _ctx_state(self, module: str) -> Tuple[ModuleState, _Ctx]:
        src = self.modules[module]
        return self.state[module], _Ctx(module, src.is_package)

    def _value_signature(self, expr: ast.expr, env: Optional[dict], module: str,
                         depth: int = 0) -> Tuple[str, Optional[list]]:
        """(kind, params) of an assigned value; kind "unknown" when nothing can be said."""
        if depth > 20:
            return "unknown", None
        st, ctx = self._ctx_state(module)
        if isinstance(expr, ast.Name) and env and expr.id in env:
            bound, bound_env = env[expr.id]
            return self._value_signature(bound, bound_env, module, depth + 1)
        if isinstance(expr, ast.Lambda):
            return "function", _params(expr.args, drop_first=False)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            ref = self.ref_of(expr, st, ctx)
            if ref and ref[0] == API:
                return self._api_signature(ref[1], depth + 1)
            return "unknown", None
        if isinstance(expr, ast.Call):
            func = expr.func
            callee = None
            if not isinstance(func, ast.Call):
                ref = self.ref_of(func, st, ctx)
                found = self.definition(ref[1]) if ref and ref[0] == API else None
                callee = found[1].node if found else None
                if isinstance(callee, ast.ClassDef):
                    return "constant", None  # an instance
            if expr.args:
                # `decorator(func)` and `deprecated(...)(func)` keep the decorated function's signature.
                kind, params = self._value_signature(expr.args[0], env, module, depth + 1)
                if kind == "function":
                    return kind, params
            if isinstance(callee, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = _returned_function(callee)
                if inner is not None:
                    # A generator such as 1.8's `generate_activation_fn(op)` returns a nested
                    # `def func(x, name=None)`; `generate_layer_fn(op)` a `def func(*args, **kwargs)`.
                    return "function", _params(inner.args, drop_first=False)
            return "unknown", None
        return "constant", None

    def _api_signature(self, dotted: str, depth: int) -> Tuple[str, Optional[list]]:
        found = self.definition(dotted)
        if found is None:
            return "unknown", None
        definition = found[1]
        node = definition.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return "function", _params(node.args, drop_first=False)
        if isinstance(node, ast.ClassDef):
            return "class", self._init_params(definition.module, node)
        if isinstance(node, ast.expr):
            return self._value_signature(node, definition.env, definition.module, depth + 1)
        return "unknown", None

    def _describe_class(self, module: str, node: ast.ClassDef) -> Tuple[dict, List[str]]:
        st, ctx = self._ctx_state(module)
        bases: List[str] = []
        opaque_base = False
        for base in node.bases:
            ref = self.ref_of(base, st, ctx)
            if ref is not None and ref[0] == API and self._class_node(ref[1]) is not None:
                bases.append(ref[1])
            elif not (isinstance(base, ast.Name) and base.id == "object"):
                opaque_base = True
        methods, attrs = _class_members(node)
        entry: dict = {"kind": "class"}
        params = self._init_params(module, node)
        if params is not None:
            entry["params"] = params
        if bases:
            entry["bases"] = bases
        if methods:
            entry["methods"] = methods
        if attrs:
            entry["attrs"] = sorted(set(attrs))
        if opaque_base and not bases:
            entry["opaque_bases"] = True
        return entry, bases

    def _class_node(self, dotted: str) -> Optional[Tuple[str, ast.ClassDef]]:
        found = self.definition(dotted)
        if found is None or not isinstance(found[1].node, ast.ClassDef):
            return None
        return found[1].module, found[1].node

    def _init_params(self, module: str, node: ast.ClassDef) -> Optional[list]:
        """Parameters of `Class(...)` (without self), or None when they cannot be seen."""
        params = self._constructor(module, node, set())
        return [] if params is _OBJECT_INIT else params

    def _constructor(self, module: str, node: ast.ClassDef, seen: Set[int]):
        """Own `__init__` (or `__new__`), else the first base class (depth first) that has one;
        `_OBJECT_INIT` when the chain ends at `object`, None when part of it cannot be read."""
        if id(node) in seen:
            return None
        seen.add(id(node))
        for special in ("__init__", "__new__"):
            found = _pick_overload([item for item in node.body if isinstance(item, ast.FunctionDef)
                                    and item.name == special])
            if found is not None:
                return _params(found.args, drop_first=True)
        st, ctx = self._ctx_state(module)
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            ref = self.ref_of(base, st, ctx)
            found_base = self._class_node(ref[1]) if ref is not None and ref[0] == API else None
            if found_base is None:
                return None  # a compiled or third-party base
            params = self._constructor(found_base[0], found_base[1], seen)
            if params is not _OBJECT_INIT:
                return params
        if id(node) in self.stub_classes:
            return None  # a stub may simply not spell out the constructor
        return _OBJECT_INIT


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_overload(node: ast.AST) -> bool:
    return any(_decorator_name(d) == "overload" for d in getattr(node, "decorator_list", ()))


def _pick_overload(defs: Sequence[ast.FunctionDef]) -> Optional[ast.FunctionDef]:
    """The definition to index among same-named ones: the last plain def (the one that runs); in a
    stub with only `@overload`s, the most permissive overload (one taking **kwargs), else the first."""
    plain = [d for d in defs if not _is_overload(d)]
    if plain:
        return plain[-1]
    permissive = [d for d in defs if d.args.kwarg is not None]
    return (permissive or list(defs) or [None])[0]


def _params(args: ast.arguments, drop_first: bool) -> list:
    """Parameters as `[name]` / `[name, default-source]`, with `*name`, `**name`, `*` and `/` markers."""
    positional = list(args.posonlyargs) + list(args.args)
    defaults: List[Optional[ast.expr]] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out: list = []
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        if not (drop_first and i == 0):
            out.append([arg.arg] if default is None else [arg.arg, ast.unparse(default)])
        if i == len(args.posonlyargs) - 1 and out:
            out.append(["/"])
    if args.vararg is not None:
        out.append(["*" + args.vararg.arg])
    elif args.kwonlyargs:
        out.append(["*"])
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        out.append([arg.arg] if default is None else [arg.arg, ast.unparse(default)])
    if args.kwarg is not None:
        out.append(["**" + args.kwarg.arg])
    return out


def _kw_aliases(decorators: Sequence[ast.expr]) -> Dict[str, str]:
    """Keyword aliases added by Paddle 3's decorators (`param_one_alias(["x", "input"])` etc.)."""
    aliases: Dict[str, str] = {}
    for deco in decorators:
        if not isinstance(deco, ast.Call):
            continue
        name = _decorator_name(deco)
        try:
            if name in ("param_one_alias", "param_two_alias"):
                for arg in deco.args:
                    pair = ast.literal_eval(arg)
                    aliases[pair[1]] = pair[0]
            elif name == "ParamAliasDecorator" and deco.args:
                for original, others in ast.literal_eval(deco.args[0]).items():
                    for other in others:
                        aliases[other] = original
        except (ValueError, TypeError, IndexError, SyntaxError):
            continue
    return aliases


def _writes_names(loop: ast.For) -> bool:
    """Whether a module-level loop binds names (`globals()[...] = ...`) or edits `__all__`."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign) and any(_is_globals_subscript(t) for t in node.targets):
            return True
    return _touches_all(loop)


def _touches_all(loop: ast.For) -> bool:
    return any(isinstance(node, ast.Name) and node.id == "__all__" for node in ast.walk(loop))


def _returned_function(node: ast.FunctionDef) -> Optional[ast.FunctionDef]:
    """For a generator such as `generate_activation_fn`: the nested def it returns."""
    inner = {item.name: item for item in node.body if isinstance(item, ast.FunctionDef)}
    for item in node.body:
        if isinstance(item, ast.Return) and isinstance(item.value, ast.Name) and item.value.id in inner:
            return inner[item.value.id]
    return None


def _class_members(node: ast.ClassDef) -> Tuple[Dict[str, Optional[list]], List[str]]:
    """Public methods (parameters without self/cls) and public attributes/properties of a class body."""
    methods: Dict[str, Optional[list]] = {}
    chosen: Dict[str, ast.FunctionDef] = {}
    attrs: List[str] = []
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not _is_public(item.name):
                continue
            names = {_decorator_name(d) for d in item.decorator_list}
            if names & _PROPERTY_DECORATORS:
                attrs.append(item.name)
                continue
            if item.name in chosen and _pick_overload([chosen[item.name], item]) is not item:
                continue
            chosen[item.name] = item
            methods[item.name] = _params(item.args, drop_first="staticmethod" not in names)
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            for target in targets:
                if not isinstance(target, ast.Name) or not _is_public(target.id):
                    continue
                value = item.value
                if isinstance(value, ast.Name) and value.id in methods:
                    methods[target.id] = methods[value.id]  # `set_dict = set_state_dict`
                else:
                    attrs.append(target.id)
    return methods, attrs


# --------------------------------------------------------------------------------------------------
# Assembling the index


def _docs_signatures(modules: Dict[str, SourceModule]) -> Dict[str, list]:
    """Signatures Paddle 3 gives C++ functions: `add_doc_and_signature(name, doc, "def ...")`."""
    out: Dict[str, list] = {}
    for name in sorted(modules):
        tree = modules[name].tree
        if tree is None:
            continue
        for stmt in tree.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and _decorator_name(call.func) == "add_doc_and_signature"
                    and len(call.args) == 3):
                continue
            fname, source = call.args[0], call.args[2]
            if not (isinstance(fname, ast.Constant) and isinstance(source, ast.Constant)
                    and isinstance(fname.value, str) and isinstance(source.value, str)):
                continue
            try:
                parsed = ast.parse(source.value.strip() + ":\n    ...\n")
            except SyntaxError:
                continue
            fn = parsed.body[0] if parsed.body else None
            if isinstance(fn, ast.FunctionDef):
                out.setdefault(fname.value, _params(fn.args, drop_first=False))
    return out


def _is_generic(params: Optional[list]) -> bool:
    return params is None or all(p[0].startswith("*") for p in params)


def build_index(wheel: Path, version: str) -> Tuple[dict, List[str]]:
    """The index of one wheel, and the list of what could not be resolved statically."""
    modules, compiled = read_wheel(wheel)
    analyzer = Analyzer(modules, compiled)
    analyzer.run()
    issues = sorted(analyzer.issues)
    if not analyzer.converged:
        issues.insert(0, "namespaces did not reach a fixpoint; results may be incomplete")

    extensions = {name for name in compiled if name.rsplit(".", 1)[0] in modules}
    real = sorted({name for name, src in modules.items() if not src.stub_only} | extensions)
    module_members: Dict[str, List[str]] = {}
    aliases: Dict[str, str] = {}
    wanted: List[str] = []
    for name in real:
        st = analyzer.state.get(name) or ModuleState(dynamic=True)
        if st.all is not None:
            members = _dedupe(st.all)
        else:
            members = sorted(n for n, ref in st.ns.items() if _is_public(n) and ref[0] != EXT)
        module_members[name] = members
        if not _public_path(name):
            continue
        for member in members if st.all is not None else ():
            if member not in st.ns and f"{name}.{member}" not in modules and not st.dynamic:
                issues.append(f"{name}: '{member}' is in __all__ but not defined there")
        declared = set(st.all or ())
        for member, ref in sorted(st.ns.items()):
            if not (_is_public(member) or member in declared) or ref[0] == EXT:
                continue
            path = f"{name}.{member}"
            if ref[1] == path:
                wanted.append(path)  # defined here (or the submodule itself)
            else:
                aliases[path] = ref[1]
                if ref[0] != MOD:
                    wanted.append(ref[1])

    apis: Dict[str, dict] = {}
    done: Set[str] = set()
    while wanted:
        path = wanted.pop()
        if path in done or path in modules:
            continue
        done.add(path)
        entry, refs = analyzer.describe(path)
        apis[path] = entry
        wanted.extend(refs)

    dynamic = sorted(name for name in real if name in compiled or analyzer.state[name].dynamic)
    # Paddle 3 declares the Python signature of C++ functions such as `paddle.tanh` in
    # `paddle/_paddle_docs.py`; that declaration beats the generated stubs of the compiled module.
    for fname, params in sorted(_docs_signatures(modules).items()):
        target = aliases.get(f"paddle.{fname}", f"paddle.{fname}")
        entry = apis.get(target)
        if entry is None or entry["kind"] not in ("function", "unknown"):
            continue
        if target.rsplit(".", 1)[0] in dynamic or _is_generic(entry.get("params")):
            entry["kind"] = "function"
            entry["params"] = params

    # Aliases whose target is a module path that exists are module aliases; drop chains to nowhere.
    aliases = {k: v for k, v in aliases.items() if v in apis or v in modules}
    issues = sorted(set(issues))
    index = {
        "format": FORMAT,
        "version": version,
        "wheel": wheel.name,
        "sha256": _sha256(wheel),
        "apis": apis,
        "modules": {name: module_members[name] for name in real},
        "aliases": aliases,
        "dynamic": dynamic,
    }
    return index, issues


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def index_bytes(index: dict) -> bytes:
    """Deterministic gzip of the index: sorted keys, compact separators, mtime 0, no file name."""
    raw = json.dumps(index, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------------
# Obtaining wheels and the command line


def find_wheel(spec: WheelSpec, wheel_dir: Path) -> Optional[Path]:
    candidates = sorted(p for p in wheel_dir.glob(f"{spec.file_prefix}*.whl"))
    return candidates[0] if candidates else None


def obtain_wheel(spec: WheelSpec, wheel_dir: Path) -> Path:
    """The wheel from `wheel_dir`, downloaded there with pip first if missing."""
    found = find_wheel(spec, wheel_dir)
    if found is not None:
        return found
    wheel_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(wheel_dir),
           *spec.pip_args, spec.requirement]
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)
    found = find_wheel(spec, wheel_dir)
    if found is None:
        raise SystemExit(f"pip did not leave a {spec.requirement} wheel in {wheel_dir}")
    return found


def index_path(version: str, out_dir: Path = SIGNATURES_DIR) -> Path:
    return out_dir / f"paddle-{version}.json.gz"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m api_mapping.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel-dir", type=Path, default=DEFAULT_WHEEL_DIR,
                        help=f"where wheels are looked for and downloaded to (default: {DEFAULT_WHEEL_DIR})")
    parser.add_argument("--versions", nargs="+", default=list(WHEELS), choices=list(WHEELS))
    parser.add_argument("--out-dir", type=Path, default=SIGNATURES_DIR)
    parser.add_argument("--report", action="store_true", help="list every name that could not be resolved")
    args = parser.parse_args(argv)

    for version in args.versions:
        wheel = obtain_wheel(WHEELS[version], args.wheel_dir)
        index, issues = build_index(wheel, version)
        data = index_bytes(index)
        out = index_path(version, args.out_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        print(f"paddle {version}: {len(index['apis'])} APIs, {len(index['modules'])} modules, "
              f"{len(index['aliases'])} aliases, {len(index['dynamic'])} dynamic modules, "
              f"{len(issues)} unresolved; {out} ({len(data):,} bytes)")
        if args.report:
            for issue in issues:
                print(f"  {issue}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
