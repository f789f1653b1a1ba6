"""The 1.x execution model on Paddle 3.x: which static IR, static by default, dygraph inside a guard.

Static IR: the shim builds legacy-IR programs (`FLAGS_enable_pir_api=0`), never PIR. 1.8 code relies
on what only the legacy IR offers in 3.3.1: `Program.clone(for_test=True)` (api_mapping/SEMANTICS.md 24), named
variables (`loss.name`, `fetch_list=['loss']`, `global_block().var(name)`), `paddle.static.nn.embedding`
(38), `fluid.io` persistence of every persistable variable (34), and the 1.8 learning-rate counter op
(29). The 2.x functions that accept only PIR values in 3.3.1 are served through
`runtime_shim.static_ops`, which emits their legacy operators instead.

Execution model (api_mapping/SEMANTICS.md 35): static graph as soon as `paddle.fluid` is imported; dynamic inside
`fluid.dygraph.guard(place)` with fresh unique names, as 1.8's guard did (33); back to static after.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Iterator, Optional

from api_mapping.modes import DYNAMIC_ON, STATIC_ON

PIR_FLAG = "FLAGS_enable_pir_api"

# What install() changed, so that uninstall() can put it back.
_saved_env: Optional[str] = None
_env_set = False
_switched_ir = False


def _paddle_loaded() -> bool:
    paddle = sys.modules.get("paddle")
    # A module that is still executing its body has no `__version__` yet.
    return paddle is not None and hasattr(paddle, "base") and hasattr(paddle, "static")


def select_legacy_ir() -> None:
    """Make Paddle build legacy-IR programs, before or after `import paddle`."""
    global _saved_env, _env_set, _switched_ir
    if not _env_set:
        _saved_env = os.environ.get(PIR_FLAG)
        os.environ[PIR_FLAG] = "0"  # read by paddle.base.framework when paddle is imported later
        _env_set = True
    if _paddle_loaded():
        import paddle

        if paddle.base.framework.use_pir_api():
            from paddle import pir_utils

            paddle.framework.set_flags({PIR_FLAG: False})
            pir_utils._switch_to_old_ir_()
            _switched_ir = True


_FALSY = ("n", "no", "f", "false", "off", "0")


def restore_ir() -> None:
    """Undo `select_legacy_ir` (used by `uninstall`): the IR Paddle would have used without the shim."""
    global _env_set, _switched_ir
    wanted_pir = _saved_env is None or _saved_env.lower() not in _FALSY
    if _env_set:
        if _saved_env is None:
            os.environ.pop(PIR_FLAG, None)
        else:
            os.environ[PIR_FLAG] = _saved_env
        _env_set = False
    _switched_ir = False
    if _paddle_loaded():
        import paddle

        if wanted_pir and not paddle.base.framework.use_pir_api():
            from paddle import pir_utils

            paddle.framework.set_flags({PIR_FLAG: True})
            pir_utils._switch_to_pir_()


_made_static = False


def restore_mode() -> None:
    """Leave static mode again if the shim entered it (used by `uninstall`)."""
    global _made_static
    if _made_static and _paddle_loaded():
        import paddle

        if not paddle.in_dynamic_mode():
            _call(DYNAMIC_ON)
    _made_static = False


def _call(dotted: str, *args: Any) -> Any:
    """Call a `paddle.*` function named by the mapping's mode facts (`api_mapping.modes`)."""
    import importlib

    module, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attr)(*args)


def in_dygraph() -> bool:
    import paddle

    return paddle.in_dynamic_mode()


def in_legacy_static() -> bool:
    """True while building a legacy-IR static program (the shim's static mode)."""
    import paddle

    return not paddle.in_dynamic_mode() and not paddle.base.framework.in_pir_mode()


def static_by_default() -> None:
    """The 1.x default: a static graph, unless a dygraph guard is active."""
    import paddle

    global _made_static
    select_legacy_ir()
    if paddle.in_dynamic_mode() and not _guard_depth:
        _call(STATIC_ON)
        _made_static = True


_guard_depth = 0


@contextlib.contextmanager
def guard(place: Any = None) -> Iterator[None]:
    """`fluid.dygraph.guard(place)`: dynamic mode inside, a fresh unique-name generator, then back.

    Paddle 3.3.1's `paddle.base.dygraph.guard` is the 1.8 guard's direct descendant: a new tracer, a
    new pair of programs, `unique_name.guard()` (so a model rebuilt in a new guard gets the same
    parameter names and its optimizer state resumes, api_mapping/SEMANTICS.md 33) and the place.
    """
    global _guard_depth
    from paddle.base import core
    from paddle.base.dygraph.base import guard as base_guard

    _guard_depth += 1
    # 1.8's new tracer started in train mode; Paddle 3's gradient switch is process-wide (api_mapping/SEMANTICS.md 41).
    recording = core._has_grad()
    core._set_has_grad(True)
    try:
        with base_guard(place):
            yield
    finally:
        core._set_has_grad(recording)
        _guard_depth -= 1


def enable_dygraph(place: Any = None) -> None:
    """`fluid.enable_dygraph(place)`: enter a process-wide dygraph guard (1.8 `dygraph/base.py`)."""
    from paddle.base.dygraph import base

    base.enable_dygraph(place)


def disable_dygraph() -> None:
    """`fluid.disable_dygraph()`: leave the guard entered by `enable_dygraph`, back to static."""
    from paddle.base.dygraph import base

    base.disable_dygraph()
    import paddle

    if paddle.in_dynamic_mode() and not _guard_depth:
        _call(STATIC_ON)


_tracer_modes: Optional[Any] = None  # (train_mode, eval_mode) of 3.3.1's Tracer, while replaced


def serve_tracer_modes() -> None:
    """1.8's tracer modes (api_mapping/SEMANTICS.md 41): `Layer.eval()` (which calls `Tracer.eval_mode()`) stops every
    operator from recording gradients until a `Layer.train()`, as 1.8's tracer did when not in train
    mode. 3.3.1's tracer records gradients unless `_has_grad` is off, whatever its mode; `no_grad()`
    saves and restores `_has_grad`, as 1.8's saved and restored the train mode."""
    global _tracer_modes
    from paddle.base.dygraph.tracer import Tracer

    if _tracer_modes is not None:
        return
    _tracer_modes = (Tracer.train_mode, Tracer.eval_mode)

    def train_mode(self: Any) -> None:
        self._train_mode = True
        self._has_grad = True

    def eval_mode(self: Any) -> None:
        self._train_mode = False
        self._has_grad = False

    Tracer.train_mode, Tracer.eval_mode = train_mode, eval_mode


def restore_tracer_modes() -> None:
    global _tracer_modes
    if _tracer_modes is not None:
        from paddle.base.dygraph.tracer import Tracer

        Tracer.train_mode, Tracer.eval_mode = _tracer_modes
        _tracer_modes = None


def dygraph_enabled() -> bool:
    """`fluid.dygraph.enabled()` / `fluid.in_dygraph_mode()`."""
    return in_dygraph()


__all__ = [
    "DYNAMIC_ON", "STATIC_ON", "disable_dygraph", "dygraph_enabled", "enable_dygraph", "guard",
    "in_dygraph", "in_legacy_static", "restore_ir", "restore_mode", "restore_tracer_modes", "select_legacy_ir",
    "serve_tracer_modes", "static_by_default",
]
