"""The upgraded `cuda_profiler` block runs on Paddle 3.x without CUDA.

1.8.5's CPU build raises AttributeError in `cuda_profiler` (no `core.nvprof_init`), so no legacy program
with a 1.8.5 golden can run that block (fixtures/legacy/profiler_reset_block_static.py takes its CPU
branch). Here the upgraded block itself runs on the installed Paddle: the GPU-target Profiler warns that
it cannot profile the GPU, runs the block with its numbers, and writes its trace under output_file.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import refactors

SOURCE = '''\
import os
import sys

import numpy as np
import paddle.fluid as fluid
import paddle.fluid.profiler as profiler

out = os.path.join(sys.argv[1], 'cuda_profiler.txt')
with fluid.dygraph.guard(fluid.CPUPlace()):
    with profiler.cuda_profiler(out, 'csv') as nvprof:
        x = fluid.dygraph.to_variable(np.arange(4, dtype='float32').reshape(2, 2))
        y = fluid.layers.matmul(x, x)
    print(' '.join('%g' % v for v in y.numpy().ravel()))
print(int(os.path.isdir(out)))
'''


def test_upgraded_cuda_profiler_block_runs_without_cuda(tmp_path: Path) -> None:
    result = refactors.upgrade_code(SOURCE)
    assert "paddle.profiler.ProfilerTarget.GPU" in result.code and "cuda_profiler" not in result.code.replace(
        "'cuda_profiler.txt'", "")
    script = tmp_path / "upgraded.py"
    script.write_text(result.code, encoding="utf-8")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    run = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:] + "\n" + result.code
    assert run.stdout.split("\n")[-3:] == ["2 3 6 11", "1", ""]
    assert "Profiling ProfilerTarget.GPU is not supported" in run.stderr
