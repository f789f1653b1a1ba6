"""Backup runs, their manifest, and restore."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from upgrade_tool import backup
from upgrade_tool.writer import TEMP_SUFFIX, WriteRefused, atomic_write, check_writable, sha256


@pytest.fixture
def tree(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "a.py").write_bytes(b"A = 1\n")
    (src / "pkg" / "b.py").write_bytes(b"B = 2\r\n")
    return src


def _save(run: backup.BackupRun, path: Path, rel: str, upgraded: bytes, mode=0o644):
    original = path.read_bytes()
    run.save(str(path), rel, original, mode, upgraded)
    atomic_write(str(path), upgraded, mode)


def test_no_folder_until_the_first_file(tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tmp_path))
    run.close(complete=True)
    assert not (tmp_path / "bk").exists() and run.path is None


def test_run_folder_mirrors_paths_and_manifest_lists_each_file(tree, tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n")
    _save(run, tree / "pkg" / "b.py", os.path.join("pkg", "b.py"), b"B = 20\r\n")
    run.close(complete=True)
    assert Path(run.path).name.startswith("run-") and Path(run.path).parent == tmp_path / "bk"
    assert (Path(run.path) / "files" / "pkg" / "b.py").read_bytes() == b"B = 2\r\n"
    header, entries, complete = backup.read_manifest(run.path)
    assert header["tool"] == "paddle-upgrade" and header["base"] == str(tree) and complete
    assert [(e["rel"], e["sha256"], e["upgraded_sha256"]) for e in entries] == [
        ("a.py", sha256(b"A = 1\n"), sha256(b"A = 10\n")),
        ("pkg/b.py", sha256(b"B = 2\r\n"), sha256(b"B = 20\r\n"))]


def test_two_runs_get_two_folders(tree, tmp_path):
    for value in (b"1", b"2"):
        run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
        _save(run, tree / "a.py", "a.py", b"A = " + value + b"\n")
        run.close(complete=True)
    assert len(backup.runs(str(tmp_path / "bk"))) == 2


def test_restore_puts_back_bytes_and_mode(tree, tmp_path):
    os.chmod(tree / "a.py", 0o640)
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n", mode=0o640)
    run.close(complete=True)
    outcomes = backup.restore(run.path)
    assert [(o.status, o.message) for o in outcomes] == [("restored", "")]
    assert (tree / "a.py").read_bytes() == b"A = 1\n"
    assert stat.S_IMODE(os.stat(tree / "a.py").st_mode) == 0o640
    # a second restore has nothing left to do
    assert [o.status for o in backup.restore(run.path)] == ["unchanged"]


def test_restore_recreates_a_deleted_file(tree, tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n")
    run.close(complete=True)
    (tree / "a.py").unlink()
    assert [(o.status, o.message) for o in backup.restore(run.path)] == [("restored", "it was missing")]
    assert (tree / "a.py").read_bytes() == b"A = 1\n"


def test_restore_never_overwrites_later_edits(tree, tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n")
    run.close(complete=True)
    (tree / "a.py").write_bytes(b"A = 'mine'\n")
    [outcome] = backup.restore(run.path)
    assert outcome.status == "skipped" and "changed since the upgrade" in outcome.message
    assert (tree / "a.py").read_bytes() == b"A = 'mine'\n"


def test_restore_refuses_a_damaged_copy(tree, tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n")
    run.close(complete=True)
    (Path(run.path) / "files" / "a.py").write_bytes(b"garbage")
    [outcome] = backup.restore(run.path)
    assert outcome.status == "failed" and "checksum" in outcome.message
    assert (tree / "a.py").read_bytes() == b"A = 10\n"


def test_restore_does_not_write_through_a_symlink(tree, tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n")
    run.close(complete=True)
    other = tmp_path / "other.py"
    other.write_bytes(b"other\n")
    (tree / "a.py").unlink()
    (tree / "a.py").symlink_to(other)
    [outcome] = backup.restore(run.path)
    assert outcome.status == "skipped" and other.read_bytes() == b"other\n"


def test_a_manifest_cut_by_a_kill_is_still_read(tree, tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n")
    # the run dies while appending the next line: no closing record, half a line
    with open(Path(run.path) / backup.MANIFEST, "a") as fh:
        fh.write('{"rel": "pkg/b.py", "pa')
    _, entries, complete = backup.read_manifest(run.path)
    assert [e["rel"] for e in entries] == ["a.py"] and not complete
    assert [o.status for o in backup.restore(run.path)] == ["restored"]
    run._manifest.close()  # the process that held it is "dead"


def test_a_damaged_manifest_in_the_middle_is_an_error(tree, tmp_path):
    run = backup.BackupRun(str(tmp_path / "bk"), str(tree))
    _save(run, tree / "a.py", "a.py", b"A = 10\n")
    run.close(complete=True)
    path = Path(run.path) / backup.MANIFEST
    lines = path.read_text().splitlines()
    lines[1] = "{broken"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(backup.BackupError, match="damaged manifest line"):
        backup.read_manifest(run.path)


def test_not_a_manifest(tmp_path):
    (tmp_path / backup.MANIFEST).write_text(json.dumps({"something": "else"}) + "\n")
    with pytest.raises(backup.BackupError, match="not a paddle-upgrade manifest"):
        backup.read_manifest(str(tmp_path))


def test_backup_failure_is_reported(tree, tmp_path):
    blocker = tmp_path / "bk"
    blocker.write_text("a file where the backup folder should be")
    run = backup.BackupRun(str(blocker), str(tree))
    with pytest.raises(backup.BackupError, match="backup failed"):
        run.save(str(tree / "a.py"), "a.py", b"A = 1\n", 0o644, b"A = 10\n")


# -- writer ----------------------------------------------------------------------------------------

def test_atomic_write_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "x.py"
    atomic_write(str(target), b"x = 1\n")
    assert target.read_bytes() == b"x = 1\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_atomic_write_replaces_a_symlink_instead_of_writing_through(tmp_path):
    other = tmp_path / "other.py"
    other.write_bytes(b"keep\n")
    link = tmp_path / "link.py"
    link.symlink_to(other)
    atomic_write(str(link), b"new\n")
    assert other.read_bytes() == b"keep\n" and not link.is_symlink() and link.read_bytes() == b"new\n"


def test_check_writable(tmp_path):
    target = tmp_path / "x.py"
    target.write_bytes(b"x = 1\n")
    os.chmod(target, 0o640)
    assert check_writable(str(target), sha256(b"x = 1\n")) == (0o640, b"x = 1\n")
    with pytest.raises(WriteRefused, match="changed on disk"):
        check_writable(str(target), sha256(b"other"))
    os.chmod(target, 0o444)
    with pytest.raises(WriteRefused, match="read-only"):
        check_writable(str(target), sha256(b"x = 1\n"))
    link = tmp_path / "l.py"
    link.symlink_to(target)
    with pytest.raises(WriteRefused, match="symlink"):
        check_writable(str(link), sha256(b"x = 1\n"))

