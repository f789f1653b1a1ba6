"""Cold parts left unparsed (refactors.partial_parse): which parts, and that the upgrade is the same.

`fixtures/partial_parse/<case>.in.py` upgrade through the whole pipeline to exactly `<case>.out.py`,
and each case says whether the upgrade could stay with the partial parse or needed the whole file.
Every fixture of the repository, upgraded with and without the partial parse, gives the same text,
findings and sites.
"""
from __future__ import annotations

import ast
from dataclasses import asdict
from pathlib import Path
from typing import List

import pytest

from refactors import partial_parse
from refactors.partial_parse import MARKER, stub_cold_parts
from upgrade_tool import pipeline, source_io

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = sorted((FIXTURES / "partial_parse").glob("*.in.py"))
# The parses a case takes (True: partial) when it is not the one partial parse that is enough.
PARSES = {
    "act_reads_cold_methods": [False],  # nothing left out: the class says `act`
    "state_dict_assigned_in_cold_part": [True, False],  # a part left out is needed after all
    "stdlib_binding_in_cold_part": [True, False],
    "decay_minimize_in_loop": [True, False],  # a part left out returns: what leaves the function is followed  # `layer.set_dict`: what `layer` holds may be anywhere
}


def read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as fh:
        return fh.read()


def stubbed(text: str):
    return stub_cold_parts(text, ast.parse(text))


@pytest.fixture
def parses(monkeypatch) -> List[bool]:
    """The `partial` flag of every parse the pipeline makes."""
    seen: List[bool] = []
    real = pipeline._upgrade_parsed

    def recording(parsed, text, names, tree, partial, shim=True):
        seen.append(partial)
        return real(parsed, text, names, tree, partial, shim)

    monkeypatch.setattr(pipeline, "_upgrade_parsed", recording)
    return seen


@pytest.mark.parametrize("case", CASES, ids=[p.name[: -len(".in.py")] for p in CASES])
def test_case(case: Path, parses: List[bool]) -> None:
    name = case.name[: -len(".in.py")]
    source, expected = read(case), read(case.with_name(name + ".out.py"))
    outcome = pipeline.upgrade_text(source)
    assert outcome.text == expected
    assert parses == PARSES.get(name, [True])
    ast.parse(outcome.text)
    assert pipeline.upgrade_text(outcome.text).text == outcome.text, "a second run changed the output"


def _outcome(text: str):
    try:
        outcome = pipeline.upgrade_text(text)
    except pipeline.FileFailure as exc:
        return str(exc)
    return outcome.text, [asdict(f) for f in outcome.findings], [asdict(s) for s in outcome.sites]


ALL_FIXTURES = sorted(p for p in FIXTURES.rglob("*.py") if b"paddle" in p.read_bytes())


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=[str(p.relative_to(FIXTURES)) for p in ALL_FIXTURES])
def test_same_upgrade_as_the_whole_parse(path: Path, monkeypatch) -> None:
    text = source_io.to_parser_text(source_io.decode(path.read_bytes()))  # as the runner reads files
    partial = _outcome(text)
    monkeypatch.setattr(partial_parse, "stub_cold_parts", lambda text, tree: None)
    assert _outcome(text) == partial


def test_cold_bodies_and_runs_of_statements_are_stubbed_with_their_lines() -> None:
    text = (
        "import paddle.fluid as fluid\n"
        "def helper(a):\n"
        "    b = a + 1\n"
        "    return b\n"
        "def model(x):\n"
        "    total = sum([1,\n"
        "                 2])\n"
        "    for i in range(3):\n"
        "        total += i\n"
        "    y = fluid.layers.relu(x)\n"
        "    return y\n"
    )
    assert stubbed(text) == (
        "import paddle.fluid as fluid\n"
        "def helper(a):\n"
        f"    ...  # {MARKER}, lines 3-4\n"
        "def model(x):\n"
        f"    ...  # {MARKER}, lines 6-9\n"
        "    y = fluid.layers.relu(x)\n"
        f"    ...  # {MARKER}, lines 11-11\n"
    )


@pytest.mark.parametrize("text", [
    "from paddle.fluid.layers import *\ndef f():\n    return 1\n",  # names the text does not spell
    "import paddle\ndef f():\n    return 1\r",  # a lone CR
    "import paddle\ndef f():\n    return 1",  # no final newline
    "import paddle\ndef f():\n    return 1\n# a footer\n",
    f"import paddle\ndef f():\n    return 1  # {MARKER}\n",
], ids=["star-import", "lone-cr", "no-final-newline", "footer", "marker-in-source"])
def test_nothing_is_stubbed_when_cutting_is_not_safe(text: str) -> None:
    assert stubbed(text) is None


@pytest.mark.parametrize("text", [
    "import paddle\ndef f():\n    global g\n",  # binds a name outside its scope
    "import paddle\ndef f():\n    def g():\n        nonlocal h\n",
    "import paddle\ndef f():\n    for i in x:\n        opt.minimize(i)\n",  # searched for by lr schedules
    "import paddle\ndef f(): return 1\n",  # no lines of its own
    "import paddle\nx = [1,\n     2]\ny = {\n    3}\n",  # the module's own statements
    "import paddle\ndef f():\n    \"\"\"doc\n    string\"\"\"\n    paddle.x()\n",  # docstrings are read
    "import paddle\ndef f():\n    a = (1,\n         2); paddle.x()\n",  # shares its last line
    "import paddle\ndef f():\n    if paddle:\n        paddle.x()\n    elif (a,\n          b):\n        paddle.y()\n",
    "import paddle\ndef f():\n    try:\n        paddle.x()\n    except ValueError:\n        pass\n",
    "import paddle\nclass A(paddle.nn.Layer):\n    def f(self):\n        y = self.fc(1)\n        return y\n"
    "    def g(self, act=None):\n        paddle.x()\n",  # `act` may move into any method
], ids=["global", "nonlocal", "minimize", "one-line-body", "module-level", "docstring", "semicolon", "elif", "pass",
        "act-class"])
def test_parts_kept(text: str) -> None:
    assert stubbed(text) is None


def test_a_guard_block_is_kept_whole_since_it_may_be_unwrapped() -> None:
    text = ("import paddle.fluid as fluid\n"
            "def f():\n"
            "    with fluid.dygraph.guard():\n"
            "        for i in range(3):\n"
            "            print(i)\n"
            "        fluid.x()\n")
    assert stubbed(text) is None


def test_the_last_statement_before_a_clause_is_kept() -> None:
    # libcst decides where the `try` block's last statement ends (before `except:`): it is generated.
    text = ("import paddle.fluid as fluid\n"
            "def f():\n"
            "    try:\n"
            "        fluid.x()\n"
            "        for i in range(3):\n"
            "            print(i)\n"
            "    except ValueError:\n"
            "        fluid.y()\n")
    assert stubbed(text) is None
