"""A table warning is reported only where the use site does not show that it is beside the point
(refactors.warning_evidence): one list of uses it must stay silent about, one it must report, each
case with the reason as its id."""
from __future__ import annotations

from pathlib import Path

import pytest

import refactors
from refactors.findings import API_WARNING
from refactors.warning_evidence import CHECKS
from upgrade_tool.pipeline import upgrade_text

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import numpy as np\nimport paddle.fluid as fluid\nfrom paddle.fluid.dygraph import to_variable\n\n"


def warned(body: str, api: str, shim: bool = True) -> int:
    """How many times the upgrade of HEAD + body warns about `api` (through the CLI's own path)."""
    findings = upgrade_text(HEAD + body, shim=shim).findings
    return sum(1 for f in findings if f.code == API_WARNING and f.api == api)


TO_VARIABLE = "paddle.fluid.dygraph.to_variable"
SILENT = [
    pytest.param("x = to_variable(np.ones([2], dtype='float32'))\n", TO_VARIABLE, id="numpy-constructor"),
    pytest.param("x = to_variable(value=np.float32(2))\n", TO_VARIABLE, id="numpy-by-keyword"),
    pytest.param("x = to_variable([[1, 2], [3, 4]])\n", TO_VARIABLE, id="list-literal"),
    pytest.param("def f(t):\n    return to_variable(t.numpy() > 0)\n", TO_VARIABLE, id="tensor-numpy-compared"),
    pytest.param("a = np.zeros([3])\nx = to_variable(a.astype('int64').reshape([3, 1]))\n", TO_VARIABLE,
                 id="array-methods"),
    pytest.param("def f(d):\n    a = np.array(d)\n    a = to_variable(a)\n    return a\n", TO_VARIABLE,
                 id="name-rebound-to-its-own-tensor"),
    pytest.param("def f(d, k):\n    a = np.array(d) if k else [0]\n    return to_variable(a)\n", TO_VARIABLE,
                 id="conditional-numpy"),
    pytest.param("exe = fluid.Executor(fluid.CPUPlace())\nloss = fluid.layers.mean(x)\n", "paddle.fluid.Executor",
                 id="executor-whose-reductions-the-upgrade-follows"),
    pytest.param("y = fluid.layers.conv2d(x, 4, 3)\n", "paddle.fluid.layers.conv2d",
                 id="legacy-ir-selected-by-runtime_shim.enable_static"),
    pytest.param("prog = fluid.CompiledProgram(main)\n", "paddle.fluid.CompiledProgram", id="not-data-parallel"),
    pytest.param("y = fluid.layers.cast(x, fluid.core.VarDesc.VarType.FP32)\n", "paddle.fluid.core.VarDesc",
                 id="dtype-passed-on"),
    pytest.param("y = fluid.layers.gather(x, i, overwrite=False)\n", "paddle.fluid.layers.gather",
                 id="gather-as-2x-already"),
    pytest.param("y = fluid.layers.resize_nearest(x, scale=2.0, align_corners=False)\n",
                 "paddle.fluid.layers.resize_nearest", id="resize-as-2x-already"),
    pytest.param("t = fluid.LoDTensor()\nt.set(a, fluid.CPUPlace())\n", "paddle.fluid.LoDTensor", id="lod-never-set"),
    pytest.param("i = fluid.initializer.TruncatedNormal(loc=0.0, scale=1.0)\n", "paddle.fluid.initializer.TruncatedNormal",
                 id="truncated-at-the-same-bounds"),
]
REPORTED = [
    pytest.param("h = fluid.layers.fc(x, 4)\ny = to_variable(h)\n", TO_VARIABLE, id="name-bound-to-a-layer-output"),
    pytest.param("def f(x):\n    return to_variable(x)\n", TO_VARIABLE, id="parameter-cannot-tell"),
    pytest.param("exe = fluid.Executor(fluid.CPUPlace())\nd = fluid.layers.dot(x, y)\n", "paddle.fluid.Executor",
                 id="executor-with-a-0-d-result"),
    pytest.param("prog = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name)\n",
                 "paddle.fluid.CompiledProgram", id="data-parallel-chained"),
    pytest.param("if x.dtype == fluid.core.VarDesc.VarType.FP32:\n    pass\n", "paddle.fluid.core.VarDesc",
                 id="dtype-compared"),
    pytest.param("y = fluid.layers.gather(x, i)\n", "paddle.fluid.layers.gather", id="gather-default-overwrite"),
    pytest.param("y = fluid.layers.gather(x, i, overwrite=flag)\n", "paddle.fluid.layers.gather",
                 id="gather-overwrite-not-a-literal"),
    pytest.param("t = fluid.LoDTensor()\nt.set_recursive_sequence_lengths([[2, 3]])\n", "paddle.fluid.LoDTensor",
                 id="lod-set"),
    pytest.param("m = fluid.metrics.Auc('ROC')\nprint(m.eval())\n", "paddle.fluid.metrics.Auc", id="metric-eval"),
    pytest.param("i = fluid.initializer.TruncatedNormal(scale=0.02)\n", "paddle.fluid.initializer.TruncatedNormal",
                 id="truncated-at-other-bounds"),
]


@pytest.mark.parametrize("body, api, count", [
    pytest.param("y = fluid.layers.conv2d(x, 4, 3)\n", "paddle.fluid.layers.conv2d", 1, id="conv2d"),
    pytest.param("main = fluid.Program()\nstartup = fluid.Program()\ntest = main.clone(for_test=True)\n",
                 "paddle.fluid.Program", 1, id="program-cloned-for-test-not-its-startup"),
    pytest.param("test = build(fluid.Program())\nother = prog.clone(for_test=True)\n", "paddle.fluid.Program", 1,
                 id="program-passed-on-in-a-file-that-clones"),
    pytest.param("main = fluid.Program()\nstartup = fluid.Program()\n", "paddle.fluid.Program", 0,
                 id="program-never-cloned"),
    pytest.param("main = fluid.Program()\ntest = main.clone()\n", "paddle.fluid.Program", 0,
                 id="program-cloned-without-for_test"),
])
def test_a_legacy_ir_warning_holds_only_in_pure_2x_output(body: str, api: str, count: int) -> None:
    """By default a static file calls runtime_shim.enable_static(), the legacy IR; with --no-shim it calls
    paddle.enable_static(), Paddle 3's default PIR graph, which these warnings are about."""
    assert warned(body, api, shim=False) == count
    assert warned(body, api) == 0


@pytest.mark.parametrize("body, api", SILENT)
def test_no_warning_where_the_use_shows_it_is_beside_the_point(body: str, api: str) -> None:
    assert warned(body, api) == 0


@pytest.mark.parametrize("body, api", REPORTED)
def test_warning_where_the_use_needs_it_or_cannot_tell(body: str, api: str) -> None:
    assert warned(body, api) == 1


def test_the_example_project_upgrades_without_warnings() -> None:
    """fixtures/example: to_variable of a NumPy array, and an Executor fetching a loss whose reads the
    upgrade follows."""
    for name in ("model.py", "train.py"):
        findings = upgrade_text((ROOT / "fixtures" / "example" / name).read_text()).findings
        assert [f for f in findings if f.severity != "info"] == []


def test_every_check_the_table_names_is_registered() -> None:
    named = {name for entry in refactors.table().entries.values() for name in entry.warning_when}
    assert named and named <= set(CHECKS)


def test_a_program_made_data_parallel_through_its_name_is_left_to_the_shim() -> None:
    """paddle.static.CompiledProgram has no with_data_parallel on Paddle 3: converting the constructor
    alone would break the later call, so the use is left (runtime_shim's CompiledProgram keeps the method)."""
    findings = upgrade_text(HEAD + "prog = fluid.CompiledProgram(main)\nprog = prog.with_data_parallel(loss_name=n)\n"
                            ).findings
    codes = [f.code for f in findings if f.api == "paddle.fluid.CompiledProgram"]
    assert codes == ["needs-review"], codes
