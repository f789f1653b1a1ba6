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


@pytest.mark.parametrize("version", ["2.0.2", "3.3.1"])
def test_emitted_names_and_keywords_exist(version: str) -> None:
    """Every `paddle.*` name in the expected outputs exists in the release, with every keyword used."""
    signatures = pytest.importorskip("api_mapping.signatures")
    index = signatures.load_index(version)
    failures = []
    for case in PAIRS:
        for name, keywords in _emitted(ast.parse(read(expected_path(case)))):
            if not index.exists(name):
                failures.append(f"{case_id(case)}: {name} does not exist in {version}")
                continue
            for keyword in keywords:
                if not index.accepts_keyword(name, keyword):
                    failures.append(f"{case_id(case)}: {name}({keyword}=...) is not accepted by {version}")
    assert not failures, "\n".join(sorted(set(failures)))
