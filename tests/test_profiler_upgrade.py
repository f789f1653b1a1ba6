"""What the upgraded profiler calls print on Paddle 3.x: the report after a reset, and a `cuda_profiler`
block without CUDA.

1.8.5 prints `thread0::scale  2 ...` for RESET_SOURCE (checked): the reset at the fourth of five runs
drops the three before it. The upgraded `prof.stop()` + `prof.start()` leaves the same count in 3.x's
summary; so does the function that finds the running Profiler, called from a module the block does not
show (PaddleCV/gan's trainers), or in a block whose state is known at run time (PaddleSpeech/DeepASR), and
the shim's reset in a module left to it.

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
from typing import List

import refactors
from legacy_programs import ROOT, SERIAL_EXECUTOR

RESET_SOURCE = '''\
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.profiler as profiler

main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data(name='x', shape=[-1, 4], dtype='float32')
    y = fluid.layers.scale(x, 2.0)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
profiler.start_profiler('CPU')
for i in range(5):
    if i == 3:
        profiler.reset_profiler()
    exe.run(main, feed={'x': np.ones([2, 4], 'float32')}, fetch_list=[y])
profiler.stop_profiler('total', PATH)
'''

CUDA_SOURCE = '''\
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


# The reset in a module the block does not show, the function reached through a name known at run time
# (PaddleCV/gan's `trainer.__dict__[cfg.model_net]`): 1.8.5 prints `thread0::scale  2 ...` for it as for
# RESET_SOURCE, its profiler being one for the process.
STEPS_SOURCE = '''\
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.profiler as profiler


def run_steps(exe, main, y, skip):
    for i in range(5):
        if i == skip:
            profiler.reset_profiler()
        exe.run(main, feed={'x': np.ones([2, 4], 'float32')}, fetch_list=[y])
'''

BLOCK_SOURCE = '''\
import sys

import paddle.fluid as fluid

import steps

main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data(name='x', shape=[-1, 4], dtype='float32')
    y = fluid.layers.scale(x, 2.0)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
steps.__dict__[sys.argv[2]](exe, main, y, 9)  # no profiler runs: the reset is never reached
with fluid.profiler.profiler(sys.argv[3], 'total', PATH):
    steps.__dict__[sys.argv[2]](exe, main, y, 3)
'''


def _run(code: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    script = tmp_path / "upgraded.py"
    script.write_text(code, encoding="utf-8")
    # PYTHONPATH: this checkout's runtime_shim
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(ROOT), **SERIAL_EXECUTOR)
    env.pop("FLAGS_enable_pir_api", None)
    run = subprocess.run([sys.executable, str(script), str(tmp_path), *args], capture_output=True, text=True,
                         env=env, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:] + "\n" + code
    return run


def test_upgraded_reset_leaves_the_later_events_in_the_summary(tmp_path: Path) -> None:
    result = refactors.upgrade_code(RESET_SOURCE.replace("PATH", repr(str(tmp_path / "profile"))))
    assert "profiler.reset_profiler" not in result.code and "prof.stop()\n            prof.start()" in result.code
    rows = [line.split() for line in _run(result.code, tmp_path).stdout.splitlines() if line.startswith("scale ")]
    assert rows and rows[0][1] == "2", rows


def _scale_calls(run: subprocess.CompletedProcess) -> List[str]:
    return [line.split()[1] for line in run.stdout.splitlines() if line.startswith("scale ")]


def _block_source(tmp_path: Path) -> str:
    return BLOCK_SOURCE.replace("PATH", repr(str(tmp_path / "profile"))).replace("sys.argv[3]", "'CPU'")


def test_upgraded_reset_in_another_module_resets_the_running_profiler(tmp_path: Path) -> None:
    steps = refactors.upgrade_code(STEPS_SOURCE)
    assert "profiler.reset_profiler()" not in steps.code and "gc.get_referrers" in steps.code
    (tmp_path / "steps.py").write_text(steps.code, encoding="utf-8")
    main = refactors.upgrade_code(_block_source(tmp_path))
    assert "paddle.profiler.Profiler(" in main.code
    calls = _scale_calls(_run(main.code, tmp_path, "run_steps"))
    assert calls[:1] == ["2"], calls  # (one table row per operator, then its kernel's rows)


def test_upgraded_block_with_a_state_known_at_run_time(tmp_path: Path) -> None:
    source = BLOCK_SOURCE.replace("PATH", repr(str(tmp_path / "profile"))).replace(
        "import steps\n", "").replace("steps.__dict__[sys.argv[2]]", "run_steps")
    source = STEPS_SOURCE + source.split("import paddle.fluid as fluid\n", 1)[1].replace("import sys\n", "")
    result = refactors.upgrade_code("import sys\n" + source)
    assert "with profiler_block(state=sys.argv[3], sorted_key='total'" in result.code, result.code
    assert _scale_calls(_run(result.code, tmp_path, "-", "CPU"))[:1] == ["2"]
    assert _scale_calls(_run(result.code, tmp_path, "-", "All"))[:1] == ["2"]
    rejected = subprocess.run([sys.executable, str(tmp_path / "upgraded.py"), str(tmp_path), "-", "TPU"],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert rejected.returncode != 0 and "ValueError: The state must be 'CPU' or 'GPU' or 'All'." in rejected.stderr


def test_shim_reset_resets_the_profiler_of_upgraded_code(tmp_path: Path) -> None:
    """A module left to the shim resets the Profiler a converted block of another module runs."""
    (tmp_path / "steps.py").write_text("import runtime_shim.coexist\n" + STEPS_SOURCE, encoding="utf-8")
    main = refactors.upgrade_code(_block_source(tmp_path))
    assert "paddle.profiler.Profiler(" in main.code and "fluid" not in main.code
    assert _scale_calls(_run(main.code, tmp_path, "run_steps"))[:1] == ["2"]


def test_upgraded_cuda_profiler_block_runs_without_cuda(tmp_path: Path) -> None:
    result = refactors.upgrade_code(CUDA_SOURCE)
    assert "paddle.profiler.ProfilerTarget.GPU" in result.code and "cuda_profiler" not in result.code.replace(
        "'cuda_profiler.txt'", "")
    run = _run(result.code, tmp_path)
    assert run.stdout.split("\n")[-3:] == ["2 3 6 11", "1", ""]
    assert "Profiling ProfilerTarget.GPU is not supported" in run.stderr
