"""The upgraded module's code, copying the text of untouched statements instead of generating them again.

Generating a whole module's code costs about a third of parsing it, and the upgrade changes a few
statements at most. `refactors.fast.positions` recorded the text of every cold statement next to a
hot path (cut from the source, or as generated there). Here the upgraded tree is walked down to
those statements; each is written as its recorded text when it sits at the indentation it was
recorded at. A statement moved elsewhere, e.g. out of an unwrapped `with` block, is generated as
usual.

Only whole statements are copied, and only in a `Module` or an `IndentedBlock` (the node classes
that hold statements, with `If`, whose `elif` is never copied): both generate a statement by calling
its `_codegen` and read nothing else of it, so a stand-in is never asked for a field it lacks
(tests/test_libcst_assumptions.py proves both for every libcst node class). A statement's text
depends only on the indentation it is generated at.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Tuple

import libcst as cst

from refactors.scopes import child_fields, is_node
from refactors.statement_visitor import HOLDS_STATEMENTS

Recorded = Tuple[str, Tuple[str, ...]]  # a statement's text, and the indentation it was generated at


@dataclass(frozen=True)
class _Copied(cst.CSTNode):
    """Stands for an original statement while code is generated: its recorded text."""

    node: cst.CSTNode
    text: str
    indent: Tuple[str, ...]

    def _visit_and_replace_children(self, visitor: Any) -> "_Copied":
        return self

    def _codegen_impl(self, state: Any) -> None:
        if tuple(state.indent_tokens) != self.indent:
            self.node._codegen(state)
            return
        newline = state.default_newline
        if self.text.endswith(newline):  # its own token, as libcst makes it: a module without a final
            state.tokens.append(self.text[: -len(newline)])  # newline pops it at the end
            state.tokens.append(newline)
        else:
            state.tokens.append(self.text)


def with_copies(node: cst.CSTNode, recorded: Mapping[int, Recorded]) -> cst.CSTNode:
    """`node` for code generation: each recorded statement in it (by id) stands in as its text.
    Only what holds statements is entered (expressions never are)."""
    text = recorded.get(id(node))
    if text is not None:
        return _Copied(node, *text)
    if not isinstance(node, HOLDS_STATEMENTS):
        return node
    changes: Dict[str, Any] = {}
    for name in child_fields(type(node)):
        value = getattr(node, name)
        if is_node(value):
            new = with_copies(value, recorded)
            if new is not value:
                changes[name] = new
        elif isinstance(value, (tuple, list)) and value:
            items = tuple(with_copies(v, recorded) if is_node(v) else v for v in value)
            if any(a is not b for a, b in zip(items, value)):
                changes[name] = items
    return node.with_changes(**changes) if changes else node


def code(module: cst.Module, recorded: Mapping[int, Recorded]) -> str:
    """`module.code`, with the recorded text of original statements copied where they are unchanged."""
    if not recorded:
        return module.code
    return module.code_for_node(with_copies(module, recorded))
