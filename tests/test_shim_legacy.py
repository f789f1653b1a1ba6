"""The legacy programs in `fixtures/legacy/` run unmodified under the runtime shim on the installed Paddle.

Each program is run as `python -m runtime_shim <program>.py` in a subprocess (the way a user runs a 1.x
script today), and the `key: v1 v2 ...` lines it prints are compared with the golden output recorded on the real Paddle 1.8.5
(`fixtures/legacy/golden/<program>.json`), at 1e-5 relative tolerance.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from legacy_programs import LEGACY, ROOT, assert_matches_1_8, golden

pytestmark = pytest.mark.paddle

PROGRAMS = sorted(p.stem for p in LEGACY.glob("*.py"))


def run_under_shim(script: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("FLAGS_enable_pir_api", None)  # the shim chooses the IR itself
    return subprocess.run([sys.executable, "-m", "runtime_shim", str(script)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)


def test_there_are_enough_programs() -> None:
    assert len(PROGRAMS) >= 8
    for name in PROGRAMS:
        assert golden(LEGACY / f"{name}.py"), f"no golden output for {name}"


@pytest.mark.parametrize("name", PROGRAMS)
def test_legacy_program_runs_unmodified_under_shim(name: str, tmp_path: Path) -> None:
    result = run_under_shim(LEGACY / f"{name}.py", tmp_path)
    assert result.returncode == 0, f"{name} failed under the shim:\n{result.stderr[-4000:]}"
    assert_matches_1_8(LEGACY / f"{name}.py", result.stdout)
    assert "LegacyApiWarning" in result.stderr, "the shim should have named the legacy APIs it served"
