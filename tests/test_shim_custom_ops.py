"""`fluid.load_op_library` under the shim, against the real Paddle 3.3.1 loader.

1.8 (`framework.py:5148`) opened the library with Paddle's loader and failed, for a missing file, with
`core.EnforceNotMet` (PreconditionNotMet, naming the file and the `dlopen` message). The shim keeps that
failure (catchable as `fluid.core.EnforceNotMet` and as Paddle 3's `RuntimeError`), loads a library
built with the custom-operator API, and refuses a library of 1.8 C++ operators with
`OpLibraryABIError` instead of opening it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.paddle

runtime_shim = pytest.importorskip("runtime_shim")
from runtime_shim import NoEquivalentError, OpLibraryABIError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")


@pytest.fixture(scope="module")
def fluid():
    with runtime_shim.installed(warnings="off"):
        import paddle.fluid as fluid

        yield fluid


def shared_library(directory: Path, name: str, source: str, links: tuple = ()) -> Path:
    """Compile a C shared library `lib<name>.so` in `directory`."""
    c_file = directory / f"{name}.c"
    c_file.write_text(source)
    out = directory / f"lib{name}.so"
    command = ["gcc", "-shared", "-fPIC", str(c_file), "-o", str(out), "-Wl,--no-as-needed", f"-L{directory}"]
    command += [f"-l{lib}" for lib in links]
    subprocess.run(command, check=True, capture_output=True)
    return out


def test_missing_library_fails_as_in_1_8(fluid, tmp_path):
    missing = tmp_path / "ext_op" / "src" / "pointnet_lib.so"
    with pytest.raises(fluid.core.EnforceNotMet) as caught:
        fluid.load_op_library(str(missing))
    error = caught.value
    assert isinstance(error, RuntimeError)  # what Paddle 3 code catches
    assert not isinstance(error, NoEquivalentError)
    assert error.filename == str(missing)
    assert "PreconditionNotMet" in str(error)
    assert f"{missing}: cannot open shared object file: No such file or directory" in str(error)


def test_relative_path_is_relative_to_the_working_directory(fluid, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(fluid.core.EnforceNotMet, match=r"models/ext_op/src/rrpn_lib\.so: cannot open"):
        fluid.load_op_library("models/ext_op/src/rrpn_lib.so")


def test_a_file_that_is_no_library_fails_in_the_loader(fluid, tmp_path):
    not_elf = tmp_path / "notes.so"
    not_elf.write_text("this is not a shared library, just text long enough for an ELF header check\n" * 4)
    with pytest.raises(fluid.core.EnforceNotMet, match="invalid ELF header"):
        fluid.load_op_library(str(not_elf))


@needs_gcc
def test_a_1_8_operator_library_is_refused_naming_the_abi(fluid, tmp_path):
    # 1.8 operator libraries link against 1.8's libpaddle_framework.so and register with
    # REGISTER_OPERATOR; a stand-in with the same dependency and no custom-operator API:
    shared_library(tmp_path, "paddle_framework", "int paddle_framework_version(void) { return 18; }\n")
    library = shared_library(tmp_path, "relu18", "int relu18_registered(void) { return 1; }\n",
                             links=("paddle_framework",))
    with pytest.raises(OpLibraryABIError) as caught:
        fluid.load_op_library(str(library))
    message = str(caught.value)
    assert caught.value.filename == str(library)
    assert "links against Paddle 1.x's libpaddle_framework.so" in message
    assert "custom-operator API" in message and "paddle.utils.cpp_extension" in message


@needs_gcc
def test_op_dir_flag_is_searched_first(fluid, tmp_path, monkeypatch):
    shared_library(tmp_path, "plain", "int plain(void) { return 0; }\n")
    monkeypatch.setenv("FLAGS_op_dir", str(tmp_path))
    with pytest.raises(OpLibraryABIError) as caught:
        fluid.load_op_library("libplain.so")
    assert "libpaddle_framework" not in str(caught.value)


CUSTOM_OP = r"""
#include "paddle/extension.h"
#include <vector>

std::vector<paddle::Tensor> ShimRelu(const paddle::Tensor& x) {
  auto out = paddle::empty_like(x);
  const float* in = x.data<float>();
  float* o = out.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] > 0 ? in[i] : 0;
  return {out};
}

PD_BUILD_OP(shim_test_relu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(ShimRelu));
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs a C++ compiler")
def test_custom_operator_library_loads_and_runs_in_a_legacy_program(tmp_path):
    (tmp_path / "shim_relu.cc").write_text(CUSTOM_OP)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PADDLE_SHIM_WARNINGS="off")
    env.pop("FLAGS_enable_pir_api", None)
    # Built in its own process: paddle.utils.cpp_extension.load also registers the op where it runs.
    build = textwrap.dedent("""
        import glob, os, paddle
        from paddle.utils.cpp_extension import load
        os.makedirs("build")
        load(name="shim_relu", sources=["shim_relu.cc"], build_directory="build")
        print(glob.glob("build/**/shim_relu.so", recursive=True)[0])
    """)
    built = subprocess.run([sys.executable, "-c", build], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    library = tmp_path / built.stdout.strip().splitlines()[-1]
    program = textwrap.dedent(f"""
        import numpy as np
        import runtime_shim
        runtime_shim.install()
        import paddle.fluid as fluid
        from paddle.fluid.layer_helper import LayerHelper

        fluid.load_op_library({str(library)!r})
        x = fluid.data("x", [2, 3], "float32")
        helper = LayerHelper("shim_test_relu")
        out = helper.create_variable_for_type_inference("float32")
        helper.append_op(type="shim_test_relu", inputs={{"X": x}}, outputs={{"Out": out}})
        exe = fluid.Executor(fluid.CPUPlace())
        value = np.array([[-1.5, 2.0, -3.0], [4.0, -0.5, 6.0]], "float32")
        result, = exe.run(feed={{"x": value}}, fetch_list=[out])
        np.testing.assert_array_equal(result, np.maximum(value, 0))
        print("ran", result.tolist())
    """)
    ran = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "ran [[0.0, 2.0, 0.0], [4.0, 0.0, 6.0]]" in ran.stdout
