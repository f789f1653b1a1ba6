"""The upgraded module's code, copying the text of untouched subtrees instead of generating it again.

Generating a whole module's code costs about a third of parsing it, and the upgrade changes a few
nodes per statement at most. `refactors.positions` recorded the text of every cold subtree next to a
hot path (as generated there, or cut from the source). Here the upgraded tree is walked down to
those subtrees; each is written as its recorded text when it sits at the indentation it was
recorded at (a node's text depends on nothing else: nodes whose text depends on their position,
such as an `Arg`'s default comma, are never recorded). A subtree moved elsewhere, e.g. out of an
unwrapped `with` block, is generated as usual.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Dict, Mapping, Tuple

import libcst as cst

from refactors.hot_paths import HOLDS_STATEMENTS
from refactors.scopes import child_fields, is_node


Recorded = Tuple[str, Tuple[str, ...]]  # a subtree's text, and the indentation it was generated at


@dataclass(frozen=True)
class _Copied(cst.CSTNode):
    """Stands for an original node while code is generated: its recorded text."""

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


_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _raw_copy(node: cst.CSTNode, changes: Dict[str, Any]) -> cst.CSTNode:
    """A copy of `node` with `changes`, skipping libcst's validation: it is only generated, and the
    stand-ins in it are not the node types validation expects."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in fields(node))
    copy = object.__new__(type(node))
    for name in names:
        object.__setattr__(copy, name, changes[name] if name in changes else getattr(node, name))
    return copy


def with_copies(node: cst.CSTNode, recorded: Mapping[int, Recorded], statements_only: bool = False) -> cst.CSTNode:
    """`node` for code generation: each recorded subtree in it (by id) stands in as its text. With
    `statements_only`, the recorded subtrees are statements, and expressions are not entered."""
    text = recorded.get(id(node))
    if text is not None:
        return _Copied(node, *text)
    if statements_only and not isinstance(node, HOLDS_STATEMENTS):
        return node
    changes: Dict[str, Any] = {}
    for name in child_fields(type(node)):
        value = getattr(node, name)
        if is_node(value):
            new = with_copies(value, recorded, statements_only)
            if new is not value:
                changes[name] = new
        elif isinstance(value, (tuple, list)) and value:
            items = tuple(with_copies(v, recorded, statements_only) if is_node(v) else v for v in value)
            if any(a is not b for a, b in zip(items, value)):
                changes[name] = items
    return _raw_copy(node, changes) if changes else node


def code(module: cst.Module, recorded: Mapping[int, Recorded]) -> str:
    """`module.code`, with the recorded text of original subtrees copied where they are unchanged."""
    if not recorded:
        return module.code
    return module.code_for_node(with_copies(module, recorded))
