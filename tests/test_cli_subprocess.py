"""The installed console script and `python -m upgrade_tool`, run as real processes: exit codes,
a piped diff that `git apply` accepts byte for byte, the per-file confirm on a real terminal, and the
pre-commit hook's command line."""
from __future__ import annotations

import os
import pty
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "fixtures" / "example"
IO = REPO / "fixtures" / "io"


def _script() -> str:
    path = shutil.which("paddle-upgrade")
    assert path, "the console script is not installed: run `pip install -e .` (or the README's install line)"
    return path


def _env(home: Path):
    env = dict(os.environ)
    env["HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("FORCE_COLOR", None)
    return env


@pytest.fixture
def work(tmp_path):
    (tmp_path / "home").mkdir()
    shutil.copytree(EXAMPLE, tmp_path / "proj")
    io = tmp_path / "io"
    io.mkdir()
    for path in IO.glob("*.in.*"):  # the byte-exact cases: CRLF, CR, BOM, latin-1, no final newline...
        shutil.copy(path, io / path.name.replace(".in.", "."))
    return tmp_path


COMMANDS = {"console script": lambda: [_script()], "python -m": lambda: [sys.executable, "-m", "upgrade_tool"]}


@pytest.fixture(params=sorted(COMMANDS))
def command(request):
    return COMMANDS[request.param]()


def call(command, work: Path, *args, cwd=None, **kwargs):
    return subprocess.run([*command, *map(str, args)], cwd=cwd or work, env=_env(work / "home"),
                          capture_output=True, timeout=120, **kwargs)


def test_exit_codes_of_the_real_process(command, work):
    assert call(command, work, "--version").returncode == 0
    assert call(command, work, "-i", "proj").returncode == 0
    assert call(command, work, "-i", "proj", "--check").returncode == 1
    missing = call(command, work, "-i", "nope")
    assert missing.returncode == 2 and b"nope: no such file or directory" in missing.stderr
    assert call(command, work, "--bogus").returncode == 2
    blocked = call(command, work, "-i", "proj", "--write", stdin=subprocess.DEVNULL)
    assert blocked.returncode == 2 and b"--no-confirm" in blocked.stderr
    assert (work / "proj" / "model.py").read_bytes() == (EXAMPLE / "model.py").read_bytes()


def test_piped_diff_applies_with_git_apply(command, work):
    expected_dir = work / "expected"
    assert call(command, work, "-i", "proj", "-i", "io", "--outpath", expected_dir).returncode == 0
    with open(work / "fix.patch", "wb") as patch:
        done = subprocess.run([*command, "-i", "proj", "-i", "io"], cwd=work, env=_env(work / "home"),
                              stdout=patch, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"\x1b[" not in (work / "fix.patch").read_bytes()  # plain when piped
    applied = subprocess.run(["git", "apply", "fix.patch"], cwd=work, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    for folder in ("proj", "io"):
        for path in (work / folder).iterdir():
            assert path.read_bytes() == (expected_dir / folder / path.name).read_bytes(), path.name


def test_piped_diff_applies_from_a_subfolder_of_a_git_repository(work):
    repo = work / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.move(str(work / "proj"), str(repo / "sub" / "proj"))
    before = {p.name: p.read_bytes() for p in (repo / "sub" / "proj").iterdir()}
    with open(repo / "sub" / "fix.patch", "wb") as patch:
        done = subprocess.run([_script(), "-i", "proj", "--no-log-file"], cwd=repo / "sub",
                              env=_env(work / "home"), stdout=patch, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 0, done.stderr
    applied = subprocess.run(["git", "apply", "fix.patch"], cwd=repo / "sub", capture_output=True)
    assert applied.returncode == 0, applied.stderr
    after = {p.name: p.read_bytes() for p in (repo / "sub" / "proj").iterdir()}
    assert after["model.py"] != before["model.py"] and b"paddle.nn.Linear" in after["model.py"]
    assert after["utils.py"] == before["utils.py"]


def test_per_file_confirm_on_a_real_terminal(work):
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([_script(), "-i", "proj", "--write", "-b", str(work / "bk"), "--no-log-file"],
                                cwd=work, env=_env(work / "home"), stdin=slave, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        os.write(master, b"n\ny\n")
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0, err
    assert err.count(b"Write proj/") == 2
    assert (work / "proj" / "model.py").read_bytes() == (EXAMPLE / "model.py").read_bytes()  # "n"
    assert b"paddle.static.data" in (work / "proj" / "train.py").read_bytes()  # "y"


def test_pre_commit_hook_entries_run_with_file_names_appended(work):
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"paddle-upgrade-check", "paddle-upgrade"}
    files = ["proj/model.py", "proj/utils.py"]
    check = subprocess.run(shlex.split(hooks["paddle-upgrade-check"]["entry"]) + files, cwd=work,
                           env=_env(work / "home"), capture_output=True, timeout=120)
    assert check.returncode == 1  # model.py still uses paddle.fluid
    fix = subprocess.run(shlex.split(hooks["paddle-upgrade"]["entry"]) + files, cwd=work,
                         env=_env(work / "home"), capture_output=True, timeout=120)
    assert fix.returncode == 0, fix.stderr
    again = subprocess.run(shlex.split(hooks["paddle-upgrade-check"]["entry"]) + files, cwd=work,
                           env=_env(work / "home"), capture_output=True, timeout=120)
    assert again.returncode == 0, again.stdout
    assert not (work / "report.log").exists()
