"""What the console (stderr) shows, and what -q, -v, -vv and --log-level change.

A warning about a legacy API use appears once per API with its count at the end of the run, each use
(file:line) being in the log; -v lists each use as it comes, -vv every finding; -q leaves only
errors. --log-level filters the log file alone.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.test_cli import LOG_LINE, run, sandbox  # noqa: F401  (sandbox: the autouse fixture)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WARNED = "import paddle.fluid as fluid\n\n\ndef f(x, i):\n    return fluid.layers.gather(x, i)\n"


@pytest.fixture
def project(sandbox) -> Path:  # noqa: F811
    dest = sandbox / "work" / "proj"
    dest.mkdir()
    shutil.copy(FIXTURES / "api_rename" / "numpy_arguments.in.py", dest / "numpy_arguments.py")
    (dest / "a.py").write_text(WARNED)
    (dest / "b.py").write_text(WARNED + WARNED.replace("def f", "def g").split("\n\n\n", 1)[1])
    return dest


def warning_lines(text: str):
    return [line for line in text.splitlines() if "WARNING" in line]


def test_numpy_arguments_give_no_warning_and_each_api_one_line(project):
    result = run("-i", project)
    assert result.exit_code == 0, result.stderr
    assert warning_lines(result.stderr) == [
        "WARNING 3 uses of paddle.fluid.layers.gather (api-warning): 1.8's default overwrite=True overwrites "
        "the gradient of duplicated indices; 2.x accumulates it (1.8 overwrite=False). Forward results are "
        "identical.",
        "WARNING 1 use of paddle.fluid.dygraph.to_variable (api-warning): to_variable(x) returned x itself when "
        "x was already a Variable (dygraph/base.py:643-645); paddle.to_tensor(x) returns a copy with "
        "stop_gradient=True, cutting the gradient path."]
    assert "(each use is in report.log)" in result.stderr
    logged = [line for line in Path("report.log").read_text().splitlines() if " WARNING " in line]
    assert sorted(line.split(" ")[0] for line in logged) == [
        "proj/a.py:5", "proj/b.py:5", "proj/b.py:7", "proj/numpy_arguments.py:19"]


def test_verbose_lists_each_use_and_very_verbose_every_finding(project):
    verbose = run("-i", project, "-v", "--no-log-file")
    assert sorted(line.split(" ")[0] for line in warning_lines(verbose.stderr)) == [
        "proj/a.py:5", "proj/b.py:5", "proj/b.py:7", "proj/numpy_arguments.py:19"]
    assert " INFO " not in verbose.stderr
    very = run("-i", project, "-vv", "--no-log-file")
    assert re.search(r"^proj/numpy_arguments\.py:12 INFO paddle\.fluid\.dygraph\.to_variable -> paddle\.to_tensor$",
                     very.stderr, re.M)


def test_quiet_shows_only_errors(project):
    quiet = run("-i", project, "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert quiet.stdout  # the diff is the output, not a message
    (project / "broken.py").write_text("import paddle.fluid as fluid\nx = (1 2)\n")
    failed = run("-i", project, "-q")
    assert failed.exit_code == 1
    assert failed.stderr == "proj/broken.py:2 ERROR syntax error at line 2: invalid syntax. Perhaps you forgot a comma?\n"


@pytest.mark.parametrize("level", ["DEBUG", "INFO", "WARNING", "ERROR"])
def test_log_level_filters_the_log_and_not_the_console(project, level):
    default = run("-i", project, "--no-log-file")
    leveled = run("-i", project, "--log-level", level)
    strip = re.compile(r"^(log: |done in ).*\n", re.M)
    assert strip.sub("", leveled.stderr).replace(" (each use is in report.log)", " (-v lists each use)") \
        == strip.sub("", default.stderr)
    levels = {LOG_LINE.match(line).group(1) for line in Path("report.log").read_text().splitlines()[:-1]}
    assert levels <= {"DEBUG": {"DEBUG", "INFO", "WARNING"}, "INFO": {"INFO", "WARNING"},
                      "WARNING": {"WARNING"}, "ERROR": set()}[level]


def test_the_run_ends_with_its_labelled_duration(project):
    assert re.search(r"\ndone in \d+\.\ds\n$", run("-i", project).stderr)


FLEET = "paddle.fluid.incubate.fleet.parameter_server.distribute_transpiler.distributed_strategy.StrategyFactory"


def test_a_piped_table_writes_each_api_name_whole(sandbox):  # noqa: F811
    """Not on a terminal, the table of APIs left is as wide as its longest name (rich cuts at 80 columns)."""
    script = sandbox / "work" / "fleet.py"
    call = FLEET.replace("paddle.fluid", "fluid") + ".create_sync_strategy()"
    script.write_text(f"import paddle.fluid as fluid\n\nstrategy = {call}\n")
    result = run("-i", script, "--no-log-file")
    assert len(FLEET) > 100
    [row] = [line for line in result.stderr.splitlines() if "StrategyFactory" in line and "│" in line]
    assert f"│ {FLEET} │" in row


def test_a_method_of_an_object_of_unknown_kind_is_counted_with_its_api(sandbox):  # noqa: F811
    """`net.set_dict(d)` (net's kind not shown) is reported once per use in the log, once per API on the console."""
    src = sandbox / "work" / "src"
    src.mkdir()
    for name in ("a", "b"):
        (src / f"{name}.py").write_text("import paddle.fluid as fluid\n\n\ndef load(net, d):\n    net.set_dict(d)\n")
    result = run("-i", src)
    assert [line for line in warning_lines(result.stderr) if "set_dict" in line] == [
        "WARNING 2 uses of paddle.fluid.dygraph.layers.Layer.set_dict (needs-review): .set_dict() of an object whose "
        "kind is not known here: if it is a 1.8 Layer or Optimizer, write .set_state_dict(...)"]
    logged = [line.split(" ")[0] for line in Path("report.log").read_text().splitlines() if " WARNING " in line]
    assert logged == ["src/a.py:5", "src/b.py:5"]
