"""What a plain class of another module of the tree assigns to an attribute of its objects.

dygraph/bert (models release/1.7, 1.8): `run_classifier.py` makes `optimizer = Optimizer(...)`, a class
of `optimization.py`, and saves `optimizer.optimizer.state_dict()`. There `class Optimizer(object)`
sets `self.optimizer = self.lr_schedule()`, and every return of that method is a name the method
assigns `fluid.optimizer.Adam(...)`: the attribute holds a 1.8 optimizer, whatever branch ran.

Read with CPython's parser (the module is found as `tree_index` finds it, and recorded in its `reads`).
Only a class on no base but `object` (no base class's method can assign the attribute) whose every
assignment of `self.<attr>`, in any of its methods, is a call the module's imports name, or a call of
one of its own methods whose every return is such a call or a name the method assigns only such calls.
What other modules assign to the attribute of an object from outside is not seen (as `tree_index`
does not see a class rebound at run time); the module being upgraded is checked by the caller.
"""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from refactors import tree_index
from refactors.tree_index import TreeIndex, dotted_name, file_stat

_Made = Optional[Tuple[str, ...]]  # the qualified names of the callables that made every value, or None


def made_by(ctx, chain: str, scope, attr: str) -> _Made:
    """The qualified names of what makes each value the class `chain` (read in `scope` of the module
    being upgraded, a `refactors.engine.Context`) assigns to `self.<attr>`; None when one is not known."""
    imported = tree_index.imported_as(ctx, chain, scope)
    return _made_in_tree(ctx.other_modules, imported, attr) if imported is not None else None


def _made_in_tree(index: TreeIndex, imported: Tuple[str, Optional[str], int, str], attr: str) -> _Made:
    located = index.defining_module(*imported)
    if located is None:
        return None
    path, name = located
    stat = file_stat(path)
    read = tree_index.either_tree(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None
    tree = read[0] if read is not None else None
    module = index.module_at(path)
    if tree is None or module is None:
        return None
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name]
    if len(classes) != 1 or name not in module.classes or any(b != "object" for b in module.classes[name]):
        return None
    cls = classes[0]
    methods = {s.name: s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found: List[str] = []
    for method in methods.values():
        for value in _assigned_to_self(method, attr):
            made = _made(value, method, methods, module.imports)
            if made is None:
                return None
            found += made
    return tuple(sorted(set(found))) if found else None


def _self_name(method: ast.AST) -> Optional[str]:
    args = method.args.posonlyargs + method.args.args  # type: ignore[attr-defined]
    return args[0].arg if args and not method.decorator_list else None  # type: ignore[attr-defined]


def _assigned_to_self(method: ast.AST, attr: str) -> List[Optional[ast.expr]]:
    """The values the method assigns to `self.<attr>` (None: one not known, such as `+=` or unpacking)."""
    me = _self_name(method)
    found: List[Optional[ast.expr]] = []
    for node in ast.walk(method):
        if isinstance(node, ast.Call) and dotted_name(node.func) in ("setattr", "self.__dict__.update"):
            found.append(None)
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            plain = isinstance(target, ast.Attribute) and target.attr == attr
            if plain and isinstance(node, ast.Assign) and isinstance(target.value, ast.Name) and target.value.id == me:
                found.append(node.value)
            elif plain or any(isinstance(t, ast.Attribute) and t.attr == attr for t in ast.walk(target)):
                found.append(None)  # through another name, augmented or unpacked
    return found


def _made(value: Optional[ast.expr], method: ast.AST, methods, imports, depth: int = 0) -> Optional[List[str]]:
    """The qualified callables that make `value` (read in `method`)."""
    if value is None or depth > 2:
        return None
    if isinstance(value, ast.Name):
        assigned = _local_values(method, value.id)
        made = [_made(v, method, methods, imports, depth + 1) for v in assigned] if assigned else [None]
        return None if any(m is None for m in made) else [n for m in made for n in m]  # type: ignore[union-attr]
    if not isinstance(value, ast.Call):
        return None
    chain = dotted_name(value.func)
    if chain is None:
        return None
    head, _, rest = chain.partition(".")
    if head == _self_name(method) and rest in methods and depth < 2:
        returns = [n.value for n in ast.walk(methods[rest]) if isinstance(n, ast.Return)]
        made = [_made(v, methods[rest], methods, imports, depth + 1) for v in returns] if returns else [None]
        return None if any(m is None for m in made) else [n for m in made for n in m]  # type: ignore[union-attr]
    if head not in imports or imports[head][2]:
        return None
    module, member, _ = imports[head]
    return [(f"{module}.{member}" if member else module) + ("." + rest if rest else "")]


def _local_values(method: ast.AST, name: str) -> List[Optional[ast.expr]]:
    """The values `method` assigns to the local `name`; a None entry where another statement binds it."""
    found: List[Optional[ast.expr]] = []
    plain = set()
    for node in ast.walk(method):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == name:
            found.append(node.value)
            plain.add(id(node.targets[0]))
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and id(node) not in plain:
            found.append(None)
    if any(isinstance(a, ast.arg) and a.arg == name for a in ast.walk(method)):
        found.append(None)  # a parameter
    return found
