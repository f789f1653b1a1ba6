"""Runnable equivalence: upgraded 1.8 programs compute, on the installed Paddle, what 1.8 computed.

Each `fixtures/legacy/<name>.py` is a small 1.8-style program with fixed weights and synthetic data that
prints lines `key: v1 v2 ...`. It is upgraded with `refactors.upgrade_code`, run in a subprocess on the
installed Paddle (3.3.1), and its numbers are compared with the golden output recorded on the real
Paddle 1.8.5 (`fixtures/legacy/golden/<name>.json`), at 1e-5 relative tolerance.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import refactors
from legacy_programs import PROGRAMS, ROOT, assert_matches_1_8, golden, parse_output

pytestmark = pytest.mark.paddle

SHIM_HOME = ROOT  # where `import runtime_shim` finds this working tree's shim


def test_there_are_enough_programs():
    assert len(PROGRAMS) >= 8
    for program in PROGRAMS:
        assert golden(program), f"no golden output for {program.name}"


def test_parse_output_reads_keys_and_numbers():
    assert parse_output("loss: 1 2.5 -3e-2\nW0000 some warning\nshape: 4\n") == {
        "loss": [1.0, 2.5, -0.03], "shape": [4.0]}


# Programs the runtime shim runs but the upgrader cannot yet turn into working 3.3.1 code. Strict:
# when a gap closes, the test fails until its entry here is removed.
KNOWN_GAPS: dict = {}


def _programs():
    for program in PROGRAMS:
        gap = KNOWN_GAPS.get(program.stem)
        marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
        yield pytest.param(program, id=program.stem, marks=marks)


@pytest.mark.parametrize("program", list(_programs()))
def test_upgraded_program_matches_1_8(program: Path, tmp_path: Path) -> None:
    result = refactors.upgrade_code(program.read_text(encoding="utf-8"))
    left = [f.log_line() for f in result.findings if not f.fixed]
    assert not left, "the upgrade left work to do:\n" + "\n".join(left)
    assert result.converted_sites == result.legacy_sites
    upgraded = tmp_path / program.name
    upgraded.write_text(result.code, encoding="utf-8")
    # The upgraded program may need runtime_shim (installed with paddle-upgrade), nothing else of ours.
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(SHIM_HOME))
    env.pop("FLAGS_enable_pir_api", None)
    run = subprocess.run([sys.executable, str(upgraded)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, f"{program.name} failed on paddle:\n{run.stderr[-4000:]}\n--- code ---\n{result.code}"
    assert_matches_1_8(program, run.stdout)
