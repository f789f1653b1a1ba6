"""Comments a rewrite dropped, put back on lines of their own above the statement that held them.

A step that rebuilds a call (`load_dygraph` becomes a pair of `paddle.load` calls, an argument is split
in two) or unwraps a `with` block keeps the comments that sat in what it kept, but those between the
arguments it dropped or in the `with` line have nowhere to stay. Nothing written is lost: the engine
compares each rewritten node's comments with what the step returned, and writes the missing ones, in
their order, above the statement.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import fields
from typing import Collection, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import libcst as cst

from refactors.scopes import is_node

_FIELDS: Dict[type, Tuple[str, ...]] = {}


def comments(nodes: Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel],
             skip: Collection[int] = ()) -> List[str]:
    """The text of every comment in `nodes`, in order, except in the subtrees whose id is in `skip`."""
    if isinstance(nodes, cst.RemovalSentinel):
        return []
    stack = list(reversed(nodes.nodes)) if isinstance(nodes, cst.FlattenSentinel) else [nodes]
    found: List[str] = []
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Comment:
            found.append(node.value)  # type: ignore[attr-defined]
            continue
        names = _FIELDS.get(kind)
        if names is None:  # the fields that may hold nodes (not the strings and flags)
            names = _FIELDS[kind] = tuple(f.name for f in fields(kind) if f.type not in ("str", "bool"))
        children = []
        for name in names:
            value = getattr(node, name)
            if type(value) is tuple or type(value) is list:
                children.extend(v for v in value if id(v) not in skip)
            elif is_node(value) and id(value) not in skip:
                children.append(value)
        stack.extend(reversed(children))
    return found


def dropped(before: Sequence[str], after: Sequence[str]) -> List[str]:
    """The comments of `before` that `after` lacks (as many times as they are missing), in order."""
    missing = Counter(before) - Counter(after)
    out = []
    for comment in before:
        if missing[comment]:
            missing[comment] -= 1
            out.append(comment)
    return out


def carried(statements: Iterable[Tuple[cst.BaseStatement, Optional[cst.BaseStatement]]]
            ) -> Tuple[List[cst.BaseStatement], List[cst.EmptyLine]]:
    """(original, what it became or None when removed) for each statement of a block: the statements
    kept, the comments of each removed one on lines of their own before the next one kept; and the
    comment lines left over at the block's end."""
    out: List[cst.BaseStatement] = []
    pending: List[cst.EmptyLine] = []
    for original, new in statements:
        if new is None:
            pending += [cst.EmptyLine(comment=cst.Comment(text)) for text in comments(original)]
            continue
        if pending:
            new, pending = new.with_changes(leading_lines=[*pending, *new.leading_lines]), []
        out.append(new)
    return out, pending


def above(node: Union[cst.CSTNode, cst.FlattenSentinel], lost: Sequence[str]):
    """A statement (or the first of those it became) with the `lost` comments on lines above it."""
    if isinstance(node, cst.FlattenSentinel):
        return cst.FlattenSentinel([above(node.nodes[0], lost), *node.nodes[1:]]) if node.nodes else node
    if not lost or not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return node
    lines = [cst.EmptyLine(comment=cst.Comment(text)) for text in lost]
    return node.with_changes(leading_lines=(*node.leading_lines, *lines))
