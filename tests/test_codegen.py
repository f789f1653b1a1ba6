"""Generating the upgraded module by copying recorded text gives exactly libcst's own code generation
(refactors.fast.codegen), and cutting cold statements from the source gives the positions and the
round trip of generating them (refactors.fast.positions)."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional, Tuple

import libcst as cst
import pytest

import refactors
from refactors import fast, steps
from refactors.fast import codegen
from refactors.fast.partial_parse import line_offsets
from refactors.fast.positions import _cold_inside, _statement_spans, layout

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INPUTS = sorted(p for step in refactors.NAMES for p in (FIXTURES / step).glob("*.in.py")) + \
    sorted((FIXTURES / "legacy").rglob("*.py"))


def upgraded(source: str, tree: Optional[ast.Module] = None) -> Tuple[fast.Fast, refactors.Result]:
    """The fast way, the whole text parsed, and its result."""
    way = fast.Fast(source, tree, fast.Keep(), partial=False)
    return way, steps._run(way, refactors.PIPELINE)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_copying_recorded_text_equals_generating(path: Path) -> None:
    way, result = upgraded(path.read_text())
    if result.unchanged:
        pytest.skip("no paddle import: nothing generated")
    assert way.recorded, "the pass recorded no statement to copy"
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


def test_the_text_of_cold_statements_is_recorded_at_their_indentation() -> None:
    module = cst.parse_module("def f():\n    a = 1\n    b = g(2)\n")
    func = module.body[0]
    second = func.body.body[1]
    hot = {id(module), id(func), id(func.body), id(second), id(second.body[0])}
    recorded = layout(module, [], hot, module.code).recorded
    first = func.body.body[0]
    assert recorded == {id(first): ("    a = 1\n", ("    ",))}  # statements only: `b`'s parts are generated
    assert codegen.code(module, recorded) == module.code


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cutting_cold_statements_from_the_source_changes_nothing(path: Path) -> None:
    """With CPython's tree, cold top-level statements are taken from the source, not generated: the
    output, the findings and their positions are those of generating the whole module."""
    source = path.read_text()
    _, whole = upgraded(source)
    _, cut = upgraded(source, ast.parse(source))
    assert (cut.code, cut.findings, cut.reproduces) == (whole.code, whole.findings, whole.reproduces)
    assert [(s.line, s.col) for s in cut.sites] == [(s.line, s.col) for s in whole.sites]


ODD = '''\
import paddle.fluid as fluid
x = [1,\t2]   # a tab inside brackets, kept byte for byte
# a comment before a hot statement

@decorate
def f(v):
    return fluid.layers.relu(v)
y = ( 3 )
'''


def test_a_cold_statement_is_its_source_and_a_hot_one_is_checked() -> None:
    way, result = upgraded(ODD, ast.parse(ODD))
    module = result.module
    assert result.reproduces is True
    cold = [text for key, (text, indent) in way.recorded.items() if text.startswith("x = ")]
    assert cold == ["x = [1,\t2]   # a tab inside brackets, kept byte for byte\n"]
    assert result.code.splitlines()[1:] == ODD.replace("fluid.layers.relu", "paddle.nn.functional.relu") \
        .splitlines()[1:]
    [site] = result.sites
    assert (site.line, site.col) == (7, 12)


@pytest.mark.parametrize("source", ["import paddle.fluid as fluid\ny = fluid.layers.relu(x)",  # no final newline
                                    "import paddle.fluid as fluid\ny = fluid.layers.relu(x)\n# a footer\n"])
def test_where_cutting_is_not_safe_the_whole_module_is_generated(source: str) -> None:
    _, cut = upgraded(source, ast.parse(source))
    assert cut.reproduces is True
    assert cut.code == refactors.upgrade_code(source).code
    assert _statement_spans(cst.parse_module(source), source, ast.parse(source), line_offsets(source)) is None


def test_statement_spans_follow_cpython_lines_and_libcst_leading_lines() -> None:
    header, spans = _statement_spans(cst.parse_module(ODD), ODD, ast.parse(ODD), line_offsets(ODD))
    assert header == ""
    assert [line for line, *_ in spans] == [1, 2, 3, 8]
    texts = [ODD[start:end] for _, start, end, _ in spans]
    assert "".join(texts) == ODD
    assert texts[2].startswith("# a comment before a hot statement\n\n@decorate\n")


NESTED = '''\
import paddle.fluid as fluid


class Net(fluid.dygraph.Layer):
    def helper(self, v):
        return [v,\t1]   # cold: cut from the source

    @staticmethod
    def forward(x):
        return fluid.layers.relu(x)

    def tail(self):
        pass
'''


def test_cold_methods_of_a_hot_class_are_cut_from_the_source_too() -> None:
    way, result = upgraded(NESTED, ast.parse(NESTED))
    texts = sorted(way.recorded.values())
    assert ("    def helper(self, v):\n        return [v,\t1]   # cold: cut from the source\n", ("    ",)) in texts
    assert ("\n    def tail(self):\n        pass\n", ("    ",)) in texts
    assert result.reproduces is True
    assert result.code == refactors.upgrade_code(NESTED).code
    assert [(s.line, s.col) for s in result.sites] == [(4, 11), (10, 16)]


BLOCKS = '''\
import paddle.fluid as fluid

for batch in reader():
    a = 1
    x = fluid.layers.relu(batch)
    b = [2,\t3]
else:
    c = 4
    d = 5
'''


def test_cold_statements_in_the_blocks_of_a_hot_loop_are_cut_but_not_before_its_else() -> None:
    module, tree = cst.parse_module(BLOCKS), ast.parse(BLOCKS)
    loop = module.body[1]
    a, x, b = loop.body.body
    c, d = loop.orelse.body.body
    hot = {id(module), id(loop), id(loop.body), id(x)}
    cut: dict = {}
    _cold_inside(module, loop, tree.body[1], len(BLOCKS), (), BLOCKS, line_offsets(BLOCKS), hot, cut)
    # the body's last statement is not cut: where `else:` begins is libcst's business, not CPython's
    assert cut == {id(a): ("    a = 1\n", ("    ",)), id(c): ("    c = 4\n", ("    ",)),
                   id(d): ("    d = 5\n", ("    ",))}  # the last block ends with the loop
    _, result = upgraded(BLOCKS, tree)
    assert result.code == refactors.upgrade_code(BLOCKS).code and result.reproduces is True
