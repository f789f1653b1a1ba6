"""The index entry of an API from its definition: a function's parameters, a class's constructor
(its own `__init__` or the first base class's that has one), methods and attributes, the signature a
generated or decorated function ends up with."""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from tools.signature_index.namespaces import Namespaces
from tools.signature_index.state import API, ModuleState, ReplayContext
from tools.signature_index.syntax import decorator_name, is_public, kw_aliases, param_list, pick_overload

_OBJECT_INIT = object()  # a class whose construction is `object.__init__`: no parameters
_PROPERTY_DECORATORS = {"property", "cached_property", "abstractproperty", "setter", "getter", "deleter"}


class Describer:
    """Describes the APIs of a wheel whose namespaces are known."""

    def __init__(self, ns: Namespaces) -> None:
        self.ns = ns

    def describe(self, dotted: str) -> Tuple[dict, List[str]]:
        """The index entry of one API, plus other APIs it refers to (its base classes)."""
        found = self.ns.definition(dotted)
        if found is None:
            return {"kind": "unknown"}, []
        definition = found[1]
        module, node = definition.module, definition.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            entry = {"kind": "function", "params": param_list(node.args, drop_first=False)}
            declared = self.ns.state[found[0]].signature_from.get(dotted.rsplit(".", 1)[1])
            if declared is not None:
                kind, params = self._value_signature(declared, None, found[0])
                if kind == "function" and params is not None:
                    entry["params"] = params
            kwalias = kw_aliases(node.decorator_list)
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

    def _ctx_state(self, module: str) -> Tuple[ModuleState, ReplayContext]:
        src = self.ns.modules[module]
        return self.ns.state[module], ReplayContext(module, src.is_package)

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
            return "function", param_list(expr.args, drop_first=False)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            ref = self.ns.ref_of(expr, st, ctx)
            if ref and ref[0] == API:
                return self._api_signature(ref[1], depth + 1)
            return "unknown", None
        if isinstance(expr, ast.Call):
            func = expr.func
            callee = None
            if not isinstance(func, ast.Call):
                ref = self.ns.ref_of(func, st, ctx)
                found = self.ns.definition(ref[1]) if ref and ref[0] == API else None
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
                    return "function", param_list(inner.args, drop_first=False)
            return "unknown", None
        return "constant", None

    def _api_signature(self, dotted: str, depth: int) -> Tuple[str, Optional[list]]:
        found = self.ns.definition(dotted)
        if found is None:
            return "unknown", None
        definition = found[1]
        node = definition.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return "function", param_list(node.args, drop_first=False)
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
            ref = self.ns.ref_of(base, st, ctx)
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
        found = self.ns.definition(dotted)
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
            found = pick_overload([item for item in node.body if isinstance(item, ast.FunctionDef)
                                    and item.name == special])
            if found is not None:
                return param_list(found.args, drop_first=True)
        st, ctx = self._ctx_state(module)
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            ref = self.ns.ref_of(base, st, ctx)
            found_base = self._class_node(ref[1]) if ref is not None and ref[0] == API else None
            if found_base is None:
                return None  # a compiled or third-party base
            params = self._constructor(found_base[0], found_base[1], seen)
            if params is not _OBJECT_INIT:
                return params
        if id(node) in self.ns.stub_classes:
            return None  # a stub may simply not spell out the constructor
        return _OBJECT_INIT


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
            if not is_public(item.name):
                continue
            names = {decorator_name(d) for d in item.decorator_list}
            if names & _PROPERTY_DECORATORS:
                attrs.append(item.name)
                continue
            if item.name in chosen and pick_overload([chosen[item.name], item]) is not item:
                continue
            chosen[item.name] = item
            methods[item.name] = param_list(item.args, drop_first="staticmethod" not in names)
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            for target in targets:
                if not isinstance(target, ast.Name) or not is_public(target.id):
                    continue
                value = item.value
                if isinstance(value, ast.Name) and value.id in methods:
                    methods[target.id] = methods[value.id]  # `set_dict = set_state_dict`
                else:
                    attrs.append(target.id)
    return methods, attrs
