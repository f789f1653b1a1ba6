"""Our CLI, `paddle-upgrade --write --no-confirm`, run on a fresh copy of a tree: the installed one, or
(`ours@DIR`) `python -m upgrade_tool` from the checkout DIR, so that two versions are timed in one run.

Files it could not upgrade are read from its `--report-json` (status "failed" or "skipped"), asked
for only in the untimed run whose output is judged. A run that exits 2 or prints a traceback broke
(e.g. the package was being reinstalled meanwhile): it is not timed, and not judged.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import List, Optional, Set

from benchmarks.corpus import fresh_copy, python_files
from benchmarks.measure import ToolRun, run_measured

NOT_UPGRADED = ("failed", "skipped")


def command() -> List[str]:
    """The installed console script, else the module (same code)."""
    exe = shutil.which("paddle-upgrade")
    return [exe] if exe else [sys.executable, "-m", "upgrade_tool"]


def failed_files(report: Path, tree: Path) -> Set[str]:
    """Files the JSON report lists as not upgraded, relative to the tree (the run's directory)."""
    data = json.loads(report.read_text("utf-8"))
    failed = set()
    for entry in data.get("files", []):
        if entry.get("status") in NOT_UPGRADED:
            path = entry["path"]
            full = Path(path) if os.path.isabs(path) else tree / path
            failed.add(os.path.relpath(os.path.normpath(full), tree).replace(os.sep, "/"))
    return failed


class OurTool:
    def __init__(self, work: Path, parallel: int, checkout: Optional[Path] = None) -> None:
        self.work = work
        self.parallel = parallel
        self.checkout = checkout
        self.name = "ours" if checkout is None else f"ours@{checkout.name}"

    def prepare(self, corpus: Path) -> Path:
        return corpus  # it takes the tree as it is (CRLF, any encoding)

    def run(self, source: Path, dest: Path, tag: str, report: bool = False) -> ToolRun:
        """Copy source to dest and upgrade dest in place, measured. With report, also --report-json,
        from which the files it could not upgrade are read."""
        fresh_copy(source, dest)
        backup = dest.parent / f"{dest.name}-backup"
        head = command() if self.checkout is None else [sys.executable, "-m", "upgrade_tool"]
        argv = [*head, "--inpath", ".", "--write", "--no-confirm", "--backup", str(backup), "--no-log-file",
                *(["--parallel", str(self.parallel)] if self.parallel else [])]  # 0: its default
        env = None if self.checkout is None else {**os.environ, "PYTHONPATH": str(self.checkout.resolve())}
        report_path = dest.parent / f"{self.name}-{tag}.report.json"
        if report:
            report_path.unlink(missing_ok=True)
            argv += ["--report-json", str(report_path)]
        measured = run_measured(argv, dest, dest.parent / f"{self.name}-{tag}", env)
        # exit 0: nothing left, 1: files failed or APIs left; 2 (or a traceback): the run itself broke
        crashed = b"Traceback (most recent call last)" in Path(measured.stderr_path).read_bytes()
        valid = measured.returncode in (0, 1) and not crashed and (report_path.exists() or not report)
        if not valid:
            return ToolRun(self.name, dest, measured, set(python_files(dest)), valid=False,
                           notes=[f"a run broke (exit {measured.returncode}, see {measured.stderr_path})"])
        return ToolRun(self.name, dest, measured, failed_files(report_path, dest) if report else set())
