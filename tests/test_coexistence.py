"""Coexistence: the legacy uses an upgrade leaves run through runtime_shim, each marked TODO where it starts.

As the README says (`--no-shim`): one `import runtime_shim.coexist` line while legacy uses remain; static
files select the legacy IR with `runtime_shim.enable_static()`; `shim=False` (`--no-shim`) gives pure
2.x text with the leftovers only marked.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import refactors

COEXIST = "import runtime_shim.coexist  # paddle-upgrade: runs the legacy uses marked TODO below\n"
TODO = "# TODO(paddle-upgrade): fluid.layers.lod_reset: no 2.x equivalent, runs through runtime_shim"


def upgrade(source: str, shim: bool = True) -> str:
    code = refactors.upgrade_code(source, shim=shim).code
    ast.parse(code)
    assert refactors.upgrade_code(code, shim=shim).code == code, "a second run changed the output"
    return code


TODO_PLACES = [
    pytest.param(
        "y = fluid.layers.lod_reset(x,\n                           y=t)\n",
        f"y = fluid.layers.lod_reset(x,  {TODO}\n                           y=t)\n",
        id="first line of a call spread over lines"),
    pytest.param(
        "y = paddle.add(\n    x,\n    fluid.layers.lod_reset(x, y=t))\n",
        f"y = paddle.add(\n    x,\n    fluid.layers.lod_reset(x, y=t))  {TODO}\n",
        id="a call starting on the statement's last line"),
    pytest.param(
        "y = fluid.layers.lod_reset(x, y=t)  # keep\n",
        f"y = fluid.layers.lod_reset(x, y=t)  # keep  {TODO}\n",
        id="after the user's own comment"),
    pytest.param(
        "y = fluid.layers.lod_reset(x, \\\n    y=t)\n",
        f"{TODO}\ny = fluid.layers.lod_reset(x, \\\n    y=t)\n",
        id="a backslash continuation takes no comment: above"),
    pytest.param(
        'y = [fluid.layers.lod_reset(x, y=t), """a\nb"""]\n',
        f'{TODO}\ny = [fluid.layers.lod_reset(x, y=t), """a\nb"""]\n',
        id="a line ending inside a string takes no comment: above"),
    pytest.param(
        "if fluid.layers.lod_reset(x, y=t) is None:\n    pass\n",
        f"if fluid.layers.lod_reset(x, y=t) is None:  {TODO}\n    pass\n",
        id="a compound statement's header"),
    pytest.param(
        "def f():\n    return fluid.layers.lod_reset(\n        x, y=t)\n",
        f"def f():\n    return fluid.layers.lod_reset(  {TODO}\n        x, y=t)\n",
        id="nested in a function"),
]


@pytest.mark.parametrize("legacy, marked", TODO_PLACES)
def test_todo_goes_on_the_line_where_the_use_starts(legacy: str, marked: str) -> None:
    header = "import paddle\nimport paddle.fluid as fluid\n"
    code = upgrade(header + legacy)
    assert code == COEXIST + header + "import runtime_shim\nruntime_shim.enable_static()\n" + marked


def test_the_report_cites_the_line_the_todo_is_on() -> None:
    source = "import paddle.fluid as fluid\ny = paddle.add(\n    x, fluid.layers.lod_reset(x, y=t))\n"
    result = refactors.upgrade_code(source)
    [finding] = [f for f in result.findings if f.code == "no-equivalent"]
    assert finding.line == 3
    assert TODO in result.code.splitlines()[finding.line - 1 + 3]  # three lines were added above


def test_a_fully_converted_file_needs_no_shim() -> None:
    code = upgrade("import paddle.fluid as fluid\ny = fluid.layers.relu(x)\n")
    assert code == "import paddle\ny = paddle.nn.functional.relu(x)\n"


def test_no_shim_gives_pure_text_with_the_leftovers_marked() -> None:
    code = upgrade("import paddle.fluid as fluid\ny = fluid.layers.lod_reset(x, y=t)\n", shim=False)
    assert code == ("import paddle\nimport paddle.fluid as fluid\npaddle.enable_static()\n"
                    "y = fluid.layers.lod_reset(x, y=t)  # TODO(paddle-upgrade): fluid.layers.lod_reset: "
                    "no 2.x equivalent\n")


def test_the_line_goes_with_the_last_legacy_use() -> None:
    converted_by_hand = COEXIST + "import paddle\ny = paddle.nn.functional.relu(x)\nz = paddle.fluid.layers.relu(y)\n"
    assert upgrade(converted_by_hand) == "import paddle\ny = paddle.nn.functional.relu(x)\nz = paddle.nn.functional.relu(y)\n"


def test_no_shim_removes_a_line_an_earlier_run_wrote() -> None:
    earlier = upgrade("import paddle.fluid as fluid\nimport numpy\ny = fluid.dygraph.TreeConv(feature_size=5, output_size=6)\n")
    assert earlier.startswith(COEXIST)
    assert not upgrade(earlier, shim=False).startswith(COEXIST)


def test_a_static_graph_file_selects_the_legacy_ir() -> None:
    code = upgrade("import numpy as np\nimport paddle.fluid as fluid\nx = fluid.data(name='x', shape=[-1, 3])\n")
    assert code == ("import numpy as np\nimport paddle\nimport runtime_shim\nruntime_shim.enable_static()\n"
                    "x = paddle.static.data(name='x', shape=[-1, 3])\n")


# -- the command line ------------------------------------------------------------------------------

def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "upgrade_tool", *args, "--no-log-file"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def test_check_fails_while_legacy_uses_remain_and_the_summary_counts_them(tmp_path: Path) -> None:
    (tmp_path / "left.py").write_text("import paddle.fluid as fluid\ny = fluid.layers.lod_reset(x, y=t)\n")
    (tmp_path / "done.py").write_text("import paddle\ny = paddle.nn.functional.relu(x)\n")
    written = _cli(tmp_path, "-i", ".", "--write", "--no-confirm", "-b", str(tmp_path / "bk"),
                   "--report-json", "r.json")
    assert written.returncode == 0, written.stderr
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["files"]["legacy"] == 1
    check = _cli(tmp_path, "-i", "left.py", "-i", "done.py", "--check")
    assert check.returncode == 1, check.stderr
    assert "nothing to change; 1 file(s) still use legacy APIs (marked TODO)" in check.stderr
    assert _cli(tmp_path, "-i", "done.py", "--check").returncode == 0


def test_a_reason_quoting_code_a_todo_went_into_reads_the_same_on_a_second_run() -> None:
    # PaddleRec's dataset_holder.py: the quoted argument spans the line the TODO goes on
    source = ("import paddle.fluid as fluid\n\n\ndef make(config):\n"
              "    return fluid.DatasetFactory().create_dataset(config[\n        'dataset_type'])\n")
    once = refactors.upgrade_code(source).code
    assert "`datafeed_class=config[ 'dataset_type']` is not a literal" in once
    assert refactors.upgrade_code(once).code == once


def test_a_clip_that_cannot_move_keeps_its_rule_and_a_second_run_changes_nothing() -> None:
    # PaddleNLP ACL2018-DAM (release/1.6): a second optimizer step in the module, which 1.8 clipped too,
    # so the clip cannot become one optimizer's grad_clip=; the call keeps 1.8's rule
    source = ("import paddle.fluid as fluid\n\n\ndef train(loss, other):\n"
              "    fluid.clip.set_gradient_clip(clip=fluid.clip.GradientClipByValue(max=1.0, min=-1.0))\n"
              "    test_program = fluid.default_main_program().clone(for_test=True)\n"
              "    optimizer = fluid.optimizer.Adam(learning_rate=0.1)\n    optimizer.minimize(loss)\n"
              "    fluid.optimizer.SGD(learning_rate=0.1).minimize(other)\n")
    result = refactors.upgrade_code(source)
    assert "    paddle.nn.clip.set_gradient_clip(clip=paddle.nn.ClipGradByValue(max=1.0, min=-1.0))\n" in result.code
    assert "grad_clip" not in result.code and "fluid" not in result.code
    assert any("another optimizer step in the module" in f.message for f in result.findings)
    assert refactors.upgrade_code(result.code).code == result.code
