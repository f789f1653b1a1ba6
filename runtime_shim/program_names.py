"""Names of layers, parameters and variables drawn from one generator for every program, as in 1.8.

Paddle 1.8 (and 2.0) named what a `LayerHelper` creates with `unique_name.generate`: one generator for
the process, reset only by `unique_name.guard()`. Paddle 3.3.1 gives each legacy-IR `Program` its own
generator. 1.x code that builds two programs on one startup program (a training and a decoding
program, say) then gets the same parameter names in both: an error when the shapes differ, and, worse,
one parameter silently shared when they agree. While the shim serves legacy-IR programs, every program
draws from `unique_name`'s current generator again.
"""
from __future__ import annotations

from typing import Any, Callable, Optional


class CurrentGenerator:
    """Stands for a program's own name generator; draws from `unique_name`'s current one, so that
    `unique_name.guard()` and `unique_name.switch()` act on program names as they did in 1.8."""

    @staticmethod
    def _current() -> Any:
        from paddle.base import unique_name

        return unique_name.generator

    def __call__(self, key: str) -> str:
        return self._current()(key)

    def generate(self, key: str) -> str:
        return self._current().generate(key)

    def generate_with_ignorable_key(self, key: str) -> str:
        return self._current().generate_with_ignorable_key(key)

    def clone(self) -> "CurrentGenerator":
        return self  # a cloned program keeps drawing from the same names, as in 1.8


_SHARED = CurrentGenerator()
_original_init: Optional[Callable[..., None]] = None


def serve() -> None:
    """Make every legacy-IR program, existing and new, name from the current global generator."""
    global _original_init
    if _original_init is not None:
        return
    from paddle.base import framework

    _original_init = framework.Program.__init__
    original = _original_init

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self._name_generator = _SHARED

    framework.Program.__init__ = __init__
    for program in (framework.default_main_program(), framework.default_startup_program()):
        if isinstance(program, framework.Program):
            program._name_generator = _SHARED


def restore() -> None:
    """Undo `serve` for programs created from now on."""
    global _original_init
    if _original_init is None:
        return
    from paddle.base import framework

    framework.Program.__init__ = _original_init
    _original_init = None
