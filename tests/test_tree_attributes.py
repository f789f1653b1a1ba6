"""refactors/tree_attributes.py: what a plain class of another module of the tree assigns to an attribute
of its objects, and save_dygraph's suffix for `obj.attr.state_dict()` that it decides (dygraph/bert's
`optimizer.optimizer.state_dict()`, models release/1.7 and 1.8)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import refactors

BERT_LIKE = """\
import paddle.fluid as fluid
from paddle.fluid.dygraph import Layer


class Optimizer(object):
    def __init__(self, learning_rate, warmup_steps, parameter_list):
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.parameter_list = parameter_list
        self.optimizer = self.lr_schedule()

    def lr_schedule(self):
        if self.warmup_steps > 0:
            scheduled_lr = fluid.dygraph.NoamDecay(1 / self.warmup_steps, self.warmup_steps)
            optimizer = fluid.optimizer.Adam(learning_rate=scheduled_lr, parameter_list=self.parameter_list)
        else:
            optimizer = fluid.optimizer.Adam(learning_rate=self.learning_rate, parameter_list=self.parameter_list)
        return optimizer


class Direct(object):
    def __init__(self, params):
        self.opt = fluid.optimizer.SGD(0.1, parameter_list=params)
        self.net = fluid.dygraph.Linear(2, 2)


class Mixed(object):
    def __init__(self, params):
        self.thing = fluid.optimizer.SGD(0.1, parameter_list=params)

    def swap(self):
        self.thing = fluid.dygraph.Linear(2, 2)


class Given(object):
    def __init__(self, optimizer):
        self.optimizer = optimizer


class Augmented(object):
    def __init__(self, params):
        self.opt = fluid.optimizer.SGD(0.1, parameter_list=params)
        self.opt, self.other = self.opt, None


class Derived(Layer):
    def __init__(self, params):
        super(Derived, self).__init__()
        self.opt = fluid.optimizer.SGD(0.1, parameter_list=params)
"""


def _save(maker: str, saved: str, extra: str = "") -> str:
    return ("import paddle.fluid as fluid\nfrom optimization import Optimizer, Direct, Mixed, Given, Augmented, "
            "Derived\n\n\ndef save(path, params):\n    with fluid.dygraph.guard():\n"
            f"        obj = {maker}\n{extra}        fluid.save_dygraph({saved}.state_dict(), path)\n")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "optimization.py").write_text(textwrap.dedent(BERT_LIKE))
    return tmp_path


@pytest.mark.parametrize("maker, saved, suffix", [
    pytest.param("Optimizer(0.1, 10, params)", "obj.optimizer", ".pdopt", id="returned-by-a-method-in-each-branch"),
    pytest.param("Direct(params)", "obj.opt", ".pdopt", id="an-optimizer-made-in-init"),
    pytest.param("Direct(params)", "obj.net", ".pdparams", id="a-layer-made-in-init"),
])
def test_the_attribute_gives_the_suffix(tree: Path, maker: str, saved: str, suffix: str) -> None:
    result = refactors.upgrade_code(_save(maker, saved), origin=str(tree / "train.py"))
    assert f"paddle.save({saved}.state_dict(), path + '{suffix}')" in result.code
    assert str(tree / "optimization.py") in result.reads


@pytest.mark.parametrize("maker, saved, extra", [
    pytest.param("Mixed(params)", "obj.thing", "", id="assigned-two-kinds"),
    pytest.param("Given(params)", "obj.optimizer", "", id="assigned-a-parameter"),
    pytest.param("Augmented(params)", "obj.opt", "", id="assigned-by-unpacking-too"),
    pytest.param("Derived(params)", "obj.opt", "", id="class-on-a-base-that-may-assign-it"),
    pytest.param("Direct(params)", "obj.opt", "        obj.opt = make()\n", id="assigned-in-this-module"),
    pytest.param("Direct(params) if params else Optimizer(0.1, 1, params)", "obj.opt", "",
                 id="object-of-one-class-or-another"),
])
def test_what_the_class_does_not_show_is_chosen_at_run_time(tree: Path, maker: str, saved: str, extra: str) -> None:
    # no suffix claimed: the module's function (checkpoint.SAVE_DYGRAPH) makes 1.8's choice at run time
    result = refactors.upgrade_code(_save(maker, saved, extra), origin=str(tree / "train.py"))
    assert f"save_dygraph(state_dict={saved}.state_dict(), model_path=path)" in result.code
    assert f"paddle.save({saved}" not in result.code


def test_without_the_tree_it_is_chosen_at_run_time(tree: Path) -> None:
    result = refactors.upgrade_code(_save("Direct(params)", "obj.opt"))
    assert "save_dygraph(state_dict=obj.opt.state_dict(), model_path=path)" in result.code
    assert "paddle.save(obj.opt" not in result.code
