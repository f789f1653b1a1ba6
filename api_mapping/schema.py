"""Typed model of the mapping table. One `ApiEntry` per 1.8 API, keyed by its main public name."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple


class TableError(ValueError):
    """The table's data is inconsistent; raised at load time, never later."""


@dataclass(frozen=True)
class Param:
    """One 1.8 parameter. `default` is the default's source text; None means required.

    `star` is "" for a normal parameter, "*" for `*args`, "**" for `**kwargs`.
    """

    name: str
    default: Optional[str] = None
    star: str = ""

    @property
    def required(self) -> bool:
        return self.default is None and not self.star


ARG_OPS = ("rename", "drop", "add")
BASELINE = "2.0"  # the release every target exists in, unless its entry says `since`


def version_tuple(version: str) -> Tuple[int, int]:
    """"2.5" -> (2, 5); "2.0.2" -> (2, 0). Raises ValueError for anything else."""
    parts = version.split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a Paddle version: {version!r}")
    return int(parts[0]), int(parts[1])


@dataclass(frozen=True)
class ArgChange:
    """One keyword-level change, applied after positional arguments became keywords.

    - rename: `arg` -> `to`
    - drop:   remove `arg`. When `alters_result` is true, a value other than the 1.8 default changes
              what the call computes, so the upgrader keeps it, marks the line and reports it.
    - add:    add `arg=value` (source text) when the call does not pass `arg`.
    """

    op: str
    arg: str
    to: Optional[str] = None
    value: Optional[str] = None
    alters_result: bool = False
    reason: Optional[str] = None


@dataclass(frozen=True)
class NoEquivalent:
    """An API 2.x does not offer: why, and what to write instead.

    `shim` is set exactly when the runtime shim cannot compute it on Paddle 3 either (calling it raises
    `NoEquivalentError`), and says why; without it, the shim serves the 1.8 behaviour, except for a call
    that passes one of `shim_refuses` (a value other than None), which the shim refuses.
    """

    reason: str
    suggest: str
    shim: Optional[str] = None
    shim_refuses: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ApiEntry:
    """One 1.8 API and how it moves to 2.x.

    `since` is set when the 2.x target first appeared after Paddle 2.0: the first release that has it
    (e.g. "2.2"). Such a target is checked against Paddle 3.3.1 only, and every converted use site is
    reported with "needs Paddle >= since". Without it, the target exists in 2.0.2 and in 3.3.1.
    """

    name: str
    kind: str = "function"
    alias: Tuple[str, ...] = ()
    args_list: Optional[Tuple[Param, ...]] = None
    update_to: Optional[str] = None
    since: Optional[str] = None  # first Paddle release with the target, when newer than 2.0
    no_equivalent: Optional[NoEquivalent] = None
    args_change: Tuple[ArgChange, ...] = ()
    transformer: Optional[str] = None
    with_guard: Optional[str] = None  # "unwrap" (dygraph guard) or "rename" (any other context manager)
    guard_exit: Optional[str] = None  # with "unwrap": the call that restores the mode after the block
    static_graph: bool = False  # using it means the file builds a static graph
    returns: Optional[str] = None  # a function returning an object whose methods the table knows (a class's name)
    warning: Optional[str] = None
    # Checks (named, with their argument) that tell from a use site whether `warning` is about it; the
    # upgrader registers them (refactors.warning_evidence). Empty: the warning holds at every use.
    warning_when: Mapping[str, Any] = field(default_factory=dict)
    args_warning: Mapping[str, str] = field(default_factory=dict)
    notes: Tuple[str, ...] = ()
    semantics: Tuple[int, ...] = ()

    @property
    def automatic(self) -> bool:
        """True when the upgrader rewrites this API without asking for manual work."""
        return self.update_to is not None or (self.transformer is not None and self.no_equivalent is None)

    @property
    def since_version(self) -> Optional[Tuple[int, int]]:
        """`since` as a comparable (major, minor), or None."""
        return version_tuple(self.since) if self.since else None

    def targets_exist_in(self, version: str) -> bool:
        """True when the names this entry emits must exist in Paddle `version` ("2.0.2", "3.3.1")."""
        return version_tuple(version) >= (self.since_version or version_tuple(BASELINE))

    def param(self, name: str) -> Optional[Param]:
        for p in self.args_list or ():
            if p.name == name:
                return p
        return None


@dataclass(frozen=True)
class ClassFacts:
    """What changed in the methods and attributes of a 1.8 class's objects.

    `name` is the class's defining path in 1.8.5 and `update_to` its 2.x class. `instances` are the
    table's classes whose objects have these members (subclasses included), `made_by` the functions
    returning one. Each member is an `ApiEntry` of kind "method" (its `update_to` is the 2.x method's
    name; `args_list` the 1.8 parameters without self) or "attribute" (an assignment `obj.attr = v` in
    dynamic-graph code becomes the call `update_to(v)`).
    """

    name: str
    update_to: str
    instances: Tuple[str, ...] = ()
    made_by: Tuple[str, ...] = ()
    members: Mapping[str, ApiEntry] = field(default_factory=dict)


@dataclass(frozen=True)
class Table:
    entries: Mapping[str, ApiEntry]
    by_alias: Mapping[str, str]
    classes: Mapping[str, ClassFacts] = field(default_factory=dict)  # by 1.8 defining path

    def class_facts(self, api: str) -> Optional[ClassFacts]:
        """The member facts of what calling the 1.8 API `api` (a main name) gives, when the table has them."""
        for facts in self.classes.values():
            if api in facts.instances or api in facts.made_by:
                return facts
        return None

    def main_name(self, qualname: str) -> Optional[str]:
        """The main name of the entry `qualname` denotes (itself or an alias), or None."""
        if qualname in self.entries:
            return qualname
        return self.by_alias.get(qualname)

    def lookup(self, qualname: str) -> Optional[ApiEntry]:
        main = self.main_name(qualname)
        return None if main is None else self.entries[main]

    def __len__(self) -> int:
        return len(self.entries)

    def all_names(self) -> Dict[str, str]:
        """Every name the table knows (main names and aliases) -> main name."""
        names = {name: name for name in self.entries}
        names.update(self.by_alias)
        return names
