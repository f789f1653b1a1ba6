"""The reference tool, `paddle_upgrade_tool` 0.0.27 from PyPI, installed into its own virtual
environment under `benchmarks/out/` and run on a copy of a tree it can accept.

What its copy gets, so that it can run at all (the original tree is never touched):
- CRLF newlines become LF: it aborts the whole run ("convert abort!") when any `.py` file has CRLF;
- files that are not UTF-8 are withheld from its copy, for the same reason, and count as refused
  by it (none in PaddlePaddle/models release/1.8). It then runs once on the whole directory, in
  parallel like ours, rather than once per file, which would charge it a start-up per file.
Files it reports it could not handle are read from its log: "Can't parse <file>" (its parser's
Python 2 refusal), "Bowler exception during transform of <file>" (its output did not parse, so it
did not write) and "Skipping <file>: failed to ..." (an exception in a fixer).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path
from typing import List, Set

from benchmarks.corpus import fresh_copy, python_files
from benchmarks.measure import ToolRun, run_measured

PACKAGE = "paddle_upgrade_tool"
VERSION = "0.0.27"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FAILED_FILE = re.compile(
    r"(?:Can't parse (?P<a>\S+?): |Bowler exception during transform of (?P<b>\S+?): "
    r"|Skipping (?P<c>\S+?): failed to )")
_ABORT = "convert abort!"


def _bin(venv_dir: Path, name: str) -> Path:
    return venv_dir / ("Scripts" if os.name == "nt" else "bin") / name


def ensure_installed(venv_dir: Path) -> Path:
    """The reference tool's console script, installing it first if needed (pip, from PyPI)."""
    exe = _bin(venv_dir, PACKAGE)
    python = _bin(venv_dir, "python")
    if exe.exists():
        shown = subprocess.run([str(python), "-m", "pip", "show", PACKAGE], capture_output=True, text=True)
        if f"Version: {VERSION}" in shown.stdout:
            return exe
    venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", f"{PACKAGE}=={VERSION}"], check=True)
    return exe


def refused_upfront(tree: Path) -> List[str]:
    """Files whose presence makes it refuse the whole directory, after CRLF normalisation."""
    refused = []
    for rel in python_files(tree):
        try:
            (tree / rel).read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            refused.append(rel)
        except OSError:
            continue
    return refused


def failed_files(log: str, tree: Path) -> Set[str]:
    """Files its log reports as not upgraded, relative to the tree it ran on."""
    failed = set()
    for match in _FAILED_FILE.finditer(_ANSI.sub("", log)):
        path = match.group("a") or match.group("b") or match.group("c")
        full = Path(path) if os.path.isabs(path) else tree / path
        failed.add(os.path.relpath(os.path.normpath(full), tree).replace(os.sep, "/"))
    return failed


class ReferenceTool:
    name = "reference"

    def __init__(self, work: Path, parallel: int) -> None:
        self.work = work
        self.parallel = parallel
        self.exe = ensure_installed(work / "reference-venv")
        self.prepare_notes: List[str] = []

    def prepare(self, corpus: Path) -> Path:
        """The tree it actually works on (CRLF normalised), against which its output is judged."""
        pristine = self.work / "reference-input"
        normalised = fresh_copy(corpus, pristine, normalise_crlf=True)
        withheld = refused_upfront(pristine)
        self.prepare_notes = [f"{len(normalised)} CRLF files normalised to LF in its copy (it aborts on CRLF)"]
        if withheld:
            self.prepare_notes.append(f"{len(withheld)} non-UTF-8 files withheld from its copy and counted "
                                      "as refused (it refuses the whole run otherwise)")
        return pristine

    def run(self, source: Path, dest: Path, tag: str, report: bool = False) -> ToolRun:
        """Copy source to dest (as it can accept it) and upgrade dest in place, measured. Its failures
        are always read from its log (report has nothing to switch on)."""
        notes = []
        normalised = fresh_copy(source, dest, normalise_crlf=True)
        if normalised:
            notes.append(f"{len(normalised)} CRLF files normalised to LF in its copy")
        withheld = refused_upfront(dest)
        for rel in withheld:
            (dest / rel).unlink()
        if withheld:
            notes.append(f"{len(withheld)} non-UTF-8 files withheld from its copy (it refuses the whole run)")
        backup = dest.parent / f"{dest.name}-backup"
        argv = [str(self.exe), "--inpath", ".", "--write", "--no-confirm", "--backup", str(backup),
                "--no-log-file", *(["--parallel", str(self.parallel)] if self.parallel else [])]  # 0: its default
        measured = run_measured(argv, dest, dest.parent / f"{self.name}-{tag}")
        log = Path(measured.stdout_path).read_text("utf-8", "replace") + \
            Path(measured.stderr_path).read_text("utf-8", "replace")
        failed = failed_files(log, dest) | set(withheld)
        if _ABORT in log:  # refused the whole run: nothing was upgraded, and that is its verdict
            failed |= set(python_files(dest))
            notes.append("it refused the whole directory")
        valid = measured.returncode in (0, 1)  # 1: it ran and reported errors; anything else: it crashed
        if not valid:
            notes.append(f"a run crashed (exit {measured.returncode}, see {measured.stderr_path})")
        return ToolRun(self.name, dest, measured, failed, notes, valid)


if __name__ == "__main__":  # install only: python -m benchmarks.reference_tool
    here = Path(__file__).resolve().parent / "out"
    print(ensure_installed(here / "reference-venv"), file=sys.stderr)
