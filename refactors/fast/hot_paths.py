"""Run a libcst transformer over the hot paths of a tree only, rebuilding only what changed.

`node.visit(transformer)` calls the transformer's `on_visit`/`on_leave` for every node it reaches
and constructs a new node (with its validation) for every node it enters, changed or not. Real 1.8
files put a paddle call in most statements, so that alone cost more than the upgrade itself. Here
the scope analysis has already marked the nodes on the path to a use site ("hot"); only those are
entered, in source order, and a node is rebuilt only when one of its children came back different.
The transformer sees the same calls, in the same order, as it would for the hot nodes under
`node.visit`, which is what makes the two interchangeable (tests/test_hot_paths.py proves the field
order for every libcst node class).

Passes over a few nodes (the import tidy, a transformer wrapping some calls) get their hot sets from
`paths_to` (`refactors.fast.Fast.rewrite`).
"""
from __future__ import annotations

from dataclasses import fields
from typing import Callable, Collection, Dict, Optional, Set, Tuple, Union

import libcst as cst

from refactors.scopes import child_fields, children

Result = Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel]

# Node types whose dataclass field order is not the order of their source text (the order libcst
# itself visits them in); every other type lists its fields in source order.
_SOURCE_ORDER: Dict[str, Tuple[str, ...]] = {
    "FunctionDef": ("decorators", "name", "type_parameters", "params", "returns", "body"),
    "ClassDef": ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    "IfExp": ("body", "test", "orelse"),
    "Arg": ("keyword", "value"),
    "ExceptHandler": ("type", "name", "body"),
    "ExceptStarHandler": ("type", "name", "body"),
    "Parameters": ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
    "MatchCase": ("pattern", "guard", "body"),
    "TypeAlias": ("name", "type_parameters", "value"),
}
_ORDER: Dict[type, Tuple[str, ...]] = {}


def source_order(kind: type) -> Tuple[str, ...]:
    """The fields of `kind` that can hold a name, in the order their text appears."""
    order = _ORDER.get(kind)
    if order is None:
        present = child_fields(kind)
        wanted = _SOURCE_ORDER.get(kind.__name__)
        if wanted is None:
            order = present
        else:
            order = tuple(name for name in wanted if name in present)
            order += tuple(name for name in present if name not in order)
        _ORDER[kind] = order
    return order


def rebuild(node: cst.CSTNode, transformer: cst.CSTTransformer, hot: Collection[int]) -> Result:
    """What `node.visit(transformer)` returns when the transformer declines to enter cold nodes.

    `hot` holds the ids of the nodes to enter (it may grow while the pass runs); `node` itself is
    always entered.
    """
    if not transformer.on_visit(node):
        return transformer.on_leave(node, node)
    changes = {}
    for name in source_order(type(node)):
        value = getattr(node, name)
        if id(value) in hot:  # a node of the tree (only those are in `hot`)
            new = rebuild(value, transformer, hot)
            if new is not value:
                changes[name] = _single(new, type(node), name)
        elif isinstance(value, (tuple, list)) and any(id(item) in hot for item in value):
            items, changed = [], False
            for item in value:
                new = rebuild(item, transformer, hot) if id(item) in hot else item
                if new is item:
                    items.append(item)
                    continue
                changed = True
                if isinstance(new, cst.FlattenSentinel):
                    items.extend(new.nodes)
                elif not isinstance(new, cst.RemovalSentinel):
                    items.append(new)
            if changed:
                changes[name] = tuple(items)
    updated = node.with_changes(**changes) if changes else node
    return transformer.on_leave(node, updated)


def _single(new: Result, owner: type, name: str):
    """A non-sequence field takes one node; removal leaves an optional field empty (as libcst does)."""
    if isinstance(new, cst.RemovalSentinel):
        optional = next(f for f in fields(owner) if f.name == name).default is None
        if optional:
            return None
        raise TypeError(f"{owner.__name__}.{name} is required and cannot be removed")
    if isinstance(new, cst.FlattenSentinel):
        raise TypeError(f"{owner.__name__}.{name} holds one node, not a FlattenSentinel")
    return new


def paths_to(root: cst.CSTNode, wanted: Callable[[cst.CSTNode], bool],
             through: Optional[Tuple[type, ...]] = None) -> Set[int]:
    """The hot set for a `rebuild` that must reach every node below `root` for which `wanted` holds;
    with `through`, only children of those types are looked into."""
    hot: Set[int] = set()
    _paths_to(root, wanted, through, hot)
    return hot


def _paths_to(node: cst.CSTNode, wanted: Callable[[cst.CSTNode], bool], through: Optional[Tuple[type, ...]],
              hot: Set[int]) -> bool:
    found = wanted(node)
    for child in children(node):
        if (through is None or isinstance(child, through)) and _paths_to(child, wanted, through, hot):
            found = True
    if found:
        hot.add(id(node))
    return found
