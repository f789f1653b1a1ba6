"""Step 1: resolve imports of `paddle`/`paddle.fluid`; make `import paddle` present when needed.

Resolution itself (aliases, `from ... import`, star imports, function-level imports, scopes) lives in
`refactors.scopes` and runs before the pass; this step owns its one edit: when a later step emitted a
`paddle.x` name and no module-level `import paddle` binds `paddle`, add one, after the docstring and
`__future__` imports and before the first paddle import.
"""
from __future__ import annotations

import libcst as cst

from refactors.engine import Context
from refactors.scopes import ROOT, module_dotted

NAME = "refactor_import"


def _binds_paddle(stmt: cst.CSTNode) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                if alias.asname is None and module_dotted(alias.name).split(".")[0] == ROOT:
                    return True
    return False


def _is_paddle_import(stmt: cst.CSTNode) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, cst.Import) and any(module_dotted(a.name).split(".")[0] == ROOT for a in small.names):
            return True
        if isinstance(small, cst.ImportFrom) and not small.relative \
                and module_dotted(small.module).split(".")[0] == ROOT:
            return True
    return False


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))


def _header_end(body) -> int:
    """Index after the module docstring and `from __future__` imports."""
    index = 0
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            break
        small = stmt.body[0]
        is_doc = i == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString,
                                                                                    cst.ConcatenatedString))
        is_future = isinstance(small, cst.ImportFrom) and module_dotted(small.module) == "__future__"
        if not (is_doc or is_future):
            break
        index = i + 1
    return index


def _binds_module(stmt: cst.CSTNode, name: str) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Import) and any(a.asname is None and module_dotted(a.name) == name for a in small.names)
        for small in stmt.body)


def _add_stdlib_imports(ctx: Context, node: cst.Module) -> cst.Module:
    """`import os` (etc.) for standard-library modules a transformer's output uses, after the header."""
    missing = [name for name in sorted(ctx.imports) if not any(_binds_module(s, name) for s in node.body)]
    if not missing:
        return node
    body = list(node.body)
    at = _header_end(body)
    for offset, name in enumerate(missing):
        body.insert(at + offset, ctx.statement(f"import {name}\n"))
    return node.with_changes(body=body)


def module(ctx: Context, node: cst.Module) -> cst.Module:
    node = _add_stdlib_imports(ctx, node)
    if not ctx.needs_paddle or any(_binds_paddle(stmt) for stmt in node.body):
        return node
    return before_paddle_imports(node, ctx.statement(f"import {ROOT}\n"))


def before_paddle_imports(node: cst.Module, new: cst.SimpleStatementLine) -> cst.Module:
    """`new` put before the module's first top-level paddle import (after its docstring and `__future__`
    imports when it has none)."""
    body = list(node.body)
    start = _header_end(body)
    at = next((i for i in range(start, len(body)) if _is_paddle_import(body[i])), start)
    if at < len(body):
        # Take over the leading comments/blank lines of the statement we insert before, and keep code
        # that was not an import apart from the new import block.
        new = new.with_changes(leading_lines=body[at].leading_lines)
        gap = () if _is_import(body[at]) else \
            (cst.EmptyLine(),) * (2 if isinstance(body[at], (cst.FunctionDef, cst.ClassDef)) else 1)
        body[at] = body[at].with_changes(leading_lines=gap)
    body.insert(at, new)
    return node.with_changes(body=body)
