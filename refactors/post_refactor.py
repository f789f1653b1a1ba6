"""Step 7: tidy imports, restore 1.x's static-graph default where the file relies on it, and let the
legacy uses the upgrade left run beside the converted code (coexistence, see `--no-shim` in the README).

- A legacy import (`paddle.fluid...`) whose every use was converted is removed; `import paddle.fluid`
  becomes `import paddle`. An import that something unconverted still uses is kept.
- 2.x starts in dynamic mode. A file that uses a static-graph-only API gets, right after its
  module-level imports, `runtime_shim.enable_static()`: the static graph on the legacy IR, which 1.x
  code relies on and Paddle 3.x no longer selects by default (with `shim=False`, `paddle.enable_static()`),
  unless it already calls one of them there.
- A file that still uses a legacy API gets `import runtime_shim.coexist` before its first paddle import,
  so that the `paddle.fluid` names it keeps are served on Paddle 3.x (each use is marked TODO); the line
  goes when the last legacy use does, or with `shim=False`.
"""
from __future__ import annotations

import ast
from typing import List, Sequence, Set

import libcst as cst

from api_mapping.modes import COEXIST, LEGACY_STATIC_ON, STATIC_ON
from refactors import findings as F
from refactors import kept_comments
from refactors.engine import Context
from refactors.refactor_import import before_paddle_imports, module as ensure_import_paddle
from refactors.statement_visitor import HOLDS_STATEMENTS, LINES, StatementTransformer
from refactors.scopes import ROOT, ImportBinding, dotted, module_dotted

NAME = "post_refactor"


def _legacy_alias(binding: ImportBinding) -> bool:
    if isinstance(binding.statement, cst.Import):
        return module_dotted(binding.alias.name).startswith(ROOT + ".fluid")  # type: ignore[union-attr]
    return binding.qualname.startswith(ROOT + ".fluid")


class ImportTidier(StatementTransformer):
    """Rewrites only import statements; never descends into expressions. The comments of a line it
    removes go to the next statement of the block (or the block's end), on lines of their own."""

    def __init__(self, dead: List[ImportBinding]) -> None:
        super().__init__()
        self.dead_aliases: Set[int] = {id(b.alias) for b in dead if b.alias is not None}
        self.dead_stars: Set[int] = {id(b.statement) for b in dead if b.alias is None}
        self.statements: Set[int] = {id(b.statement) for b in dead}
        self.removed: Set[int] = set()  # ids of the statements removed

    def _remove(self, original: cst.BaseStatement) -> cst.RemovalSentinel:
        self.removed.add(id(original))
        return cst.RemoveFromParent()

    def _adopt(self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]):
        """The updated statements, the comments of the removed ones before the next one kept; and
        those left over at the end."""
        kept = iter(updated)
        return kept_comments.carried((stmt, None if id(stmt) in self.removed else next(kept)) for stmt in original)

    def _tidy(self, small: cst.BaseSmallStatement):
        if id(small) not in self.statements:
            return small
        if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
            return None if id(small) in self.dead_stars else small
        names = []
        for alias in small.names:  # type: ignore[union-attr]
            if id(alias) not in self.dead_aliases:
                names.append(alias)
            elif isinstance(small, cst.Import) and alias.asname is None:
                names.append(alias.with_changes(name=cst.Name(ROOT)))  # `import paddle.fluid` -> `import paddle`
        if not names:
            return None
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return small.with_changes(names=names)

    def holds_dead(self, node: cst.CSTNode) -> bool:
        """Whether `node` is a line holding an import this tidier edits (the nodes it changes)."""
        return isinstance(node, LINES) and any(id(small) in self.statements for small in node.body)

    def _tidy_line(self, original, updated):
        if not self.holds_dead(original):
            return updated
        body = [s for s in (self._tidy(small) for small in updated.body) if s is not None]
        if not body:
            return self._remove(original)
        if len(body) < len(updated.body):  # the line's last statement went: so does its semicolon
            body[-1] = body[-1].with_changes(semicolon=updated.body[-1].semicolon)
        return updated.with_changes(body=body)

    def leave_SimpleStatementLine(self, original, updated):
        return self._tidy_line(original, updated)

    def leave_SimpleStatementSuite(self, original, updated):  # `if x: import paddle.fluid as fluid`
        result = self._tidy_line(original, updated)
        return updated.with_changes(body=[cst.Pass()]) if isinstance(result, cst.RemovalSentinel) else result

    def leave_Try(self, original: cst.Try, updated: cst.Try):
        """`try: import paddle.fluid... except ImportError: import ...` whose imports all went: drop it."""
        def only_pass(block) -> bool:
            return all(isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body)
                       for s in block.body)

        had_import = any(isinstance(s, cst.SimpleStatementLine) and any(id(x) in self.statements for x in s.body)
                         for block in (original.body, *(h.body for h in original.handlers))
                         for s in block.body)  # type: ignore[union-attr]
        if had_import and only_pass(updated.body) and all(only_pass(h.body) for h in updated.handlers) \
                and updated.orelse is None and updated.finalbody is None:
            return self._remove(original)
        return updated

    def leave_IndentedBlock(self, original, updated):
        body, pending = self._adopt(original.body, updated.body)
        if not body:  # a block whose only statement was a removed import
            body, pending = [cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=pending)], []
        if body == list(updated.body) and not pending:
            return updated
        return updated.with_changes(body=body, footer=[*pending, *updated.footer])

    def leave_Module(self, original, updated):
        body, pending = self._adopt(original.body, updated.body)
        if body == list(updated.body) and not pending:
            return updated
        return updated.with_changes(body=body, footer=[*pending, *updated.footer])


def _dedupe_import_paddle(module: cst.Module) -> cst.Module:
    """Drop repeated module-level `import paddle` lines the tidying may have produced."""
    seen = False
    kept = []
    for stmt in module.body:
        is_plain = (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                    and isinstance(stmt.body[0], cst.Import) and len(stmt.body[0].names) == 1
                    and stmt.body[0].names[0].asname is None and dotted(stmt.body[0].names[0].name) == ROOT)
        kept.append((stmt, None if is_plain and seen else stmt))
        seen = seen or is_plain
    if all(new is not None for _, new in kept):
        return module
    body, pending = kept_comments.carried(kept)
    return module.with_changes(body=body, footer=[*pending, *module.footer])


def _calls(stmt: cst.CSTNode, name: str) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.Call) and dotted(stmt.body[0].value.func) == name)


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))


def _enable_static(ctx: Context, module: cst.Module) -> cst.Module:
    body = list(module.body)
    if any(_calls(stmt, STATIC_ON) or _calls(stmt, LEGACY_STATIC_ON) for stmt in body):
        return module
    last_import = max((i for i, stmt in enumerate(body) if _is_import(stmt)), default=-1)
    if ctx.shim:
        shim = LEGACY_STATIC_ON.split(".")[0]
        new = [ctx.statement(f"import {shim}\n"), ctx.statement(f"{LEGACY_STATIC_ON}()\n")]
    else:
        ctx.needs_paddle = True
        new = [ctx.statement(f"{STATIC_ON}()\n")]
    body[last_import + 1:last_import + 1] = new
    return module.with_changes(body=body)


def _is_coexist_line(stmt: cst.CSTNode) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Import)
            and len(stmt.body[0].names) == 1 and dotted(stmt.body[0].names[0].name) == COEXIST
            and stmt.body[0].names[0].asname is None)


def _legacy_left(ctx: Context) -> bool:
    """Whether a use of a `paddle.fluid` name is left (what runtime_shim serves; not members of objects)."""
    return any(not site.converted and not site.member for site in ctx.sites) or any(
        b.left and _legacy_alias(b) for b in ctx.resolver.imports)


def _coexistence(ctx: Context, module: cst.Module) -> cst.Module:
    """`import runtime_shim.coexist` while legacy uses are left (and the shim is wanted), else none."""
    present = [i for i, stmt in enumerate(module.body) if _is_coexist_line(stmt)]
    wanted = ctx.shim and _legacy_left(ctx)
    if wanted and not present:
        return before_paddle_imports(module, ctx.statement(
            f"import {COEXIST}  # paddle-upgrade: runs the legacy uses marked TODO below\n"))
    if present and not wanted:
        body = list(module.body)
        for i in reversed(present):
            removed = body.pop(i)
            if i < len(body):  # its comments and blank lines stay where they were
                body[i] = body[i].with_changes(leading_lines=(*removed.leading_lines, *body[i].leading_lines))
        return module.with_changes(body=body)
    return module


def _report_dead_v2(ctx: Context, dead: List[ImportBinding]) -> None:
    """One finding per import line of paddle.v2 the tidier drops, naming what it bound."""
    names = {b.name for b in dead}
    tree = ctx.python_tree()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = f"{node.module}." if isinstance(node, ast.ImportFrom) and node.module and not node.level else ""
            bound = sorted({a.asname or a.name.split(".")[0] for a in node.names
                            if f"{module}{a.name}".startswith("paddle.v2") and (a.asname or a.name) in names})
            if bound:
                ctx.report(None, F.CONVERTED, "info", f"removed the import of paddle.v2 ({', '.join(bound)}: used "
                           f"nowhere): Paddle 1.0 removed that API, so this line failed on 1.8.5 "
                           f"(ModuleNotFoundError)", True, line=node.lineno, col=node.col_offset + 1, api="paddle.v2")


def module(ctx: Context, node: cst.Module) -> cst.Module:
    if ctx.static_graph:
        node = _enable_static(ctx, node)
    dead = [b for b in ctx.resolver.imports if b.left == 0 and _legacy_alias(b)]
    dead_v2 = [b for b in ctx.resolver.imports if b.dead_v2]
    if dead_v2:
        _report_dead_v2(ctx, dead_v2)
        dead += dead_v2
    # A star import binds many names: it goes only when none of them is still used.
    alive_stars = {id(b.statement) for b in ctx.resolver.imports if b.alias is None and b.left}
    dead = [b for b in dead if not (b.alias is None and id(b.statement) in alive_stars)]
    if dead:
        tidier = ImportTidier(dead)
        node = _dedupe_import_paddle(ctx.rewrite(node, tidier, where=tidier.holds_dead, through=HOLDS_STATEMENTS + LINES))
    return _coexistence(ctx, ensure_import_paddle(ctx, node))
