"""Atomic file writes: a temporary file in the same folder, fsync, then `os.replace`.

A reader (or a crash) sees either the old file or the new one, never half of one. A symlink at the
destination is replaced by the file, never written through.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from typing import BinaryIO, Iterator, Optional, Tuple

TEMP_SUFFIX = ".paddle-upgrade.tmp"


class WriteRefused(Exception):
    """The file must not be written; the message names the reason."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def atomic_file(path: str, mode: Optional[int] = None) -> Iterator[BinaryIO]:
    """A binary file that replaces `path` atomically when the block ends without an error (and is
    removed when it does not); `mode` defaults to the existing file's, else 0o644."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=TEMP_SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write(path: str, data: bytes, mode: Optional[int] = None) -> None:
    """Replace `path` with `data` atomically (see `atomic_file`)."""
    with atomic_file(path, mode) as fh:
        fh.write(data)


def check_writable(path: str, expected_sha256: str) -> Tuple[int, bytes]:
    """The file's mode and current bytes if it may be replaced now; WriteRefused otherwise.

    Refused: a symlink, a read-only file (its mode bits, so this holds for root too), and a file
    whose content changed since it was read (another program wrote it during the run).
    """
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise WriteRefused(f"cannot stat: {exc.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise WriteRefused("is a symlink; links are never written through")
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused("is not a regular file")
    if not st.st_mode & stat.S_IWUSR:
        raise WriteRefused("read-only file; not written (make it writable to upgrade it)")
    try:
        with open(path, "rb") as fh:
            current = fh.read()
    except OSError as exc:
        raise WriteRefused(f"cannot read: {exc.strerror}") from None
    if sha256(current) != expected_sha256:
        raise WriteRefused("changed on disk during the run; not written")
    return stat.S_IMODE(st.st_mode), current
