"""The seven steps in their order, and the entry points that run them over a module.

The order is part of the contract (as in the reference tool): each step sees what the previous ones
made of a use site. All API knowledge comes from `api_mapping`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from api_mapping import Table, load_table
from refactors import (args_to_kwargs, api_rename, codegen, engine, norm_api_alias, post_refactor, refactor_import,
                       refactor_kwargs, refactor_with)
from refactors import NAMES
from refactors.findings import Finding
from refactors.codegen import Recorded
from refactors.transformers import REGISTRY

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


@dataclass
class Result:
    module: cst.Module
    findings: List[Finding]
    sites: List[engine.Site]
    unchanged: bool  # the input module was returned as it was (no paddle import)
    reproduces: Optional[bool] = None  # libcst gives the input back byte for byte (None: module untouched)
    recorded: Dict[int, Recorded] = field(default_factory=dict, repr=False)  # see refactors.codegen

    @cached_property
    def code(self) -> str:
        return codegen.code(self.module, self.recorded)

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


def upgrade_module(module: cst.Module, names: Optional[Sequence[str]] = None, source: Optional[str] = None,
                   tree: Optional[ast.Module] = None, partial: bool = False,
                   shim: bool = True) -> Tuple[cst.Module, Result]:
    """Upgrade a parsed module. `source`, the text it was parsed from, and `tree`, CPython's parse of
    that text, are optional; with both, only the statements the upgrade concerns are generated
    (refactors.positions). `partial`: the module was parsed from `source` with its cold parts left
    out (refactors.partial_parse); the upgrade raises `WholeModuleNeeded` when it needs one of them.
    `shim`: the legacy uses the upgrade leaves run through runtime_shim (coexistence); False gives pure
    2.x text, the leftovers only marked."""
    outcome = engine.run(module, table(), select(names), star_members, source, tree, partial, shim)
    return outcome.module, Result(outcome.module, outcome.findings, outcome.sites, outcome.module is module,
                                  outcome.reproduces, outcome.recorded)


def upgrade_code(source: str, names: Optional[Sequence[str]] = None, shim: bool = True) -> Result:
    """Upgrade Python 3 source text; raises libcst.ParserSyntaxError when it does not parse."""
    _, result = upgrade_module(cst.parse_module(source), names, source, shim=shim)
    return result
