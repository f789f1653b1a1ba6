"""`upgrade_tool.shim_mode.insert_shim_activation`: one line before the first paddle import, nothing else."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from upgrade_tool.shim_mode import ACTIVATION, insert_shim_activation

ROOT = Path(__file__).resolve().parent.parent

CASES = [
    pytest.param("import paddle.fluid as fluid\nx = 1\n",
                 f"{ACTIVATION}\nimport paddle.fluid as fluid\nx = 1\n", id="first-line"),
    pytest.param('"""Doc."""\nfrom __future__ import print_function\nimport os\nimport paddle\n',
                 f'"""Doc."""\nfrom __future__ import print_function\nimport os\n{ACTIVATION}\nimport paddle\n',
                 id="after-docstring-and-future"),
    pytest.param("import os\r\nfrom paddle import fluid\r\n",
                 f"import os\r\n{ACTIVATION}\r\nfrom paddle import fluid\r\n", id="crlf-kept"),
    pytest.param("\ufeffimport paddle\n", f"\ufeff{ACTIVATION}\nimport paddle\n", id="bom-stays-first"),
    pytest.param("try:\n    import paddle.fluid as fluid\nexcept ImportError:\n    fluid = None\n",
                 f"{ACTIVATION}\ntry:\n    import paddle.fluid as fluid\nexcept ImportError:\n    fluid = None\n",
                 id="nested-in-try"),
    pytest.param("import os\ndef f():\n    from paddle.fluid import layers\n",
                 f"import os\n{ACTIVATION}\ndef f():\n    from paddle.fluid import layers\n", id="inside-function"),
    pytest.param('"""d"""; import paddle\n', f'"""d"""; {ACTIVATION}; import paddle\n', id="same-line"),
    pytest.param("# \u00e9t\u00e9\nx = '\u00e9'; import paddle\n", f"# \u00e9t\u00e9\nx = '\u00e9'; {ACTIVATION}; import paddle\n",
                 id="non-ascii-column"),
    pytest.param("print 'python 2'\nimport paddle.fluid as fluid\n",
                 f"print 'python 2'\n{ACTIVATION}\nimport paddle.fluid as fluid\n", id="python2-source"),
    pytest.param("import os\n\x0cimport paddle\n", f"import os\n{ACTIVATION}\n\x0cimport paddle\n",
                 id="form-feed-is-not-a-line-break"),
]

NO_OPS = [
    pytest.param("import os\nprint(os.name)\n", id="no-paddle"),
    pytest.param("import paddlex\nimport paddle_serving\n", id="other-packages"),
    pytest.param(f"{ACTIVATION}\nimport paddle.fluid as fluid\n", id="already-activated"),
    pytest.param("import runtime_shim\nruntime_shim.install(strict=True)\nimport paddle\n", id="activated-by-hand"),
    pytest.param("", id="empty"),
    pytest.param("from .paddle import x\n", id="relative-import"),
]


@pytest.mark.parametrize("source,expected", CASES)
def test_inserts_before_the_first_paddle_import(source: str, expected: str) -> None:
    assert insert_shim_activation(source) == expected


@pytest.mark.parametrize("source,expected", CASES)
def test_idempotent_and_nothing_else_changes(source: str, expected: str) -> None:
    once = insert_shim_activation(source)
    assert insert_shim_activation(once) == once
    removed = once.replace(ACTIVATION + "; ", "", 1) if ACTIVATION + "; " in once else None
    if removed is None:
        newline = "\r\n" if "\r\n" in source else "\n"
        removed = once.replace(ACTIVATION + newline, "", 1)
    assert removed == source


@pytest.mark.parametrize("source", NO_OPS)
def test_unchanged_when_nothing_to_do(source: str) -> None:
    assert insert_shim_activation(source) == source


@pytest.mark.paddle
def test_an_activated_legacy_program_runs_with_plain_python(tmp_path: Path) -> None:
    program = ROOT / "fixtures" / "legacy" / "static_fc_executor.py"
    if not program.exists():
        pytest.skip("fixtures/legacy/static_fc_executor.py is not there")
    target = tmp_path / program.name
    target.write_text(insert_shim_activation(program.read_text()))
    env = dict(os.environ, PYTHONPATH=str(ROOT), PADDLE_SHIM_WARNINGS="off")
    env.pop("FLAGS_enable_pir_api", None)
    result = subprocess.run([sys.executable, str(target)], capture_output=True, text=True, cwd=str(tmp_path),
                            env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "loss:" in result.stdout and "x_shape: -1 4" in result.stdout
