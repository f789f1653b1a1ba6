"""A loader a function of one module builds and returns, whose data source its callers in other modules set.

    # data.py                                       # train.py
    def make_loader():                              from data import make_loader
        loader = fluid.io.DataLoader.from_generator(    loader = make_loader()
            capacity=8, return_list=True)           loader.set_sample_list_generator(reader, place)
        return loader                               for x, y in loader(): ...

Both modules change together (generator_loader): the function returns `functools.partial(paddle.io.DataLoader,
...)`, and each caller makes the loader where it set the source, `loader = loader(GeneratorBatches(...),
places=place)` (checked on 1.8.5 and 3.3.1: fixtures/legacy/returned_loader_two_modules/); a loader the
program reads (`iterable=False`) has its reading loops rewritten too, each a `for` loop feeding every batch
to the run (loader_callers through loader_readers: fixtures/legacy/returned_reading_loop_two_modules/). The files of a
tree are upgraded independently, so whether to do it is one function of the tree, `plan`, that the builder's
module and each caller's module compute alike: read with CPython's parser from the files (a caller already
upgraded is read in its 2.x form, which the same plan accepts). It holds when

- the function is a plain `def` bound once at the top of its module, used nowhere there, whose builds of
  the loader (one name; by keyword; all dygraph and iterable, or all static with `feed_list`,
  `return_list=False`, `drop_last=True`, all iterable or all `iterable=False`) are used only by its
  `return`s, each giving it alone or as the same element of a tuple;
- every module of the tree that names the function (the `.py` files of the directory above the builder's
  packages and of the packages in it, imported the way tree_index finds modules) imports it by name, by
  `*` or through its module, from the builder's module or from one that only re-exports it (a package's
  `__init__.py`: `from utils import *` then `utility.f()`, as dygraph/mobilenet does), and only calls it,
  binding the loader to a name whose first use after the call (in the same block, or after the `with`
  blocks around the call, which run once, or after the `if` whose branch holds it, a later `if` with the
  same test giving the statements of the branch it takes: refactors.branch_facts, BERT's run_classifier.py
  under `if args.do_train:`, fixtures/legacy/returned_loader_flags_two_modules/) is one setter (`set_batch_generator`, or a sample one in dygraph),
  then only read as a 2.x DataLoader is (loader_receivers: iterated or called to iterate, or passed to or
  returned to code in sight that does so; no `start()`, no second setter, no truth test) or, built with
  `iterable=False`, only by 1.8's reading loops (`start()`, `while True:` running the program until
  EOFException, `reset()`), in its scope or in plain functions of its module it is passed to
  (loader_reads: what reading_loop rewrites, no `start()` apart from such a loop, no `queue` but a logged
  `queue.size()`, which becomes 0: refactors.queue_size), with a
  paddle import (the upgrade of a module without one is a no-op); in a static graph the sample setters
  are left (1.8 converted each sample to its feed variable's dtype, which the caller cannot see), as is a
  mode the modules do not tell: a static loader only where none of the modules mentions dygraph mode;
- at least one such caller exists.

A module that reaches the builder's module through a `sys.path` entry set at run time, or from outside
that directory, is not seen: the one assumption beyond the tree (as tree_index's).
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from refactors import branch_facts, loader_reads, loader_receivers, queue_size
from refactors.cpython import NESTED, bindings, own_nodes
from refactors.tree_index import TreeIndex, above_packages, dotted_name, file_stat

SETTERS = {  # 1.8's setters (reader.py:916-951): parameters in order, the first being the reader
    "set_sample_generator": ("reader", "batch_size", "drop_last", "places"),
    "set_sample_list_generator": ("reader", "places"),
    "set_batch_generator": ("reader", "places"),
}
# Why a non-iterable loader is left where its pieces are apart other than as the plans that take it have them.
READ_BY_PROGRAM = "iterable=False: a loader the program reads (start(), reset()) is rewritten where one function " \
                  "builds it, sets its source and reads it, or where a function returns its one build to callers " \
                  "that do the rest by reading loops alone"
_DYGRAPH_WORDS = re.compile(r"dygraph|imperative|disable_static|dynamic_mode")  # (in any name)


@dataclass(frozen=True)
class Caller:
    """A module that calls the builder, and the names it binds the loader to."""

    path: str
    loaders: Tuple[str, ...]
    names: Tuple[str, ...]  # the names it binds the function to
    modules: Tuple[str, ...]  # the names of modules whose `.function` it calls
    loops: Tuple[str, ...] = ()  # the loaders of `loaders` it reads with 1.8's reading loops (loader_reads)


@dataclass(frozen=True)
class Across:
    dygraph: bool
    index: Optional[int]  # the element of the returned tuple that is the loader (None: returned alone)
    callers: Tuple[Caller, ...]
    read_by_program: Optional[bool] = False  # built with iterable=False (None: the 2.x build, which does not say)


@lru_cache(maxsize=1024)
def _parsed(path: str, mtime_ns: int, size: int) -> Optional[Tuple[str, ast.Module, str]]:
    """The text, tree and SHA-256 of a module of the tree (cached while the file is unchanged)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        return data.decode("utf-8", "replace"), ast.parse(data), hashlib.sha256(data).hexdigest()
    except (OSError, SyntaxError, ValueError):
        return None


def _read(path: str) -> Optional[Tuple[str, ast.Module, str]]:
    stat = file_stat(path)
    return _parsed(path, stat.st_mtime_ns, stat.st_size) if stat is not None else None


def _imports(module: ast.Module) -> Dict[str, str]:
    """Top-level absolute imports: the name bound -> what it denotes, fully qualified."""
    found: Dict[str, str] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                head = alias.name.split(".")[0]
                found[alias.asname or head] = alias.name if alias.asname else head
        elif isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module:
            for alias in stmt.names:
                found[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return found


def _qualname(node: ast.AST, imports: Dict[str, str]) -> Optional[str]:
    chain = dotted_name(node)
    if chain is None:
        return None
    head, _, rest = chain.partition(".")
    return imports[head] + ("." + rest if rest else "") if head in imports else None


def _stores(node: ast.AST, name: str) -> int:
    return sum(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in own_nodes(node))


def _literal(call: ast.Call, keyword: str, default: object) -> object:
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    if found is None:
        return default
    return found.value if isinstance(found, ast.Constant) else _Unknown


class _Unknown:
    pass


class Left(Exception):
    """Why the plan does not hold: the piece that is not in sight."""


def plan(builder: str, function: str, is_from_generator: Callable[[str], bool],
         texts: Optional[Dict[str, str]] = None, reads: Optional[Dict[str, str]] = None) -> Optional[Across]:
    """The plan for the loader `function` of the module at path `builder` returns; None when the function
    is not of that shape at all; Left naming the piece out of sight when it is but the plan does not hold.
    `texts`: path -> the text of a module as it is being upgraded, where it may differ from the file;
    `reads` gets the path and SHA-256 of each file read whose change may change the plan."""
    reads = {} if reads is None else reads
    read = _source(builder, texts, reads)
    if read is None:
        return None
    text, module = read
    found = _build(module, function, is_from_generator)
    if found is None:
        return None
    index, dygraph, read_by_program = found
    if sum(isinstance(n, ast.Name) and n.id == function for n in ast.walk(module)) != 0:
        raise Left(f"`{function}` is also used in its own module")
    callers = []
    paths = list(modules(builder))
    exporters = _exporters(builder, function, paths, texts, reads)
    for path in paths:
        caller = _caller(path, builder, function, index, dygraph, texts, reads, exporters, read_by_program)
        if caller is not None:
            callers.append(caller)
    if not callers:
        raise Left(f"no module of the tree beside it calls `{function}`, so its data source is not in sight")
    if not dygraph and _DYGRAPH_WORDS.search(text):
        raise Left("its module mentions dygraph mode, so which 1.8 loader it makes is not in sight")
    return Across(dygraph, index, tuple(callers), read_by_program)


def functions(path: str) -> List[str]:
    """The names of the top-level functions of the module at `path`."""
    module = parsed(path)
    return [s.name for s in module.body if isinstance(s, ast.FunctionDef)] if module is not None else []


def parsed(path: str) -> Optional[ast.Module]:
    """CPython's parse of the module at `path` (cached while the file is unchanged)."""
    read = _read(path)
    return read[1] if read is not None else None


def _source(path: str, texts: Optional[Dict[str, str]], reads: Dict[str, str]) -> Optional[Tuple[str, ast.Module]]:
    if texts and path in texts:
        try:
            return texts[path], ast.parse(texts[path])
        except (SyntaxError, ValueError):
            return None
    found = _read(path)
    if found is None:
        return None
    reads[path] = found[2]
    return found[:2]


def source_reader(texts: Optional[Dict[str, str]], reads: Dict[str, str]) -> loader_receivers.Source:
    """A reader of the tree's modules (text and tree) as the plan reads them, recording each read in `reads`."""
    return lambda path: _source(path, texts, reads)


def returned_to(texts: Optional[Dict[str, str]], reads: Dict[str, str]) -> loader_receivers.Returned:
    """loader_receivers' follower of a loader a top-level function returns: where the module and the tree's
    other modules (those of `modules`; none when the module's path is not known) bind what it returns."""
    def follow(path: str, module: ast.Module, function: str, index: Optional[int]):
        try:
            return _bound_results(path, module, function, index, texts, reads)
        except Left as reason:
            raise loader_receivers.Misused(str(reason)) from None
    return follow


def _bound_results(path: str, module: ast.Module, function: str, index: Optional[int],
                   texts: Optional[Dict[str, str]], reads: Dict[str, str]) -> List[Tuple[str, ast.Module, ast.AST, str]]:
    if len([s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == function]) != 1 or \
            bindings(module, function) != 1:
        raise Left(f"`{function}` is bound more than once, so what calling it gives is not in sight")
    found = _results_in(path, module, [function], [], function, index, path)
    paths = list(modules(path)) if os.path.isfile(path) else []
    exporters = _exporters(path, function, paths, texts, reads)
    for other in paths:
        if other in exporters or not _names(other, function, texts):
            continue
        read = _source(other, texts, reads)
        if read is None:
            raise Left(f"{_shown(other, path)} names `{function}` but cannot be parsed")
        names, modules_ = _names_for(read[1], other, path, function, exporters)
        if names or modules_:
            found += _results_in(other, read[1], names, modules_, function, index, path)
    if not found:
        raise Left(f"no module of the tree calls `{function}`, so what is done with it is not in sight")
    return found


def _results_in(path: str, module: ast.Module, names: Sequence[str], modules_: Sequence[str], function: str,
                index: Optional[int], builder: str) -> List[Tuple[str, ast.Module, ast.AST, str]]:
    """Each (path, module, scope, name) where the module binds what the function returns to a name; Left where
    it uses the function (or the module it calls it through) otherwise."""
    where = _shown(path, builder) if path != builder else os.path.basename(path)
    found = []
    calls = set()
    shadowed = _shadowed(module, list(names) + list(modules_))[0]
    for scope in [module] + [n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for node in own_nodes(scope):
            if not _names_builder(node, names, modules_, function, shadowed):
                continue
            target = node.targets[0] if len(node.targets) == 1 else None  # type: ignore[attr-defined]
            if index is not None:
                target = target.elts[index] if isinstance(target, (ast.Tuple, ast.List)) and index < len(target.elts) \
                    and not any(isinstance(e, ast.Starred) for e in target.elts) else None
            if not isinstance(target, ast.Name):
                raise Left(f"{where}: what `{function}` returns is not bound to a name")
            calls.add(id(node.value.func))  # type: ignore[attr-defined]
            found.append((path, module, scope, target.id))
    attributes = {id(n.value) for n in ast.walk(module) if isinstance(n, ast.Attribute)}  # (reading the module)
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in calls and \
                id(node) not in shadowed and (node.id in names or node.id in modules_ and id(node) not in attributes):
            raise Left(f"{where} uses `{function}` other than by calling it and binding what it returns")
        if isinstance(node, ast.Attribute) and node.attr == function and isinstance(node.value, ast.Name) and \
                node.value.id in modules_ and id(node) not in calls and id(node.value) not in shadowed:
            raise Left(f"{where} uses `{function}` other than by calling it and binding what it returns")
    return found


def _build(module: ast.Module, function: str, is_from_generator: Callable[[str], bool]):
    """(index, dygraph) when `function` is a top-level function bound once that builds a loader and returns
    it (see the module's docstring); None when it is no such function; Left for such a function whose build
    or returns the plan does not take."""
    defs = [s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == function]
    if len(defs) != 1:
        return None
    node = defs[0]
    imports = _imports(module)
    builds = [n for n in own_nodes(node) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and
              _is_build(n.value, imports, is_from_generator)]
    targets = {b.targets[0].id if len(b.targets) == 1 and isinstance(b.targets[0], ast.Name) else None
               for b in builds}
    if len(targets) != 1 or None in targets:
        return None
    loader = targets.pop()
    if not all(_alone(node, b) for b in builds):
        raise Left(f"a build of `{loader}` shares its line with another statement")
    if node.decorator_list or sum(_stores(s, function) for s in module.body if s is not node) or \
            any(isinstance(s, (ast.Global, ast.Nonlocal)) and function in s.names for s in ast.walk(module)):
        raise Left(f"`{function}` is decorated or bound more than once, so what calling it does is not in sight")
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) and loader in n.names for n in ast.walk(node)):
        raise Left(f"`{loader}` is global in `{function}`")
    returns = [n for n in own_nodes(node) if isinstance(n, ast.Return)]
    indexes = {_returned_at(r.value, loader) for r in returns}
    uses = sum(isinstance(n, ast.Name) and n.id == loader for n in ast.walk(node))
    if not returns or len(indexes) != 1 or _MISSING in indexes or uses != len(returns) + len(builds) or \
            any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(node)):
        raise Left(f"`{function}` returns the loader other than alone or as one element of every `return`'s "
                   f"tuple, or uses it otherwise")
    _imported_once(module, ("paddle",), "its module")
    _stdlib_once(module, "functools", "its module")
    modes = {_checked_build(b.value, imports) for b in builds}  # type: ignore[arg-type]
    if len({dygraph for dygraph, _ in modes}) != 1:
        raise Left(f"the builds of `{loader}` are not all of one mode (dygraph or static graph)")
    if len(modes) != 1:
        raise Left(f"the builds of `{loader}` are not all iterable, nor all read by the program")
    return (indexes.pop(), *modes.pop())


def _checked_build(call: ast.Call, imports: Dict[str, str]) -> Tuple[bool, Optional[bool]]:
    """Whether the build (1.8's, or the 2.x form) makes a dygraph loader, and whether the program reads it
    (iterable=False; None for the 2.x form); Left where the plan does not take it."""
    positional = call.args[1:] if _is_partial(call, imports) else call.args
    if positional or any(k.arg is None for k in call.keywords):
        raise Left("the loader's build passes arguments by position or **kwargs")
    dygraph = not any(k.arg == "feed_list" for k in call.keywords)
    if _is_partial(call, imports):
        return dygraph, None
    iterable = _literal(call, "iterable", True)
    if not (iterable is True or iterable is False) or (dygraph and iterable is False):
        raise Left(READ_BY_PROGRAM)
    if not dygraph and (_literal(call, "return_list", False) is not False or
                        _literal(call, "drop_last", True) is not True):
        raise Left("a static-graph loader with return_list=True or drop_last=False")
    return dygraph, not iterable


_MISSING = object()


def _returned_at(value: Optional[ast.AST], loader: str) -> object:
    if isinstance(value, ast.Name) and value.id == loader:
        return None
    elements = value.elts if isinstance(value, (ast.Tuple, ast.List)) else []
    at = [i for i, e in enumerate(elements) if isinstance(e, ast.Name) and e.id == loader]
    return at[0] if len(at) == 1 and not any(isinstance(e, ast.Starred) for e in elements) else _MISSING


def _is_partial(call: ast.Call, imports: Dict[str, str]) -> bool:
    """The 2.x form generator_loader gives the build: `functools.partial(paddle.io.DataLoader, ...)`."""
    return _qualname(call.func, imports) == "functools.partial" and bool(call.args) and \
        _qualname(call.args[0], imports) == "paddle.io.DataLoader"


def _is_build(call: ast.Call, imports: Dict[str, str], is_from_generator: Callable[[str], bool]) -> bool:
    qualname = _qualname(call.func, imports)
    return qualname is not None and (is_from_generator(qualname) or _is_partial(call, imports))


def modules(builder: str) -> Iterator[str]:
    """The other modules of the tree that may import `builder` the way tree_index finds modules, in a fixed
    order: those of the directory above its packages and of the packages in it (a script in a directory
    that is no package finds modules beside itself only)."""
    root = above_packages(os.path.dirname(os.path.abspath(builder)))
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and
                         os.path.isfile(os.path.join(directory, d, "__init__.py")))
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(".py") and os.path.abspath(path) != os.path.abspath(builder):
                yield path


def _caller(path: str, builder: str, function: str, index: Optional[int], dygraph: bool,
            texts: Optional[Dict[str, str]], reads: Dict[str, str],
            exporters: Dict[str, Optional[str]], read_by_program: Optional[bool] = False) -> Optional[Caller]:
    """The caller the module at `path` is (None when it does not call the function); Left when it
    names it in a way the plan does not take."""
    if path in exporters or not _names(path, function, texts):
        return None
    read = _source(path, texts, reads)
    if read is None:
        raise Left(f"{_shown(path, builder)} names `{function}` but cannot be parsed")
    text, module = read
    names, modules = _names_for(module, path, builder, function, exporters)
    if not names and not modules:
        return None
    where = _shown(path, builder)
    if not any(isinstance(s, (ast.Import, ast.ImportFrom)) and
               any((getattr(s, "module", None) or a.name).split(".")[0] == "paddle" for a in s.names)
               for s in module.body):
        raise Left(f"{where} calls `{function}` without importing paddle, so the upgrade does not change it")
    if not dygraph and _DYGRAPH_WORDS.search(text):
        raise Left(f"{where} mentions dygraph mode, so which 1.8 loader `{function}` makes is not in sight")
    _imported_once(module, ("paddle",), where)
    _stdlib_once(module, "numpy", where)
    if any(bindings(module, n) for n in ("GeneratorBatches", "GeneratorBatches_2")) and not any(
            isinstance(s, ast.ClassDef) and s.name.startswith("GeneratorBatches") for s in module.body):
        raise Left(f"{where} binds the name of the dataset class the rewrite writes (`GeneratorBatches`)")
    shadowed = _shadowed(module, names + modules)[0]
    read = {id(n.value) for n in ast.walk(module) if isinstance(n, ast.Attribute)}
    if any(isinstance(n, ast.Name) and n.id in modules and isinstance(n.ctx, ast.Load) and id(n) not in read
           and id(n) not in shadowed for n in ast.walk(module)):  # the module passed on: called elsewhere
        raise Left(f"{where} uses the module of `{function}` other than by reading its attributes")
    loaders, loops, iterated = [], [], []
    for scope in [module] + [n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for node in own_nodes(scope):
            if _names_builder(node, names, modules, function, shadowed):
                loader, setter = _set_after(scope, node, index, dygraph, f"{where}: ", read_by_program, module)
                if setter is not None:
                    loops.append((scope, loader, setter))
                else:
                    _read_alike(scope, node, loader, path, module, source_reader(texts, reads),
                                returned_to(texts, reads), where)
                    iterated.append(loader)
                loaders.append(loader)
    if loops:
        if {loader for _, loader, _ in loops} & set(iterated):  # (the callers' half tells them apart by name)
            raise Left(f"{where} binds a loader the program reads and one it iterates to the same name")
        _read_by_loops(path, module, loops, builder, reads)
    uses = sum(isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load) and id(n) not in shadowed
               for n in ast.walk(module)) + \
        sum(isinstance(n, ast.Attribute) and n.attr == function and isinstance(n.value, ast.Name) and n.value.id in
            modules and id(n.value) not in shadowed for n in ast.walk(module))
    if uses != len(loaders):
        raise Left(f"{where} uses `{function}` other than by calling it and binding what it returns")
    if names and not loaders:
        raise Left(f"{where} imports `{function}` without calling it (for other modules?), so its callers are not "
                   f"all in sight")
    return Caller(path, tuple(loaders), tuple(names), tuple(modules), tuple(loader for _, loader, _ in loops)) \
        if loaders else None


def _read_by_loops(path: str, module: ast.Module, loops: Sequence[Tuple[ast.AST, str, ast.stmt]], builder: str,
                   reads: Dict[str, str]) -> None:
    """Left unless every read of each loader of `loops` (scope, name, setter), the caller's 1.8 loaders that
    the program reads, is a reading loop, in its scope or in a function of the module it is passed to, which
    only such loaders are passed to and no other module of the tree names (loader_reads)."""
    where = _shown(path, builder)
    imports = _imports(module)

    def resolve(node: ast.AST) -> Optional[str]:
        return _qualname(node, imports)

    planned = {(id(scope), loader) for scope, loader, _ in loops}
    passed: Dict[str, Tuple[ast.FunctionDef, str]] = {}
    try:
        for scope, loader, setter in loops:
            for name, (function, param) in loader_reads.in_scope(scope, loader, setter, module, resolve).items():
                if passed.setdefault(name, (function, param))[1] != param:
                    raise loader_reads.Unread(f"`{name}` is given loaders for two of its parameters")
        for name, (function, param) in sorted(passed.items()):
            loader_reads.in_function(function, param, module, resolve)
            loader_reads.calls_pass_planned(module, function, param, planned)
            for other in modules(path):
                found = text_naming(other, name)
                if found is not None:
                    reads[other] = found
                    module = parsed(other)
                    if not _own_function(module, name) and code_names(module, name) and importable(path, reads):
                        raise loader_reads.Unread(f"`{name}`, which reads the loader, is named in "
                                                  f"{_shown(other, builder)}, which may call it with another loader")
    except loader_reads.Unread as reason:
        raise Left(f"{where}: {reason}") from None


def _stdlib_once(module: ast.Module, name: str, where: str) -> None:
    """Left unless the standard-library module `name` the 2.x form uses is unbound in the module, or bound
    once by `import <name>` at its top (where emit.stdlib_module takes it)."""
    count = bindings(module, name)
    top = [s for s in module.body if isinstance(s, ast.Import) and any(a.name == name and a.asname is None
                                                                       for a in s.names)]
    if count and not (count == 1 and top):
        raise Left(f"{where} binds `{name}` other than by one `import {name}` at its top")


def _imported_once(module: ast.Module, names: Sequence[str], where: str) -> None:
    """Left when one of `names` (`paddle`: what the 2.x form is written with) is bound in the module other
    than by `import <name>...`."""
    for node in ast.walk(module):
        bound: List[str] = []
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound = [node.id]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = [node.name]
        elif isinstance(node, ast.arg):
            bound = [node.arg]
        elif isinstance(node, ast.ImportFrom):
            bound = [a.asname or a.name for a in node.names]
        elif isinstance(node, ast.Import):
            bound = [a.asname for a in node.names if a.asname]
        found = [n for n in bound if n in names]
        if found:
            raise Left(f"{where} binds `{found[0]}` to something else")


def _shown(path: str, builder: str) -> str:
    return os.path.relpath(path, os.path.dirname(os.path.abspath(builder)))


def _names_for(module: ast.Module, path: str, builder: str, function: str,
               exporters: Dict[str, Optional[str]]) -> Tuple[List[str], List[str]]:
    """The names the module binds to the function, and to modules whose `.function` is it: the builder's
    module or a module that re-exports the function (`exporters`), imported by name, as a module, or by
    `*` (which gives a package's submodules it imported too)."""
    index = TreeIndex(path, lambda _: None)
    target = os.path.abspath(builder)
    where = _shown(path, builder)
    names: List[str] = []
    modules: List[str] = []
    starred: List[str] = []

    def located(dotted: str, level: int) -> Optional[str]:
        found = index.module_path(os.path.abspath(path), dotted, level)
        return found if found == target or found in exporters else None

    for stmt in ast.walk(module):
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                source = located(stmt.module or "", stmt.level)
                if alias.name == "*" and source is not None:
                    given = _star_names(source, function, exporters.get(source))
                    names.extend(n for n in given if n == function)
                    modules.extend(n for n in given if n != function)
                    starred.extend(given)
                elif alias.name == "*":
                    other = index.module_path(os.path.abspath(path), stmt.module or "", stmt.level)
                    read = _read(other) if other is not None else None
                    if read is not None and re.search(r"\b%s\b" % re.escape(function), read[0]):
                        raise Left(f"{where} imports * from {_shown(other, builder)}, which names `{function}`")
                    continue
                elif alias.name == function and source is not None:
                    names.append(alias.asname or alias.name)
                elif located(f"{stmt.module}.{alias.name}" if stmt.module else alias.name, stmt.level):
                    modules.append(alias.asname or alias.name)
                else:
                    continue
                if stmt not in module.body:
                    raise Left(f"{where} imports `{function}` inside a block")
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if located(alias.name, 0):
                    if alias.asname is None and "." in alias.name:
                        raise Left(f"{where} imports the module of `{function}` by a dotted name")
                    if stmt not in module.body:
                        raise Left(f"{where} imports `{function}` inside a block")
                    modules.append(alias.asname or alias.name)
    local = _shadowed(module, names + modules)[1]  # (a function's parameter `reader` is not `import reader`)
    bound = [n for n in names + modules if bindings(module, n) - local.get(n, 0) != (0 if n in starred else 1)]
    if bound:
        raise Left(f"{where} binds `{bound[0]}` more than once")
    return names, modules


def _shadowed(module: ast.Module, names: Sequence[str]) -> Tuple[Set[int], Dict[str, int]]:
    """The names of `names` that functions of the module bind as their own (a parameter or a local, not
    `global`): the ids of their Name nodes there (which are not the module's), and how many bindings each
    such function makes of each name (which are not the module's either)."""
    ids: Set[int] = set()
    local: Dict[str, int] = {}
    for name in set(names):
        outer: List[ast.AST] = []
        for node in ast.walk(module):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and _own_name(node, name) and \
                    not any(node in ast.walk(o) for o in outer):
                outer.append(node)
        for definition in outer:
            ids.update(id(n) for n in ast.walk(definition) if isinstance(n, ast.Name) and n.id == name)
            local[name] = local.get(name, 0) + bindings(definition, name) - (getattr(definition, "name", None) == name)
    return ids, local


def _own_name(definition: ast.AST, name: str) -> bool:
    """Whether a function binds `name` in its own scope (so its every `name` is not the module's)."""
    arguments = definition.args  # type: ignore[attr-defined]
    params = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs] + \
        [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(definition)):
        return False
    return name in params or any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) or
        isinstance(n, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name.split(".")[0]) == name for a in n.names)
        for n in own_nodes(definition))


def _exporters(builder: str, function: str, paths: Sequence[str], texts: Optional[Dict[str, str]],
               reads: Dict[str, str]) -> Dict[str, Optional[str]]:
    """The modules that import the function from the builder's module at their top and do nothing else with
    it (a package's `__init__.py` re-exporting it), each with the name of the builder's module there when it
    is a submodule of that package (`from .utility import f` binds `utility` in the package too)."""
    found: Dict[str, Optional[str]] = {}
    target = os.path.abspath(builder)
    for path in paths:
        read = _source(path, texts, reads) if _names(path, function, texts) else None
        if read is None:
            continue
        module = read[1]
        index = TreeIndex(path, lambda _: None)
        imports = [s for s in module.body if isinstance(s, ast.ImportFrom) and
                   any(a.name == function and a.asname is None for a in s.names) and
                   index.module_path(os.path.abspath(path), s.module or "", s.level) == target]
        uses = sum(isinstance(n, ast.Name) and n.id == function for n in ast.walk(module))
        if len(imports) == 1 and not uses and bindings(module, function) == 1:
            package = os.path.basename(path) == "__init__.py" and os.path.dirname(path) == os.path.dirname(target)
            found[path] = os.path.splitext(os.path.basename(target))[0] if package and imports[0].level == 1 else None
    return found


def _star_names(source: str, function: str, submodule: Optional[str]) -> List[str]:
    """What `from <source> import *` binds of the function and of the builder's module (`submodule`)."""
    read = _read(source)
    listed = None
    for stmt in read[1].body if read is not None else ():
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
            try:
                listed = list(ast.literal_eval(stmt.value))
            except ValueError:
                raise Left(f"`__all__` of {source} is not a literal") from None
    return [n for n in (function, submodule) if n is not None and (listed is None or n in listed)]


def _names(path: str, function: str, texts: Optional[Dict[str, str]]) -> bool:
    """Whether the module's text names the function (as a word)."""
    if texts and path in texts:
        return _says(texts[path], function)
    return text_naming(path, function) is not None


def text_naming(path: str, name: str) -> Optional[str]:
    """The SHA-256 of the file at `path` when its text says `name` as a word; None when it does not (or
    cannot be read)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if name.encode("utf-8") not in data:  # the cheap test first: most files of a tree do not say it at all
        return None
    return hashlib.sha256(data).hexdigest() if _says(data.decode("utf-8", "replace"), name) else None


def named_elsewhere(index: TreeIndex, name: str,
                    own: Optional[Callable[[Optional[ast.Module], str], bool]] = None) -> bool:
    """Whether another module of the tree around `index.origin` (where its imports look, `modules`) says
    `name` as a word, other than as something of its own (`own(module, name)`; by default a function of its
    own) or in its prose alone (`code_names`); each one read is recorded for the content cache."""
    for path in modules(index.origin):
        found = text_naming(path, name)
        if found is not None:
            index.reads[path] = found
            module = parsed(path)
            if not (own or _own_function)(module, name) and code_names(module, name):
                return True
    return False


# Names through which a module may reach a function by a string that is its name (reflection), or by one
# holding code.
_BY_NAME = ("getattr", "hasattr", "vars", "globals", "locals", "__dict__", "import_module", "__import__")
_BY_CODE = ("eval", "exec", "compile")


def code_names(module: Optional[ast.Module], name: str) -> bool:
    """Whether the code of `module` may name `name` (True when it cannot be parsed): a name, attribute,
    parameter, keyword, definition or import of it, or where the module reaches things by strings, a string
    that is it (`getattr`) or says it (`eval`); a string elsewhere (`phase="infer"`) or a comment does not."""
    if module is None:
        return True
    used = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(module) if isinstance(n, ast.Attribute)}
    by_name, by_code = bool(used.intersection(_BY_NAME)), bool(used.intersection(_BY_CODE))
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name:
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name or \
                isinstance(node, ast.arg) and node.arg == name or isinstance(node, ast.keyword) and node.arg == name:
            return True
        if isinstance(node, ast.alias) and name in (node.name.split(".") + [node.asname, "*"]):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, ast.ImportFrom) and name in (node.module or "").split("."):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                (by_name and node.value.strip() == name or by_code and _says(node.value, name)):
            return True
    return False


def importable(origin: str, reads: Dict[str, str]) -> bool:
    """Whether another module of the tree may import the module at `origin`, and so call its functions: one says
    its name as a word (`run_squad` of run_squad.py, the package's for an `__init__.py`; an import, a re-export
    or a path given to `runpy` all spell it) or imports `__main__` (the script run). A script no module names
    (BERT's run_squad.py) has its functions called by itself alone. Each module that says the name is recorded
    in `reads` for the content cache."""
    stem = os.path.splitext(os.path.basename(origin))[0]
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(os.path.abspath(origin)))
    for path in modules(origin):
        found = text_naming(path, stem)
        if found is not None:
            reads[path] = found
            return True
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return True
        if _MAIN_IMPORT.search(data):
            return True
    return False


_MAIN_IMPORT = re.compile(rb"\bimport\s+__main__\b|\bfrom\s+__main__\s+import\b")


def _own_function(module: Optional[ast.Module], name: str) -> bool:
    """The module says `name` only of a function of its own (two scripts each with a `get_dataset`): it
    defines one at its top level, imports nothing under that name and no `*`, and reads no attribute and
    no string `name` (so its every `name` is its own function, or a local one)."""
    if module is None or not any(isinstance(s, ast.FunctionDef) and s.name == name for s in module.body):
        return False
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and name in (node.module or "").split("."):
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                alias.name == "*" or name in alias.name.split(".") or alias.asname == name for alias in node.names):
            return False
        if isinstance(node, ast.Attribute) and node.attr == name or isinstance(node, ast.Constant) and node.value == name:
            return False
    return True


def _says(text: str, name: str) -> bool:
    return re.search(r"\b%s\b" % re.escape(name), text) is not None


def _names_builder(node: ast.AST, names: Sequence[str], modules: Sequence[str], function: str,
                   shadowed: Set[int] = frozenset()) -> bool:  # type: ignore[assignment]
    """`node` is an assignment of a call of the function (not of a local of the same name: `shadowed`)."""
    if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    return (isinstance(func, ast.Name) and func.id in names and id(func) not in shadowed) or (
        isinstance(func, ast.Attribute) and func.attr == function and isinstance(func.value, ast.Name) and
        func.value.id in modules and id(func.value) not in shadowed)


def _set_after(scope: ast.AST, assign: ast.Assign, index: Optional[int], dygraph: bool, where: str,
               read_by_program: Optional[bool] = False,
               module: Optional[ast.Module] = None) -> Tuple[str, Optional[ast.stmt]]:
    """The name `assign` binds the loader to, when the first statement after it in its block that names it
    sets its data source, and the scope reads it only as a whole after that (or, a loader the program reads,
    by its `start()`/`reset()`; then with the setter, which loader_reads starts from); else Left."""
    target = assign.targets[0] if len(assign.targets) == 1 else None
    if index is not None and isinstance(target, (ast.Tuple, ast.List)) and index < len(target.elts) and \
            not any(isinstance(e, ast.Starred) for e in target.elts):
        target = target.elts[index]
    elif index is not None:
        target = None
    if not isinstance(target, ast.Name):
        raise Left(f"{where}the loader returned is not bound to a name")
    loader = target.id
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) and loader in n.names for n in own_nodes(scope)) or \
            any(isinstance(d, NESTED) and any(isinstance(n, ast.Name) and n.id == loader for n in ast.walk(d))
                for d in own_nodes(scope)):
        raise Left(f"{where}`{loader}` is global, or used in a nested function or class")
    if not _alone(scope, assign):
        raise Left(f"{where}the call shares its line with another statement")
    stable = branch_facts.stable_cpython(module, scope) if module is not None else lambda test: False
    after = branch_facts.path_after(scope, assign, stable)
    setter = next((s for s in after if any(isinstance(n, ast.Name) and n.id == loader for n in ast.walk(s))), None)
    kind = setter_kind(setter, loader) if setter is not None else None
    if kind is None or not _alone(scope, setter):
        raise Left(f"{where}`{loader}` is not given its data source by the first statement after the call that "
                   f"names it, alone on its line")
    by_loops = kind != "2.x" and (read_by_program is True or read_by_program is None and module is not None and
                                  loader_reads.reads_started(scope, loader, module))
    if kind != "2.x":
        _check_setter(setter.value, kind, dygraph, where, by_loops)  # type: ignore[union-attr]
    stores = _stores(scope, loader)
    if stores != (2 if kind == "2.x" else 1):
        raise Left(f"{where}`{loader}` is bound more than once")
    end = setter.end_lineno or setter.lineno
    logged = queue_size.attributes(scope, loader)  # (loader_reads or loader_receivers judge them)
    for n in own_nodes(scope):
        if isinstance(n, ast.Name) and n.id == loader and n.lineno < assign.lineno:
            raise Left(f"{where}`{loader}` is used before the call")
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == loader and \
                not (setter.lineno <= n.lineno <= end) and not (by_loops and n.attr in loader_reads.READ) and \
                id(n) not in logged:
            raise Left(f"{where}`{loader}.{n.attr}` is used, which paddle.io.DataLoader does not have")
    return loader, setter if by_loops else None


def _read_alike(scope: ast.AST, assign: ast.Assign, loader: str, path: str, module: ast.Module,
                source: loader_receivers.Source, returned: loader_receivers.Returned, where: str) -> None:
    """Left unless every read of the loader after its setter (in the scope and the functions it is passed
    to) is one a 2.x DataLoader serves as 1.8's loader did (loader_receivers)."""
    setter = {id(n) for s in own_nodes(scope) if isinstance(s, ast.stmt) and s.lineno > assign.lineno and
              setter_kind(s, loader) is not None for n in ast.walk(s)}
    try:
        loader_receivers.check(scope, loader, setter | {id(n) for n in ast.walk(assign)}, path, module, source,
                               returned, rewritten=True)
    except loader_receivers.Misused as reason:
        raise Left(f"{where}: {reason}") from None


def _alone(scope: ast.AST, stmt: ast.stmt) -> bool:
    """No other statement of the scope starts on the line of `stmt` (`a; b`, `if c: b`): the upgrade
    rewrites a statement that is a line of its own."""
    return sum(isinstance(n, ast.stmt) and n.lineno == stmt.lineno for n in own_nodes(scope)) == 1


def setter_kind(stmt: ast.stmt, loader: str) -> Optional[str]:
    """The setter `stmt` calls on the loader (`loader.set_..._generator(...)` alone), "2.x" for the form
    generator_loader gives it (`loader = loader(...)`), else None."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == loader and \
                func.attr in SETTERS:
            return func.attr
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and \
            stmt.targets[0].id == loader and isinstance(stmt.value, ast.Call) and \
            isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == loader:
        return "2.x"
    return None


def _check_setter(call: ast.Call, kind: str, dygraph: bool, where: str, read_by_program: bool = False) -> None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise Left(f"{where}the data source is set with *args/**kwargs")
    params = SETTERS[kind]
    given = list(params[:len(call.args)]) + [k.arg for k in call.keywords]
    if len(call.args) > len(params) or any(name not in params for name in given) or "reader" not in given:
        raise Left(f"{where}{kind} is given arguments 1.8 does not take, or no reader")
    if kind == "set_sample_generator" and "batch_size" not in given:
        raise Left(f"{where}{kind} without batch_size")
    if not dygraph and kind != "set_batch_generator":
        raise Left(f"{where}{kind} in a static graph: 1.8 converted each sample to the dtype and shape of its feed "
                   f"variable, which are not in sight where the source is set")
    if not dygraph and not read_by_program and "places" not in given:
        raise Left(f"{where}an iterable static-graph loader without places")
