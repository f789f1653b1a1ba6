"""paddle-upgrade: the command line that moves PaddlePaddle 1.8 (`paddle.fluid`) code to the 2.x API.

The refactors themselves live in `refactors`; this package finds files, reads and writes them
without losing a byte, backs them up, runs the refactors (in a worker process per CPU), and reports.
"""
from __future__ import annotations

try:
    from importlib.metadata import PackageNotFoundError, version

    try:
        __version__ = version("paddle-upgrade")
    except PackageNotFoundError:  # running from a source tree that was never installed
        __version__ = "0.0.0+source"
except ImportError:  # pragma: no cover - Python < 3.8
    __version__ = "0.0.0+source"
