"""The 1.8 profiler (`fluid.profiler`, `fluid.dygraph.profiler`) on the profiler core Paddle 3.3.1 still has.

2.x replaced the module by `paddle.profiler.Profiler`, but Paddle 3.3.1's core keeps the functions 1.8's
module called (`enable_profiler`, `disable_profiler`, `reset_profiler`, `set_tracer_option`, the gperf
hooks): served with 1.8's arguments, the report is 1.8's (printed when profiling stops, and written to
`profile_path`). `cuda_profiler` needs nvprof, which only CUDA builds have; elsewhere it fails as 1.8's
CPU build did.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator, Optional, Sequence

from runtime_shim.adapters import adapter

_REPLACEMENT = "paddle.profiler.Profiler(targets=[paddle.profiler.ProfilerTarget.CPU]) with start()/stop()/summary()"
_STATES = {"GPU": "kCUDA", "CPU": "kCPU", "All": "kAll"}
_TRACERS = {"Default": "kDefault", "OpDetail": "kOpDetail", "AllOpDetail": "kAllOpDetail"}
_SORT_KEYS = {"default": "kDefault", "calls": "kCalls", "total": "kTotal", "max": "kMax", "min": "kMin",
              "ave": "kAve"}
# What 1.8 (`profiler.py:27`) asked nvprof to record.
NVPROF_CONFIG = ("gpustarttimestamp", "gpuendtimestamp", "gridsize3d", "threadblocksize", "streamid",
                 "enableonstart 0", "conckerneltrace")


def _core() -> Any:
    from paddle.base import core

    return core


@adapter("paddle.fluid.profiler.start_profiler", _REPLACEMENT)
def start_profiler(state: str, tracer_option: str = "Default") -> None:
    """1.8 `profiler.start_profiler` (`profiler.py:129`): start recording, unless already started."""
    core = _core()
    if core.is_profiler_enabled():
        return
    if state not in _STATES:
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    if tracer_option not in _TRACERS:
        raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")
    core.set_tracer_option(getattr(core.TracerOption, _TRACERS[tracer_option]))
    core.enable_profiler(getattr(core.ProfilerState, _STATES[state]))


@adapter("paddle.fluid.profiler.stop_profiler", _REPLACEMENT)
def stop_profiler(sorted_key: Optional[str] = None, profile_path: str = "/tmp/profile") -> None:
    """1.8 `profiler.stop_profiler` (`profiler.py:196`): stop, print the report sorted by `sorted_key`,
    write it to `profile_path`."""
    core = _core()
    if not core.is_profiler_enabled():
        return
    sorted_key = "default" if sorted_key is None else sorted_key
    if sorted_key not in _SORT_KEYS:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' and 'ave'")
    core.disable_profiler(getattr(core.EventSortingKey, _SORT_KEYS[sorted_key]), profile_path)


@adapter("paddle.fluid.profiler.reset_profiler", _REPLACEMENT)
def reset_profiler() -> None:
    """1.8 `profiler.reset_profiler`: forget what was recorded so far; in a program whose upgraded modules
    run a `paddle.profiler.Profiler`, that one's events too (1.8's profiler was one for the process)."""
    from api_mapping.kernels import PROFILER_RESET
    from runtime_shim.static_ops import plain_kernel

    _core().reset_profiler()
    plain_kernel(PROFILER_RESET, "reset_profiler", "gc")()


@adapter("paddle.fluid.profiler.profiler", _REPLACEMENT)
@contextlib.contextmanager
def profiler(state: str, sorted_key: Optional[str] = None, profile_path: str = "/tmp/profile",
             tracer_option: str = "Default") -> Iterator[None]:
    """1.8 `with profiler.profiler(state, sorted_key, profile_path):` profile the block."""
    start_profiler(state, tracer_option)
    yield
    stop_profiler(sorted_key, profile_path)


@adapter("paddle.fluid.profiler.cuda_profiler", "paddle.profiler.Profiler(targets=[ProfilerTarget.GPU])")
@contextlib.contextmanager
def cuda_profiler(output_file: str, output_mode: Optional[str] = None,
                  config: Optional[Sequence[str]] = None) -> Iterator[None]:
    """1.8 `profiler.cuda_profiler` (`profiler.py:39`): nvprof around the block (CUDA builds only)."""
    core = _core()
    output_mode = "csv" if output_mode is None else output_mode
    if output_mode not in ("kvp", "csv"):
        raise ValueError("The output mode must be 'kvp' or 'csv'.")
    config_file = "nvprof_config_file"
    with open(config_file, "w") as fp:
        fp.writelines(f"{item}\n" for item in (NVPROF_CONFIG if config is None else config))
    try:
        core.nvprof_init(output_file, output_mode, config_file)  # AttributeError without CUDA, as in 1.8
        core.nvprof_start()
        yield
        core.nvprof_stop()
    finally:
        os.remove(config_file)


@adapter("paddle.fluid.dygraph.profiler.start_gperf_profiler", "a Paddle build with gperftools")
def start_gperf_profiler() -> None:
    """1.8 `dygraph.profiler.start_gperf_profiler`: gperftools profiling (a warning without gperftools)."""
    _core().start_imperative_gperf_profiler()


@adapter("paddle.fluid.dygraph.profiler.stop_gperf_profiler", "a Paddle build with gperftools")
def stop_gperf_profiler() -> None:
    _core().stop_imperative_gperf_profiler()
