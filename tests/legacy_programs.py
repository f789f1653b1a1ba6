"""The runnable 1.8 programs of `fixtures/legacy/`: where they are, how their output reads, what 1.8.5 gives.

Shared by the upgrader's equivalence test and the runtime shim's: both run the same programs and
compare the same printed numbers with the golden output recorded on the real Paddle 1.8.5
(`<dir>/golden/<name>.json`, written by `python -m tools.record_goldens`). A program is a `.py` file
or a directory whose `main.py` imports its other modules (`tools/fixture_programs.py`).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np
import pytest

from tools.fixture_programs import entry_script, find_programs, golden_path, program_name, source_files, source_hash
from tools.program_output import parse_output

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "fixtures" / "legacy"
PROGRAMS = find_programs(LEGACY)
RTOL = 1e-5
ATOL = 1e-7  # for values that are exactly zero in 1.8 (relu outputs, dropped units)

# Paddle 3.3.1's Profiler.stop() gathers the events each thread recorded and now and then reads one that
# the executor's worker threads freed: a profiled program dies by SIGSEGV or SIGABRT (core dumps show
# Profiler::Stop -> HostTracer::CollectTraceData -> HostEventRecorder::GatherEvents -> string assign).
# 50 profiled sessions per process: 7 of 176 processes died; with the executor's instructions run on the
# calling thread, 0 of 144. Programs that profile run so here; it changes no number they print.
SERIAL_EXECUTOR = {"FLAGS_new_executor_serial_run": "1"}

__all__ = ["ATOL", "LEGACY", "PROGRAMS", "ROOT", "RTOL", "SERIAL_EXECUTOR", "assert_matches_1_8", "entry_script",
           "golden", "parse_output", "printed", "profiling_env", "program_name", "program_params", "source_files"]


def profiling_env(env: Dict[str, str], program: Path) -> Dict[str, str]:
    """`env`, with SERIAL_EXECUTOR when one of the program's files uses Paddle's profiler."""
    if any("profiler" in source.read_text(encoding="utf-8") for source in source_files(program)):
        return dict(env, **SERIAL_EXECUTOR)
    return env


def printed(directory: Path, text: str, prefixes: Sequence[str]) -> List[str]:
    """Run the program `text` (written to `directory`) on the installed Paddle, with this repository on
    its path and nothing else of the environment; its output lines that start with one of `prefixes`."""
    program = directory / "run.py"
    program.write_text(text)
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if line.startswith(tuple(prefixes))]


def golden(program: Path) -> Dict[str, List[float]]:
    """What the program printed on Paddle 1.8.5; fails when the program changed since it was recorded."""
    record = json.loads(golden_path(program).read_text(encoding="utf-8"))
    assert record["paddle"] == "1.8.5", f"{program_name(program)}: golden recorded on paddle {record['paddle']}"
    assert record["source_sha256"] == source_hash(program), (
        f"{program_name(program)} changed since its golden output was recorded: run "
        f"`python -m tools.record_goldens --python <py38 with paddle 1.8.5> {program}`")
    return record["values"]


def assert_matches_1_8(program: Path, stdout: str) -> None:
    """The printed numbers equal the 1.8.5 golden output, key for key, at RTOL/ATOL."""
    actual, want = parse_output(stdout), golden(program)
    assert sorted(actual) == sorted(want), f"printed keys {sorted(actual)} != golden {sorted(want)}:\n{stdout}"
    for key, values in want.items():
        np.testing.assert_allclose(np.array(actual[key], dtype=np.float64), np.array(values, dtype=np.float64),
                                   rtol=RTOL, atol=ATOL, err_msg=f"{program_name(program)}: {key}")


def program_params(gaps: Dict[str, str]) -> List[object]:
    """One pytest parameter per program, named after it; a program in `gaps` (name -> reason) is a strict xfail."""
    unknown = set(gaps) - {program_name(p) for p in PROGRAMS}
    assert not unknown, f"gaps name programs that do not exist: {sorted(unknown)}"
    return [pytest.param(program, id=program_name(program),
                         marks=[pytest.mark.xfail(strict=True, reason=gaps[program_name(program)])]
                         if program_name(program) in gaps else [])
            for program in PROGRAMS]
