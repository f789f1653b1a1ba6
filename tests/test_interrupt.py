"""Kill a real `--write` run mid-way: every file is original or fully upgraded, the backup lists every
changed file, and `--restore` puts all of them back. Also: a worker process that dies mid-run costs
nothing but a re-run of the files it had in hand."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

from upgrade_tool import backup, runner
from upgrade_tool.discovery import PYTHON, Job
from upgrade_tool.writer import sha256

REPO = Path(__file__).resolve().parent.parent


def _source() -> str:
    # heavy enough (~0.1 s per file) that a run of many files is still going when the test stops it
    lines = ["import paddle.fluid as fluid", ""]
    for i in range(60):
        lines += [f"def block{i}(x):", "    y = fluid.layers.relu(x)",
                  f"    z = fluid.layers.reduce_sum(y, dim={i % 3})", "    return fluid.layers.matmul(z, z)", ""]
    return "\n".join(lines) + "\n"


@pytest.fixture
def tree(tmp_path):
    src = tmp_path / "src"
    for d in range(4):
        (src / f"pkg{d}").mkdir(parents=True)
    original = _source().encode()
    for i in range(80):
        (src / f"pkg{i % 4}" / f"m{i:03d}.py").write_bytes(original)
    expected = runner.process(Job(str(src / "pkg0" / "m000.py"), "m000.py", "m000.py", PYTHON)).new_data
    assert expected is not None and expected != original
    return src, original, expected


def _env(tmp_path) -> Dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(tmp_path)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _start(tmp_path, src, *extra) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "upgrade_tool", "-i", str(src), "--write", "--no-confirm",
           "-b", str(tmp_path / "bk"), "--no-log-file", *extra]
    return subprocess.Popen(cmd, cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def _manifest_entries(tmp_path) -> int:
    found = backup.runs(str(tmp_path / "bk"))
    if not found:
        return 0
    try:
        return len(backup.read_manifest(found[0])[1])
    except backup.BackupError:
        return 0


def _wait_for_writes(tmp_path, proc, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while _manifest_entries(tmp_path) < count:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the run wrote nothing in time"
        time.sleep(0.01)


def _check_every_file(src: Path, original: bytes, expected: bytes, tmp_path) -> List[Path]:
    """Each file is original or fully upgraded; every upgraded one is in the backup manifest."""
    files = sorted(src.rglob("*.py"))
    assert len(files) == 80
    changed = []
    for path in files:
        data = path.read_bytes()
        assert data in (original, expected), f"{path} is neither original nor fully upgraded"
        if data == expected:
            changed.append(path)
    [run_dir] = backup.runs(str(tmp_path / "bk"))
    _, entries, complete = backup.read_manifest(run_dir)
    listed = {e["path"] for e in entries}
    assert {str(p) for p in changed} <= listed
    for entry in entries:
        assert Path(run_dir, "files", entry["rel"]).read_bytes() == original
        assert entry["sha256"] == sha256(original) and entry["upgraded_sha256"] == sha256(expected)
    return changed


def _restore_all(tmp_path, src: Path, original: bytes) -> None:
    [run_dir] = backup.runs(str(tmp_path / "bk"))
    done = subprocess.run([sys.executable, "-m", "upgrade_tool", "--restore", run_dir], cwd=tmp_path,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert all(p.read_bytes() == original for p in src.rglob("*.py"))


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_mid_write_leaves_every_file_whole_and_the_backup_restorable(tmp_path, tree, signum, code):
    src, original, expected = tree
    proc = _start(tmp_path, src)
    try:
        _wait_for_writes(tmp_path, proc, 2)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err.decode()
    assert "interrupted" in err.decode() and "--restore" in err.decode()
    changed = _check_every_file(src, original, expected, tmp_path)
    assert 2 <= len(changed) < 80
    [run_dir] = backup.runs(str(tmp_path / "bk"))
    assert not backup.read_manifest(run_dir)[2]  # the manifest says the run did not finish
    _restore_all(tmp_path, src, original)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigkill_mid_write_leaves_every_file_whole_and_the_backup_restorable(tmp_path, tree, workers):
    src, original, expected = tree
    proc = _start(tmp_path, src, "-p", workers)
    helpers: List[int] = []
    try:
        _wait_for_writes(tmp_path, proc, 3)
        helpers = list(_descendants(proc.pid)) if os.path.isdir("/proc") else []
        proc.kill()  # no handler, no cleanup: only atomic replaces and the manifest order protect us
        proc.wait(timeout=60)
        proc.stderr.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    changed = _check_every_file(src, original, expected, tmp_path)
    assert 2 <= len(changed) < 80  # the third may be backed up but not yet replaced: that is the order
    _restore_all(tmp_path, src, original)
    # the workers, the process they are forked from and multiprocessing's resource tracker end with it
    deadline = time.monotonic() + 30
    while [pid for pid in helpers if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in helpers if _alive(pid)] == []


def _alive(pid: int) -> bool:
    """Whether pid runs (a zombie has ended; it waits only for its parent to read its status)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _descendants(pid: int) -> Dict[int, int]:
    """{descendant pid: depth} from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    depth = {pid: 0}
    changed = True
    while changed:
        changed = False
        for child, parent in parents.items():
            if parent in depth and child not in depth:
                depth[child] = depth[parent] + 1
                changed = True
    del depth[pid]
    return depth


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to find the worker processes")
def test_a_worker_crash_costs_nothing(tmp_path, tree):
    src, original, expected = tree
    for path in sorted(src.rglob("*.py"))[24:]:
        path.unlink()  # a shorter run: this one goes to the end
    proc = _start(tmp_path, src, "-p", "2", "--report-json", str(tmp_path / "r.json"))
    try:
        _wait_for_writes(tmp_path, proc, 1)
        # workers are forked by the forkserver, itself a child of the command: grandchildren
        workers = [p for p, depth in _descendants(proc.pid).items() if depth == 2]
        assert workers, "no worker process found"
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err.decode()
    assert all(p.read_bytes() == expected for p in src.rglob("*.py"))
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["summary"]["files"]["failed"] == 0 and data["summary"]["files"]["written"] == 24
    assert any(f["code"] == runner.RERUN for f in data["findings"])  # the crash was seen and handled
