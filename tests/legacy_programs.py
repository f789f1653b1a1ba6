"""The runnable 1.8 programs of `fixtures/legacy/`: where they are, how their output reads, what 1.8 gives.

Shared by the upgrader's equivalence test and the runtime shim's: both run the same programs and
compare the same printed numbers with the same NumPy expectations.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Dict, List

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "fixtures" / "legacy"
PROGRAMS = sorted(LEGACY.glob("*.py"))
RTOL = 1e-5
ATOL = 1e-7  # for values that are exactly zero in 1.8 (relu outputs, dropped units)
_LINE = re.compile(r"^([A-Za-z_][\w.]*): ?(.*)$")


def parse_output(text: str) -> Dict[str, List[float]]:
    """The `key: v1 v2 ...` lines of a program's output (other lines, e.g. Paddle's logs, are ignored)."""
    values: Dict[str, List[float]] = {}
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match is None:
            continue
        try:
            numbers = [float(v) for v in match.group(2).split()]
        except ValueError:
            continue
        assert match.group(1) not in values, f"key {match.group(1)!r} printed twice"
        values[match.group(1)] = numbers
    return values


def expected(name: str) -> Dict[str, List[float]]:
    """The NumPy reading of the 1.8 semantics, from `fixtures/legacy/expected/<name>.py`."""
    path = LEGACY / "expected" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"legacy_expected_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.expected()


def assert_matches_1_8(name: str, stdout: str) -> None:
    """The printed numbers equal the 1.8 expectations, key for key, at RTOL/ATOL."""
    actual, want = parse_output(stdout), expected(name)
    assert sorted(actual) == sorted(want), f"printed keys {sorted(actual)} != expected {sorted(want)}:\n{stdout}"
    for key, values in want.items():
        np.testing.assert_allclose(np.array(actual[key], dtype=np.float64), np.array(values, dtype=np.float64),
                                   rtol=RTOL, atol=ATOL, err_msg=f"{name}: {key}")
