"""What replaying a module records: its namespace of references, the definitions it makes itself,
`__all__` and other string lists."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

# Reference kinds inside a namespace: an API defined in the wheel, a module of the wheel, a name taken
# from a compiled module (exists, nothing else known), something outside Paddle.
API, MOD, OPAQUE, EXT = "a", "m", "o", "x"
Ref = Tuple[str, str]


@dataclass
class Definition:
    """A name a module binds itself: a def/class node, or an assigned value (with loop bindings)."""

    node: ast.AST
    module: str  # whose namespace the node's names are looked up in
    env: Optional[Dict[str, Tuple[ast.expr, dict]]] = None
    generated: bool = False  # bound through `globals()[...] = ...`


@dataclass
class ModuleState:
    ns: Dict[str, Ref] = field(default_factory=dict)
    defs: Dict[str, Definition] = field(default_factory=dict)
    all: Optional[List[str]] = None
    all_partial: bool = False
    lists: Dict[str, List[str]] = field(default_factory=dict)
    dynamic: bool = False
    signature_from: Dict[str, ast.expr] = field(default_factory=dict)  # `f.__signature__ = signature(g)`

    def key(self) -> tuple:
        """What other modules can observe; the fixpoint ends when no module's key changes."""
        return (
            tuple(sorted(self.ns.items())),
            None if self.all is None else tuple(self.all),
            self.all_partial,
            tuple(sorted((k, tuple(v)) for k, v in self.lists.items())),
            self.dynamic,
        )


@dataclass
class ReplayContext:
    """Per-replay settings."""

    module: str
    is_package: bool
    stub: bool = False
    only_new: Optional[Set[str]] = None  # while merging a stub: names the .py already binds
