"""What the shim tells the user: one warning per legacy API per process, and the errors it raises.

Policy, from `install(warnings=...)` or the environment variable `PADDLE_SHIM_WARNINGS`:

- `once` (default): the first use of each legacy API warns with `LegacyApiWarning`, naming its 2.x
  replacement; later uses are silent.
- `off`: no warnings (the environment variable is the way to silence a whole run).
- `error` (strict mode): every use of a legacy API raises `LegacyApiError`, so a test suite can prove a
  code base no longer needs the shim.

An API that Paddle 2.x removed without a replacement raises `NoEquivalentError` when it is called,
whatever the policy, with the table's reason and suggestion.
"""
from __future__ import annotations

import os
import sys
import threading
import warnings as _warnings
from pathlib import Path
from typing import Any, Optional, Set

ENV_VAR = "PADDLE_SHIM_WARNINGS"
POLICIES = ("once", "off", "error")

_HERE = str(Path(__file__).resolve().parent)


class LegacyApiWarning(DeprecationWarning):
    """A Paddle 1.x (`paddle.fluid`) API was used through the runtime shim.

    A `DeprecationWarning` subclass, made visible by `install()` (Python hides plain
    `DeprecationWarning`s outside `__main__`).
    """


class LegacyApiError(RuntimeError):
    """Strict mode: a legacy API was used while the policy is `error`."""


class NoEquivalentError(NotImplementedError):
    """The legacy API has no Paddle 2.x equivalent; the message says what to use instead."""


class UnservedApiError(NotImplementedError):
    """The name existed in Paddle 1.8, but the shim has no mapping for it (yet)."""


class LegacyArgumentError(TypeError):
    """A 1.8 argument whose value changes the result cannot be expressed with the 2.x API."""


class OpLibraryABIError(RuntimeError):
    """`fluid.load_op_library` was given a library of Paddle 1.x C++ operators, which Paddle 3 cannot load.

    `filename` names the library. Its operators have to be ported to the custom-operator API and built
    with `paddle.utils.cpp_extension`.
    """


_lock = threading.Lock()
_warned: Set[str] = set()
_policy_override: Optional[str] = None


def set_policy(policy: Optional[str]) -> None:
    """Override the environment's policy for this process (None: back to the environment)."""
    global _policy_override
    if policy is not None and policy not in POLICIES:
        raise ValueError(f"warning policy must be one of {POLICIES}, got {policy!r}")
    _policy_override = policy


def policy() -> str:
    """The policy in force: the override, else `PADDLE_SHIM_WARNINGS`, else `once`."""
    if _policy_override is not None:
        return _policy_override
    raw = os.environ.get(ENV_VAR, "once").strip().lower()
    aliases = {"": "once", "0": "off", "no": "off", "false": "off", "ignore": "off", "1": "once",
               "strict": "error", "raise": "error"}
    value = aliases.get(raw, raw)
    return value if value in POLICIES else "once"


def reset() -> None:
    """Forget which APIs already warned (tests use this to observe the once-per-process rule)."""
    with _lock:
        _warned.clear()


def _user_stacklevel() -> int:
    """The stack level of the first frame outside this package, so the warning points at user code."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        frame = frame.f_back
        level += 1
    return level


def message(name: str, replacement: Optional[str], note: Optional[str] = None, automatic: bool = True) -> str:
    """The warning text for one legacy API."""
    if replacement:
        text = f"{name} is a Paddle 1.x API (served by runtime_shim); in Paddle 2.x use {replacement}"
    else:
        text = f"{name} is a Paddle 1.x API (served by runtime_shim)"
    if note:
        text += f". {note.rstrip().rstrip('.')}"
    return text + (". `paddle-upgrade` rewrites it." if automatic else ".")


def reporting_class(instance: Any) -> Optional[type]:
    """The served legacy class whose use constructing `instance` reports: the most derived one in its
    MRO. A user's subclass of `fluid.dygraph.Linear` reports Linear once; a served class that another
    served class builds on does not report again from the base's `__init__`."""
    return next((c for c in type(instance).__mro__ if "__legacy_name__" in c.__dict__), None)


def legacy_api_used(name: str, replacement: Optional[str], note: Optional[str] = None,
                    automatic: bool = True) -> None:
    """Record a use of legacy API `name`: warn the first time, or raise in strict mode.

    `automatic` says whether the upgrader rewrites the API (the message then says so).
    """
    current = policy()
    if current == "error":
        raise LegacyApiError(message(name, replacement, note, automatic)
                             + " (strict mode: PADDLE_SHIM_WARNINGS=error)")
    if name in _warned:  # the common case, on every later call: no lock needed to read
        return
    with _lock:
        if name in _warned:
            return
        _warned.add(name)
    if current == "off":
        return
    _warnings.warn(message(name, replacement, note, automatic), LegacyApiWarning, stacklevel=_user_stacklevel())


def make_visible() -> None:
    """Show `LegacyApiWarning` by default (Python ignores DeprecationWarning outside `__main__`).

    Inserted at the front of the filter list, but a later user filter (`-W ignore::...`, a
    `warnings.filterwarnings` call after install) still wins, as it is inserted in front of ours.
    """
    _warnings.filterwarnings("default", category=LegacyApiWarning)


def no_equivalent(name: str, reason: str, suggest: str, shim: Optional[str] = None) -> NoEquivalentError:
    """The error for a call to an API that 2.x removed without a replacement, and that the shim cannot
    compute on Paddle 3 either (`shim` says why, from the table)."""
    text = f"{name} has no Paddle 2.x equivalent: {reason}. Use instead: {suggest}"
    if shim:
        text += f". The runtime shim cannot run it: {shim}"
    return NoEquivalentError(text)
