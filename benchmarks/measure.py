"""Run one command and measure it: wall time, CPU time, and peak memory of its whole process tree.

Each run goes through a fresh, small launcher process (`_launch`, in `python -c`), so that:
- `getrusage(RUSAGE_CHILDREN)` in the launcher covers exactly this run's processes. The launcher is
  a child subreaper (Linux), so processes orphaned by the command (a multiprocessing fork server
  outliving its parent) are reaped by it too and their CPU time is not lost;
- the kernel's max-RSS of the command is not inflated by the benchmark process: a child exec'd from
  a vfork/fork inherits the high-water mark of the process it was forked from, and the launcher is small.
Wall time is taken by the launcher from the command's start to its exit (not to the last orphan's).

Memory figures:
- `tree_rss_mb`: the largest sum of resident sets of all the command's processes, sampled from /proc
  every `SAMPLE_SECONDS` (Linux). Pages shared after fork count once per process, so this is an upper
  bound of the memory the run needs; it is the figure to compare with a memory budget;
- `max_rss_mb`: the largest resident set of any single process (the kernel's exact figure).
"""
from __future__ import annotations

import ctypes
import json
import os
import resource
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set

SAMPLE_SECONDS = 0.05
ORPHAN_WAIT_S = 30.0  # how long the launcher waits for orphans after the command exits
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_PR_SET_CHILD_SUBREAPER = 36


@dataclass
class Measured:
    argv: List[str]
    returncode: int
    wall_s: float
    cpu_s: float
    max_rss_mb: float
    tree_rss_mb: Optional[float]  # None where /proc is not available
    load_before: float  # 1-minute load average when the run started
    stdout_path: str
    stderr_path: str

    def to_dict(self) -> Dict[str, object]:
        return dict(self.__dict__)


@dataclass
class ToolRun:
    """One measured run of an upgrader on a fresh copy of a tree, and what it said it failed on."""

    tool: str
    tree: Path  # the copy it upgraded in place
    measured: Measured
    failed: Set[str] = field(default_factory=set)  # relative paths it could not upgrade
    notes: List[str] = field(default_factory=list)
    valid: bool = True  # False when the run itself broke (no report, aborted): not timed, not judged


# -- sampling the process tree ---------------------------------------------------------------------

def _children(pid: int) -> List[int]:
    found: List[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                found.extend(int(c) for c in fh.read().split())
    except (OSError, ValueError):
        pass  # the process ended between two reads
    return found


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def descendants_rss(root: int) -> int:
    """Resident bytes of all descendants of `root` (not root itself), now."""
    total, stack, seen = 0, _children(root), {root}
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss_bytes(pid)
        stack.extend(_children(pid))
    return total


class _Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, descendants_rss(self.pid))
            self.stop.wait(SAMPLE_SECONDS)


# -- the launcher (runs in its own small process) --------------------------------------------------

def _launch(argv: List[str], report: str) -> int:
    try:
        ctypes.CDLL(None).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (AttributeError, OSError):
        pass  # not Linux: orphans are not ours to reap, their CPU time is lost
    started = time.perf_counter()
    proc = subprocess.Popen(argv)
    returncode = proc.wait()
    wall = time.perf_counter() - started
    deadline = time.monotonic() + ORPHAN_WAIT_S
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.01)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, kilobytes on Linux
    with open(report, "w") as fh:
        json.dump({"returncode": returncode, "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
                   "max_rss_mb": usage.ru_maxrss * scale / 2**20}, fh)
    return 0


def run_measured(argv: Sequence[str], cwd: Path, log_prefix: Path, env: Optional[Dict[str, str]] = None) -> Measured:
    """Run argv in cwd to completion; its stdout/stderr go to `<log_prefix>.out` / `.err`."""
    log_prefix.parent.mkdir(parents=True, exist_ok=True)
    out_path, err_path = Path(f"{log_prefix}.out"), Path(f"{log_prefix}.err")
    report = Path(f"{log_prefix}.rusage.json")
    sampling = sys.platform.startswith("linux") and os.path.isdir("/proc/self/task")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    # sys.path, not PYTHONPATH: the command must see the environment it was given, nothing of ours
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r}); "
            "from benchmarks.measure import _launch; sys.exit(_launch(sys.argv[2:], sys.argv[1]))")
    launcher = [sys.executable, "-c", code, str(report), *argv]
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(launcher, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        sampler = _Sampler(proc.pid) if sampling else None
        if sampler is not None:
            sampler.start()
        proc.wait()
        if sampler is not None:
            sampler.stop.set()
            sampler.join()
    figures = json.loads(report.read_text())
    return Measured(argv=list(argv), returncode=figures["returncode"], wall_s=figures["wall_s"],
                    cpu_s=figures["cpu_s"], max_rss_mb=figures["max_rss_mb"],
                    tree_rss_mb=sampler.peak / 2**20 if sampler is not None else None,
                    load_before=load, stdout_path=str(out_path), stderr_path=str(err_path))
