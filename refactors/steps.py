"""The seven steps in their order, and the entry points that run them over a module.

The order is part of the contract (as in the reference tool): each step sees what the previous ones
made of a use site. All API knowledge comes from `api_mapping`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Set

import libcst as cst

from api_mapping import Table, load_table
from refactors import (args_to_kwargs, api_rename, engine, fast, methods, norm_api_alias, post_refactor,
                       refactor_import, refactor_kwargs, refactor_with)
from refactors import NAMES
from refactors.findings import Finding
from refactors.transformers import CLASS, REGISTRY, SCOPE

PIPELINE = (refactor_import, norm_api_alias, args_to_kwargs, refactor_kwargs, api_rename, refactor_with,
            post_refactor)
assert tuple(step.NAME for step in PIPELINE) == NAMES, "refactors.NAMES must list PIPELINE's steps in order"


def table() -> Table:
    """The mapping table, validated against the registered transformers."""
    return load_table(known_transformers=REGISTRY)


@lru_cache(maxsize=None)
def _star_members_index():
    try:
        from api_mapping.signatures import load_index
        return load_index("1.8.5")
    except (ImportError, FileNotFoundError):
        return None


def star_members(module: str) -> Sequence[str]:
    """Names `from <module> import *` bound in 1.8.5 (the signature index, else the table)."""
    index = _star_members_index()
    if index is not None:
        members = index.module_members(module)
        if members:
            return members
    prefix = module + "."
    return sorted({name[len(prefix):] for name in table().all_names()
                   if name.startswith(prefix) and "." not in name[len(prefix):]})


@lru_cache(maxsize=None)
def keep() -> fast.Keep:
    """What the fast way keeps parsed for the transformers that read beyond their use sites (declared
    with `register(reads=...)`: the last names of the APIs they serve), and for the methods of legacy
    objects (the words their changes need: `refactors.methods`)."""
    words: Dict[str, Set[str]] = {SCOPE: set(), CLASS: set()}
    for entry in table().entries.values():
        registered = REGISTRY.get(entry.transformer) if entry.transformer else None
        for region in registered.reads if registered is not None else ():
            words[region].update(name.rsplit(".", 1)[-1] for name in (entry.name, *entry.alias))
    return fast.Keep(scope=tuple(sorted(words[SCOPE])), whole=tuple(sorted(words[CLASS])),
                     words=methods.trigger_words(table()))


@dataclass
class Result:
    module: cst.Module  # the upgraded tree
    code: str  # its code (the input text itself when `unchanged`)
    findings: List[Finding]
    sites: List[engine.Site]
    unchanged: bool  # the module has no paddle import: it was returned as it was
    reproduces: Optional[bool] = None  # libcst gives the input back byte for byte (None: module untouched)
    way: str = "plain"  # the way that made it (refactors.fast)
    fast_failure: str = ""  # when the fast way failed and the plain way ran: the fast way's traceback
    reads: Dict[str, str] = field(default_factory=dict)  # other modules of the tree consulted -> SHA-256
    # (and tree_index.TREE where the tree was consulted at all)

    @property
    def legacy_sites(self) -> int:
        return len(self.sites)

    @property
    def converted_sites(self) -> int:
        return sum(1 for s in self.sites if s.converted)


def select(names: Optional[Sequence[str]] = None):
    """The pipeline's steps, restricted to `names` but always in pipeline order."""
    if not names:
        return PIPELINE
    unknown = set(names) - set(NAMES)
    if unknown:
        raise ValueError(f"unknown refactor(s): {', '.join(sorted(unknown))}")
    return tuple(step for step in PIPELINE if step.NAME in names)


def _run(way: fast.Plain, steps, shim: bool = True, origin: Optional[str] = None) -> Result:
    """Parse, upgrade and generate the code, all the given way."""
    module = way.parse()
    outcome = engine.run(module, table(), steps, star_members, way, shim, origin)
    unchanged = outcome.reproduces is None
    code = way.source if unchanged else way.code(outcome.module)
    return Result(outcome.module, code, outcome.findings, outcome.sites, unchanged, outcome.reproduces, way.name,
                  reads=outcome.reads)


def upgrade_code(source: str, names: Optional[Sequence[str]] = None, shim: bool = True,
                 tree: Optional[ast.Module] = None, way: Optional[str] = None, origin: Optional[str] = None) -> Result:
    """Upgrade Python 3 source text; `tree`, CPython's parse of it, spares work when at hand.
    `shim`: the legacy uses the upgrade leaves run through runtime_shim (coexistence); False gives pure
    2.x text, the leftovers only marked. `origin`: the text's path, where the modules beside it may
    tell what the classes it imports are (`refactors.tree_index`; `Result.reads` lists those read).

    By default the fast way runs, and on any exception there the plain way (refactors.fast);
    `way="plain"` or `way="fast"` runs that one only. Raises libcst.ParserSyntaxError when the text
    does not parse, and `engine.InternalError` when a step fails on it.
    """
    steps = select(names)

    def run(way: fast.Plain) -> Result:
        return _run(way, steps, shim, origin)
    if way == "plain":
        return run(fast.Plain(source))
    if way == "fast":
        return fast.fast_way(source, tree, keep(), run)
    if way is not None:
        raise ValueError(f"unknown way {way!r} (plain, fast)")
    result, failure = fast.upgrade(source, tree, keep(), run)
    result.fast_failure = failure
    return result
