"""What the other modules of the tree being upgraded define: which of their top-level classes derive,
through any number of modules of the tree, from a 1.8 (or 2.x) Layer or optimizer class.

`from network import Net` in `train.py` makes `Net()` a Layer when `network.py`, beside it, defines
`class Net(fluid.dygraph.Layer)`, or `class Net(Base)` with such a `Base`. Modules are found the way
Python finds them for a script: beside the file (the script's directory comes first on `sys.path`),
relative imports in the file's package, absolute ones from above the packages the file is in (`pkg/sub/
m.py` importing `pkg.base` runs with the directory holding `pkg/` on `sys.path`); a module found nowhere in the tree (an installed package, a
`sys.path` entry set at run time) leaves the class unknown. Each module is read with CPython's
parser once per process (keyed by path, size and modification time), so each worker of a parallel
run reads what it needs itself. The modules read are recorded with their SHA-256 (`reads`): a result
that depends on them is valid only while they are unchanged (the content cache checks them). A result
may also depend on what the tree lacks (a module not found, no other module naming a function): one
that consulted the tree at all (`TreeIndex.consulted`) is valid only while `tree_digest` is unchanged.
"""
from __future__ import annotations

import ast
import hashlib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Tuple

from refactors import cpython

_DEPTH = 8  # how many classes and modules a base is followed through
_MODULES = 256  # how many modules `imported_modules` follows the imports of


@dataclass(frozen=True)
class _Module:
    """A module's top-level classes (name -> each base as dotted text, None where it is not a name) and
    the names its imports bind (name -> (module, member or None, level)), each bound once."""

    classes: Dict[str, Tuple[Optional[str], ...]]
    imports: Dict[str, Tuple[str, Optional[str], int]]
    sha256: str


def dotted_name(node: ast.AST) -> Optional[str]:
    """`a.b.c` for a name or a chain of attributes of one (CPython's parse), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return head + "." + node.attr if head is not None else None
    return None


@lru_cache(maxsize=4096)
def _read(path: str, mtime_ns: int, size: int) -> Optional[_Module]:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        tree = ast.parse(data)
    except (OSError, SyntaxError, ValueError):
        return None
    bound: Dict[str, int] = {}
    classes: Dict[str, Tuple[Optional[str], ...]] = {}
    imports: Dict[str, Tuple[str, Optional[str], int]] = {}
    for stmt in tree.body:
        names = []
        if isinstance(stmt, ast.ClassDef):
            names = [stmt.name]
            if not stmt.keywords:  # a metaclass may make it anything
                classes[stmt.name] = tuple(dotted_name(b) for b in stmt.bases)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                name = alias.asname or alias.name.split(".")[0]
                names.append(name)
                imports[name] = (alias.name if alias.asname else name, None, 0)
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.name == "*":
                    return None  # any name may come from it
                names.append(alias.asname or alias.name)
                imports[alias.asname or alias.name] = (stmt.module or "", alias.name, stmt.level)
        else:
            names = [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))]
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.append(stmt.name)
            names.extend(n for s in ast.walk(stmt) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names)
        for name in names:
            bound[name] = bound.get(name, 0) + 1
    once = {name for name, count in bound.items() if count == 1}
    return _Module({k: v for k, v in classes.items() if k in once}, {k: v for k, v in imports.items() if k in once},
                   hashlib.sha256(data).hexdigest())


@dataclass
class TreeIndex:
    """The classes of the tree around one module (`origin`, a path); `classify` names what a fully
    qualified paddle class is (`paddle.fluid.dygraph.Linear`, `paddle.nn.Linear`; see `classifier`)."""

    origin: str
    classify: Callable[[str], Optional[str]]
    reads: Dict[str, str] = field(default_factory=dict)  # path of each module consulted -> its SHA-256
    consulted: bool = False  # set by engine.Context.other_modules whenever a refactor asks for the tree

    def imported_class(self, module: str, member: Optional[str], level: int, name: str) -> Optional[str]:
        """What (`classifier`) class `name` of the module the origin imports as `from <level dots><module>
        import <member>` (member None: `import <module>`; `name` is then read as an attribute of it)."""
        return self._class(os.path.abspath(self.origin), (module, member, level), name, 0)

    def plain_class(self, module: str, member: Optional[str], level: int, name: str) -> bool:
        """Whether that class is defined (in a module of the tree) on no base but `object`, and bound
        once there: an object of it is no paddle object."""
        located = self._locate(os.path.abspath(self.origin), (module, member, level), name)
        bases = located[0][1].classes.get(located[1]) if located is not None else None
        return bases is not None and all(base == "object" for base in bases)

    def defining_module(self, module: str, member: Optional[str], level: int, name: str) -> Optional[Tuple[str, str]]:
        """(path, name there) of the module of the tree that defines the class the origin imports so."""
        located = self._locate(os.path.abspath(self.origin), (module, member, level), name)
        return (located[0][0], located[1]) if located is not None else None

    def module_at(self, path: str) -> Optional[_Module]:
        """The module at `path` (a module `defining_module` found), read."""
        stat = file_stat(path)
        return _read(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None

    def module_path(self, importer: str, dotted: str, level: int) -> Optional[str]:
        """The absolute path of the module of the tree that `importer` imports as `dotted` (`level` dots
        before it), found as `_module` finds it; None when it is in no module of the tree."""
        found = self._module(importer, dotted, level)
        return os.path.abspath(found[0]) if found is not None else None

    def file_of(self, importer: str, dotted: str, level: int) -> Optional[str]:
        """The absolute path of the module file of the tree that `importer` imports as `dotted` (`level` dots
        before it), found where `_path` looks, whatever it holds; None when there is none."""
        found = self._path(importer, dotted, level)
        return os.path.abspath(found) if found is not None else None

    def imported_modules(self, tree: ast.Module) -> Optional[List[str]]:
        """The paths of the modules of the tree that the origin (`tree`, CPython's parse of it) imports,
        anywhere in it (`import *` too), and those they import, found as `imported_class` finds a module
        (each recorded in `reads`); None where one of these modules is not read (not parsed, as Python 3
        or through the upgrade's Python 2 pre-pass) or there are too many to follow."""
        origin = os.path.abspath(self.origin)
        paths: List[str] = []
        todo: List[Tuple[str, Tuple[Tuple[str, Optional[str]], ...]]] = [(origin, _imports_in(tree))]
        while todo:
            importer, imports = todo.pop()
            for module, member in imports:
                level, dotted = len(module) - len(module.lstrip(".")), module.lstrip(".")
                path = self._path(importer, f"{dotted}.{member}" if dotted else member, level) if member else None
                path = path or self._path(importer, dotted, level)
                if path is None or path == origin or path in paths:
                    continue
                stat = file_stat(path)
                found = _imports(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None
                if found is None or len(paths) >= _MODULES:
                    return None
                paths.append(path)
                self.reads[path] = found[1]
                todo.append((path, found[0]))
        return paths

    def _class(self, importer: str, imported: Tuple[str, Optional[str], int], name: str, depth: int) -> Optional[str]:
        located = self._locate(importer, imported, name)
        return self._defined(located[0], located[1], depth) if located is not None else None

    def _locate(self, importer: str, imported: Tuple[str, Optional[str], int],
                name: str) -> Optional[Tuple[Tuple[str, _Module], str]]:
        """The module that defines the class `name` imported so, and its name there."""
        module, member, level = imported
        if member is not None:  # `from m import member`: a module `m.member`, or a name of `m`
            found = self._module(importer, f"{module}.{member}" if module else member, level)
            if found is not None:
                return found, name
            found = self._module(importer, module, level)
            return (found, member) if found is not None and name == member else None
        found = self._module(importer, module, level)
        return (found, name) if found is not None else None

    def _defined(self, found: Tuple[str, _Module], name: str, depth: int) -> Optional[str]:
        """What class `name` of a module is: what its first base classified is."""
        path, module = found
        bases = module.classes.get(name)
        if bases is None or depth > _DEPTH:
            return None
        for base in bases:
            if base is None:
                continue
            head, _, rest = base.partition(".")
            if head in module.classes and not rest:
                facts = self._defined(found, head, depth + 1)
            elif head in module.imports:
                imported_module, member, level = module.imports[head]
                qualname = (f"{imported_module}.{member}" if member else imported_module) + ("." + rest if rest else "")
                if qualname.split(".")[0] == "paddle":
                    facts = self.classify(qualname) if level == 0 else None
                elif member is None:
                    facts = self._class(path, (imported_module, None, level), rest, depth + 1) if rest else None
                elif not rest:
                    facts = self._class(path, (imported_module, member, level), member, depth + 1)
                else:
                    facts = self._class(path, (imported_module, member, level), rest, depth + 1)
            else:
                facts = None
            if facts is not None:
                return facts
        return None

    def _module(self, importer: str, dotted: str, level: int) -> Optional[Tuple[str, _Module]]:
        """The module `dotted` as `importer` imports it (see `_path`), read."""
        path = self._path(importer, dotted, level)
        if path is None:
            return None
        stat = file_stat(path)
        module = _read(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None
        if module is None:
            return None
        self.reads[path] = module.sha256
        return path, module

    def _path(self, importer: str, dotted: str, level: int) -> Optional[str]:
        """The path of the module `dotted` as `importer` imports it: relative to its package, or beside the
        origin (the script's directory) or the importer, or above the packages the origin is in."""
        if not dotted and not level:
            return None
        parts = dotted.split(".") if dotted else []
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            roots = [base]
        else:
            here = os.path.dirname(os.path.abspath(self.origin))
            roots = list(dict.fromkeys([here, os.path.dirname(importer), above_packages(here)]))
        for root in roots:
            stem = os.path.join(root, *parts)
            for path in (stem + ".py", os.path.join(stem, "__init__.py")):
                if os.path.isfile(path):
                    return path
        return None


@lru_cache(maxsize=256)
def either_tree(path: str, mtime_ns: int, size: int) -> Optional[Tuple[ast.Module, str]]:
    """CPython's parse of the module at `path` (through the Python 2 pre-pass where a plain parse fails,
    `cpython.parse_either`) and its SHA-256, read once while the file is unchanged (the summaries the
    tree's readers keep are made from it); None where it is not read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    tree = cpython.parse_either(data.decode("utf-8", "replace"))
    return (tree, hashlib.sha256(data).hexdigest()) if tree is not None else None


@lru_cache(maxsize=4096)
def _imports(path: str, mtime_ns: int, size: int) -> Optional[Tuple[Tuple[Tuple[str, Optional[str]], ...], str]]:
    """`_imports_in` of the module at `path` and its SHA-256; None where it is not read."""
    read = either_tree(path, mtime_ns, size)
    return (_imports_in(read[0]), read[1]) if read is not None else None


def _imports_in(tree: ast.Module) -> Tuple[Tuple[str, Optional[str]], ...]:
    """(module with its leading dots, member or None) of each import anywhere in the module."""
    found: List[Tuple[str, Optional[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            found.extend((module, None if alias.name == "*" else alias.name) for alias in node.names)
    return tuple(found)


def file_stat(path: str) -> Optional[os.stat_result]:
    """`os.stat(path)`, or None where there is no such file (its mtime and size key the parse caches)."""
    try:
        return os.stat(path)
    except OSError:
        return None


def above_packages(directory: str) -> str:
    """The directory above the packages `directory` is in (itself when it is no package): a module of
    `pkg/sub/` importing `pkg.other` runs with that directory on `sys.path`, or the import fails."""
    while os.path.isfile(os.path.join(directory, "__init__.py")) and os.path.dirname(directory) != directory:
        directory = os.path.dirname(directory)
    return directory


# The key of `reads` that stands for the whole tree (no path has this name): the result consulted it.
TREE = "<tree>"
# Directories no walk of a source tree enters (upgrade_tool.discovery skips them too).
SKIPPED_DIR_NAMES = frozenset({"__pycache__", "site-packages", "dist-packages"})


def tree_digest(origin: str) -> str:
    """A SHA-256 of every `.py` file (relative path and bytes) under the directory above the packages
    `origin` is in, where `_path` looks for modules: adding, removing or changing one changes it."""
    root = above_packages(os.path.dirname(os.path.abspath(origin)))
    digest = hashlib.sha256()
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIR_NAMES)
        for name in sorted(files):
            path = os.path.join(directory, name)
            stat = file_stat(path) if name.endswith(".py") else None
            if stat is not None:
                digest.update(f"{os.path.relpath(path, root)}\0{_file_sha(path, stat.st_mtime_ns, stat.st_size)}\0"
                              .encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


@lru_cache(maxsize=8192)
def _file_sha(path: str, mtime_ns: int, size: int) -> str:
    """The SHA-256 of a file's bytes, hashed once while it is unchanged ("" where it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return ""


_CLASSIFIERS: Dict[int, Callable[[str], Optional[str]]] = {}


def classifier(table) -> Callable[[str], Optional[str]]:
    """For a table: a paddle class's fully qualified name -> for a 1.8 class, the name of the class
    facts its objects have (`paddle.fluid.dygraph.layers.Layer`); for a 2.x class, the 2.x class of
    those facts (`paddle.nn.Layer`: its objects have the 2.x methods already); else None."""
    found = _CLASSIFIERS.get(id(table))
    if found is None:
        modern: Dict[str, str] = {}
        for facts in table.classes.values():
            modern[facts.update_to] = facts.update_to
            for name in facts.instances:
                entry = table.lookup(name)
                if entry is not None and entry.kind == "class" and entry.update_to:
                    modern.setdefault(entry.update_to, facts.update_to)

        def classify(qualname: str) -> Optional[str]:
            entry = table.lookup(qualname)
            if entry is not None:
                facts = table.class_facts(entry.name) if entry.kind == "class" else None
                return facts.name if facts is not None and entry.name in facts.instances else None
            return modern.get(qualname)
        found = _CLASSIFIERS[id(table)] = classify
    return found


def imported_class(ctx, chain: str, scope) -> Optional[str]:
    """What (`classifier`) the class that `chain` (`Net`, `nets.CNN`), read in `scope` of the module
    being upgraded (a `refactors.engine.Context`), names: a class another module of the tree defines,
    imported once by the statement that binds the chain's first name."""
    imported = imported_as(ctx, chain, scope)
    return ctx.other_modules.imported_class(*imported) if imported is not None else None


def plain_class(ctx, chain: str, scope) -> bool:
    """Whether `chain`, read so, names a class another module of the tree defines on `object` alone."""
    imported = imported_as(ctx, chain, scope)
    return imported is not None and ctx.other_modules.plain_class(*imported)


def imported_as(ctx, chain: str, scope) -> Optional[Tuple[str, Optional[str], int, str]]:
    """(module, member, level, name), as the TreeIndex methods take it: how the module being upgraded
    imports the class `chain` names, read in `scope`; None when not by one import of the module."""
    import libcst as cst

    from refactors.local_values import binding_statements
    from refactors.scopes import dotted

    if ctx.other_modules is None or scope is None:
        return None
    head, _, rest = chain.partition(".")
    if "." in rest:
        return None
    owner = ctx.resolver.binding_scope(head, scope)
    found = binding_statements(owner, head) if owner is not None else None
    if not found or len(found) != 1:
        return None
    stmt = found[0][0]
    if isinstance(stmt, cst.Import) and rest:
        alias = next(a for a in stmt.names if (a.evaluated_alias or a.evaluated_name.split(".")[0]) == head)
        if alias.asname is None and "." in alias.evaluated_name:
            return None  # `import a.b` binds `a`
        return alias.evaluated_name, None, 0, rest
    if isinstance(stmt, cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar):
        alias = next(a for a in stmt.names if (a.evaluated_alias or a.evaluated_name) == head)
        module = dotted(stmt.module) if stmt.module is not None else ""
        if module is None:
            return None
        return module, alias.evaluated_name, len(stmt.relative), rest or alias.evaluated_name
    return None
