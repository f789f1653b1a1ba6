"""The census's strict count of what is left (benchmarks/census.py), on a hand-written report, and the check
that the shim serves what is left (benchmarks/shim_leftovers.py)."""
from __future__ import annotations

import sys

from benchmarks.census import left_sites, open_sites
from benchmarks.shim_leftovers import unreachable


def _finding(line, code="needs-review", fixed=False, api="paddle.fluid.layers.piecewise_decay", col=4):
    return {"file": "a.py", "line": line, "col": col, "code": code, "severity": "warning", "message": f"{api}: m",
            "fixed": fixed, "api": api}


def test_a_place_with_any_finding_not_fixed_is_open_once():
    report = {"findings": [
        _finding(1, code="converted", fixed=True),  # converted and nothing else on it: not open
        _finding(2, code="converted", fixed=True), _finding(2),  # converted, but a TODO is still on it: open
        _finding(3, code="no-equivalent"), _finding(3, code="arg-warning"),  # two findings, one place
        _finding(4, code="skipped"), _finding(5, api=None),  # a skipped file, a finding about no API
        _finding(6, col=8),
    ]}
    assert open_sites(report) == 3
    assert sum(sum(c.values()) for c in left_sites(report).values()) == 4


def test_the_shim_check_resolves_modules_then_attributes_and_names_what_it_cannot_reach():
    names = ["os.path.join", "os.path.no_such_name", "collections.abc.Mapping.get", "no_such_module.x"]
    setup = "import json"  # runs first, as `import runtime_shim.coexist` does for the real check
    assert unreachable(names, sys.executable, setup) == ["os.path.no_such_name", "no_such_module.x"]
