"""refactors/transformers/one_device_executor.py: the class a ParallelExecutor whose uses are not all in
sight becomes refuses, on the installed Paddle, the multi-node training it cannot do (1.8's
`num_trainers` other than 1, known only at run time) instead of training on one node."""
from __future__ import annotations

from pathlib import Path

import refactors
from legacy_programs import printed

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
    lines = printed(tmp_path, RUN.format(upgraded=upgraded), ("made", "refused"))
    assert lines == ["made 1", "refused: num_trainers=2: train on several nodes with paddle.distributed"]
