"""refactors/transformers/one_device_executor.py: the class a ParallelExecutor whose uses are not all in
sight becomes refuses, on the installed Paddle, the multi-node training it cannot do (1.8's
`num_trainers` other than 1, known only at run time) instead of training on one node."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import refactors

SOURCE = """\
import paddle.fluid as fluid


def distributed(loss, num_trainers):
    exe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, num_trainers=num_trainers)
    return exe
"""
RUN = """\
{upgraded}

for trainers in (1, 2):
    try:
        print('made', distributed(paddle.static.data(name='x%d' % trainers, shape=[1]), trainers).device_count)
    except ValueError as error:
        print('refused:', error)
"""


def test_num_trainers_other_than_1_is_refused_at_run_time(tmp_path: Path) -> None:
    upgraded = refactors.upgrade_code(SOURCE).code
    assert "exe = OneDeviceExecutor(use_cuda=False, num_trainers=num_trainers)" in upgraded
    program = tmp_path / "run.py"
    program.write_text(RUN.format(upgraded=upgraded))
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith(("made", "refused"))]
    assert lines == ["made 1", "refused: num_trainers=2: train on several nodes with paddle.distributed"]
