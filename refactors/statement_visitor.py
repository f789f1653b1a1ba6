"""Visitors that see statements and never enter expressions.

Scanning a scope for assignments or calls at statement level (`x = ...`, `opt.minimize(loss)`) needs
only the statement skeleton; descending into every expression is most of the cost of a libcst walk.
Small statements (`Assign`, `Expr`, ...) are dispatched to their `visit_`/`leave_` methods, and their
contents are read from the node directly.
"""
from __future__ import annotations

import libcst as cst

# What can hold a statement (tests/test_hot_paths.py checks this against every libcst node class).
HOLDS_STATEMENTS = (cst.Module, cst.BaseCompoundStatement, cst.BaseSuite, cst.ExceptHandler,
                    cst.ExceptStarHandler, cst.Else, cst.Finally, cst.MatchCase)
LINES = (cst.SimpleStatementLine, cst.SimpleStatementSuite)  # what holds small statements
_CONTAINERS = HOLDS_STATEMENTS + (cst.SimpleStatementLine,)


def _enters(node: cst.CSTNode) -> bool:
    return isinstance(node, _CONTAINERS)


class StatementVisitor(cst.CSTVisitor):
    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseSmallStatement):
            super().on_visit(node)
            return False
        return _enters(node) and super().on_visit(node)


class StatementTransformer(cst.CSTTransformer):
    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseSmallStatement):
            super().on_visit(node)
            return False
        return _enters(node) and super().on_visit(node)
