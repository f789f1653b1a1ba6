"""refactors/value_sets.py across modules: a method's values are closed only while no other module of the
tree may call it (a subclass elsewhere calling the inherited method may pass anything), and a module
that says the name only of a method of its own class calls its own."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import refactors

BACKBONE = '''
    import paddle.fluid as fluid


    class ResNet(object):
        def _conv_norm(self, conv, scale, bias, act=None):
            out = fluid.layers.affine_channel(x=conv, scale=scale, bias=bias, act=act)
            return out

        def net(self, conv, scale, bias):
            return self._conv_norm(self._conv_norm(conv, scale, bias, act='relu'), scale, bias)
'''

OTHERS = {
    "own_method": ('''
        class DarkNet(object):
            def _conv_norm(self, x, act='leaky_relu'):
                return x

            def net(self, x):
                return self._conv_norm(x, act='swish')
    ''', True),
    "subclass_calls_it": ('''
        from resnet import ResNet


        class Res2Net(ResNet):
            def block(self, conv, scale, bias):
                return self._conv_norm(conv, scale, bias, act='swish')
    ''', False),
    "inherits_without_override": ('''
        class Mixin(object):
            def block(self, conv):
                return self._conv_norm(conv, act='swish')
    ''', False),
    "names_it_in_a_string": ('''
        def build(model):
            return getattr(model, '_conv_norm')
    ''', False),
}


@pytest.mark.parametrize("case", sorted(OTHERS), ids=sorted(OTHERS))
def test_another_module_naming_the_method(case: str, tmp_path: Path) -> None:
    other, converted = OTHERS[case]
    (tmp_path / "resnet.py").write_text(textwrap.dedent(BACKBONE), encoding="utf-8")
    (tmp_path / "other.py").write_text(textwrap.dedent(other), encoding="utf-8")
    path = tmp_path / "resnet.py"
    result = refactors.upgrade_code(path.read_text(encoding="utf-8"), origin=str(path))
    left = [f.message for f in result.findings if not f.fixed]
    if converted:
        assert not left
        assert 'out = paddle.nn.functional.relu(out) if act == "relu" else out' in result.code
    else:  # open: the activation is chosen when the program runs, by name
        assert not left
        assert [f.message for f in result.findings if f.code == "act-at-run-time"] == [
            "paddle.fluid.layers.affine_channel: `act=act` is not a literal (another module names `_conv_norm` and "
            "may call it with other values); `fluid_act` applies 1.8's activation of that name when the program runs"]
        assert "out = fluid_act(fluid_affine_channel(x=conv, scale=scale, bias=bias), act)" in result.code


def test_alone_a_private_method_is_closed() -> None:
    result = refactors.upgrade_code(textwrap.dedent(BACKBONE))
    assert not [f for f in result.findings if not f.fixed]
    assert 'if act == "relu" else out' in result.code


FRAMEWORK_MODULE = '''
    import paddle.fluid as fluid
    from paddlehub import Module


    class Backbone(Module):
        def context(self, conv, scale, bias, act=None):
            return fluid.layers.affine_channel(x=conv, scale=scale, bias=bias, act=act)

        def net(self, conv, scale, bias):
            return self.context(conv, scale, bias, act='relu')
'''


def test_a_public_method_of_a_class_on_another_librarys_base_is_open(tmp_path: Path) -> None:
    # the base's framework may call `context()` itself, with values this file does not show
    path = tmp_path / "module.py"
    path.write_text(textwrap.dedent(FRAMEWORK_MODULE), encoding="utf-8")
    result = refactors.upgrade_code(path.read_text(encoding="utf-8"), origin=str(path))
    assert not [f for f in result.findings if not f.fixed]
    at_run_time = [f.message for f in result.findings if f.code == "act-at-run-time"]
    assert len(at_run_time) == 1 and "`act=act` is not a literal" in at_run_time[0] \
        and "`Backbone`" in at_run_time[0], at_run_time
    assert "fluid_act(fluid_affine_channel(x=conv, scale=scale, bias=bias), act)" in result.code
    on_object = textwrap.dedent(FRAMEWORK_MODULE).replace("(Module)", "(object)")
    path.write_text(on_object, encoding="utf-8")
    result = refactors.upgrade_code(on_object, origin=str(path))
    assert not [f for f in result.findings if not f.fixed]
