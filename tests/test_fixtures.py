"""Fixture pairs: `fixtures/<refactor>/<case>.in.py` upgrades to exactly `<case>.out.py`.

Every pair must also give code that parses and that a second upgrade leaves unchanged. Cases named
`noop_*` are inputs the upgrader must leave byte-identical (local names that merely look like the
API, files without paddle, code already on 2.x). `fixtures/refactor_kwargs/<transformer>_*.in.py`
exist for every registered transformer.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

import refactors
from refactors.transformers import REGISTRY

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# The refactor fixtures; other directories (legacy programs, whole-file I/O goldens) have their own tests.
PAIRS = sorted(p for step in refactors.NAMES for p in (FIXTURES / step).glob("*.in.py"))


def expected_path(case: Path) -> Path:
    return case.with_name(case.name[: -len(".in.py")] + ".out.py")


def read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as fh:  # keep the newline style byte for byte
        return fh.read()


def case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name[: -len('.in.py')]}"


@pytest.mark.parametrize("case", PAIRS, ids=[case_id(p) for p in PAIRS])
def test_fixture_pair(case: Path) -> None:
    source, expected = read(case), read(expected_path(case))
    if case.name.startswith("noop_"):
        assert expected == source, "a no-op case's .out.py must equal its .in.py"
    result = refactors.upgrade_code(source)
    assert result.code == expected
    ast.parse(result.code, filename=str(case))
    assert refactors.upgrade_code(result.code).code == result.code, "a second run changed the output"


def test_every_step_and_transformer_has_fixtures() -> None:
    dirs = {p.parent.name for p in PAIRS}
    assert set(refactors.NAMES) <= dirs, f"no fixtures for {sorted(set(refactors.NAMES) - dirs)}"
    for step in refactors.NAMES:
        assert any(p.parent.name == step and p.name.startswith("noop_") for p in PAIRS), f"{step}: no no-op case"
    kwargs_cases = [p.name for p in PAIRS if p.parent.name == "refactor_kwargs"]
    missing = [name for name in REGISTRY if not any(c.startswith(name + "_") for c in kwargs_cases)]
    assert not missing, f"transformers without fixtures: {missing}"


def _emitted(tree: ast.AST) -> Iterator[Tuple[str, List[str]]]:
    """(`paddle.x.y`, keywords) for every call of a `paddle.*` name, and every other `paddle.*` chain."""
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name and name.startswith("paddle.") and not name.startswith("paddle.fluid"):
                called.add(id(node.func))
                yield name, [k.arg for k in node.keywords if k.arg is not None]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in called:
            name = _dotted(node)
            if name and name.startswith("paddle.") and not name.startswith("paddle.fluid"):
                yield name, []


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])


def _newer_than(version: str) -> set:
    """2.x names (and their modules) the table's entries with `since` emit, when that release is later
    than `version`."""
    targets = {e.update_to for e in refactors.table().entries.values()
               if e.since and e.update_to and not e.targets_exist_in(version)}
    return {".".join(t.split(".")[:end]) for t in targets for end in range(2, t.count(".") + 2)}


@pytest.mark.parametrize("version", ["2.0.2", "3.3.1"])
def test_emitted_names_and_keywords_exist(version: str) -> None:
    """Every `paddle.*` name in the expected outputs exists in the release, with every keyword used
    (a name whose entry says it came after that release is checked in the later ones only)."""
    signatures = pytest.importorskip("api_mapping.signatures")
    index = signatures.load_index(version)
    newer = _newer_than(version)
    failures = []
    for case in PAIRS:
        for name, keywords in _emitted(ast.parse(read(expected_path(case)))):
            if name in newer:
                continue
            if not index.exists(name):
                failures.append(f"{case_id(case)}: {name} does not exist in {version}")
                continue
            for keyword in keywords:
                if not index.accepts_keyword(name, keyword):
                    failures.append(f"{case_id(case)}: {name}({keyword}=...) is not accepted by {version}")
    assert not failures, "\n".join(sorted(set(failures)))


def _newer_paddle_findings(source: str):
    from refactors import findings as F

    result = refactors.upgrade_code(source)
    return [(f.line, f.severity, f.fixed, f.message) for f in result.findings if f.code == F.NEWER_PADDLE]


def test_a_target_newer_than_2_0_is_reported_at_each_converted_site() -> None:
    """An entry with `since`: every converted site says which Paddle it needs; a site left for review does not."""
    source = ("import paddle.fluid as fluid\n"
              "a = fluid.layers.prior_box(x, img, min_sizes=[16.])\n"
              "b = fluid.layers.prior_box(x, img, [2.0], [0.0])\n"
              "c = fluid.layers.prior_box(x, img, [2.0], [4.0])\n")
    message = ("paddle.fluid.layers.prior_box -> paddle.vision.ops.prior_box needs Paddle >= 2.4 (not in 2.0)")
    assert _newer_paddle_findings(source) == [(2, "info", True, message), (4, "info", True, message)]


def test_a_renamed_target_newer_than_2_0_is_reported() -> None:
    source = "import paddle.fluid as fluid\nn = fluid.core.get_cuda_device_count()\n"
    assert _newer_paddle_findings(source) == [
        (2, "info", True, "paddle.fluid.core.get_cuda_device_count -> paddle.device.cuda.device_count needs "
                          "Paddle >= 2.2 (not in 2.0)")]
