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


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    import runtime_shim

    if args[0] == "-m":
        if len(args) < 2:
            sys.stderr.write(USAGE)
            return 2
        sys.argv = args[1:]
        runtime_shim.install()
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
    runtime_shim.install()
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
