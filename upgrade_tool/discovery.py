"""Which files a run looks at, in a fixed order.

- A file given on the command line is taken whatever its extension (`.ipynb` is a notebook).
- In a directory: `*.py` and `*.ipynb`, walked in sorted order so every run (and every `--parallel`)
  sees the same sequence. Skipped by default: hidden folders, `__pycache__`, `site-packages` /
  `dist-packages`, and virtual environments (a folder holding `pyvenv.cfg` or `conda-meta`).
  `--exclude GLOB` matches a path relative to its input root, or a file or folder name.
- Symlinks are never written through. A linked file is reported and left alone (its target, when it
  is inside the input root, is upgraded under its own path); linked folders are not entered, so a
  walk never leaves the input root.
"""
from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Union

from refactors.tree_index import SKIPPED_DIR_NAMES

SOURCE_SUFFIXES = (".py", ".ipynb")
VENV_MARKERS = ("pyvenv.cfg", "conda-meta")

PYTHON, NOTEBOOK = "python", "notebook"


@dataclass(frozen=True)
class Job:
    """One file to upgrade."""

    path: str  # absolute path, used to read and write
    display: str  # as shown in reports and diff headers: relative to the current directory
    rel: str  # relative to the run's base directory: the layout of backups and of --outpath
    kind: str  # PYTHON or NOTEBOOK


@dataclass(frozen=True)
class Notice:
    """A path that is not upgraded, with the reason (reported in order with the jobs)."""

    display: str
    status: str  # "skipped" or "failed"
    code: str
    severity: str
    message: str


Item = Union[Job, Notice]


def display_path(path: str, cwd: Optional[str] = None) -> str:
    """Relative to the current directory (so `git apply` of the diff works from there) when the
    path is inside it; absolute otherwise."""
    cwd = os.path.abspath(cwd or os.getcwd())
    path = os.path.abspath(path)
    if path == cwd or path.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, cwd)
    return path


def run_base(inputs: Sequence[str]) -> str:
    """The directory that relative paths (backup layout, --outpath) are counted from."""
    dirs = [os.path.abspath(p) if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in inputs]
    return os.path.commonpath(dirs) if dirs else os.getcwd()


def _kind(name: str) -> str:
    return NOTEBOOK if name.endswith(".ipynb") else PYTHON


def _is_venv(path: str) -> bool:
    return any(os.path.exists(os.path.join(path, marker)) for marker in VENV_MARKERS)


class _Walker:
    def __init__(self, base: str, excludes: Sequence[str], prune: Iterable[str], cwd: str) -> None:
        self.base = base
        self.excludes = [e.rstrip("/") for e in excludes if e.strip("/")]
        self.prune = {os.path.realpath(p) for p in prune}
        self.cwd = cwd

    def excluded(self, rel_to_root: str, name: str) -> bool:
        return any(fnmatch.fnmatchcase(rel_to_root, pat) or fnmatch.fnmatchcase(name, pat)
                   for pat in self.excludes)

    def job(self, path: str) -> Job:
        path = os.path.abspath(path)
        return Job(path, display_path(path, self.cwd), os.path.relpath(path, self.base), _kind(path))

    def notice(self, path: str, status: str, code: str, severity: str, message: str) -> Notice:
        return Notice(display_path(path, self.cwd), status, code, severity, message)

    def link_notice(self, path: str, root_real: str) -> Notice:
        target = os.path.realpath(path)
        inside = target == root_real or target.startswith(root_real.rstrip(os.sep) + os.sep)
        where = "inside the input root, upgraded under its own path" if inside \
            else "outside the input root, not followed"
        return self.notice(path, "skipped", "skipped", "info" if inside else "warning",
                           f"symlink to {display_path(target, self.cwd)} ({where}); links are never written through")

    def file_item(self, path: str, root_real: str) -> Item:
        try:
            mode = os.lstat(path).st_mode
        except OSError as exc:
            return self.notice(path, "failed", "failed", "error", f"cannot stat: {exc.strerror}")
        if stat.S_ISLNK(mode):
            return self.link_notice(path, root_real)
        if not stat.S_ISREG(mode):  # a FIFO named .py would block the read forever
            return self.notice(path, "skipped", "skipped", "warning", "not a regular file (FIFO, socket or device)")
        return self.job(path)

    def walk(self, root: str) -> List[Item]:
        items: List[Item] = []
        root_real = os.path.realpath(root)
        errors: List[OSError] = []
        for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append, followlinks=False):
            rel_dir = os.path.relpath(dirpath, root)
            keep = []
            for name in sorted(dirnames):
                full = os.path.join(dirpath, name)
                rel = os.path.normpath(os.path.join(rel_dir, name))
                if os.path.islink(full):
                    if not self.excluded(rel, name) and not name.startswith("."):
                        items.append(self.notice(full, "skipped", "skipped", "info",
                                                 "symlinked folder; not entered (a walk never follows links)"))
                    continue
                if (name.startswith(".") or name in SKIPPED_DIR_NAMES or self.excluded(rel, name)
                        or os.path.realpath(full) in self.prune or _is_venv(full)):
                    continue
                keep.append(name)
            dirnames[:] = keep
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.normpath(os.path.join(rel_dir, name))
                if self.excluded(rel, name):
                    continue
                items.append(self.file_item(full, root_real))
            # os.walk reports unreadable folders through onerror, after the fact
            while errors:
                err = errors.pop(0)
                items.append(self.notice(err.filename or dirpath, "failed", "failed", "error",
                                         f"cannot list folder: {err.strerror or err}"))
        while errors:
            err = errors.pop(0)
            items.append(self.notice(err.filename or root, "failed", "failed", "error",
                                     f"cannot list folder: {err.strerror or err}"))
        return items


def discover(inputs: Sequence[str], excludes: Sequence[str] = (), prune: Iterable[str] = (),
             cwd: Optional[str] = None) -> List[Item]:
    """Every file to upgrade and every path passed over with a reason, in a deterministic order.

    `prune`: folders never entered (the backup and --outpath folders when they sit inside an input).
    A file reached twice (two inputs overlapping) is listed once.
    """
    cwd = cwd or os.getcwd()
    walker = _Walker(run_base(inputs), excludes, prune, cwd)
    items: List[Item] = []
    for given in inputs:
        if os.path.isdir(given):
            items.extend(walker.walk(given))
        elif os.path.islink(given):
            target = display_path(os.path.realpath(given), cwd)
            items.append(walker.notice(given, "skipped", "skipped", "warning",
                                       f"symlink to {target}; links are never written through, "
                                       f"pass {target} to upgrade it"))
        else:
            items.append(walker.file_item(given, os.path.realpath(os.path.dirname(os.path.abspath(given)))))
    seen = set()
    unique: List[Item] = []
    for item in items:
        key = os.path.realpath(item.path) if isinstance(item, Job) else ("notice", item.display)
        if key in seen:
            continue
        seen.add(key)
        unique.append(item)
    return unique
