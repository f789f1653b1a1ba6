"""A ParallelExecutor whose uses the file does not all show (passed to a function, returned, rebound,
chosen by a conditional expression, run in a `scope`): a class written once in the module whose objects
do what 1.8.5's did on one device (not a transformer itself: parallel_executor.py emits it).

`OneDeviceExecutor(use_cuda, main_program=..., build_strategy=..., num_trainers=..., trainer_id=...,
scope=...)` takes 1.8's arguments but the ones that only configured the devices (`loss_name`,
`exec_strategy`, `share_vars_from`: see parallel_executor.py) and, as 1.8's object (`parallel_executor.py:
148-312`), compiles `main_program` (the default main program when None, read when it is made) with
`build_strategy` and runs it with an Executor of `CUDAPlace(0)` or `CPUPlace()` in `scope` (the global
scope when None); `run(fetch_list, feed, feed_dict, return_numpy)` does not read `feed_dict` (1.8 did
not either). `device_count` is 1 and `drop_local_exe_scopes()` has nothing to drop. A `num_trainers`
other than 1 (multi-node training, in 1.8 through NCCL) is refused when the object is made: on 2.x that
goes through paddle.distributed.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, Site
from refactors.transformers import emit, module_definitions

ONE_DEVICE_EXECUTOR = '''\
class {name}:
    """1.8's ParallelExecutor (paddle-upgrade) on one device: `run` runs `main_program` compiled with
    `build_strategy` in `scope`, on `CUDAPlace(0)` or `CPUPlace()`."""

    def __init__(self, use_cuda, main_program=None, build_strategy=None, num_trainers=1, trainer_id=0,
                 scope=None):
        if num_trainers != 1:
            raise ValueError(f"num_trainers={{num_trainers}}: train on several nodes with paddle.distributed")
        if main_program is None:
            main_program = {paddle}.static.default_main_program()
        self.program = {paddle}.static.CompiledProgram(main_program, build_strategy=build_strategy)
        self.executor = {paddle}.static.Executor({paddle}.CUDAPlace(0) if use_cuda else {paddle}.CPUPlace())
        self.scope = scope
        self.device_count = 1

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        return self.executor.run(self.program, feed=feed, fetch_list=fetch_list, scope=self.scope,
                                 return_numpy=return_numpy)

    def drop_local_exe_scopes(self):
        pass
'''
DROPPED = ("loss_name", "exec_strategy", "share_vars_from")  # they only configured the devices


def one_device_executor(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """`fluid.ParallelExecutor(...)` (its arguments named, none of DROPPED computing anything) as
    `OneDeviceExecutor(...)`."""
    name = module_definitions.define_once(ctx, site, "OneDeviceExecutor", ONE_DEVICE_EXECUTOR)
    kept = [arg for arg in node.args if arg.keyword is None or arg.keyword.value not in DROPPED]
    return emit.converted(site, call_args.with_args(node.with_changes(func=cst.Name(name)), kept))
