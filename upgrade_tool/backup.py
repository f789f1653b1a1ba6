"""Backups of every file a `--write` run replaces, and `--restore`.

Each run gets its own folder, `<root>/run-YYYYmmdd-HHMMSS-ffffff/`, created when the first file is
written. `files/` mirrors the input's relative paths; `manifest.jsonl` has a header line, then one
line per backed-up file, appended (and fsynced) before that file is replaced, then a closing line.
A run killed at any point therefore leaves a manifest listing every file it changed; a last line cut
in half by the kill is ignored.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from upgrade_tool import __version__
from upgrade_tool.writer import atomic_write, sha256

DEFAULT_ROOT = os.path.join("~", ".paddle_upgrade_tool")
MANIFEST = "manifest.jsonl"
FILES = "files"


class BackupError(Exception):
    """A backup could not be made or read; the message names the reason."""


def default_root() -> str:
    return os.path.expanduser(DEFAULT_ROOT)


class BackupRun:
    """The backup folder of one run; nothing is created until the first `save`."""

    def __init__(self, root: str, base: str) -> None:
        self.root = os.path.abspath(os.path.expanduser(root))
        self.base = base
        self.path: Optional[str] = None
        self.count = 0
        self._manifest = None

    def _open(self) -> None:
        os.makedirs(self.root, exist_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        for attempt in range(100):
            path = os.path.join(self.root, f"run-{stamp}" + (f"-{attempt}" if attempt else ""))
            try:
                os.mkdir(path)
                break
            except FileExistsError:
                continue
        else:
            raise BackupError(f"cannot create a run folder in {self.root}")
        self.path = path
        self._manifest = open(os.path.join(path, MANIFEST), "a", encoding="utf-8")
        self._append({"tool": "paddle-upgrade", "version": __version__, "format": 1,
                      "created": _dt.datetime.now().isoformat(timespec="seconds"), "base": self.base,
                      "cwd": os.getcwd()})

    def _append(self, record: Dict[str, Any]) -> None:
        assert self._manifest is not None
        self._manifest.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._manifest.flush()
        os.fsync(self._manifest.fileno())

    def save(self, path: str, rel: str, original: bytes, mode: int, upgraded: bytes) -> None:
        """Copy `original` (the bytes about to be replaced) and record it, before the replace."""
        try:
            if self.path is None:
                self._open()
            assert self.path is not None
            copy = os.path.join(self.path, FILES, rel)
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            atomic_write(copy, original, 0o600 | (mode & 0o700))
            self._append({"rel": rel, "path": os.path.abspath(path), "sha256": sha256(original),
                          "upgraded_sha256": sha256(upgraded), "mode": mode, "size": len(original)})
        except OSError as exc:
            raise BackupError(f"backup failed: {exc.strerror or exc}") from None
        self.count += 1

    def close(self, complete: bool) -> None:
        if self._manifest is None:
            return
        self._append({"end": _dt.datetime.now().isoformat(timespec="seconds"), "complete": complete,
                      "files": self.count})
        self._manifest.close()
        self._manifest = None


# -- restore -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RestoreOutcome:
    path: str
    status: str  # restored, unchanged, skipped, failed
    message: str  # what else to know, or ""


def runs(root: str) -> List[str]:
    """The run folders under a backup root, oldest first."""
    try:
        names = sorted(n for n in os.listdir(root) if os.path.isfile(os.path.join(root, n, MANIFEST)))
    except OSError:
        return []
    return [os.path.join(root, n) for n in names]


def read_manifest(run_dir: str) -> Tuple[Dict[str, Any], List[Dict[str, Any]], bool]:
    """(header, file entries, whether the run closed normally)."""
    path = os.path.join(run_dir, MANIFEST)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except OSError as exc:
        raise BackupError(f"cannot read {path}: {exc.strerror}") from None
    records = []
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if number >= len(lines) - 2:  # the last line, cut short by a kill: it backed up nothing
                break
            raise BackupError(f"{path}:{number + 1}: damaged manifest line") from None
    if not records or records[0].get("tool") != "paddle-upgrade":
        raise BackupError(f"{path} is not a paddle-upgrade manifest")
    entries = [r for r in records[1:] if "rel" in r]
    complete = any(r.get("complete") for r in records[1:] if "end" in r)
    return records[0], entries, complete


def restore(run_dir: str) -> List[RestoreOutcome]:
    """Put every file of a backup run back where it was.

    A file is only overwritten when it still holds what the upgrade wrote (or is missing); a file
    edited since is left alone and reported, so restoring never loses work either.
    """
    _, entries, _ = read_manifest(run_dir)
    out = []
    for entry in entries:
        target = entry["path"]
        copy = os.path.join(run_dir, FILES, entry["rel"])
        try:
            with open(copy, "rb") as fh:
                original = fh.read()
        except OSError as exc:
            out.append(RestoreOutcome(target, "failed", f"backup copy unreadable: {exc.strerror}"))
            continue
        if sha256(original) != entry["sha256"]:
            out.append(RestoreOutcome(target, "failed", "backup copy does not match its manifest checksum"))
            continue
        if os.path.islink(target):
            out.append(RestoreOutcome(target, "skipped", "is now a symlink; not written through"))
            continue
        try:
            with open(target, "rb") as fh:
                current: Optional[bytes] = fh.read()
        except FileNotFoundError:
            current = None
        except OSError as exc:
            out.append(RestoreOutcome(target, "failed", f"cannot read: {exc.strerror}"))
            continue
        if current is not None and sha256(current) == entry["sha256"]:
            out.append(RestoreOutcome(target, "unchanged", "already original"))
            continue
        if current is not None and sha256(current) != entry.get("upgraded_sha256"):
            out.append(RestoreOutcome(target, "skipped",
                                      f"changed since the upgrade, left as it is; backup copy: {copy}"))
            continue
        try:
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            atomic_write(target, original, int(entry.get("mode", 0o644)))
        except OSError as exc:
            out.append(RestoreOutcome(target, "failed", f"cannot write: {exc.strerror}"))
            continue
        out.append(RestoreOutcome(target, "restored", "" if current is not None else "it was missing"))
    return out
