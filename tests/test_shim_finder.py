"""How the shim serves `paddle.fluid`: the meta-path finder, lazy modules, install/uninstall.

Each scenario runs in a fresh interpreter, since importing Paddle and switching its IR are
process-wide.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.paddle

ROOT = Path(__file__).resolve().parent.parent


def run(code: str, tmp_path: Path, extra_path: str = "") -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra_path, str(ROOT)) if p)
    env.pop("FLAGS_enable_pir_api", None)
    env["PADDLE_SHIM_WARNINGS"] = "off"
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            cwd=str(tmp_path), env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def test_fluid_and_its_submodules_import_lazily(tmp_path):
    out = run("""
        import runtime_shim
        runtime_shim.install()
        import paddle.fluid as fluid
        import paddle.fluid.dygraph.nn as nn
        from paddle.fluid.layers import fc, data
        from runtime_shim.finder import LegacyModule
        print("modules:", isinstance(fluid, LegacyModule), isinstance(nn, LegacyModule))
        print("lazy:", "reduce_sum" in vars(fluid.layers))
        fluid.layers.reduce_sum
        print("cached:", "reduce_sum" in vars(fluid.layers))
        print("same:", nn.Linear is fluid.dygraph.Linear is fluid.Linear)
        print("base:", fluid.layer_helper.LayerHelper.__module__)
    """, tmp_path)
    assert "modules: True True" in out
    assert "lazy: False" in out and "cached: True" in out
    assert "same: True" in out
    assert "base: paddle.base.layer_helper" in out


def test_star_import_binds_the_1_8_names(tmp_path):
    (tmp_path / "legacy_mod.py").write_text("from paddle.fluid.layers import *\nfrom paddle.fluid.dygraph import *\n")
    out = run("""
        import runtime_shim
        runtime_shim.install()
        import legacy_mod
        print("names:", all(hasattr(legacy_mod, n) for n in ("fc", "data", "reduce_sum", "Linear", "guard")))
    """, tmp_path, extra_path=str(tmp_path))
    assert "names: True" in out


def test_paddle_fluid_is_an_attribute_of_paddle(tmp_path):
    out = run("""
        import runtime_shim
        runtime_shim.install()
        import paddle
        print("attr:", paddle.fluid.layers.data.__name__)
    """, tmp_path)
    assert "attr: data" in out


def test_static_by_default_and_legacy_ir_when_paddle_was_imported_first(tmp_path):
    out = run("""
        import paddle
        print("before:", paddle.in_dynamic_mode(), paddle.base.framework.use_pir_api())
        import runtime_shim
        runtime_shim.install()
        import paddle.fluid as fluid
        print("after:", paddle.in_dynamic_mode(), paddle.base.framework.use_pir_api(),
              type(fluid.default_main_program()).__module__)
        main = fluid.default_main_program()
        with fluid.program_guard(main):
            x = fluid.layers.data("x", [2])
            y = fluid.layers.dropout(x, 0.5)
        print("clone:", type(main.clone(for_test=True)).__name__)
    """, tmp_path)
    assert "before: True True" in out
    assert "after: False False paddle.base.framework" in out
    assert "clone: Program" in out


def test_uninstall_restores_paddle(tmp_path):
    out = run("""
        import runtime_shim, sys
        runtime_shim.install()
        import paddle, paddle.fluid
        runtime_shim.uninstall()
        print("mode:", paddle.in_dynamic_mode(), paddle.base.framework.use_pir_api())
        print("gone:", "paddle.fluid" not in sys.modules, not hasattr(paddle, "fluid"))
        try:
            import paddle.fluid
        except ModuleNotFoundError:
            print("import fails again")
    """, tmp_path)
    assert "mode: True True" in out
    assert "gone: True True" in out
    assert "import fails again" in out


def test_unknown_names_and_modules_fail_like_python(tmp_path):
    out = run("""
        import runtime_shim
        runtime_shim.install()
        import paddle.fluid as fluid
        try:
            fluid.layers.no_such_layer
        except AttributeError as exc:
            print("attr:", "not a Paddle 1.8 API" in str(exc))
        try:
            import paddle.fluid.no_such_module
        except ModuleNotFoundError:
            print("module: missing")
    """, tmp_path)
    assert "attr: True" in out
    assert "module: missing" in out


def test_an_unmapped_1_8_name_imports_and_explains_when_called(tmp_path):
    out = run("""
        import runtime_shim
        from runtime_shim import resolve
        runtime_shim.install()
        from api_mapping.signatures import load_index
        from api_mapping import load_table
        table = load_table()
        index = load_index("1.8.5")
        resolver = resolve.default_resolver()
        for name in sorted(index.apis):
            if (name.startswith("paddle.fluid.layers.") and index.apis[name].kind == "function"
                    and resolver.entry(name) is None and resolver._adapter(name) is None
                    and resolver._from_base(name) is resolve._MISSING):
                served = resolver.resolve(name)
                try:
                    served()
                except runtime_shim.UnservedApiError as exc:
                    print("unserved:", name in str(exc))
                break
        else:
            print("unserved: none left")
    """, tmp_path)
    assert "unserved: True" in out or "unserved: none left" in out


def test_a_real_paddle_fluid_is_never_shadowed(tmp_path):
    fake = tmp_path / "fake" / "paddle"
    (fake / "fluid").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "fluid" / "__init__.py").write_text("REAL = True\n")
    out = run("""
        import sys, runtime_shim
        print("installed:", runtime_shim.install())
        import paddle.fluid
        print("real:", getattr(paddle.fluid, "REAL", False))
        print("finder:", any(type(f).__name__ == "LegacyFinder" for f in sys.meta_path))
    """, tmp_path, extra_path=str(tmp_path / "fake"))
    assert "installed: False" in out
    assert "real: True" in out
    assert "finder: False" in out


def test_coexist_serves_names_and_leaves_a_dynamic_program_dynamic(tmp_path):
    out = run("""
        import numpy as np
        import runtime_shim.coexist
        import paddle
        import paddle.fluid as fluid
        x = paddle.to_tensor(np.array([[1.0, -2.0], [3.0, 4.0]], dtype="float32"))
        y = fluid.layers.reduce_sum(x)
        print("dynamic:", paddle.in_dynamic_mode(), "pir:", paddle.base.framework.use_pir_api(), y.numpy())
        print("numpy:", type(y.numpy()).__name__, "served 2.x functions:", hasattr(paddle.sum, "__shim_served__"))
    """, tmp_path)
    assert "dynamic: True pir: True [6.]" in out
    assert "numpy: ndarray served 2.x functions: False" in out  # names only: Paddle's own functions and Tensor


def test_install_after_coexist_gives_the_legacy_runtime(tmp_path):
    out = run("""
        import runtime_shim.coexist
        import paddle
        import paddle.fluid as fluid
        import runtime_shim
        runtime_shim.install()
        print("static:", not paddle.in_dynamic_mode(), "pir:", paddle.base.framework.use_pir_api())
    """, tmp_path)
    assert "static: True pir: False" in out


def test_enable_static_builds_legacy_programs_that_2x_functions_accept(tmp_path):
    out = run("""
        import numpy as np
        import paddle
        import runtime_shim
        runtime_shim.enable_static()
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [-1, 2], "float32")
            z = paddle.maximum(x, paddle.matmul(x, x, transpose_y=True)[:, :2])
            test = main.clone(for_test=True)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        value, = exe.run(test, feed={"x": np.array([[1.0, 2.0], [0.5, -1.0]], "float32")}, fetch_list=[z.name])
        print("z:", value.tolist())
    """, tmp_path)
    assert "z: [[5.0, 2.0], [0.5, 1.25]]" in out  # max(x, x @ x.T)


def test_uninstall_gives_back_every_function_the_shim_served(tmp_path):
    out = run("""
        import paddle
        from paddle import _C_ops
        from paddle.base.framework import Variable
        before = (paddle.sum, paddle.tensor.math.sum, _C_ops.sum, Variable.sum, Variable.__abs__,
                  paddle.nn.functional.normalize, paddle.utils.run_check)
        import runtime_shim
        runtime_shim.install()
        served = (paddle.sum, paddle.tensor.math.sum, _C_ops.sum, Variable.sum, Variable.__abs__,
                  paddle.nn.functional.normalize, paddle.utils.run_check)
        runtime_shim.uninstall()
        after = (paddle.sum, paddle.tensor.math.sum, _C_ops.sum, Variable.sum, Variable.__abs__,
                 paddle.nn.functional.normalize, paddle.utils.run_check)
        print("served:", all(s is not b for s, b in zip(served, before)))
        print("restored:", all(a is b for a, b in zip(after, before)))
    """, tmp_path)
    assert "served: True" in out
    assert "restored: True" in out
