"""`python -m runtime_shim legacy_script.py args...`: run a Paddle 1.x script under the shim.

The script runs as `__main__` (like `python legacy_script.py args...`): `sys.argv` is the script and
its arguments, the script's directory is `sys.path[0]`, `if __name__ == "__main__":` blocks run, and
its exit status and tracebacks are its own. `python -m runtime_shim -m package.module args...` runs a
module the same way.
"""
from __future__ import annotations

import os
import runpy
import sys
from typing import List, Optional

USAGE = """usage: python -m runtime_shim SCRIPT.py [ARGS...]
       python -m runtime_shim -m MODULE [ARGS...]

Runs a Paddle 1.x (paddle.fluid) program unmodified on this Paddle, with the runtime shim installed.
Environment: PADDLE_SHIM_WARNINGS=once|off|error (default once; error = strict mode).
"""

NO_PADDLE = """python -m runtime_shim: Paddle is not installed here. The shim runs a 1.x program on the
installed Paddle (2.6 or later, e.g. 3.3.1); the upgrader alone does not need it. Install it with
    pip install paddlepaddle==3.3.1
or, from a checkout of paddle-upgrade, with the upgrader: pip install '.[paddle]'
"""


def _install() -> bool:
    """Install the shim; False (after saying why) when there is no Paddle to install it on."""
    import runtime_shim

    try:
        runtime_shim.install()
    except ModuleNotFoundError as exc:
        if exc.name != "paddle" and not (exc.name or "").startswith("paddle."):
            raise
        sys.stderr.write(NO_PADDLE)
        return False
    return True


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    if args[0] == "-m":
        if len(args) < 2:
            sys.stderr.write(USAGE)
            return 2
        sys.argv = args[1:]
        if not _install():
            return 1
        sys.path.insert(0, os.getcwd())
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return 0
    script = args[0]
    if not os.path.exists(script):
        sys.stderr.write(f"python -m runtime_shim: can't open file {script!r}: no such file\n")
        return 2
    # The shim's own modules first, while the directory they may come from is still on sys.path ...
    from runtime_shim import finder, resolve  # noqa: F401

    # ... then, as `python script.py` does, the script's directory (not the current one) is
    # sys.path[0], already while Paddle is imported by install().
    sys.argv = args
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    if not _install():
        return 1
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
