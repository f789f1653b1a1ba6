"""The callers' half of a loader another module's function builds and returns (refactors.loader_across).

A module that calls such a function and sets the loader's data source holds no use site of
`from_generator`: before the pass, each setter that follows a call of a function the tree's plan takes is
scheduled to make the loader there, `loader = loader(GeneratorBatches(reader, samples=...), places=...)`,
as generator_loader does where the function is in the same module; a loader built with `iterable=False`
also has its reading loops (in the caller, and in the functions of the module it is passed to) scheduled to
become `for` loops that feed each batch to the run (loader_readers). The builder's module makes its half
(`functools.partial(paddle.io.DataLoader, ...)`) from the same plan, so both change or neither does.

Not a transformer itself (nothing here is registered): api_rename's `prepare` runs `plan`.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from refactors import findings as F
from refactors import loader_across, queue_size
from refactors.engine import Context, NeedsReview, Site
from refactors.local_values import statements
from refactors.scopes import ImportBinding, descendants
from refactors.transformers import generator_loader, loader_readers

_SETTER_WORDS = re.compile(r"\.(?:%s)\b" % "|".join(loader_across.SETTERS))


def plan(ctx: Context) -> None:
    """Before the pass: the setters of loaders that functions of other modules of the tree return."""
    if not _SETTER_WORDS.search(ctx.source) or ctx.other_modules is None:
        return
    origin = os.path.abspath(ctx.other_modules.origin)
    tree = ctx.python_tree()
    if tree is None:
        return
    callees: Dict[Tuple[str, Optional[str]], Tuple[loader_across.Across, str, Tuple[str, ...]]] = {}
    # (name, attr) -> plan, function, the loaders of this module read by 1.8's reading loops
    called = _called_names(tree)
    for path in _modules_imported(ctx, tree, origin):
        for function in sorted(called.intersection(loader_across.functions(path))):
            try:
                found = loader_across.plan(path, function, generator_loader.is_from_generator(ctx),
                                           {origin: ctx.source}, ctx.other_modules.reads)
            except loader_across.Left:
                continue  # the builder's module reports why
            caller = next((c for c in found.callers if os.path.abspath(c.path) == origin), None) if found else None
            for name in caller.names if caller is not None else ():
                callees[(name, None)] = (found, function, caller.loops)  # type: ignore[union-attr]
            for name in caller.modules if caller is not None else ():
                callees[(name, function)] = (found, function, caller.loops)  # type: ignore[union-attr]
    if not callees:
        return
    ctx.reads(ctx.module, words=tuple({n for n, _ in callees}) + tuple(loader_across.SETTERS))
    found = []
    for scope in (ctx.module, *(n for n in descendants(ctx.module) if isinstance(n, cst.FunctionDef))):
        own = list(statements(scope))
        for stmt in own:
            called = _called(stmt, callees)
            made = _setter_of(ctx, own, *called) if called is not None else None
            if made is not None:
                found.append(made)
    read = [made for made in found if made.loader in made.loops]
    if read and not _reads_rewritten(ctx, read):
        found = [made for made in found if made not in read]
    for made in found:
        _schedule(ctx, made)


@dataclass
class _Made:
    """A loader of a plan this module makes where its source is set."""

    site: Site  # at the setter, its scope the caller's
    loader: str
    function: str
    setter: cst.BaseStatement
    call: cst.Call
    loops: Tuple[str, ...]  # (the plan's) the loaders of the module its reading loops read


def _reads_rewritten(ctx: Context, read: List[_Made]) -> bool:
    """Schedule the rewrite of the reading loops of the loaders the program reads (`read`: in their callers'
    scopes and in the functions of the module they are passed to, loader_readers), unless one is not of the
    shape reading_loop takes. That the plan took them in CPython's parse (loader_reads) is meant to make this
    hold; where it does not, the loaders are left and the finding says so (the builder's module follows the
    plan: the upgrade then needs review)."""
    readers = loader_readers.Readers()
    try:
        for made in read:
            ctx.reads(made.site.scope.node, words=(made.loader,))
            loader_readers.add_caller(ctx, made.site, readers, made.site.scope, made.loader,
                                      [(made.setter, made.call)])
        loader_readers.check_passed(ctx, read[0].site, readers)
    except NeedsReview as reason:
        for made in read:
            _left(ctx, made, f"the loader `{made.function}` returns is read here by the program, and the tree's plan "
                             f"took its reading loops but this module's rewrite does not: {reason}")
        return False
    loader_readers.rewrite(ctx, readers)
    return True


def _called_names(tree: ast.Module) -> Set[str]:
    """The names of the functions whose calls the module assigns: `f` of `x = f(...)` and of `x = m.f(...)`,
    and what the module imports by name (under another name, `from m import f as g`)."""
    found: Set[str] = {a.name for s in tree.body if isinstance(s, ast.ImportFrom) for a in s.names}
    for node in ast.walk(tree):
        func = node.value.func if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) else None
        if isinstance(func, ast.Name):
            found.add(func.id)
        elif isinstance(func, ast.Attribute):
            found.add(func.attr)
    return found


def _modules_imported(ctx: Context, tree: ast.Module, origin: str) -> List[str]:
    """The modules of the tree this module imports at its top, and those they import at theirs (where a
    package's `__init__.py` gets what it re-exports): where the functions it calls may be defined. The
    plan decides which of them it calls."""
    index = ctx.other_modules
    assert index is not None
    found: List[str] = []

    def add(importer: str, module: ast.Module) -> List[str]:
        new = []
        for stmt in module.body:
            dotted = [(s.module or "", s.level) for s in [stmt] if isinstance(stmt, ast.ImportFrom)]
            dotted += [(f"{stmt.module}.{a.name}" if stmt.module else a.name, stmt.level)
                       for a in stmt.names if a.name != "*"] if isinstance(stmt, ast.ImportFrom) else []
            dotted += [(a.name, 0) for a in stmt.names] if isinstance(stmt, ast.Import) else []
            for name, level in dotted:
                path = index.module_path(importer, name, level)
                if path is not None and path != origin and path not in found:
                    found.append(path)
                    new.append(path)
        return new

    for path in add(origin, tree):
        read = loader_across.parsed(path)
        if read is not None:
            add(path, read)
    return found


def _called(stmt: cst.CSTNode, callees) -> Optional[Tuple[loader_across.Across, str, Tuple[str, ...], cst.Assign]]:
    """(plan, function, the loaders read by loops, assignment) when `stmt` assigns a call of a planned
    function."""
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Call) or len(small.targets) != 1:
        return None
    func = small.value.func
    key = (func.value, None) if isinstance(func, cst.Name) else \
        (func.value.value, func.attr.value) if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
        else None
    return (*callees[key], small) if key in callees else None  # type: ignore[return-value]


def _left(ctx: Context, made: _Made, reason: str) -> None:
    """Report the setter of `made` left, with a TODO saying why."""
    ctx.track_position(made.call.func)

    def report(updated: cst.CSTNode) -> cst.CSTNode:
        made.site.line, made.site.col = ctx.position_of(made.call.func)
        ctx.report(made.site, F.NEEDS_REVIEW, "warning", f"{made.site.name}: {reason}", False)
        ctx.todo(reason, updated)
        return updated

    ctx.replace(made.setter, report)


def _setter_of(ctx: Context, own: List[cst.BaseStatement], found: loader_across.Across, function: str,
               loops: Tuple[str, ...], assign: cst.Assign) -> Optional[_Made]:
    """The loader `assign` binds, with the setter that makes it: the one statement of the scope's own code
    (`own`) that sets the source of that name, which the plan found on every path from the call (through
    `with` blocks and `if`s whose tests it decides: loader_across._set_after) and allowed nowhere else."""
    target = assign.targets[0].target
    if found.index is not None:
        target = target.elements[found.index].value  # type: ignore[attr-defined]
    loader = target.value  # type: ignore[attr-defined]
    setters = [(s, c) for s in own for c in [generator_loader.setter_call(s, loader, generator_loader.SETTERS)]
               if c is not None]
    if len(setters) != 1:
        return None  # (a caller the plan took in its 2.x form: made already)
    setter, call = setters[0]
    ref = ctx.resolver.chains.get(id(call.func))
    scope = ref.scope if ref is not None else ctx.resolver.module_scope
    entry = next(e for e in ctx.table.entries.values() if e.transformer == "from_generator")  # (its 1.8 name)
    site = Site(call.func, entry.name, ImportBinding("", "", None, None, False), scope, 0, 0,  # type: ignore
                entry=entry, member=True)
    return _Made(site, loader, function, setter, call, loops)


def _schedule(ctx: Context, made: _Made) -> None:
    site, call, function = made.site, made.call, made.function
    ctx.track_position(call.func)
    read = " (its reading loops iterate it)" if made.loader in made.loops else ""

    def report(updated: cst.CSTNode) -> cst.CSTNode:
        site.line, site.col = ctx.position_of(call.func)
        ctx.report(site, F.CONVERTED, "info", f"{site.name}: the loader `{function}` returns -> "
                                              f"paddle.io.DataLoader, made here where its data source is set{read}",
                   True)
        return updated

    try:
        generator_loader.make_at_setters(ctx, site, made.loader, [(made.setter, call)], generator_loader.SETTERS,
                                         then=report)
    except NeedsReview:  # (the plan checked what the rewrite needs: not reached)
        return
    if made.loader not in made.loops:  # (an iterated one's logged queue size; loader_readers does the others')
        queue_size.rewrite(ctx, site, site.scope.node, made.loader)
