"""Run Paddle 1.x (`paddle.fluid`) programs unmodified on Paddle 2.6+/3.x.

    import runtime_shim
    runtime_shim.install()          # before the program's first paddle import
    import paddle.fluid as fluid    # served by the shim

or, without editing the program: `python -m runtime_shim legacy_script.py args...`.

`install()` puts a `sys.meta_path` finder in front that serves `paddle.fluid` and its submodules from
the `api_mapping` table plus hand-written adapters for behaviour differences (`runtime_shim.adapters`),
selects the legacy static IR and 1.x's static-by-default mode (`runtime_shim.mode`), makes
`LegacyApiWarning` visible, and gives the process 1.8's runtime behaviour where Paddle 3's differs:
2.x functions build legacy operators (`static_ops`), `Layer.eval()` stops gradients everywhere
(`mode.serve_tracer_modes`), tensors read as 1.8 code reads them under NumPy 2 and static operators
align operands as 1.8's (`tensor_methods`), layers' `sublayers` takes 1.8's keyword (`layer_methods`).
It does nothing when the installed Paddle still ships a real `paddle.fluid`.

Two entry points serve upgraded code that still uses legacy APIs, and change nothing else:

- `import runtime_shim.coexist`, the line the upgrader writes into a file that still uses legacy APIs:
  `paddle.fluid` names are served, but the mode (dynamic or static) and the IR stay what the file's
  converted code selects;
- `runtime_shim.enable_static()`, written where a converted file enters static mode: the static graph
  that 1.x and 2.x code was written for (the legacy IR), on which 2.x functions keep working.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Iterator, Optional

from runtime_shim.messages import (
    LegacyApiError, LegacyApiWarning, LegacyArgumentError, NoEquivalentError, OpLibraryABIError,
    UnservedApiError,
)

__all__ = [
    "install", "uninstall", "installed", "is_installed", "serve_names", "enable_static",
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
    from runtime_shim import finder, layer_methods, mode, program_names, static_ops, tensor_methods
    from runtime_shim import messages

    if finder.real_fluid_exists():
        return False
    if strict:
        warnings = "error"
    messages.set_policy(warnings)
    messages.make_visible()
    if is_installed() and _finder.legacy_mode:
        return True
    mode.select_legacy_ir()  # before paddle is imported, when it is not yet
    _activate(legacy_mode=True)
    mode.select_legacy_ir()  # paddle was imported before install(): switch it now
    static_ops.serve_2x_functions()  # converted code beside legacy code (a half-upgraded project)
    program_names.serve()  # one name generator for all programs, as in 1.8
    tensor_methods.serve()  # numpy() results read as scalars under NumPy 2; backward(backward_strategy);
    # 1.8's static operand alignment
    layer_methods.serve()  # sublayers(include_sublayers=False) is empty, as in 1.8
    mode.serve_tracer_modes()  # Layer.eval() stops gradients everywhere, as in 1.8
    if "paddle.fluid" in sys.modules:  # served names-only until now: 1.x's default mode from here on
        mode.static_by_default()
    return True


def serve_names() -> bool:
    """Serve `paddle.fluid` names for upgraded code that still uses some (`import runtime_shim.coexist`).

    Unlike `install()`, the mode and the IR are left to the program: importing `paddle.fluid` does not
    enter static mode, and nothing switches the IR. Returns False when a real `paddle.fluid` exists;
    after `install()`, the full legacy runtime stays as it is.
    """
    from runtime_shim import finder
    from runtime_shim import messages

    if finder.real_fluid_exists():
        return False
    messages.make_visible()
    if not is_installed():
        _activate(legacy_mode=False)
    return True


def _activate(legacy_mode: bool) -> None:
    global _finder
    from runtime_shim import finder

    if _finder is None:
        _finder = finder.LegacyFinder()
    _finder.legacy_mode = legacy_mode
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    import paddle  # the IR flag is read at import; the shim's own work needs paddle anyway

    if "__getattr__" not in paddle.__dict__:
        paddle.__getattr__ = finder.paddle_getattr  # `paddle.fluid` without `import paddle.fluid`


def enable_static() -> None:
    """`paddle.enable_static()` as 1.x and 2.x code knew it: the static graph on Paddle's legacy IR.

    On Paddle 3.x the default static IR (PIR) lacks what such code relies on (`Program.clone(for_test=True)`,
    variables fetched by name, `paddle.static.nn.conv2d`/`batch_norm`/`embedding`, ...), while several 2.x
    functions accept only PIR values there. This selects the legacy IR, before or after `import paddle`,
    and lets those functions build legacy operators (`runtime_shim.static_ops`). On a Paddle without PIR
    it is `paddle.enable_static()`.
    """
    from runtime_shim import mode, program_names, static_ops

    mode.select_legacy_ir()
    import paddle

    paddle.enable_static()
    static_ops.serve_2x_functions()
    program_names.serve()


def uninstall() -> None:
    """Remove the finder and every module it served; restore the static IR choice."""
    global _finder
    from runtime_shim import finder, layer_methods, mode, program_names, resolve, static_ops, tensor_methods
    from runtime_shim import messages

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
    static_ops.restore_2x_functions()
    program_names.restore()
    tensor_methods.restore()
    layer_methods.restore()
    mode.restore_tracer_modes()
    resolve.default_resolver.cache_clear()  # served objects were built for the legacy IR
    messages.set_policy(None)


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
