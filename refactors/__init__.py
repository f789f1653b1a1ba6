"""The ordered libcst refactors that move 1.8 code to the 2.x API (see `refactors.steps`).

Importing this package, or `refactors.findings`, does not import libcst: the CLI's main process
only reports what its workers found, and starts faster without it. The entry points below load
the steps on first use.
"""
from __future__ import annotations

from typing import Any, Tuple

NAMES: Tuple[str, ...] = ("refactor_import", "norm_api_alias", "args_to_kwargs", "refactor_kwargs", "api_rename",
                          "refactor_with", "post_refactor")

__all__ = ["NAMES", "PIPELINE", "Result", "keep", "select", "star_members", "table", "upgrade_code"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from refactors import steps
        return getattr(steps, name)
    raise AttributeError(f"module 'refactors' has no attribute {name!r}")
