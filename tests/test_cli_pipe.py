"""A reader that closes the diff early (`paddle-upgrade -i x | head`) stops the run like SIGPIPE would."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# ~20 KB of diff per file: ten files are more than a pipe buffers, so the tool must meet the closed pipe.
BIG = "import paddle.fluid as fluid\n" + "".join(f"y{i} = fluid.layers.relu(x{i})\n" for i in range(400))


def test_a_closed_pipe_ends_the_run_quietly_with_the_sigpipe_status(tmp_path: Path) -> None:
    for i in range(10):
        (tmp_path / f"m{i}.py").write_text(BIG)
    proc = subprocess.Popen([sys.executable, "-m", "upgrade_tool", "-i", ".", "--no-log-file"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"--- a/")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 128 + 13
    assert "interrupted (SIGPIPE)" in err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert all((tmp_path / f"m{i}.py").read_text() == BIG for i in range(10))  # a preview writes nothing
