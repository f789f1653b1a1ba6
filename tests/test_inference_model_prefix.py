"""One prefix rule for save/load_inference_model, however the model file name is given.

The upgrade of a literal `model_filename`, the expression it writes for a name known only at run time,
its folding of `name + '<literal end>'`, and runtime_shim's adapter must name the same 2.x files for
every value 1.8.5 takes (None, a name, a path, an os.PathLike; '' made 1.8.5 open the directory), so
that whatever saved a model, the upgraded loader finds it. Each is evaluated here, not read.
"""
from __future__ import annotations

import ast
import os
import pathlib
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import refactors
from runtime_shim.adapters.static import _prefix as shim_prefix

NAMES = [None, "net", "__model__", "net.pdmodel", "a/b/net.pdmodel", "sub/m", ".pdmodel", "..pdmodel",
         "a.pdmodel.b", "x.PDMODEL", "model", ".a.pdmodel", "net.pdmodel/"]


def upgraded_loader(argument: str):
    """`load(d, m)` from the upgrade of a 1.8 function loading `d` with `model_filename=<argument>`;
    it returns the prefix the 2.x call is given."""
    source = ("import paddle.fluid as fluid\n\n\ndef load(d, m):\n"
              f"    return fluid.io.load_inference_model(d, None, model_filename={argument})\n")
    result = refactors.upgrade_code(source)
    assert "fluid.io" not in result.code, result.code
    tree = ast.parse(result.code)
    [function] = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    paddle = types.SimpleNamespace(static=types.SimpleNamespace(load_inference_model=lambda prefix, exe: prefix))
    scope = {"os": os, "paddle": paddle}
    exec(compile(ast.Module([function], []), "<upgraded>", "exec"), scope)
    return scope["load"]


RUN_TIME = upgraded_loader("m")


def literal_prefix(name):
    return upgraded_loader(repr(name))("dir", None)


@pytest.mark.parametrize("name", NAMES, ids=repr)
def test_literal_run_time_and_shim_agree(name):
    assert literal_prefix(name) == RUN_TIME("dir", name) == shim_prefix("dir", name)


def test_a_path_object_is_its_string():
    assert RUN_TIME("dir", pathlib.PurePosixPath("a/net.pdmodel")) == RUN_TIME("dir", "a/net.pdmodel") == "dir/net"


@pytest.mark.parametrize("end", ["_model.pdmodel", "_model", "model", "..pdmodel", ".pdmodel", "net/x.pdmodel", ""])
@pytest.mark.parametrize("start", ["resnet", "out/resnet", "", "a.", "x."])
def test_a_name_with_a_literal_end(start, end):
    concatenated = upgraded_loader(f"m + {end!r}")
    assert concatenated("dir", start) == RUN_TIME("dir", start + end) or start + end == ""


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab._/pdmol", min_size=1, max_size=14))
def test_generated_names(name):
    assert RUN_TIME("dir", name) == shim_prefix("dir", name)
    if not name.endswith("/"):  # 1.8.5 opens the directory itself for those
        assert literal_prefix(name) == RUN_TIME("dir", name)
