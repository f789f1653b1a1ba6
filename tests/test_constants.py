"""refactors.constants: what a file fixes about a name, and every binding that makes it unknown.

Each case reads the argument of `probe(...)` where it stands (pyupgrade-style: one list of values the
file fixes, one of values it does not)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from refactors import constants


def value_at_probe(source: str):
    """The value of `probe(...)`'s argument, read as a paddle call's argument (`fluid.probe(...)`)."""
    tree = ast.parse(textwrap.dedent(source).replace("probe(", "fluid.probe("))
    table = constants.Constants(tree)
    [call] = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "probe"]
    at = (call.lineno, call.col_offset)
    return table.evaluate(call.args[0], table.scope_at(*at), at)


KNOWN = [
    pytest.param("SIZE = 224\ndef f():\n    probe([3, SIZE, SIZE])\n", [3, 224, 224], id="module-constant"),
    pytest.param("def f():\n    shape = (3, 8)\n    probe(shape)\n", (3, 8), id="function-local"),
    pytest.param("IMG = [192, 256]\ndef f():\n    probe([3, IMG[1], IMG[0]])\n", [3, 256, 192], id="indexed"),
    pytest.param("N = 4\ndef f():\n    probe(N * 2 + 1)\n", 9, id="arithmetic"),
    pytest.param("A = [1]\nB = A + [2]\ndef f():\n    probe(B[-1:])\n", [2], id="chained-and-sliced"),
    pytest.param("class _C:\n    X = 'avg'\n    def m(self):\n        probe(self.X)\n", "avg", id="self-attribute"),
    pytest.param("class C:\n    X = 3\ndef f():\n    probe(C.X)\n", 3, id="class-attribute"),
    pytest.param("def _f(x, act='relu'):\n    probe(act)\n_f(0)\n_f(x=1)\n", "relu", id="default-never-passed"),
    pytest.param("def f():\n    def g(x, act='relu'):\n        probe(act)\n    g(1)\n", "relu",
                 id="nested-default-never-passed"),
    pytest.param("class C:\n    def _m(self, x, act='relu'):\n        probe(act)\nC()._m(1)\n", "relu",
                 id="method-default-never-passed"),
    pytest.param("S = [3]\nprint(len(S), S[0])\ndef f():\n    probe(S)\n", [3], id="list-only-read"),
    pytest.param("X = 1\nprobe(X)\n", 1, id="module-read-after-binding"),
    pytest.param("from m import *\nS = None\ndef f():\n    probe(S)\n", None, id="star-import-before-binding"),
]

UNKNOWN = [
    pytest.param("def f():\n    s = [1]\n    s = [2]\n    probe(s)\n", id="bound-twice"),
    pytest.param("def f():\n    s = 1\n    s += 1\n    probe(s)\n", id="augmented"),
    pytest.param("def f():\n    for s in (1, 2):\n        probe(s)\n", id="loop-target"),
    pytest.param("def f():\n    with g() as s:\n        probe(s)\n", id="with-target"),
    pytest.param("def f():\n    try:\n        pass\n    except E as s:\n        probe(s)\n    s = 1\n", id="except-name"),
    pytest.param("def f():\n    s = 1\n    del s\n    probe(s)\n", id="deleted"),
    pytest.param("def f():\n    s = 1\n    if (s := 2):\n        probe(s)\n", id="walrus"),
    pytest.param("def f():\n    s = 1\n    probe([s for s in (1, 2)][0])\n", id="comprehension"),
    pytest.param("S = 1\ndef g():\n    global S\n    S = 2\ndef f():\n    probe(S)\n", id="global"),
    pytest.param("def f():\n    s = 1\n    def g():\n        nonlocal s\n        s = 2\n    probe(s)\n", id="nonlocal"),
    pytest.param("S = 1\nfrom m import *\ndef f():\n    probe(S)\n", id="star-import-after-binding"),
    pytest.param("from m import *\nprobe(S)\nS = 1\n", id="star-import-read-before-binding"),
    pytest.param("import os\nif os.name:\n    S = 1\ndef f():\n    probe(S)\n", id="conditional-module-binding"),
    pytest.param("probe(S)\nS = 1\n", id="module-read-before-binding"),
    pytest.param("S = [1]\nS.append(2)\ndef f():\n    probe(S)\n", id="mutated-list"),
    pytest.param("S = [1]\nkeep(S)\ndef f():\n    probe(S)\n", id="list-handed-to-unknown-function"),
    pytest.param("def _f(s=(1,)):\n    probe(s)\n_f((2,))\n", id="default-passed-by-position"),
    pytest.param("def _f(s=(1,)):\n    probe(s)\n_f(s=(2,))\n", id="default-passed-by-keyword"),
    pytest.param("def _f(s=(1,)):\n    probe(s)\n_f(**kw)\n", id="default-passed-through-kwargs"),
    pytest.param("def _f(s=(1,)):\n    probe(s)\ng = _f\n", id="function-passed-around"),
    pytest.param("def _f(s=[1]):\n    probe(s)\n", id="mutable-default"),
    pytest.param("@dec\ndef _f(s=1):\n    probe(s)\n", id="decorated-function"),
    pytest.param("def net(x, data_format='NCHW'):\n    probe(data_format)\n", id="public-function"),
    pytest.param("class M:\n    def net(self, act='relu'):\n        probe(act)\n", id="public-method"),
    pytest.param("class L:\n    def forward(self, x, act='relu'):\n        probe(act)\n", id="forward-called-by-layer"),
    pytest.param("class _C:\n    X = 1\n    def m(self):\n        probe(self.X)\n    def n(self):\n        self.X = 2\n",
                 id="attribute-assigned"),
    pytest.param("class _C:\n    X = 1\n    def m(self):\n        probe(self.X)\nclass D(_C):\n    X = 2\n",
                 id="attribute-overridden"),
    pytest.param("class _C:\n    X = 1\n    def m(self):\n        probe(self.X)\nsetattr(_C, name, 2)\n", id="setattr"),
    pytest.param("class C:\n    X = 1\n    def m(self):\n        probe(self.X)\n", id="self-of-public-class"),
    pytest.param("class C:\n    X = 1\n    @staticmethod\n    def m(self):\n        probe(self.X)\n",
                 id="not-self"),
    pytest.param("def f():\n    probe(args.size)\n", id="runtime-value"),
]


@pytest.mark.parametrize("source, expected", KNOWN)
def test_known(source: str, expected) -> None:
    value = value_at_probe(source)
    assert constants.known(value) and value == expected and type(value) is type(expected)


@pytest.mark.parametrize("source", UNKNOWN)
def test_unknown(source: str) -> None:
    assert not constants.known(value_at_probe(source))


def test_partly_known_list_tells_its_known_items() -> None:
    value = value_at_probe("def f(n):\n    shape = [-1] + [n]\n    probe(shape)\n")
    assert isinstance(value, list) and value[0] == -1 and value[1] is constants.UNKNOWN
    value = value_at_probe("def f(v):\n    probe([None] + list(v))\n")
    assert isinstance(value, constants.Some) and None in value
