"""A content-hash cache of per-file results (`--cache-dir`): re-running on an unchanged tree costs
one read and one hash per file.

An entry is keyed by the sha256 of the tool's fingerprint (the source of the packages that decide a
result and the mapping table), the options that change a result, the file's kind and its bytes, so
any change to one of them is a miss. The file's path is not in the key: a result is re-attached to
whichever path has those bytes. Entries are JSON, never pickle (a cache directory may be shared),
and are written to a temporary name and renamed; an unreadable or malformed entry is a miss.
"""
from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Optional

FORMAT = "2"  # 2: an entry records the tree digest of a result that consulted the tree
_PACKAGES = ("api_mapping", "refactors", "upgrade_tool")


@lru_cache(maxsize=None)
def fingerprint() -> str:
    """A hash of every source and data file of the packages that decide a result."""
    digest = hashlib.sha256(FORMAT.encode())
    root = Path(__file__).resolve().parent.parent
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.suffix in (".py", ".json", ".gz") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def key(options: Any, kind: str, data: bytes) -> str:
    settings = json.dumps([options.names, options.mode, options.shim, options.debug, kind])
    digest = hashlib.sha256(fingerprint().encode() + b"\0" + settings.encode() + b"\0")
    digest.update(data)
    return digest.hexdigest()


def _path(directory: str, name: str) -> Path:
    return Path(directory) / name[:2] / f"{name[2:]}.json"


def load(directory: str, name: str) -> Optional[Dict[str, Any]]:
    try:
        with open(_path(directory, name), "rb") as fh:
            entry = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) and entry.get("format") == FORMAT else None


def store(directory: str, name: str, entry: Dict[str, Any]) -> None:
    """Best effort: a cache that cannot be written costs speed, never the run."""
    path = _path(directory, name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(json.dumps({**entry, "format": FORMAT}).encode())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def encode_bytes(data: Optional[bytes]) -> Optional[str]:
    return None if data is None else base64.b64encode(data).decode("ascii")


def decode_bytes(text: Optional[str]) -> Optional[bytes]:
    return None if text is None else base64.b64decode(text)
