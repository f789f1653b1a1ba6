"""A DataFeeder whose feed list the file does not show: written as the module's feeder reading each
variable's dtype at run time unless a data variable of the module, or of a module of the tree it imports
(through others too), may have a LoD level (refactors/lod_inputs.py); and that feeder refuses a LoD
variable at run time on the installed Paddle instead of feeding it as a dense array."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import refactors
from legacy_programs import printed

TRAIN = """\
import paddle.fluid as fluid
{imports}


def feed(place, samples):
    feeder = fluid.DataFeeder(feed_list={inputs}, place=place)
    return feeder.feed(samples)
"""
DENSE = """\
import paddle.fluid as fluid


def inputs():
    return [fluid.data(name='image', shape=[None, 8], dtype='float32')]
"""
LOD = DENSE.replace("dtype='float32')", "dtype='int64', lod_level=1)")


def _upgrade(root: Path, files: dict, imports: str, inputs: str) -> refactors.Result:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "train.py").write_text(TRAIN.format(imports=imports, inputs=inputs))
    return refactors.upgrade_code((root / "train.py").read_text(), origin=str(root / "train.py"))


def _left(result: refactors.Result) -> list:
    return [f.message for f in result.findings if "DataFeeder" in f.message and not f.fixed]


def test_variables_of_a_module_without_lod_inputs(tmp_path: Path) -> None:
    result = _upgrade(tmp_path, {"net.py": DENSE}, "import net", "net.inputs()")
    assert not _left(result) and "feeder = NumpyFeeder(net.inputs())" in result.code
    assert str(tmp_path / "net.py") in result.reads  # (the content cache checks it)


@pytest.mark.parametrize("files, imports, inputs", [
    pytest.param({"net.py": LOD}, "import net", "net.inputs()", id="imported-module"),
    pytest.param({"models/__init__.py": "from .deep import inputs\n", "models/deep.py": LOD},
                 "from models import inputs", "inputs()", id="through-a-package"),
    pytest.param({"net.py": DENSE.replace("name='image', shape=[None, 8], dtype='float32'",
                                          "'image', [None, 8], 'float32', 2")},
                 "import net", "net.inputs()", id="positional-past-dtype"),
])
def test_a_lod_input_of_the_tree_leaves_it(tmp_path: Path, files: dict, imports: str, inputs: str) -> None:
    left = _left(_upgrade(tmp_path, files, imports, inputs))
    assert len(left) == 1 and "may have a LoD level (1.8 fed it a LoD tensor)" in left[0]
    assert "'image' of net.py may" in left[0] or "'image' of models/deep.py may" in left[0]


def test_a_lod_input_of_the_file_leaves_it() -> None:
    source = TRAIN.format(imports="words = fluid.layers.data(name='words', shape=[1], lod_level=level)",
                          inputs="inputs")
    left = _left(refactors.upgrade_code(source))
    assert len(left) == 1 and "and 'words' may have a LoD level" in left[0]


RUN = """\
{upgraded}

image = paddle.static.data(name='image', shape=[-1, 2, 2], dtype='float64')
words = paddle.static.data(name='words', shape=[-1, 1], dtype='int64', lod_level=1)
fed = feed(paddle.CPUPlace(), [([1, 2, 3, 4],), ([5, 6, 7, 8],)], [image])
print(fed['image'].dtype, fed['image'].shape)
scalar = paddle.static.data(name='scalar', shape=[], dtype='float32')
print('scalar', feed(paddle.CPUPlace(), [(1,), (2,)], [scalar])['scalar'].shape)  # (1.8: not reshaped to [])
try:
    feed(paddle.CPUPlace(), [([1],)], [words])
except ValueError as error:
    print('refused:', error)
"""


def test_the_feeder_reads_dtypes_and_refuses_a_lod_variable_at_run_time(tmp_path: Path) -> None:
    source = TRAIN.format(imports="", inputs="inputs").replace("(place, samples)", "(place, samples, inputs)")
    upgraded = refactors.upgrade_code(source).code
    assert "NumpyFeeder(inputs)" in upgraded
    lines = printed(tmp_path, RUN.format(upgraded=upgraded), ("float64", "scalar", "refused"))
    assert lines == ["float64 (2, 2, 2)", "scalar (2,)",
                     "refused: words: LoD level 1, not 0 (1.8's DataFeeder fed a LoD tensor)"]


PY2_TRAIN = """\
import paddle.fluid as fluid
import net


def feed(place, samples):
    feeder = fluid.DataFeeder(feed_list=net.inputs(), place=place)
    print "feeding"
    return feeder.feed(samples)
"""
PY2_NET = DENSE.replace("def inputs():", "def inputs():\n    print 'inputs'") + \
    "\n\ndef words():\n    return fluid.layers.data('words', [1], False, 'int64')\n"


def test_a_second_run_on_the_upgraded_tree_changes_nothing(tmp_path: Path) -> None:
    """Modules in Python 2 syntax are read as the upgrade reads them, and a data call written
    positionally as its keywords, so that the upgraded modules give the same answer."""
    tree, once, twice = tmp_path / "tree", tmp_path / "once", tmp_path / "twice"
    tree.mkdir()
    (tree / "train.py").write_text(PY2_TRAIN)
    (tree / "net.py").write_text(PY2_NET)
    root = Path(__file__).resolve().parents[1]
    for source, target in ((tree, once), (once, twice)):
        subprocess.run([sys.executable, "-m", "upgrade_tool", "-i", str(source), "--outpath", str(target), "-q",
                        "-p", "1", "--no-log-file"], cwd=root, capture_output=True, timeout=300)
    assert "feeder = NumpyFeeder(net.inputs())" in (once / "train.py").read_text()
    assert "paddle.static.data('words', [1], 'int64')" in (once / "net.py").read_text()  # (positional)
    for name in ("train.py", "net.py"):
        assert (twice / name).read_text() == (once / name).read_text()
