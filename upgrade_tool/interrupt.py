"""Ctrl-C and SIGTERM: stop between files, never in the middle of one.

While a file is being backed up and replaced, a signal is only noted; it takes effect (as
`Interrupted`) when that file is done. Every file is therefore either original or fully upgraded,
and its backup is complete before it is replaced.
"""
from __future__ import annotations

import contextlib
import signal
from typing import Iterator, Optional


class Interrupted(BaseException):
    """The run was asked to stop (Ctrl-C or SIGTERM).

    A BaseException, like KeyboardInterrupt, so that no `except Exception` on the way (one bad
    file must not stop the run) can swallow it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # the shell convention: 130 for Ctrl-C, 143 for SIGTERM


class SignalGuard:
    """Installs SIGINT/SIGTERM handlers for a run; `critical()` defers them around one file."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self._depth = 0
        self._pending: Optional[int] = None
        self._previous = {}

    def _handle(self, signum: int, frame) -> None:
        if self._depth:
            self._pending = signum
            return
        raise Interrupted(signum)

    def __enter__(self) -> "SignalGuard":
        for sig in self.SIGNALS:
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread (e.g. an embedding application): no handlers
                pass
        return self

    def __exit__(self, *exc) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()

    @contextlib.contextmanager
    def critical(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
        if not self._depth and self._pending is not None:
            signum, self._pending = self._pending, None
            raise Interrupted(signum)

    def check(self) -> None:
        """Raise a signal noted during a critical section that ended by an exception."""
        if not self._depth and self._pending is not None:
            signum, self._pending = self._pending, None
            raise Interrupted(signum)
