"""Guards and mode switches of the 1.x execution model (api_mapping/SEMANTICS.md 23, 33, 35)."""
from __future__ import annotations

from typing import Any, Callable, Optional

from runtime_shim import mode
from runtime_shim.adapters import adapter


@adapter("paddle.fluid.dygraph.guard", "paddle.disable_static(place) ... paddle.enable_static()",
         semantics=(33, 35))
def guard(place: Any = None) -> Any:
    """`with fluid.dygraph.guard(place):` dynamic mode and fresh unique names inside, static after."""
    return mode.guard(place)


@adapter("paddle.fluid.dygraph.enable_dygraph", "paddle.disable_static(place)", semantics=(35,))
def enable_dygraph(place: Any = None) -> None:
    mode.enable_dygraph(place)


@adapter("paddle.fluid.dygraph.disable_dygraph", "paddle.enable_static()", semantics=(35,))
def disable_dygraph() -> None:
    mode.disable_dygraph()


@adapter("paddle.fluid.dygraph.enable_imperative", "paddle.disable_static(place)", semantics=(35,))
def enable_imperative(place: Any = None) -> None:
    mode.enable_dygraph(place)


@adapter("paddle.fluid.dygraph.disable_imperative", "paddle.enable_static()", semantics=(35,))
def disable_imperative() -> None:
    mode.disable_dygraph()


@adapter("paddle.fluid.dygraph.no_grad", "paddle.no_grad()", semantics=(23,))
def no_grad(func: Optional[Callable[..., Any]] = None) -> Any:
    """1.8 `no_grad` (`dygraph/base.py:214`): a context manager, or a decorator when given `func`.

    Inside it the tracer is not in train mode, which is what 1.8's `layers.dropout` reads in dygraph.
    """
    from paddle.base.dygraph.base import no_grad as base_no_grad

    return base_no_grad(func)


def _parallel_env() -> type:
    import paddle.distributed

    return paddle.distributed.ParallelEnv


@adapter("paddle.fluid.dygraph.ParallelEnv", "paddle.distributed.ParallelEnv()")
class ParallelEnv(_parallel_env()):
    """1.8 `fluid.dygraph.ParallelEnv` / `parallel.Env`, whose `dev_id` 1.8 read from `FLAGS_selected_gpus`.

    3.3.1's `ParallelEnv.device_id` fails on a machine without GPUs (its `_device_id` is only set when
    devices are selected); 1.8 answered the flag's value, 0 by default.
    """

    @property
    def device_id(self) -> int:
        import os

        return getattr(self, "_device_id", int(os.getenv("FLAGS_selected_gpus", "0").split(",")[0]))

    dev_id = device_id


@adapter("paddle.fluid.dygraph.BackwardStrategy", "paddle.set_flags({'FLAGS_sort_sum_gradient': ...}) and "
         "loss.backward()")
class BackwardStrategy:
    """1.8 `dygraph.BackwardStrategy`: its one option, `sort_sum_gradient`, is read by `loss.backward(strategy)`
    (`runtime_shim.tensor_methods`) as Paddle 3's `FLAGS_sort_sum_gradient`."""

    def __init__(self) -> None:
        self.sort_sum_gradient = False
