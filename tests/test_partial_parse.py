"""Cold parts left unparsed (refactors.fast.partial_parse): which parts, and that the upgrade is the same.

`fixtures/partial_parse/<case>.in.py` upgrade through the whole pipeline to exactly `<case>.out.py`,
and each case says whether the upgrade could stay with the partial parse or needed the whole file.
(That every fixture upgrades the same the fast way as the plain way is tests/test_ways.py's.)
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import List

import pytest

import refactors
from refactors import fast
from refactors.fast.partial_parse import MARKER, Keep, stub_cold_parts
from upgrade_tool import pipeline

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = sorted((FIXTURES / "partial_parse").glob("*.in.py"))
# The parses a case takes (True: partial) when it is not the one partial parse that is enough.
PARSES = {
    "act_reads_cold_methods": [False],  # nothing left out: the class names a layer whose `act` may move
    "decay_minimize_in_loop": [False],  # nothing left out: the function names a schedule
    "state_dict_under_another_name": [True, False],  # a part left out is needed after all
    "stdlib_binding_in_cold_part": [True, False],  # `layer.set_dict`, `os`: where they are bound may be left out
}


def read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as fh:
        return fh.read()


def stubbed(text: str, keep: Keep = Keep()):
    return stub_cold_parts(text, ast.parse(text), keep)


@pytest.fixture
def parses(monkeypatch) -> List[bool]:
    """Whether each parse the fast way makes leaves parts out."""
    seen: List[bool] = []
    real = fast.Fast.parse

    def recording(self):
        seen.append(self.partial)
        return real(self)

    monkeypatch.setattr(fast.Fast, "parse", recording)
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


def test_the_declared_reads_keep_their_scopes_and_classes_parsed() -> None:
    keep = refactors.keep()
    assert {"save_dygraph", "exponential_decay", "ExponentialDecay"} <= set(keep.scope)
    assert {"Linear", "Conv2D"} <= set(keep.whole)
    text = ("import paddle.fluid as fluid\n"
            "def save(model, path):\n"
            "    weights = model.state_dict()\n"
            "    fluid.save_dygraph(weights, path)\n"
            "class Net(fluid.dygraph.Layer):\n"
            "    def __init__(self):\n"
            "        self.fc = fluid.dygraph.Linear(2, 2, act='relu')\n"
            "    def helper(self):\n"
            "        return 1\n")
    assert stubbed(text, keep) is None
    assert "lines 3-3" in stubbed(text) and "lines 9-9" in stubbed(text)


def test_names_are_found_as_python_reads_them() -> None:
    # `ｆluid` is `fluid` (NFKC): the function that uses the import under that spelling is parsed.
    text = ("import paddle.fluid as fluid\n"
            "def f(x):\n"
            "    y = 1\n"
            "    return \uff46luid.layers.relu(x)\n")
    assert stubbed(text) == ("import paddle.fluid as fluid\n"
                             "def f(x):\n"
                             f"    ...  # {MARKER}, lines 3-3\n"
                             "    return \uff46luid.layers.relu(x)\n")


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
    "import paddle\ndef f(): return 1\n",  # no lines of its own
    "import paddle\nx = [1,\n     2]\ny = {\n    3}\n",  # the module's own statements
    "import paddle\ndef f():\n    \"\"\"doc\n    string\"\"\"\n    paddle.x()\n",  # docstrings are read
    "import paddle\ndef f():\n    a = (1,\n         2); paddle.x()\n",  # shares its last line
    "import paddle\ndef f():\n    if paddle:\n        paddle.x()\n    elif (a,\n          b):\n        paddle.y()\n",
    "import paddle\ndef f():\n    try:\n        paddle.x()\n    except ValueError:\n        pass\n",
], ids=["global", "nonlocal", "one-line-body", "module-level", "docstring", "semicolon", "elif", "pass"])
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
