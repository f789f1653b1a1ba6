"""Generating the upgraded module by copying recorded text gives exactly libcst's own code generation."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

import refactors
from refactors import codegen
from refactors.positions import frontier, layout

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INPUTS = sorted(p for step in refactors.NAMES for p in (FIXTURES / step).glob("*.in.py")) + \
    sorted((FIXTURES / "legacy").glob("*.py"))


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_copying_recorded_text_equals_generating(path: Path) -> None:
    result = refactors.upgrade_code(path.read_text())
    if result.unchanged:
        pytest.skip("no paddle import: nothing generated")
    assert result.recorded, "the pass recorded no subtree to copy"
    assert result.code == result.module.code


UNWRAPPED = '''\
import paddle.fluid as fluid

def run(x):
    with fluid.dygraph.guard():
        y = fluid.layers.relu(x)
        if y is not None:
            z = y * 2  # moved one level out: its recorded text has the wrong indentation
        return z'''  # and no final newline


def test_moved_subtrees_are_generated_again_and_the_missing_final_newline_stays_missing() -> None:
    result = refactors.upgrade_code(UNWRAPPED)
    assert result.code == result.module.code
    assert "\n    if y is not None:\n        z = y * 2" in result.code
    assert result.code.endswith("return z")


def test_the_text_of_cold_subtrees_is_recorded_at_their_indentation() -> None:
    module = cst.parse_module("def f():\n    a = 1\n    b = g(2)\n")
    func = module.body[0]
    second = func.body.body[1]
    hot = {id(module), id(func), id(func.body), id(second)}
    recorded = layout(module, [], frontier(module, hot)).recorded
    first = func.body.body[0]
    assert recorded[id(first)] == ("    a = 1\n", ("    ",))
    assert id(second) not in recorded  # hot: entered, not copied
    # the children of a small statement whose text depends on its place are recorded one level down
    assign = second.body[0]
    assert id(assign) not in recorded and recorded[id(assign.value)] == ("g(2)", ("    ",))
    assert codegen.code(module, recorded) == module.code
