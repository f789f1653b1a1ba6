"""Inputs that must not lose anything: each gives a one-line message naming the file and the reason,
and the rest of the run goes on."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from upgrade_tool import backup, cli, runner

LEGACY = "import paddle.fluid as fluid\n\n\ndef f(x):\n    return fluid.layers.relu(x)\n"
UPGRADED_MARK = "paddle.nn.functional.relu"


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


@pytest.fixture(autouse=True)
def sandbox(tmp_path, monkeypatch):
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path


@pytest.fixture
def root(sandbox) -> Path:
    path = sandbox / "work" / "src"
    path.mkdir()
    (path / "good.py").write_text(LEGACY)
    return path


def run(*args):
    return _runner().invoke(cli.main, [str(a) for a in args], catch_exceptions=False)


def write_run(root: Path, sandbox: Path, *extra):
    return run("-i", root, "--write", "--no-confirm", "-b", sandbox / "bk", "--report-json", sandbox / "r.json",
               *extra)


def file_record(sandbox: Path, name: str):
    data = json.loads((sandbox / "r.json").read_text())
    [record] = [f for f in data["files"] if f["path"].endswith(name)]
    return record


def test_empty_and_blank_files(root, sandbox):
    (root / "empty.py").write_bytes(b"")
    (root / "blank.py").write_bytes(b"\n  \n")
    result = write_run(root, sandbox)
    assert result.exit_code == 0
    assert "src/empty.py:1 INFO" not in result.stderr  # info stays out of the console...
    log = Path("report.log").read_text()
    assert "src/empty.py:1 INFO empty file; nothing to upgrade" in log  # ...but is in the log
    assert "src/blank.py:1 INFO blank file; nothing to upgrade" in log
    assert (root / "empty.py").read_bytes() == b"" and (root / "blank.py").read_bytes() == b"\n  \n"
    assert UPGRADED_MARK in (root / "good.py").read_text()


def test_binary_file_named_py(root, sandbox):
    blob = b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256))
    (root / "blob.py").write_bytes(blob)
    result = write_run(root, sandbox)
    assert result.exit_code == 0  # skipped, not failed: it is not source
    assert "src/blob.py:1 WARNING binary content (NUL bytes): not Python source" in result.stderr
    assert (root / "blob.py").read_bytes() == blob
    assert file_record(sandbox, "blob.py")["status"] == "skipped"


def test_undecodable_bytes(root, sandbox):
    data = b"import paddle.fluid as fluid\nname = 'caf\xe9'\n"
    (root / "latin.py").write_bytes(data)
    result = write_run(root, sandbox)
    assert result.exit_code == 1
    assert "src/latin.py:1 ERROR cannot decode as utf-8, the default (no PEP 263 coding cookie) encoding" \
        in result.stderr
    assert (root / "latin.py").read_bytes() == data
    assert UPGRADED_MARK in (root / "good.py").read_text()


def test_unparseable_code_after_the_python2_pass(root, sandbox):
    data = "import paddle.fluid as fluid\nprint 'py2 is fine'\nx = fluid.layers.relu(y\n"
    (root / "bad.py").write_text(data)
    result = write_run(root, sandbox)
    assert result.exit_code == 1
    assert "src/bad.py:3 ERROR syntax error at line 3 (read as Python 2, which the file uses from line 2)" \
        in result.stderr
    assert (root / "bad.py").read_text() == data


def test_python2_syntax_is_converted(root, sandbox):
    (root / "py2.py").write_text("import paddle.fluid as fluid\nprint 'hi'\ny = fluid.layers.relu(x)\n")
    result = write_run(root, sandbox)
    assert result.exit_code == 0
    assert (root / "py2.py").read_text().splitlines()[1:] == ["print('hi')", "y = paddle.nn.functional.relu(x)"]
    assert file_record(sandbox, "py2.py")["python2_fixers"] == ["print"]


def test_read_only_file_under_write(root, sandbox):
    (root / "ro.py").write_text(LEGACY)
    os.chmod(root / "ro.py", 0o444)
    result = write_run(root, sandbox)
    assert result.exit_code == 1
    assert "src/ro.py:1 ERROR read-only file; not written" in result.stderr
    assert (root / "ro.py").read_text() == LEGACY
    assert stat.S_IMODE(os.stat(root / "ro.py").st_mode) == 0o444
    assert UPGRADED_MARK in (root / "good.py").read_text()
    [run_dir] = backup.runs(str(sandbox / "bk"))
    assert [e["rel"] for e in backup.read_manifest(run_dir)[1]] == ["good.py"]


def test_file_mode_is_kept_on_write(root, sandbox):
    os.chmod(root / "good.py", 0o750)
    write_run(root, sandbox)
    assert stat.S_IMODE(os.stat(root / "good.py").st_mode) == 0o750


def test_symlinks_are_never_written_through_nor_followed_out_of_the_root(root, sandbox):
    outside = sandbox / "outside"
    outside.mkdir()
    (outside / "lib.py").write_text(LEGACY)
    (root / "link_out.py").symlink_to(outside / "lib.py")
    (root / "link_in.py").symlink_to(root / "good.py")
    (root / "linked_dir").symlink_to(outside, target_is_directory=True)
    result = write_run(root, sandbox)
    assert result.exit_code == 0
    assert (outside / "lib.py").read_text() == LEGACY  # never reached through a link
    assert os.path.islink(root / "link_out.py") and os.path.islink(root / "link_in.py")
    assert UPGRADED_MARK in (root / "good.py").read_text()  # the target inside, under its own path
    assert "src/link_out.py:1 WARNING symlink to" in result.stderr and "outside the input root" in result.stderr
    log = Path("report.log").read_text()
    assert "src/link_in.py:1 INFO symlink to src/good.py (inside the input root" in log
    assert "src/linked_dir:1 INFO symlinked folder; not entered" in log


def test_symlink_given_as_input_is_not_written_through(root, sandbox):
    (sandbox / "work" / "alias.py").symlink_to(root / "good.py")
    result = run("-i", sandbox / "work" / "alias.py", "--write", "--no-confirm", "-b", sandbox / "bk")
    assert result.exit_code == 0
    assert (root / "good.py").read_text() == LEGACY
    assert "alias.py:1 WARNING symlink to src/good.py; links are never written through, pass src/good.py" \
        in result.stderr


def test_permission_error_on_read(root, sandbox, monkeypatch):
    (root / "secret.py").write_text(LEGACY)
    real = runner.read_bytes

    def guarded(path):
        if path.endswith("secret.py"):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    # as root, chmod 000 does not stop reads: stand in for the kernel's refusal (in this process: -p 1)
    monkeypatch.setattr(runner, "read_bytes", guarded)
    result = write_run(root, sandbox, "-p", "1")
    assert result.exit_code == 1
    assert "src/secret.py:1 ERROR cannot read: Permission denied" in result.stderr
    assert UPGRADED_MARK in (root / "good.py").read_text()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_error_on_read_for_real(root, sandbox):
    (root / "secret.py").write_text(LEGACY)
    os.chmod(root / "secret.py", 0)
    try:
        result = write_run(root, sandbox)
    finally:
        os.chmod(root / "secret.py", 0o644)
    assert result.exit_code == 1 and "src/secret.py:1 ERROR cannot read: Permission denied" in result.stderr


def test_permission_error_on_write(root, sandbox, monkeypatch):
    (root / "locked.py").write_text(LEGACY)
    real = cli.atomic_write

    def guarded(path, data, mode=None):
        if str(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied", path)
        return real(path, data, mode)

    monkeypatch.setattr(cli, "atomic_write", guarded)
    result = write_run(root, sandbox)
    assert result.exit_code == 1
    assert "src/locked.py:1 ERROR cannot write: Permission denied" in result.stderr
    assert (root / "locked.py").read_text() == LEGACY
    assert UPGRADED_MARK in (root / "good.py").read_text()


def test_unlistable_folder_is_reported(root, sandbox, monkeypatch):
    (root / "sub").mkdir()
    real_walk = os.walk

    def walk(top, onerror=None, followlinks=False):
        for entry in real_walk(top, onerror=onerror, followlinks=followlinks):
            yield entry
            if entry[0] == str(root) and onerror is not None:
                onerror(PermissionError(13, "Permission denied", str(root / "sub")))

    monkeypatch.setattr(os, "walk", walk)
    result = run("-i", root)
    assert result.exit_code == 1
    assert "src/sub:1 ERROR cannot list folder: Permission denied" in result.stderr


def test_file_changed_on_disk_during_the_run_is_not_overwritten(root, sandbox, monkeypatch):
    real = runner.process

    def process_then_edit(job, options=runner.Options()):
        result = real(job, options)
        Path(job.path).write_text(LEGACY + "# edited meanwhile\n")
        return result

    monkeypatch.setattr(runner, "process", process_then_edit)
    result = write_run(root, sandbox, "-p", "1")  # the stand-in runs in this process only
    assert result.exit_code == 1
    assert "changed on disk during the run; not written" in result.stderr
    assert (root / "good.py").read_text().endswith("# edited meanwhile\n")


def test_ten_megabyte_file(root, sandbox):
    filler = ("x" * 99 + "\n") * (10 * 1024 * 1024 // 100)
    (root / "big.py").write_text(LEGACY + "DATA = '''\n" + filler + "'''\n")
    result = write_run(root, sandbox)
    assert result.exit_code == 0
    assert "src/big.py:1 WARNING file is 10.0 MB, above the 5 MB limit; skipped (raise it with --max-file-size)" \
        in result.stderr
    assert UPGRADED_MARK not in (root / "big.py").read_text()
    result = write_run(root, sandbox, "--max-file-size", "20")
    assert result.exit_code == 0, result.stderr
    text = (root / "big.py").read_text()
    assert UPGRADED_MARK in text and text.endswith(filler + "'''\n")


def test_ten_thousand_files(sandbox):
    root = sandbox / "work" / "many"
    for d in range(100):
        folder = root / f"d{d:02d}"
        folder.mkdir(parents=True)
        for i in range(100):
            (folder / f"m{i:02d}.py").write_text(LEGACY if i == 0 else f"import os\nX = {i}\n")
    result = run("-i", root, "--check", "--report-json", sandbox / "r.json", "--no-log-file")
    assert result.exit_code == 1
    files = json.loads((sandbox / "r.json").read_text())["summary"]["files"]
    assert files["scanned"] == 10000 and files["changed"] == 100 and files["unchanged"] == 9900
    assert result.stdout.count("\n--- a/") + result.stdout.startswith("--- a/") == 100


def test_fifo_named_py_is_skipped_not_read(root, sandbox):
    os.mkfifo(root / "pipe.py")  # reading it would block forever
    result = write_run(root, sandbox)
    assert result.exit_code == 0
    assert "src/pipe.py:1 WARNING not a regular file (FIFO, socket or device)" in result.stderr
    assert UPGRADED_MARK in (root / "good.py").read_text()


def test_overlapping_inputs_are_upgraded_once(root, sandbox):
    result = run("-i", root, "-i", root / "good.py", "--report-json", sandbox / "r.json")
    assert result.exit_code == 0
    assert [f["path"] for f in json.loads((sandbox / "r.json").read_text())["files"]] == ["src/good.py"]
    assert result.stdout.count("+++ b/src/good.py") == 1
