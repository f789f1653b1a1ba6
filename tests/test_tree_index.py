"""refactors/tree_index.py: the kind of a class another module of the tree defines, read from that module
(and the modules its bases come from), and what depends on it: save_dygraph's suffix, the 2.x methods,
the content cache."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import refactors
from refactors import tree_index
from upgrade_tool import runner
from upgrade_tool.discovery import PYTHON, Job

NETWORK = """\
import paddle.fluid as fluid
from paddle.fluid.dygraph import Layer


class Net(fluid.dygraph.Layer):
    pass


class Other(Layer):
    pass


class Plain(object):
    pass


class Twice(Layer):
    pass


Twice = None
"""
DERIVED = """\
from network import Net


class Deeper(Net):
    pass
"""
OPTIMIZERS = """\
import paddle
import paddle.fluid as fluid


class Tuned(paddle.optimizer.Adam):
    pass


class Legacy(fluid.optimizer.AdamOptimizer):
    pass
"""


def _tree(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _save(imports: str, maker: str) -> str:
    return (f"import paddle.fluid as fluid\n{imports}\n\n\ndef save(path):\n    with fluid.dygraph.guard():\n"
            f"        obj = {maker}\n        fluid.save_dygraph(obj.state_dict(), path)\n")


CASES = [
    pytest.param("from network import Net", "Net()", "path + '.pdparams'", id="class-beside-the-file"),
    pytest.param("from network import Other as O", "O()", "path + '.pdparams'", id="alias-of-a-class-on-an-imported-base"),
    pytest.param("import network", "network.Net()", "path + '.pdparams'", id="module-attribute"),
    pytest.param("from derived import Deeper", "Deeper()", "path + '.pdparams'", id="base-from-a-third-module"),
    pytest.param("from pkg.opt import Tuned", "Tuned(0.1)", "path + '.pdopt'", id="2x-optimizer-base-in-a-package"),
    pytest.param("from .network import Net", "Net()", "path + '.pdparams'", id="relative-import"),
]
LEFT = [
    pytest.param("from network import Plain", "Plain()", id="plain-class"),
    pytest.param("from network import Twice", "Twice()", id="name-bound-twice"),
    pytest.param("from elsewhere import Net", "Net()", id="module-not-in-the-tree"),
    pytest.param("from network import Missing", "Missing()", id="no-such-class"),
]


# Where the source does not show what the state dict is of, the suffix is 1.8's choice at run time, by the
# module's function (checkpoint.SAVE_DYGRAPH), not one the tree would have claimed.
RUN_TIME_CHOICE = "save_dygraph(state_dict=obj.state_dict(), model_path=path)"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    _tree(tmp_path, {"network.py": NETWORK, "derived.py": DERIVED, "pkg/__init__.py": "", "pkg/opt.py": OPTIMIZERS})
    return tmp_path


@pytest.mark.parametrize("imports, maker, path", CASES)
def test_a_class_of_the_tree_gives_the_suffix(tree: Path, imports: str, maker: str, path: str) -> None:
    source = _save(imports, maker)
    result = refactors.upgrade_code(source, origin=str(tree / "train.py"))
    assert f"paddle.save(obj.state_dict(), {path})" in result.code
    assert str(tree / "network.py") in result.reads or str(tree / "pkg" / "opt.py") in result.reads
    assert "save_dygraph" in refactors.upgrade_code(source).code  # without the file's path: unknown


@pytest.mark.parametrize("imports, maker", LEFT)
def test_what_the_tree_does_not_show_is_chosen_at_run_time(tree: Path, imports: str, maker: str) -> None:
    result = refactors.upgrade_code(_save(imports, maker), origin=str(tree / "train.py"))
    assert RUN_TIME_CHOICE in result.code and "paddle.save(obj" not in result.code


def test_methods_of_an_instance_of_a_class_of_the_tree(tree: Path) -> None:
    source = ("import paddle.fluid as fluid\nfrom pkg.opt import Legacy, Tuned\n\n\ndef step(loss, params):\n"
              "    opt = Legacy(0.1)\n    opt.minimize(loss, parameter_list=params)\n"
              "    new = Tuned(0.1)\n    new.minimize(loss, parameter_list=params)\n")
    result = refactors.upgrade_code(source, origin=str(tree / "train.py"))
    assert "opt.minimize(loss, parameters=params)" in result.code
    # A class on a 2.x base has the 2.x methods already: its calls are as the code wrote them (as for a
    # class of the file), which is what a second run sees once the tree is upgraded.
    assert "new.minimize(loss, parameter_list=params)\n" in result.code


@pytest.mark.parametrize("imports, maker, call", [
    pytest.param("import network", "", "network.Plain.load_dict(path)", id="class-of-an-imported-module"),
    pytest.param("from network import Plain", "", "Plain.load_dict(path)", id="class-imported-by-name"),
    pytest.param("from network import Plain", "    obj = Plain()\n", "obj.load_dict(path)", id="instance-of-one"),
])
def test_a_plain_class_of_the_tree_is_no_paddle_object(tree: Path, imports: str, maker: str, call: str) -> None:
    # `reader.DataReader.load_dict(path)` (PaddleNLP ACL2019-JEMT): the class's own method, not reported
    source = f"import paddle.fluid as fluid\n{imports}\n\n\ndef load(path):\n{maker}    return {call}\n"
    result = refactors.upgrade_code(source, origin=str(tree / "train.py"))
    assert f"    return {call}\n" in result.code
    assert not [f for f in result.findings if "load_dict" in f.message]
    elsewhere = refactors.upgrade_code(source.replace("network", "elsewhere"), origin=str(tree / "train.py"))
    assert [f for f in elsewhere.findings if "load_dict" in f.message and not f.fixed]  # not in the tree: reported


def test_a_package_module_imports_its_package_by_absolute_name(tmp_path: Path) -> None:
    # Dialogue-PLATO: plato/models/unified_transformer.py has `from plato.models.model_base import ModelBase`
    _tree(tmp_path, {"plato/__init__.py": "", "plato/models/__init__.py": "",
                     "plato/models/model_base.py": "import paddle.fluid as fluid\n\n\nclass ModelBase(fluid.dygraph.Layer):\n    pass\n"})
    source = _save("from plato.models.model_base import ModelBase", "ModelBase()")
    result = refactors.upgrade_code(source, origin=str(tmp_path / "plato" / "models" / "unified.py"))
    assert "paddle.save(obj.state_dict(), path + '.pdparams')" in result.code
    elsewhere = refactors.upgrade_code(source, origin=str(tmp_path / "scripts" / "unified.py"))
    assert RUN_TIME_CHOICE in elsewhere.code and "paddle.save(obj" not in elsewhere.code  # no package


def test_the_cache_misses_when_a_module_read_changed(tree: Path, monkeypatch) -> None:
    script = tree / "train.py"
    script.write_text(_save("from network import Net", "Net()"))
    options = runner.Options(cache_dir=str(tree / "cache"))
    job = Job(str(script), script.name, script.name, PYTHON)
    first = runner.process(job, options)
    assert b".pdparams" in first.new_data and first.reads
    assert runner.process(job, options).new_data == first.new_data  # a hit
    (tree / "network.py").write_text(NETWORK.replace("class Net(fluid.dygraph.Layer)", "class Net(object)"))
    again = runner.process(job, options)
    assert RUN_TIME_CHOICE.encode() in again.new_data and b"paddle.save(obj" not in again.new_data


def test_the_cache_misses_when_a_module_it_looked_for_is_added(tree: Path, monkeypatch) -> None:
    script = tree / "train.py"
    script.write_text(_save("from layers_here import Net", "Net()"))  # no such module yet
    options = runner.Options(cache_dir=str(tree / "cache"))
    job = Job(str(script), script.name, script.name, PYTHON)
    first = runner.process(job, options)
    assert RUN_TIME_CHOICE.encode() in first.new_data and not first.reads.keys() - {tree_index.TREE}
    assert runner.process(job, options).new_data == first.new_data  # a hit
    (tree / "layers_here.py").write_text(NETWORK)
    again = runner.process(job, options)
    assert b"paddle.save(obj.state_dict(), path + '.pdparams')" in again.new_data


def test_a_result_that_never_asked_for_the_tree_survives_a_change_in_it(tree: Path, monkeypatch) -> None:
    script = tree / "plain.py"
    script.write_text("import paddle.fluid as fluid\ny = fluid.layers.relu(x)\n")
    options = runner.Options(cache_dir=str(tree / "cache"))
    job = Job(str(script), script.name, script.name, PYTHON)
    first = runner.process(job, options)
    assert b"paddle.nn.functional.relu" in first.new_data and not first.reads
    (tree / "added.py").write_text("x = 1\n")
    monkeypatch.setattr(runner, "_upgrade", lambda *a: pytest.fail("upgraded again"))
    assert runner.process(job, options).new_data == first.new_data
