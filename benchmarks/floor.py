"""The libcst floor: read, decode, `libcst.parse_module(text).code` for every `.py` file that mentions
paddle, and nothing else. No upgrader built on libcst can be faster than this on the same files
with the same number of processes.

    python -m benchmarks.floor --corpus DIR [--parallel N]

Prints `<files> files, <mismatches> not reproduced` on stderr. `benchmarks.run` runs it as a
measured subprocess, like the tools.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import List, Optional

import libcst

from benchmarks.corpus import decode_source, python_files
from benchmarks.measure import ToolRun, run_measured
from upgrade_tool.runner import GC_THRESHOLD

MARK = b"paddle"
REPO = Path(__file__).resolve().parent.parent


def round_trip(path: str) -> bool:
    """Parse and regenerate one file; True when the code comes back byte for byte."""
    text = decode_source(Path(path).read_bytes())
    try:
        return libcst.parse_module(text).code == text
    except (libcst.ParserSyntaxError, RecursionError):
        return False  # a Python 2 file costs its parse attempt, as it does in any tool


def candidates(root: Path) -> List[str]:
    found = []
    for rel in python_files(root):
        path = root / rel
        try:
            if MARK in path.read_bytes():
                found.append(str(path))
        except OSError:
            continue
    return found


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor", description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--parallel", type=int, default=1, help="worker processes (1: this process)")
    args = parser.parse_args(argv)
    gc.set_threshold(*GC_THRESHOLD)  # the collector setting paddle-upgrade runs with (workers inherit it)
    paths = candidates(args.corpus)
    if args.parallel <= 1:
        results = [round_trip(p) for p in paths]
    else:
        with ProcessPoolExecutor(max_workers=args.parallel) as pool:
            results = list(pool.map(round_trip, paths, chunksize=8))
    print(f"{len(paths)} files, {results.count(False)} not reproduced", file=sys.stderr)
    return 0


class FloorRun:
    """The floor as a measured subprocess, with the same interface as the tools (it writes nothing)."""

    def __init__(self, parallel: int) -> None:
        self.parallel = parallel
        self.name = f"floor-p{parallel}"

    def prepare(self, corpus: Path) -> Path:
        return corpus

    def run(self, source: Path, dest: Path, tag: str, report: bool = False) -> ToolRun:
        argv = [sys.executable, "-m", "benchmarks.floor", "--corpus", str(source.resolve()),
                "--parallel", str(self.parallel)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        measured = run_measured(argv, REPO, dest.parent / f"{self.name}-{tag}", env=env)
        valid = measured.returncode == 0
        notes = [] if valid else [f"a run failed (exit {measured.returncode}, see {measured.stderr_path})"]
        return ToolRun(self.name, source, measured, notes=notes, valid=valid)


if __name__ == "__main__":
    sys.exit(main())
