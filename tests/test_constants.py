"""refactors.constants: what a file fixes about a name, and every binding that makes it unknown.

Each case reads the argument of `probe(...)` where it stands (pyupgrade-style: one list of values the
file fixes, one of values it does not)."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Dict

import pytest

from refactors import constants
from refactors.tree_index import TreeIndex


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
    pytest.param("def _f(x, act=None):\n    probe(act)\n_f(1, act='relu')\n_f(2, 'relu')\n", "relu",
                 id="every-call-passes-the-same"),
    pytest.param("def _f(act='relu'):\n    probe(act)\n_f()\n_f(act='relu')\n", "relu", id="default-and-calls-agree"),
    pytest.param("class _C:\n    def __init__(self, n, act=None):\n        probe(act)\n    def m(self):\n"
                 "        super(_C, self).m()\n_C(1, 'relu')\n_C(2, act='relu')\n", "relu", id="constructed-so"),
    pytest.param("class _C:\n    def _m(self, n, act=None):\n        probe(act)\n    def g(self):\n"
                 "        self._m(1, 'relu')\n", "relu", id="method-through-self"),
    pytest.param("class _C:\n    def _bn(self, x, act='relu'):\n        probe(act)\n    def g(self, name):\n"
                 "        self._bn(name + '_bn')\n        self._bn(f'{name}_bn')\n", "relu",
                 id="method-name-as-a-piece-of-a-built-string"),
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
    pytest.param("def _f(s=(1,)):\n    probe(s)\n_f((2,))\n_f()\n", id="default-passed-by-position"),
    pytest.param("def _f(s=(1,)):\n    probe(s)\n_f(s=(2,))\n_f()\n", id="default-passed-by-keyword"),
    pytest.param("def _f(s=1):\n    probe(s)\n_f(s=1)\n_f(s=1.0)\n", id="calls-pass-equal-values-of-two-types"),
    pytest.param("def _f(s):\n    probe(s)\n", id="no-default-no-call"),
    pytest.param("def _f(s=1):\n    probe(s)\n_f(s=g())\n", id="a-call-passes-a-runtime-value"),
    pytest.param("class _C:\n    def _m(self, s=1):\n        probe(s)\n_C._m(obj, 1)\n", id="method-called-through-class"),
    pytest.param("class _C:\n    def __init__(self, s=1):\n        probe(s)\nclass D(_C):\n    pass\n",
                 id="constructor-of-subclassed-class"),
    pytest.param("class _C:\n    def __init__(self, s=1):\n        probe(s)\n    def m(self):\n"
                 "        return type(self)(2)\n", id="instance-made-without-its-name"),
    pytest.param("@dec\nclass _C:\n    def __init__(self, s=1):\n        probe(s)\n_C()\n", id="decorated-class"),
    pytest.param("class C:\n    def __init__(self, s=1):\n        probe(s)\nC()\n", id="public-class-no-tree"),
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
    pytest.param("class _C:\n    def _m(self, s='max'):\n        probe(s)\n    def g(self):\n        self._m()\n"
                 "        getattr(self, '_m')('avg')\n", id="method-called-by-getattr"),
    pytest.param("def _f(s=1):\n    probe(s)\n_f()\nglobals()['_f'](2)\n", id="function-called-through-globals"),
    pytest.param("class _C:\n    def __init__(self, s=1):\n        probe(s)\n_C()\nmake(__name__, '_C', 2)\n",
                 id="class-named-in-a-string"),
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


# -- across the tree: `main.py` reads `probe(...)`'s argument, the other modules are written beside it -----

def value_in_tree(tmp_path: Path, files: Dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    origin = tmp_path / "main.py"
    index = TreeIndex(str(origin), lambda _: None)

    def others() -> TreeIndex:  # as engine.Context.other_modules gives it
        index.consulted = True
        return index

    tree = ast.parse(origin.read_text(encoding="utf-8").replace("probe(", "fluid.probe("))
    table = constants.Constants(tree, others)
    [call] = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "probe"]
    at = (call.lineno, call.col_offset)
    return table.evaluate(call.args[0], table.scope_at(*at), at), index


DESC = {"desc.py": "dropout_seed = None\nSIZE = 224\n"}
ACROSS = [
    pytest.param({**DESC, "main.py": "from desc import *\ndef f():\n    probe(dropout_seed)\n"}, None, id="star-import"),
    pytest.param({**DESC, "main.py": "from desc import SIZE as S\nprobe(S)\n"}, 224, id="from-import"),
    pytest.param({**DESC, "main.py": "import desc\ndef f():\n    probe([3, desc.SIZE])\n"}, [3, 224],
                 id="module-attribute"),
    pytest.param({"pkg/__init__.py": "", "pkg/desc.py": "SIZE = 7\n",
                  "main.py": "from pkg import desc\nprobe(desc.SIZE)\n"}, 7, id="package-submodule"),
    pytest.param({"pkg/__init__.py": "from .desc import *\n", "pkg/desc.py": "SIZE = 7\n",
                  "main.py": "import pkg\nprobe(pkg.SIZE)\n"}, 7, id="package-relative-star"),
    pytest.param({**DESC, "main.py": "from desc import *\nprobe(SIZE)\nfrom desc2 import *\n", "desc2.py": "SIZE = 2\n"},
                 224, id="module-level-read-before-a-later-star-import"),
    pytest.param({"base.py": "N = 3\n", "desc.py": "from base import *\nSIZE = N * 2\n",
                  "main.py": "from desc import *\nprobe(SIZE)\n"}, 6, id="through-two-modules"),
    pytest.param({"desc.py": "__all__ = ['A']\nA = 1\nB = 2\n", "other.py": "B = 3\n",
                  "main.py": "from other import *\nfrom desc import *\nprobe(B)\n"}, 3, id="all-leaves-it-to-an-earlier-star"),
    pytest.param({"main.py": "def net(x, act='relu'):\n    probe(act)\n", "train.py": "import main\n"}, "relu",
                 id="public-function-no-other-module-names"),
    pytest.param({"main.py": "class Net:\n    def __init__(self, act=None):\n        probe(act)\nNet(act='relu')\n"},
                 "relu", id="public-class-constructed-here-only"),
    pytest.param({"main.py": "class Base(object):\n    pass\nclass Net(Base):\n    def build(self, act='relu'):\n"
                             "        probe(act)\n"}, "relu", id="public-method-of-a-class-on-object"),
]
ACROSS_UNKNOWN = [
    pytest.param({**DESC, "main.py": "from desc import *\nprobe(dropout_seed)\n", "train.py": "import desc\ndesc.dropout_seed = 1\n"},
                 id="another-module-assigns-it"),
    pytest.param({**DESC, "main.py": "from desc import SIZE\nprobe(SIZE)\n",
                  "train.py": "import desc\nfor k, v in opts:\n    setattr(desc, k, v)\n"}, id="another-module-patches-the-module"),
    pytest.param({"desc.py": "SIZE = 1\ndef grow():\n    global SIZE\n    SIZE = 2\n", "main.py": "from desc import *\nprobe(SIZE)\n"},
                 id="global-in-its-module"),
    pytest.param({"desc.py": "SIZE = 1\nfrom other import *\n", "other.py": "SIZE = 2\n",
                  "main.py": "from desc import SIZE\nprobe(SIZE)\n"}, id="later-star-import-in-its-module"),
    pytest.param({**DESC, "main.py": "from desc import *\nfrom os.path import *\nprobe(SIZE)\n"}, id="star-import-out-of-sight"),
    pytest.param({"desc.py": "SHAPE = [3, 224]\n", "main.py": "from desc import SHAPE\nprobe(SHAPE)\n"}, id="list-across-modules"),
    pytest.param({"main.py": "from absent import SIZE\nprobe(SIZE)\n"}, id="module-not-in-the-tree"),
    pytest.param({**DESC, "main.py": "from desc import *\nfrom desc2 import *\ndef f():\n    probe(SIZE)\n",
                  "desc2.py": "import os\nif os.name:\n    SIZE = 2\n"}, id="later-star-import-may-bind-it"),
    pytest.param({"pkg/__init__.py": "desc = None\n", "pkg/desc.py": "SIZE = 7\n",
                  "main.py": "from pkg import desc\nprobe(desc.SIZE)\n"}, id="package-binds-the-submodule-name"),
    pytest.param({"main.py": "def net(x, act='relu'):\n    probe(act)\n", "train.py": "from main import net\nnet(1, act='tanh')\n"},
                 id="public-function-another-module-calls"),
    pytest.param({"main.py": "class Net:\n    def __init__(self, act=None):\n        probe(act)\nNet(act='relu')\n",
                  "train.py": "import main\nmain.Net(act='tanh')\n"}, id="public-class-another-module-constructs"),
    pytest.param({"main.py": "import paddlehub as hub\nclass Net(hub.Module):\n    def context(self, trainable=True):\n"
                             "        probe(trainable)\n"}, id="public-method-a-framework-base-may-call"),
]


@pytest.mark.parametrize("files, expected", ACROSS)
def test_known_across_the_tree(files, expected, tmp_path: Path) -> None:
    value, index = value_in_tree(tmp_path, files)
    assert constants.known(value) and value == expected and type(value) is type(expected)
    assert index.consulted  # the result depends on the tree (content cache)


@pytest.mark.parametrize("files", ACROSS_UNKNOWN)
def test_unknown_across_the_tree(files, tmp_path: Path) -> None:
    assert not constants.known(value_in_tree(tmp_path, files)[0])
