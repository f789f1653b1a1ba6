"""The `paddle-upgrade` command through click's runner: every flag and every exit code.

Each test runs in its own temporary directory with HOME pointed there too, so report.log and the
default backup folder never land in the real home or the repository.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import refactors
from upgrade_tool import backup, cli, runner

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example"
LEGACY = "import paddle.fluid as fluid\n\n\ndef f(x):\n    return fluid.layers.relu(x)\n"
LOG_LINE = re.compile(r"^\S+:\d+ (DEBUG|INFO|WARNING|ERROR) .+$")


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()


@pytest.fixture(autouse=True)
def sandbox(tmp_path, monkeypatch):
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    return tmp_path


@pytest.fixture
def project(sandbox) -> Path:
    dest = sandbox / "work" / "proj"
    shutil.copytree(EXAMPLE, dest)
    return dest


def run(*args, input=None):
    return _runner().invoke(cli.main, [str(a) for a in args], input=input, catch_exceptions=False)


def snapshot(root: Path):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- preview ------------------------------------------------------------------------------------------

def test_preview_prints_a_diff_and_writes_nothing(project):
    before = snapshot(project)
    result = run("-i", project)
    assert result.exit_code == 0, result.stderr
    assert "--- a/proj/model.py\n+++ b/proj/model.py\n" in result.stdout
    assert "+import paddle\n" in result.stdout
    assert "utils.py" not in result.stdout  # no paddle: no diff
    assert snapshot(project) == before
    assert "preview only" in result.stderr
    assert "files scanned" in result.stderr and "conversion rate" in result.stderr


def test_stdout_carries_only_the_diff(project):
    result = run("-i", project, "--print-match")
    lines = result.stdout.splitlines()
    assert lines and all(re.match(r"^(--- a/|\+\+\+ b/|@@ |[ +\-\\])", line) or line == "" for line in lines)


def test_positional_paths_work_like_inpath(project):
    by_flag = run("-i", project / "model.py", "-i", project / "train.py")
    by_args = run(project / "model.py", project / "train.py")
    assert by_flag.exit_code == by_args.exit_code == 0
    assert by_flag.stdout == by_args.stdout != ""


# -- exit codes ---------------------------------------------------------------------------------------

def test_check_exits_1_when_a_file_would_change_and_writes_nothing(project):
    before = snapshot(project)
    result = run("-i", project, "--check")
    assert result.exit_code == 1
    assert snapshot(project) == before
    assert "2 file(s) would be changed" in result.stderr


def test_check_exits_0_when_nothing_would_change(project):
    result = run("-i", project / "utils.py", "--check")
    assert result.exit_code == 0, result.stderr
    assert "nothing to change" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--no-such-flag"], "No such option"),
    (["-i", "missing_dir"], "missing_dir: no such file or directory"),
    ([], "no input"),
    (["-i", ".", "--write", "--check"], "cannot be combined"),
    (["-i", ".", "--write", "--outpath", "out"], "cannot be combined"),
    (["-i", ".", "--check", "--outpath", "out"], "cannot be combined"),
    (["-i", ".", "--outpath", "."], "must be another folder"),
    (["-i", ".", "-r", "not_a_refactor"], "not_a_refactor"),
    (["-i", ".", "-p", "-1"], "-1"),
    (["-i", ".", "--log-level", "LOUD"], "LOUD"),
    (["-i", ".", "-q", "-v"], "contradict"),
    (["--restore", ".", "-i", "."], "--restore takes only"),
])
def test_usage_errors_exit_2(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_failed_file_makes_exit_1_and_the_run_goes_on(project):
    (project / "broken.py").write_text("import paddle.fluid as fluid\nx = (1 2)\n")
    result = run("-i", project, "--write", "--no-confirm", "-b", project.parent / "bk")
    assert result.exit_code == 1
    assert "broken.py:2 ERROR syntax error at line 2" in result.stderr
    assert "paddle.nn.Linear" in (project / "model.py").read_text()  # the others were written
    assert (project / "broken.py").read_text() == "import paddle.fluid as fluid\nx = (1 2)\n"


def test_version_and_help():
    assert re.search(r"paddle-upgrade, version \S+", run("--version").stdout)
    helptext = run("--help").stdout
    for flag in ("--inpath", "--write", "--backup", "--no-confirm", "--parallel", "--log-level", "--no-log-file",
                 "--log-filepath", "--refactor", "--print-match", "--check", "--outpath", "--report-json",
                 "--restore", "--exclude", "--max-file-size", "--mode"):
        assert flag in helptext
    for name in refactors.NAMES:
        assert name in helptext


# -- write, confirm, backup, restore -------------------------------------------------------------------

def test_write_without_a_terminal_says_how_to_proceed_and_exits_2(project):
    before = snapshot(project)
    result = run("-i", project, "--write")
    assert result.exit_code == 2
    assert "--no-confirm" in result.stderr and "standard input is not a terminal" in result.stderr
    assert snapshot(project) == before


def test_write_no_confirm_backs_up_then_restore_puts_everything_back(project, sandbox):
    before = snapshot(project)
    result = run("-i", project, "--write", "--no-confirm", "-b", sandbox / "bk")
    assert result.exit_code == 0, result.stderr
    after = snapshot(project)
    assert after["model.py"] != before["model.py"] and after["utils.py"] == before["utils.py"]
    [run_dir] = backup.runs(str(sandbox / "bk"))
    assert Path(run_dir, "files", "model.py").read_bytes() == before["model.py"]
    assert Path(run_dir, "files", "train.py").read_bytes() == before["train.py"]
    assert not Path(run_dir, "files", "utils.py").exists()  # unchanged files are not backed up
    header, entries, complete = backup.read_manifest(run_dir)
    assert complete and sorted(e["rel"] for e in entries) == ["model.py", "train.py"]
    assert f"--restore {run_dir}" in result.stderr

    restored = run("--restore", run_dir)
    assert restored.exit_code == 0, restored.stderr
    assert snapshot(project) == before
    assert restored.stderr.splitlines() == [f"{project / 'model.py'}: restored", f"{project / 'train.py'}: restored",
                                            "2 restored"]
    (project / "train.py").unlink()
    again = run("--restore", run_dir)
    assert again.stderr.splitlines() == [f"{project / 'model.py'}: unchanged (already original)",
                                         f"{project / 'train.py'}: restored (it was missing)",
                                         "1 restored, 1 unchanged"]


def test_backup_flag_without_value_uses_home(project, sandbox):
    result = run("-i", project, "--write", "--no-confirm", "-b")
    assert result.exit_code == 0, result.stderr
    assert len(backup.runs(str(sandbox / "home" / ".paddle_upgrade_tool"))) == 1


def test_backup_default_is_home_without_the_flag(project, sandbox):
    result = run("-i", project, "--write", "--no-confirm")
    assert result.exit_code == 0, result.stderr
    assert len(backup.runs(str(sandbox / "home" / ".paddle_upgrade_tool"))) == 1


def test_backup_mirrors_relative_paths(sandbox):
    root = sandbox / "work" / "deep"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "m.py").write_text(LEGACY)
    result = run("-i", root, "--write", "--no-confirm", "-b", sandbox / "bk")
    assert result.exit_code == 0, result.stderr
    [run_dir] = backup.runs(str(sandbox / "bk"))
    assert Path(run_dir, "files", "a", "b", "m.py").read_text() == LEGACY


def test_restore_of_a_backup_root_asks_for_one_run(project, sandbox):
    run("-i", project, "--write", "--no-confirm", "-b", sandbox / "bk")
    result = run("--restore", sandbox / "bk")
    assert result.exit_code == 2
    assert "pass one of them" in result.stderr


def test_restore_of_a_folder_that_is_not_a_backup_exits_2(sandbox):
    result = run("--restore", sandbox / "work")
    assert result.exit_code == 2 and "not a paddle-upgrade backup run" in result.stderr


def test_restore_leaves_files_edited_since_and_exits_1(project, sandbox):
    run("-i", project, "--write", "--no-confirm", "-b", sandbox / "bk")
    (project / "model.py").write_text("# edited by hand after the upgrade\n")
    [run_dir] = backup.runs(str(sandbox / "bk"))
    result = run("--restore", run_dir)
    assert result.exit_code == 1
    assert (project / "model.py").read_text() == "# edited by hand after the upgrade\n"
    assert "changed since the upgrade" in result.stderr


@pytest.fixture
def terminal(monkeypatch):
    monkeypatch.setattr(cli, "_stdin_is_terminal", lambda: True)


def test_confirm_yes_then_no(project, sandbox, terminal):
    before = snapshot(project)
    result = run("-i", project, "--write", "-b", sandbox / "bk", input="y\nn\n")
    assert result.exit_code == 0, result.stderr
    after = snapshot(project)
    assert after["model.py"] != before["model.py"]  # first file: yes
    assert after["train.py"] == before["train.py"]  # second file: no
    assert result.stderr.count("Write proj/") == 2


def test_confirm_all_writes_the_rest_without_asking(project, sandbox, terminal):
    before = snapshot(project)
    result = run("-i", project, "--write", "-b", sandbox / "bk", input="a\n")
    assert result.exit_code == 0
    after = snapshot(project)
    assert after["model.py"] != before["model.py"] and after["train.py"] != before["train.py"]
    assert result.stderr.count("Write proj/") == 1


def test_confirm_quit_stops_writing(project, sandbox, terminal):
    before = snapshot(project)
    result = run("-i", project, "--write", "-b", sandbox / "bk", input="q\n")
    assert result.exit_code == 0
    assert snapshot(project) == before
    assert backup.runs(str(sandbox / "bk")) == []  # nothing written: no backup run either


def test_confirm_end_of_input_counts_as_quit(project, sandbox, terminal):
    before = snapshot(project)
    result = run("-i", project, "--write", "-b", sandbox / "bk", input="")
    assert result.exit_code == 0
    assert snapshot(project) == before


# -- outpath, report-json, logs --------------------------------------------------------------------------

def test_outpath_writes_the_upgraded_tree_and_leaves_the_input(project, sandbox):
    before = snapshot(project)
    out = sandbox / "upgraded"
    result = run("-i", project, "--outpath", out)
    assert result.exit_code == 0, result.stderr
    assert snapshot(project) == before
    written = snapshot(out)
    assert sorted(written) == ["model.py", "train.py", "utils.py"]
    assert written["utils.py"] == before["utils.py"]
    assert b"paddle.nn.Linear" in written["model.py"]
    assert "--- a/proj/model.py" in result.stdout  # the diff is shown in every mode


def test_outpath_inside_the_input_is_not_scanned(project):
    run("-i", project, "--outpath", project / "out")
    second = run("-i", project, "--outpath", project / "out")
    assert "out/" not in second.stderr.replace("--outpath", "")
    assert sorted(snapshot(project / "out")) == ["model.py", "train.py", "utils.py"]


def test_report_json_holds_the_same_findings_as_report_log(project, sandbox):
    result = run("-i", project, "--report-json", sandbox / "r.json", "--log-level", "INFO")
    assert result.exit_code == 0
    data = json.loads((sandbox / "r.json").read_text())
    log_lines = Path("report.log").read_text().splitlines()
    finding_lines = [f"{f['file']}:{f['line']} {f['severity'].upper()} {f['message']}" for f in data["findings"]]
    assert finding_lines == log_lines[:-1]  # report.log ends with the summary line
    assert log_lines[-1].startswith("summary: 3 files scanned, 2 changed, 1 unchanged, 0 failed")
    assert data["summary"]["files"]["scanned"] == 3 and data["summary"]["files"]["changed"] == 2
    sites = data["summary"]["sites"]
    assert sites["found"] == sites["converted"] + sites["left"] and sites["found"] > 0
    assert {f["path"] for f in data["files"]} == {"proj/model.py", "proj/train.py", "proj/utils.py"}
    assert set(data["findings"][0]) == {"file", "line", "col", "code", "severity", "message", "fixed", "api"}


def test_report_log_format_and_default_location(project):
    run("-i", project)
    lines = Path("report.log").read_text().splitlines()
    assert lines and all(LOG_LINE.match(line) for line in lines[:-1])


@pytest.mark.parametrize("level, allowed", [("WARNING", {"WARNING", "ERROR"}), ("error", {"ERROR"}),
                                            ("DEBUG", {"DEBUG", "INFO", "WARNING", "ERROR"})])
def test_log_level_filters_report_log(project, level, allowed):
    (project / "broken.py").write_text("import paddle.fluid as fluid\nx = (1 2)\n")
    run("-i", project, "--log-level", level)
    levels = {LOG_LINE.match(line).group(1) for line in Path("report.log").read_text().splitlines()[:-1]}
    assert levels and levels <= allowed
    if level == "DEBUG":
        assert "DEBUG" in levels


def test_no_log_file(project):
    result = run("-i", project, "--no-log-file")
    assert result.exit_code == 0 and not Path("report.log").exists()


def test_log_filepath(project, sandbox):
    run("-i", project, "--log-filepath", sandbox / "logs" / "up.log")
    assert not Path("report.log").exists()
    assert LOG_LINE.match((sandbox / "logs" / "up.log").read_text().splitlines()[0])




# -- discovery flags -------------------------------------------------------------------------------------

def test_exclude_and_default_skips(project):
    for folder in (".hidden", "__pycache__", "venv", "lib/site-packages", "generated"):
        (project / folder).mkdir(parents=True)
        (project / folder / "m.py").write_text(LEGACY)
    (project / "venv" / "pyvenv.cfg").write_text("home = /usr\n")
    result = run("-i", project, "--exclude", "generated", "--exclude", "train.py", "--report-json", "r.json")
    assert result.exit_code == 0
    assert "proj/model.py" in result.stdout
    for hidden in (".hidden", "__pycache__", "venv", "site-packages", "generated", "train.py"):
        assert hidden not in result.stdout
    scanned = [f["path"] for f in json.loads(Path("r.json").read_text())["files"]]
    assert scanned == ["proj/model.py", "proj/utils.py"]


def test_exclude_glob_on_relative_path(project):
    (project / "sub").mkdir()
    (project / "sub" / "gen_pb2.py").write_text(LEGACY)
    (project / "sub" / "keep.py").write_text(LEGACY)
    result = run("-i", project, "--exclude", "sub/*_pb2.py")
    assert "sub/keep.py" in result.stdout and "gen_pb2" not in result.stdout


# -- refactor selection, print-match, parallel, color ----------------------------------------------------

def test_refactor_option_runs_only_the_named_steps(project):
    full = run("-i", project / "model.py", "--no-log-file")
    only_import = run("-i", project / "model.py", "--no-log-file", "-r", "refactor_import")
    assert full.stdout != only_import.stdout
    assert "paddle.nn.Linear" in full.stdout
    assert "+        self.fc2 = paddle.nn.Linear" not in only_import.stdout


def test_print_match_lists_each_site_with_refactors_and_code(project):
    result = run("-i", project / "model.py", "--print-match", "--no-log-file")
    matches = [line for line in result.stderr.splitlines() if "[refactor_import" in line]
    assert matches
    for line in matches:
        assert re.match(r"^proj/model\.py:\d+:\d+ \[refactor_import( > \w+)*\] paddle\.fluid\.\S+ \([a-z-]+\) .+$",
                        line), line
    assert any("fluid.layers.relu" in line and "(converted)" in line for line in matches)


def test_parallel_output_is_identical_for_any_n(sandbox):
    root = sandbox / "work" / "many"
    root.mkdir()
    for i in range(12):
        body = LEGACY if i % 3 else "import os\n"
        if i == 5:
            body = "import paddle.fluid as fluid\nx = (1 2)\n"
        (root / f"m{i:02d}.py").write_text(body + f"# file {i}\n")
    outputs = []
    for n in ("1", "2", "3", "default"):
        flag = [] if n == "default" else ["-p", n]
        result = run("-i", root, *flag, "--report-json", sandbox / f"r{n}.json", "--log-filepath",
                     sandbox / f"log{n}")
        assert result.exit_code == 1  # m05 fails to parse
        findings = json.loads((sandbox / f"r{n}.json").read_text())["findings"]
        outputs.append((result.stdout, (sandbox / f"log{n}").read_text(), findings))
    assert outputs[1:] == [outputs[0]] * 3
    assert outputs[0][0].index("m01.py") < outputs[0][0].index("m02.py") < outputs[0][0].index("m11.py")


@pytest.mark.parametrize("requested, jobs, cpus, expected", [
    pytest.param(0, 12, 4, 4, id="0 (default): one worker per CPU"),
    pytest.param(0, 3, 4, 3, id="0: no more workers than files"),
    pytest.param(0, 1, 4, 1, id="0: one file in this process"),
    pytest.param(0, 12, 1, 1, id="0: one CPU, this process"),
    pytest.param(2, 0, 4, 1, id="no file"),
    pytest.param(1, 12, 4, 1, id="1: this process"),
    pytest.param(3, 12, 4, 3, id="N as asked"),
])
def test_workers(monkeypatch, requested, jobs, cpus, expected):
    monkeypatch.setattr(runner.os, "cpu_count", lambda: cpus)
    assert runner.workers(requested, jobs) == expected


def test_color_forced_on_and_off(project):
    colored = run("-i", project / "model.py", "--color", "--no-log-file")
    plain = run("-i", project / "model.py", "--no-color", "--no-log-file")
    assert "\x1b[" in colored.stdout and "\x1b[" not in plain.stdout
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored.stdout) == plain.stdout


def test_no_python_files_found(sandbox):
    (sandbox / "work" / "empty").mkdir()
    result = run("-i", sandbox / "work" / "empty")
    assert result.exit_code == 0 and "no Python files" in result.stderr


# -- --mode shim ---------------------------------------------------------------------------------------

def test_mode_shim_only_inserts_the_activation(project, sandbox):
    from upgrade_tool.shim_mode import ACTIVATION

    before = snapshot(project)
    result = run("-i", project, "--mode", "shim", "--write", "--no-confirm", "-b", sandbox / "bk")
    assert result.exit_code == 0, result.stderr
    after = snapshot(project)
    for name in ("model.py", "train.py"):
        added = [line for line in after[name].decode().splitlines() if line not in before[name].decode().splitlines()]
        assert added == [ACTIVATION]
    assert after["utils.py"] == before["utils.py"]
    assert "shim" in Path("report.log").read_text()
    assert run("-i", project, "--mode", "shim", "--check").exit_code == 0  # idempotent


def test_mode_shim_rejects_refactor_selection(project):
    result = run("-i", project, "--mode", "shim", "-r", "api_rename")
    assert result.exit_code == 2 and "--mode shim runs none" in result.stderr


def test_workers_run_this_checkout_when_it_was_put_on_sys_path_at_run_time(tmp_path):
    """CPython's forkserver preloads with its default sys.path: without care, the workers of a checkout
    added at run time (as pytest's `pythonpath` does) would run an installed copy of the code."""
    root = Path(runner.__file__).resolve().parent.parent
    script = (f"import inspect, sys\nsys.path.insert(0, {str(root)!r})\nfrom upgrade_tool import runner\n"
              "pool = runner._pool(1)\nprint(pool.submit(inspect.getsourcefile, runner.process).result())\n"
              "runner._shutdown(pool, wait=True)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(root / "upgrade_tool" / "runner.py")
