"""Run Paddle 1.x (`paddle.fluid`) programs unmodified on Paddle 2.6+/3.x.

    import runtime_shim
    runtime_shim.install()          # before the program's first paddle import
    import paddle.fluid as fluid    # served by the shim

or, without editing the program: `python -m runtime_shim legacy_script.py args...`.

`install()` puts a `sys.meta_path` finder in front that serves `paddle.fluid` and its submodules from
the `api_mapping` table plus hand-written adapters for behaviour differences (`runtime_shim.adapters`),
selects the legacy static IR (`runtime_shim.mode`), and makes `LegacyApiWarning` visible. It does
nothing when the installed Paddle still ships a real `paddle.fluid`.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Iterator, Optional

from runtime_shim.warnings import (
    LegacyApiError, LegacyApiWarning, LegacyArgumentError, NoEquivalentError, OpLibraryABIError,
    UnservedApiError,
)

__all__ = [
    "install", "uninstall", "installed", "is_installed",
    "LegacyApiWarning", "LegacyApiError", "LegacyArgumentError", "NoEquivalentError", "OpLibraryABIError",
    "UnservedApiError",
]

_finder = None


def is_installed() -> bool:
    return _finder is not None and _finder in sys.meta_path


def install(warnings: Optional[str] = None, strict: bool = False) -> bool:
    """Serve `paddle.fluid` from now on; return False when a real `paddle.fluid` exists instead.

    `warnings` overrides `PADDLE_SHIM_WARNINGS` ("once", "off" or "error"); `strict=True` is
    `warnings="error"`. Calling it again is harmless.
    """
    global _finder
    from runtime_shim import finder, mode
    from runtime_shim import warnings as shim_warnings

    if finder.real_fluid_exists():
        return False
    if strict:
        warnings = "error"
    shim_warnings.set_policy(warnings)
    shim_warnings.make_visible()
    if is_installed():
        return True
    mode.select_legacy_ir()  # before paddle is imported, when it is not yet
    _finder = finder.LegacyFinder()
    sys.meta_path.insert(0, _finder)
    import paddle  # the IR flag is read at import; the shim's own work needs paddle anyway

    mode.select_legacy_ir()  # paddle was imported before install(): switch it now
    if "__getattr__" not in paddle.__dict__:
        paddle.__getattr__ = finder.paddle_getattr  # `paddle.fluid` without `import paddle.fluid`
    return True


def uninstall() -> None:
    """Remove the finder and every module it served; restore the static IR choice."""
    global _finder
    from runtime_shim import finder, mode, resolve
    from runtime_shim import warnings as shim_warnings

    if _finder is not None and _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    _finder = None
    for name in [n for n in sys.modules if n == finder.ROOT or n.startswith(finder.ROOT + ".")]:
        if isinstance(sys.modules[name], finder.LegacyModule):
            del sys.modules[name]
    paddle = sys.modules.get("paddle")
    if paddle is not None:
        if isinstance(paddle.__dict__.get("fluid"), finder.LegacyModule):
            del paddle.fluid
        if paddle.__dict__.get("__getattr__") is finder.paddle_getattr:
            del paddle.__getattr__
    mode.restore_mode()
    mode.restore_ir()
    resolve.default_resolver.cache_clear()  # served objects were built for the legacy IR
    shim_warnings.set_policy(None)


@contextlib.contextmanager
def installed(warnings: Optional[str] = None, strict: bool = False) -> Iterator[bool]:
    """`with runtime_shim.installed():` the shim inside the block, Paddle as it was after it."""
    active = is_installed()
    result = install(warnings=warnings, strict=strict)
    try:
        yield result
    finally:
        if not active:
            uninstall()
