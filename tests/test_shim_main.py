"""`python -m runtime_shim script.py args...` runs a legacy script with `__main__` semantics intact."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent


def shim(args: List[str], cwd: Path, path: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, str(ROOT)]))
    env["PADDLE_SHIM_WARNINGS"] = "off"
    env.pop("FLAGS_enable_pir_api", None)
    return subprocess.run([sys.executable, "-m", "runtime_shim"] + args, capture_output=True, text=True,
                          cwd=str(cwd), env=env, timeout=300)


def test_usage_without_a_script(tmp_path):
    result = shim([], tmp_path)
    assert result.returncode == 2 and "usage: python -m runtime_shim" in result.stdout
    assert shim(["--help"], tmp_path).returncode == 0
    missing = shim(["nowhere.py"], tmp_path)
    assert missing.returncode == 2 and "can't open file" in missing.stderr


def test_without_paddle_it_says_what_to_install_instead_of_a_traceback(tmp_path):
    """As after `pip install .` alone: importing paddle fails the way Python fails on a missing module."""
    hidden = tmp_path / "no_paddle" / "paddle"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'paddle'\", name='paddle')\n")
    (tmp_path / "legacy.py").write_text("import paddle.fluid as fluid\n")
    for args in (["legacy.py"], ["-m", "legacy"]):
        result = shim(args, tmp_path, path=str(hidden.parent))
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        assert "Paddle is not installed" in result.stderr and "pip install paddlepaddle==3.3.1" in result.stderr


@pytest.mark.paddle
def test_script_runs_as_main_with_its_arguments(tmp_path):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "helper.py").write_text("VALUE = 42\n")
    (scripts / "legacy.py").write_text(textwrap.dedent("""
        import sys
        import paddle.fluid as fluid
        import helper  # found through the script's own directory, as with `python legacy.py`
        def main():
            print("name:", __name__)
            print("argv:", sys.argv[1:], sys.argv[0].endswith("legacy.py"))
            print("path0:", sys.path[0].endswith("scripts"))
            print("helper:", helper.VALUE)
            print("static:", not fluid.in_dygraph_mode())
            print("file:", __file__.endswith("legacy.py"))
        if __name__ == "__main__":
            main()
            sys.exit(int(sys.argv[-1]))
    """))
    result = shim(["scripts/legacy.py", "--flag", "value", "3"], tmp_path)
    assert result.returncode == 3, result.stderr[-3000:]
    out = result.stdout
    assert "name: __main__" in out
    assert "argv: ['--flag', 'value', '3'] True" in out
    assert "path0: True" in out
    assert "helper: 42" in out
    assert "static: True" in out
    assert "file: True" in out


@pytest.mark.paddle
def test_a_failing_script_fails_with_its_traceback(tmp_path):
    (tmp_path / "bad.py").write_text("import paddle.fluid as fluid\nraise ValueError('boom')\n")
    result = shim(["bad.py"], tmp_path)
    assert result.returncode == 1
    assert "ValueError: boom" in result.stderr and "bad.py" in result.stderr


@pytest.mark.paddle
def test_module_form(tmp_path):
    pkg = tmp_path / "legacy_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "run.py").write_text("import sys\nimport paddle.fluid as fluid\nprint('module:', __name__, sys.argv[1:])\n")
    result = shim(["-m", "legacy_pkg.run", "x"], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "module: __main__ ['x']" in result.stdout
