"""Static-graph persistence, feeding and execution with the 1.8 calling conventions (api_mapping/SEMANTICS.md 34, 39).

Programs and `program_guard` need no adapter: in the legacy IR the shim selects, the 2.x `paddle.static`
objects are the 1.8 ones (`Program.clone(for_test=True)` included, entry 24). `fluid.Executor` fetches
arrays that read as scalars under NumPy 2 (`numpy_compat`); `ParallelExecutor` and `ExecutionStrategy`,
which Paddle 2.5 removed, run on one device.
"""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence

from runtime_shim.adapters import adapter


def _is_parameter(var: Any) -> bool:
    from paddle.base.framework import Parameter

    return isinstance(var, Parameter)


def _main(program: Any) -> Any:
    import paddle

    return program if program is not None else paddle.static.default_main_program()


@adapter("paddle.fluid.io.is_parameter", "isinstance(var, paddle.base.framework.Parameter)", semantics=(34,))
def is_parameter(var: Any) -> bool:
    """1.8 `io.is_parameter` (`io.py:70`)."""
    return _is_parameter(var)


@adapter("paddle.fluid.io.get_program_parameter", "[v for v in program.list_vars() if is a Parameter]",
         semantics=(34,))
def get_program_parameter(program: Any) -> List[Any]:
    """1.8 `io.get_program_parameter` (`io.py:123`)."""
    return [v for v in program.list_vars() if _is_parameter(v)]


@adapter("paddle.fluid.io.get_program_persistable_vars", "paddle.static.io.get_program_persistable_vars",
         semantics=(34,))
def get_program_persistable_vars(program: Any) -> List[Any]:
    """1.8 `io.get_program_persistable_vars` (`io.py:145`)."""
    from paddle.static.io import is_persistable

    return [v for v in program.list_vars() if is_persistable(v)]


@adapter("paddle.fluid.io.save_params", "paddle.static.save_vars(exe, dirname, program, "
         "predicate=is_parameter)", semantics=(34,))
def save_params(executor: Any, dirname: str, main_program: Any = None, filename: Optional[str] = None) -> Any:
    """1.8 `io.save_params` (`io.py:362`): every parameter of the program, one file each."""
    import paddle

    return paddle.static.save_vars(executor, dirname, main_program=_main(main_program), predicate=_is_parameter,
                                   filename=filename)


@adapter("paddle.fluid.io.load_params", "paddle.static.load_vars(exe, dirname, program, "
         "predicate=is_parameter)", semantics=(34,))
def load_params(executor: Any, dirname: str, main_program: Any = None, filename: Optional[str] = None) -> Any:
    """1.8 `io.load_params` (`io.py:823`)."""
    import paddle

    return paddle.static.load_vars(executor, dirname, main_program=_main(main_program), predicate=_is_parameter,
                                   filename=filename)


_MODEL = "__model__"


def _prefix(dirname: str, model_filename: Optional[str]) -> str:
    """`dirname/<model file name without .pdmodel>`: the prefix the upgrader's rewrite of
    save/load_inference_model uses too (refactors/transformers/inference_model.py), so that a model saved
    by either side is found by the other. 1.8 kept only the base name of `model_filename` (io.py:1216)."""
    base = os.path.basename(model_filename) if model_filename else _MODEL
    stem, ext = os.path.splitext(base)  # `.pdmodel` alone is a name (splitext's rule), kept as it is
    return os.path.join(dirname, stem if ext == ".pdmodel" else base)


@adapter("paddle.fluid.io.save_inference_model",
         "paddle.static.save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=...)",
         semantics=(34,))
def save_inference_model(dirname: str, feeded_var_names: Sequence[str], target_vars: Any, executor: Any,
                         main_program: Any = None, model_filename: Optional[str] = None,
                         params_filename: Optional[str] = None, export_for_deployment: bool = True,
                         program_only: bool = False) -> List[str]:
    """1.8 `io.save_inference_model` (`io.py:1068`): feed *names* and a directory.

    The model is written with the 2.x format inside `dirname` (`__model__.pdmodel`/`.pdiparams`, or
    `<model_filename>.*`); `fluid.io.load_inference_model` under the shim reads it back. Returns the
    fetch variable names, as 1.8 did.
    """
    import paddle

    program = _main(main_program)
    if isinstance(feeded_var_names, str):
        feeded_var_names = [feeded_var_names]
    targets = target_vars if isinstance(target_vars, (list, tuple)) else [target_vars]
    block = program.global_block()
    feed_vars = [block.var(name) for name in feeded_var_names]
    os.makedirs(dirname, exist_ok=True)
    paddle.static.save_inference_model(_prefix(dirname, model_filename), feed_vars, list(targets), executor,
                                       program=program)
    return [t.name for t in targets]


@adapter("paddle.fluid.io.load_inference_model",
         "paddle.static.load_inference_model(path_prefix, executor)", semantics=(34,))
def load_inference_model(dirname: str, executor: Any, model_filename: Optional[str] = None,
                         params_filename: Optional[str] = None, pserver_endpoints: Any = None) -> List[Any]:
    """1.8 `io.load_inference_model` (`io.py:1275`): `[program, feed_target_names, fetch_targets]`."""
    import paddle

    program, feed_names, fetch_targets = paddle.static.load_inference_model(_prefix(dirname, model_filename),
                                                                            executor)
    return [program, feed_names, fetch_targets]


@adapter("paddle.fluid.DataFeeder", "paddle.base.DataFeeder (not public in 2.x; feed NumPy dicts)",
         semantics=(39,))
def DataFeeder(feed_list: Any, place: Any, program: Any = None) -> Any:
    """1.8 `fluid.DataFeeder(feed_list, place, program)` (`data_feeder.py:212`), still in `paddle.base`."""
    from paddle.base.data_feeder import DataFeeder as BaseDataFeeder

    return BaseDataFeeder(feed_list, place, program)


def _io_data_loader() -> type:
    import paddle.io

    return paddle.io.DataLoader


def _base_loader() -> type:
    from paddle.base.reader import DataLoader as BaseDataLoader

    return BaseDataLoader


@adapter("paddle.fluid.io.DataLoader", "paddle.io.DataLoader(dataset, ..., return_list=False); "
         "DataLoader.from_generator is paddle.base.reader.DataLoader.from_generator (not public in 2.x)")
class DataLoader(_io_data_loader()):
    """1.8 `fluid.io.DataLoader`: the 2.x loader with 1.8's `return_list=False` default, plus the
    static-graph constructors `from_generator`/`from_dataset` 1.8 programs build their input with
    (still in Paddle 3 as `paddle.base.reader.DataLoader`)."""

    def __init__(self, dataset: Any, feed_list: Any = None, places: Any = None, return_list: bool = False,
                 batch_sampler: Any = None, batch_size: int = 1, shuffle: bool = False, drop_last: bool = False,
                 collate_fn: Any = None, num_workers: int = 0, use_buffer_reader: bool = True,
                 use_shared_memory: bool = True, timeout: int = 0, worker_init_fn: Any = None) -> None:
        super().__init__(dataset, feed_list=feed_list, places=places, return_list=return_list,
                         batch_sampler=batch_sampler, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                         collate_fn=collate_fn, num_workers=num_workers, use_buffer_reader=use_buffer_reader,
                         use_shared_memory=use_shared_memory, timeout=timeout, worker_init_fn=worker_init_fn)

    from_generator = staticmethod(lambda *args, **kwargs: _base_loader().from_generator(*args, **kwargs))
    from_dataset = staticmethod(lambda *args, **kwargs: _base_loader().from_dataset(*args, **kwargs))


def _executor() -> type:
    import paddle.static

    return paddle.static.Executor


@adapter("paddle.fluid.Executor", "paddle.static.Executor (fetched full reductions are 0-D arrays on Paddle 3)",
         semantics=(8,))
class Executor(_executor()):
    """1.8 `fluid.Executor`: fetched arrays read as scalars when they hold one value (`float(cost)`,
    `'%f' % cost`), as they did under NumPy 1.x (`runtime_shim.numpy_compat`)."""

    def run(self, *args: Any, **kwargs: Any) -> Any:
        from runtime_shim.numpy_compat import legacy

        return legacy(super().run(*args, **kwargs))


def _compiled_program() -> type:
    import paddle.static

    return paddle.static.CompiledProgram


@adapter("paddle.fluid.CompiledProgram", "paddle.static.CompiledProgram(program, build_strategy) "
         "(with_data_parallel is gone: the program runs on one device)")
class CompiledProgram(_compiled_program()):
    """1.8 `fluid.CompiledProgram` with `with_data_parallel`, which Paddle 3 removed.

    `with_data_parallel` returns the program for one device: the multi-device split of 1.8 (one
    slice of the batch per place, fetched values concatenated per place) is not reproduced.
    """

    def __init__(self, program_or_graph: Any, build_strategy: Any = None) -> None:
        super().__init__(program_or_graph, build_strategy=build_strategy)

    def with_data_parallel(self, loss_name: Optional[str] = None, build_strategy: Any = None,
                           exec_strategy: Any = None, share_vars_from: Any = None, places: Any = None) -> Any:
        import warnings

        from runtime_shim.messages import LegacyApiWarning

        if places is not None and len(places) > 1:
            warnings.warn("CompiledProgram.with_data_parallel: Paddle 3 has no multi-device executor; the "
                          f"program runs on one device instead of {len(places)}", LegacyApiWarning, stacklevel=2)
        if build_strategy is not None:
            self._build_strategy = build_strategy
        return self


@adapter("paddle.fluid.ExecutionStrategy", "nothing: pass only build_strategy to paddle.static.CompiledProgram")
class ExecutionStrategy:
    """1.8 `fluid.ExecutionStrategy` (`compiler.py:27`): how the ParallelExecutor scheduled its threads. The
    options are kept (1.8's defaults) and read by nobody: Paddle 3's executor schedules by itself, with
    the same results."""

    def __init__(self) -> None:
        self.num_threads = 0
        self.use_thread_barrier = False
        self.num_iteration_per_drop_scope = 100
        self.num_iteration_per_run = 1
        self.use_experimental_executor = False
        self.allow_op_delay = False
        self.use_cuda = False


@adapter("paddle.fluid.parallel_executor.ExecutionStrategy",
         "nothing: pass only build_strategy to paddle.static.CompiledProgram")
class ParallelExecutorExecutionStrategy(ExecutionStrategy):
    """1.8 `parallel_executor.ExecutionStrategy`, the same class as `fluid.ExecutionStrategy`."""


def _places(use_cuda: bool) -> Any:
    import paddle

    return paddle.static.cuda_places() if use_cuda else paddle.static.cpu_places()


@adapter("paddle.fluid.ParallelExecutor", "paddle.static.Executor(place).run(paddle.static.CompiledProgram(program), "
         "...) on one device")
class ParallelExecutor:
    """1.8 `fluid.ParallelExecutor` (`parallel_executor.py:29`), on one device.

    1.8 split each batch over its places (`CPU_NUM` CPU places, or every GPU) and concatenated what each
    fetched; Paddle 3 has no multi-device executor, so the program runs once on one place. With one
    place (`CPU_NUM=1`, or one GPU) the results are 1.8's; with more, a warning says that fetched values
    are no longer concatenated per place.
    """

    def __init__(self, use_cuda: bool, loss_name: Optional[str] = None, main_program: Any = None,
                 share_vars_from: Any = None, exec_strategy: Any = None, build_strategy: Any = None,
                 num_trainers: int = 1, trainer_id: int = 0, scope: Any = None) -> None:
        import paddle

        # (an Executor too: a ParallelExecutor the upgrade converted, whose variables are in the global scope)
        if share_vars_from is not None and not isinstance(share_vars_from, (ParallelExecutor, paddle.static.Executor)):
            raise AssertionError("The share_vars_from should be ParallelExecutor.")
        places = len(_places(use_cuda))
        if places > 1:
            import warnings

            from runtime_shim.messages import LegacyApiWarning

            warnings.warn(f"ParallelExecutor: Paddle 3 has no multi-device executor; the program runs on one "
                          f"device instead of {places}, and fetched values are not concatenated per device "
                          "(set CPU_NUM=1 for 1.8's results on CPU)", LegacyApiWarning, stacklevel=2)
        self._places = [paddle.CUDAPlace(0) if use_cuda else paddle.CPUPlace()]
        self._scope = scope if scope is not None else paddle.static.global_scope()
        program = main_program if main_program is not None else paddle.static.default_main_program()
        self._compiled_program = paddle.static.CompiledProgram(program, build_strategy=build_strategy)
        self._exe = Executor(self._places[0])

    def run(self, fetch_list: Any, feed: Any = None, feed_dict: Any = None, return_numpy: bool = True) -> Any:
        """1.8 `ParallelExecutor.run` (`parallel_executor.py:198`); as in 1.8, `feed_dict` is not read."""
        return self._exe.run(program=self._compiled_program, scope=self._scope, feed=feed, fetch_list=fetch_list,
                             return_numpy=return_numpy)

    @property
    def device_count(self) -> int:
        return len(self._places)

    def drop_local_exe_scopes(self) -> None:
        """1.8 dropped the per-device scopes; one device, one scope: nothing to drop."""


@adapter("paddle.fluid.contrib.memory_usage", "a function of the module (the upgrade writes it): no 2.x API "
         "estimates a program's memory", semantics=(55,))
def memory_usage(program: Any, batch_size: int) -> Any:
    """1.8 `contrib.memory_usage(program, batch_size)` (`contrib/memory_usage_calc.py`): the function the
    upgrade writes, compiled from the same text (api_mapping/SEMANTICS.md 55)."""
    from api_mapping.kernels import MEMORY_USAGE
    from runtime_shim.static_ops import plain_kernel

    return plain_kernel(MEMORY_USAGE, "memory_usage")(program, batch_size)
