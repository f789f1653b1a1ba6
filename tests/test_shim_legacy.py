"""The legacy programs in `fixtures/legacy/` and `fixtures/shim/` run unmodified under the runtime shim.

`fixtures/legacy/` holds the programs the upgrader is checked on too; `fixtures/shim/` those that check
what only the shim does (NumPy 2 readings of shape-[1] results, APIs the upgrade leaves as no-equivalent,
static control flow on the legacy IR, 1.8.5 behaviours such as a global eval mode).

Each program is run as `python -m runtime_shim <program>.py` (or `<program>/main.py`) in a subprocess
(the way a user runs a 1.x script today), and the `key: v1 v2 ...` lines it prints are compared with the
golden output recorded on the real Paddle 1.8.5 (`fixtures/legacy/golden/<program>.json`), at 1e-5
relative tolerance.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

from legacy_programs import (PROGRAMS, ROOT, assert_matches_1_8, entry_script, golden, profiling_env, program_name,
                             program_params)
from tools.fixture_programs import find_programs

pytestmark = pytest.mark.paddle

SHIM_PROGRAMS = find_programs(ROOT / "fixtures" / "shim")


def run_under_shim(program: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = profiling_env(dict(os.environ), program)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("FLAGS_enable_pir_api", None)  # the shim chooses the IR itself
    return subprocess.run([sys.executable, "-m", "runtime_shim", str(entry_script(program))], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)


def test_there_are_enough_programs() -> None:
    assert len(PROGRAMS) >= 8 and len(SHIM_PROGRAMS) >= 8
    for program in PROGRAMS + SHIM_PROGRAMS:
        assert golden(program), f"no golden output for {program_name(program)}"


# Programs the shim does not run with the 1.8.5 numbers yet (shim bugs). Strict: when one is fixed,
# the test fails until its entry here is removed.
SHIM_GAPS: Dict[str, str] = {
    "beam_search_decoder_static": "the shim serves BeamSearchDecoder and dynamic_decode as paddle.nn's, which decode "
                                  "other ids (shape [2, 5, 3] where 1.8.5 gives [2, 2, 3]: SEMANTICS 58)",
}


@pytest.mark.parametrize("program", program_params(SHIM_GAPS))
def test_legacy_program_runs_unmodified_under_shim(program: Path, tmp_path: Path) -> None:
    result = run_under_shim(program, tmp_path)
    assert result.returncode == 0, f"{program_name(program)} failed under the shim:\n{result.stderr[-4000:]}"
    assert_matches_1_8(program, result.stdout)
    assert "LegacyApiWarning" in result.stderr, "the shim should have named the legacy APIs it served"


@pytest.mark.parametrize("program", SHIM_PROGRAMS, ids=[program_name(p) for p in SHIM_PROGRAMS])
def test_shim_program_runs_unmodified_under_shim(program: Path, tmp_path: Path) -> None:
    test_legacy_program_runs_unmodified_under_shim(program, tmp_path)
