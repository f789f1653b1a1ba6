"""The legacy programs in `fixtures/legacy/` run unmodified under the runtime shim on the installed Paddle.

Each program is run as `python -m runtime_shim <program>.py` in a subprocess (the way a user runs a 1.x
script today), and the `key: v1 v2 ...` lines it prints are compared with the NumPy reading of the 1.8
semantics in `fixtures/legacy/expected/<program>.py`, at 1e-5 relative tolerance.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest

pytestmark = pytest.mark.paddle

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "fixtures" / "legacy"
PROGRAMS = sorted(p.stem for p in LEGACY.glob("*.py"))
LINE = re.compile(r"^([A-Za-z_][\w.]*): ?(.*)$")
RTOL = 1e-5
ATOL = 1e-7  # values that are exactly zero in 1.8 (relu outputs, dropped units)


def parse_output(text: str) -> Dict[str, List[float]]:
    """The program's `key: numbers` lines; anything else (Paddle's log lines) is ignored."""
    values: Dict[str, List[float]] = {}
    for line in text.splitlines():
        match = LINE.match(line.strip())
        if match is None:
            continue
        try:
            numbers = [float(v) for v in match.group(2).split()]
        except ValueError:
            continue
        assert match.group(1) not in values, f"key {match.group(1)!r} printed twice"
        values[match.group(1)] = numbers
    return values


def expected_values(name: str) -> Dict[str, List[float]]:
    path = LEGACY / "expected" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"shim_expected_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.expected()


def run_under_shim(script: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("FLAGS_enable_pir_api", None)  # the shim chooses the IR itself
    return subprocess.run([sys.executable, "-m", "runtime_shim", str(script)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)


def test_there_are_enough_programs() -> None:
    assert len(PROGRAMS) >= 8
    for name in PROGRAMS:
        assert (LEGACY / "expected" / f"{name}.py").exists(), f"no expectation for {name}"


@pytest.mark.parametrize("name", PROGRAMS)
def test_legacy_program_runs_unmodified_under_shim(name: str, tmp_path: Path) -> None:
    result = run_under_shim(LEGACY / f"{name}.py", tmp_path)
    assert result.returncode == 0, f"{name} failed under the shim:\n{result.stderr[-4000:]}"
    got = parse_output(result.stdout)
    want = expected_values(name)
    assert set(got) == set(want), f"printed keys {sorted(got)} != expected {sorted(want)}"
    for key, values in want.items():
        np.testing.assert_allclose(np.array(got[key], dtype=np.float64), np.array(values, dtype=np.float64),
                                   rtol=RTOL, atol=ATOL, err_msg=f"{name}: {key}")
    assert "LegacyApiWarning" in result.stderr, "the shim should have named the legacy APIs it served"
