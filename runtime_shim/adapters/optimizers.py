"""Optimizers and learning-rate decays with their 1.8 behaviour.

- Every 1.8 optimizer (any table entry whose 2.x target derives from `paddle.optimizer.Optimizer`)
  takes `parameter_list`/`regularization`/`grad_clip` through the table's renames, and additionally
  accepts what 2.x refuses (api_mapping/SEMANTICS.md 27-29): a 1.8 dygraph `LearningRateDecay`, advanced once per
  `minimize`, and a static learning-rate variable built by `fluid.layers.*_decay`. It keeps the 1.8
  methods `current_step_lr`, `set_dict` and `clear_gradients`.
- The dygraph decays (`fluid.dygraph.PiecewiseDecay`, ...) are the 1.8 formulas, stepped by the
  optimizer (`dygraph/learning_rate_scheduler.py:44-50`): the classes the upgrade writes into a module
  (api_mapping.kernels), so a 2.x optimizer given one advances it as 1.8's did.
- The static decays (`fluid.layers.exponential_decay`, ...) build the 1.8 graph: a step counter that
  the main program increments on every run, first seen as 0 (`layers/learning_rate_scheduler.py:45`).
- `ExponentialMovingAverage` builds 1.8's programs on Paddle 3's class (below).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, Optional, Sequence

from runtime_shim import mode
from runtime_shim.adapters import adapter, for_target_base
from runtime_shim.resolve import legacy_subclass
from runtime_shim.static_ops import op

# ------------------------------------------------------------------------------------------------
# Dygraph decays (1.8 `fluid.dygraph.learning_rate_scheduler`)


def _written_base() -> type:
    """1.8's base class as the upgrade writes it into a module (api_mapping.kernels LEARNING_RATE_DECAY)."""
    import sys

    import numpy
    import paddle

    from api_mapping.kernels import LEARNING_RATE_DECAY, compiled

    return compiled(LEARNING_RATE_DECAY, "LearningRateDecay", paddle, numpy, sys=sys)


@adapter("paddle.fluid.dygraph.learning_rate_scheduler.LearningRateDecay",
         "paddle.optimizer.lr.LRScheduler (implement get_lr(); call scheduler.step() after opt.step())",
         semantics=(28,))
class LearningRateDecay(_written_base()):  # type: ignore[misc]
    """1.8 `LearningRateDecay(begin, step, dtype)`: calling it takes the rate `step()` computes and advances
    the step. 1.8 code subclasses it with its own `step()`; every shim optimizer accepts such an object,
    and so does a 2.x optimizer (an upgraded one beside the legacy schedule), which advances it as 1.8's
    did (refactors/transformers/lr_decay_class.py)."""


def _value(lr: Any) -> float:
    """A Python float from a decay's value (a float or a `[1]` tensor)."""
    if isinstance(lr, LearningRateDecay):
        lr = lr()
    if hasattr(lr, "numpy"):
        return float(lr.numpy().reshape(-1)[0])
    return float(lr)


def _written_decay(name: str) -> type:
    """1.8's dygraph schedule `name` as the upgrade writes it into a module (api_mapping.kernels DYGRAPH_DECAYS)
    over the shim's LearningRateDecay."""
    import math

    import numpy
    import paddle

    from api_mapping.kernels import DYGRAPH_DECAYS, compiled

    return compiled(DYGRAPH_DECAYS[name].replace("{base}", "{LearningRateDecay}"), name, paddle, numpy, math=math,
                    LearningRateDecay=LearningRateDecay)


PiecewiseDecay = adapter("paddle.fluid.dygraph.PiecewiseDecay", "paddle.optimizer.lr.PiecewiseDecay(boundaries, "
                         "values, last_epoch=begin - 1) stepped after each opt.step()",
                         semantics=(28,))(_written_decay("PiecewiseDecay"))
NaturalExpDecay = adapter("paddle.fluid.dygraph.NaturalExpDecay", "paddle.optimizer.lr.NaturalExpDecay",
                          semantics=(28,))(_written_decay("NaturalExpDecay"))
ExponentialDecay = adapter("paddle.fluid.dygraph.ExponentialDecay", "paddle.optimizer.lr.ExponentialDecay("
                           "learning_rate, gamma=decay_rate ** (1 / decay_steps))",
                           semantics=(28, 29))(_written_decay("ExponentialDecay"))
InverseTimeDecay = adapter("paddle.fluid.dygraph.InverseTimeDecay", "paddle.optimizer.lr.InverseTimeDecay",
                           semantics=(28,))(_written_decay("InverseTimeDecay"))
PolynomialDecay = adapter("paddle.fluid.dygraph.PolynomialDecay", "paddle.optimizer.lr.PolynomialDecay",
                          semantics=(28,))(_written_decay("PolynomialDecay"))
CosineDecay = adapter("paddle.fluid.dygraph.CosineDecay", "paddle.optimizer.lr.CosineAnnealingDecay",
                      semantics=(28,))(_written_decay("CosineDecay"))
NoamDecay = adapter("paddle.fluid.dygraph.NoamDecay", "paddle.optimizer.lr.NoamDecay",
                    semantics=(28,))(_written_decay("NoamDecay"))
LinearLrWarmup = adapter("paddle.fluid.dygraph.LinearLrWarmup", "paddle.optimizer.lr.LinearWarmup",
                         semantics=(28,))(_written_decay("LinearLrWarmup"))


class _EpochDecay(LearningRateDecay):
    """1.8 `_LearningRateEpochDecay`: changes only when `epoch()` is called."""

    def _state_keys(self) -> None:
        self.keys = ["epoch_num", "learning_rate"]

    def __init__(self, learning_rate: float, dtype: Optional[str] = None) -> None:
        if not isinstance(learning_rate, (float, int)):
            raise TypeError(f"The type of 'learning_rate' must be 'float, int', but received {type(learning_rate)}.")
        if learning_rate < 0:
            raise ValueError(f"Invalid learning rate: {learning_rate}")
        super().__init__(0, 0, dtype or "float32")
        self.base_lr = float(learning_rate)
        self.epoch_num = -1
        self.learning_rate = self.base_lr
        self.epoch()

    def __call__(self) -> Any:  # a float, as a 2.x optimizer reads it too; only `epoch()` moves the rate
        return self._number(self.create_lr_var(self.learning_rate))

    def step(self) -> float:
        return self.learning_rate

    def epoch(self, epoch: Optional[int] = None) -> None:
        self.epoch_num = self.epoch_num + 1 if epoch is None else epoch
        self.learning_rate = self.get_lr()

    def get_lr(self) -> float:
        raise NotImplementedError


@adapter("paddle.fluid.dygraph.StepDecay", "paddle.optimizer.lr.StepDecay")
class StepDecay(_EpochDecay):
    def __init__(self, learning_rate: float, step_size: int, decay_rate: float = 0.1) -> None:
        if not isinstance(step_size, int):
            raise TypeError(f"The type of 'step_size' must be 'int', but received {type(step_size)}.")
        if decay_rate >= 1.0:
            raise ValueError("decay_rate should be < 1.0.")
        self.decay_step_size = step_size
        self.decay_rate = decay_rate
        super().__init__(learning_rate)

    def get_lr(self) -> float:
        return self.base_lr * self.decay_rate ** (self.epoch_num // self.decay_step_size)


@adapter("paddle.fluid.dygraph.MultiStepDecay", "paddle.optimizer.lr.MultiStepDecay")
class MultiStepDecay(_EpochDecay):
    def __init__(self, learning_rate: float, milestones: Sequence[int], decay_rate: float = 0.1) -> None:
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("The type of 'milestones' in 'MultiStepDecay' must be 'tuple, list'")
        if decay_rate >= 1.0:
            raise ValueError("decay_rate should be < 1.0.")
        self.milestones = list(milestones)
        self.decay_rate = decay_rate
        super().__init__(learning_rate)

    def get_lr(self) -> float:
        for i, milestone in enumerate(self.milestones):
            if self.epoch_num < milestone:
                return self.base_lr * self.decay_rate ** i
        return self.base_lr * self.decay_rate ** len(self.milestones)


@adapter("paddle.fluid.dygraph.LambdaDecay", "paddle.optimizer.lr.LambdaDecay")
class LambdaDecay(_EpochDecay):
    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float]) -> None:
        if not callable(lr_lambda):
            raise TypeError("The type of 'lr_lambda' in 'LambdaDecay' must be 'function'")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.epoch_num)


# ------------------------------------------------------------------------------------------------
# Static decays (1.8 `fluid.layers.learning_rate_scheduler`): graph ops over a step counter


def _step_counter(begin: int = 0) -> Any:
    """1.8 `_decay_step_counter`: float32 `[1]`, incremented by an op prepended to the main program."""
    from paddle.optimizer.lr import autoincreased_step_counter

    counter = autoincreased_step_counter(counter_name="@LR_DECAY_COUNTER@", begin=begin, step=1)
    return op("paddle.cast")(counter, "float32")


@adapter("paddle.fluid.layers.learning_rate_scheduler._decay_step_counter",
         "a Python step count, or the scheduler's last_epoch", semantics=(29,))
def _decay_step_counter(begin: int = 0) -> Any:
    """1.8's private global step (`layers/learning_rate_scheduler.py:45`), which custom decays build on."""
    return _step_counter(begin)


def _schedule_guard() -> Any:
    from paddle.base import framework

    return framework.default_main_program()._lr_schedule_guard()


@adapter("paddle.fluid.layers.exponential_decay", "paddle.optimizer.lr.StepDecay / ExponentialDecay "
         "(gamma=decay_rate ** (1 / decay_steps)), stepped once per iteration", semantics=(29,))
def exponential_decay(learning_rate: float, decay_steps: int, decay_rate: float, staircase: bool = False) -> Any:
    """`lr * decay_rate ** (step / decay_steps)`, floored when `staircase` (1.8 `:112`)."""
    if mode.in_dygraph():
        return ExponentialDecay(learning_rate, decay_steps, decay_rate, staircase)
    with _schedule_guard():
        div = _step_counter() / float(decay_steps)
        if staircase:
            div = op("paddle.floor")(div)
        return learning_rate * (decay_rate ** div)


@adapter("paddle.fluid.layers.natural_exp_decay", "paddle.optimizer.lr.NaturalExpDecay", semantics=(29,))
def natural_exp_decay(learning_rate: float, decay_steps: int, decay_rate: float, staircase: bool = False) -> Any:
    """`lr * exp(-decay_rate * step / decay_steps)`, floored when `staircase`."""
    if mode.in_dygraph():
        return NaturalExpDecay(learning_rate, decay_steps, decay_rate, staircase)
    with _schedule_guard():
        div = _step_counter() / float(decay_steps)
        if staircase:
            div = op("paddle.floor")(div)
        return learning_rate * op("paddle.exp")(-1 * decay_rate * div)


@adapter("paddle.fluid.layers.inverse_time_decay", "paddle.optimizer.lr.InverseTimeDecay", semantics=(29,))
def inverse_time_decay(learning_rate: float, decay_steps: int, decay_rate: float, staircase: bool = False) -> Any:
    """`lr / (1 + decay_rate * step / decay_steps)`, floored when `staircase`."""
    if mode.in_dygraph():
        return InverseTimeDecay(learning_rate, decay_steps, decay_rate, staircase)
    with _schedule_guard():
        div = _step_counter() / float(decay_steps)
        if staircase:
            div = op("paddle.floor")(div)
        return learning_rate / (1 + decay_rate * div)


@adapter("paddle.fluid.layers.polynomial_decay", "paddle.optimizer.lr.PolynomialDecay", semantics=(29,))
def polynomial_decay(learning_rate: float, decay_steps: int, end_learning_rate: float = 0.0001,
                     power: float = 1.0, cycle: bool = False) -> Any:
    """`(lr - end) * (1 - step / steps) ** power + end`: step capped at `decay_steps`, or, with
    `cycle`, `steps = decay_steps * max(ceil(step / decay_steps), 1)` (1.8 `:250`)."""
    if mode.in_dygraph():
        return PolynomialDecay(learning_rate, decay_steps, end_learning_rate, power, cycle)
    with _schedule_guard():
        step = _step_counter()
        if cycle:
            div = op("paddle.maximum")(op("paddle.ceil")(step / float(decay_steps)), _constant(1.0))
            steps = div * float(decay_steps)
        else:
            step = op("paddle.minimum")(step, _constant(float(decay_steps)))
            steps = _constant(float(decay_steps))
        return (learning_rate - end_learning_rate) * ((1 - step / steps) ** power) + end_learning_rate


def _constant(value: float) -> Any:
    return op("paddle.full")([1], float(value), "float32")


def _below(step: Any, boundary: float) -> Any:
    """1.0 where `step < boundary`, else 0.0 (1.8 branched with a `Switch` block instead)."""
    return op("paddle.cast")(op("paddle.less_than")(step, _constant(boundary)), "float32")


@adapter("paddle.fluid.layers.piecewise_decay", "paddle.optimizer.lr.PiecewiseDecay", semantics=(28, 29))
def piecewise_decay(boundaries: Sequence[int], values: Sequence[float]) -> Any:
    """`values[i]` while `step < boundaries[i]`, the last value after; in dygraph 1.8 returned
    `PiecewiseDecay(boundaries, values, 0)`."""
    if len(values) - len(boundaries) != 1:
        raise ValueError("len(values) - len(boundaries) should be 1")
    if mode.in_dygraph():
        return PiecewiseDecay(boundaries, values, 0)
    with _schedule_guard():
        step = _step_counter()
        # With ascending boundaries, sum_i (v_i - v_{i+1}) * [step < b_i] + v_last selects v_i.
        lr = _constant(float(values[-1]))
        for i, boundary in enumerate(boundaries):
            lr = lr + (float(values[i]) - float(values[i + 1])) * _below(step, float(boundary))
        return lr


@adapter("paddle.fluid.layers.noam_decay", "paddle.optimizer.lr.NoamDecay", semantics=(29,))
def noam_decay(d_model: int, warmup_steps: int, learning_rate: float = 1.0) -> Any:
    """`lr * d_model ** -0.5 * min(step ** -0.5, warmup ** -1.5 * step)`, counting from 1."""
    if mode.in_dygraph():
        return NoamDecay(d_model, warmup_steps, learning_rate=learning_rate)
    with _schedule_guard():
        step = _step_counter(1)
        a = step ** -0.5
        b = (warmup_steps ** -1.5) * step
        return learning_rate * (d_model ** -0.5) * op("paddle.minimum")(a, b)


@adapter("paddle.fluid.layers.cosine_decay", "paddle.optimizer.lr.CosineAnnealingDecay", semantics=(29,))
def cosine_decay(learning_rate: float, step_each_epoch: int, epochs: int) -> Any:
    """`lr * 0.5 * (cos(floor(step / step_each_epoch) * pi / epochs) + 1)`."""
    if mode.in_dygraph():
        return CosineDecay(learning_rate, step_each_epoch, epochs)
    with _schedule_guard():
        epoch = op("paddle.floor")(_step_counter() / float(step_each_epoch))
        return learning_rate * 0.5 * (op("paddle.cos")(epoch * (math.pi / epochs)) + 1)


@adapter("paddle.fluid.layers.linear_lr_warmup", "paddle.optimizer.lr.LinearWarmup", semantics=(29,))
def linear_lr_warmup(learning_rate: Any, warmup_steps: int, start_lr: float, end_lr: float) -> Any:
    """`start_lr + (end_lr - start_lr) * step / warmup_steps` during warm-up, then `learning_rate`."""
    if mode.in_dygraph():
        return LinearLrWarmup(learning_rate, warmup_steps, start_lr, end_lr)
    with _schedule_guard():
        step = _step_counter()
        warm = start_lr + (float(end_lr) - float(start_lr)) * (step / float(warmup_steps))
        during = _below(step, float(warmup_steps))
        return during * warm + (1 - during) * learning_rate


# ------------------------------------------------------------------------------------------------
# Every 1.8 optimizer


@for_target_base("paddle.optimizer.Optimizer")
def legacy_optimizer(entry: Any, target: type) -> type:
    """A subclass of the 2.x optimizer taking the 1.8 constructor and 1.8 learning rates."""

    def learning_rate(bound: Dict[str, Any]) -> Dict[str, Any]:
        state = {"_legacy_decay": None, "_legacy_lr_var": None, "_legacy_last_lr": None}
        lr = bound.get("learning_rate")
        if isinstance(lr, LearningRateDecay):
            state["_legacy_decay"] = lr
            bound["learning_rate"] = 0.0  # placeholder: each minimize sets the rate it takes (1.8 read none before)
        elif _is_static_variable(lr):
            state["_legacy_lr_var"] = lr
            bound["learning_rate"] = 0.0  # placeholder: minimize() installs the variable
        return state

    def minimize(self: Any, loss: Any, startup_program: Any = None, parameter_list: Any = None,
                 no_grad_set: Any = None) -> Any:
        import paddle

        if self._legacy_lr_var is not None and not paddle.in_dynamic_mode():
            self._learning_rate_map[paddle.static.default_main_program()] = self._legacy_lr_var
        if self._legacy_decay is not None and paddle.in_dynamic_mode():
            self._legacy_last_lr = _value(self._legacy_decay())  # 1.8: each minimize takes a value and steps
            self.set_lr(self._legacy_last_lr)
        return target.minimize(self, loss, startup_program=startup_program, parameters=parameter_list,
                               no_grad_set=no_grad_set)

    def current_step_lr(self: Any) -> float:
        """1.8 `Optimizer.current_step_lr()` (`optimizer.py:298`): the rate the last `minimize` used
        (api_mapping/SEMANTICS.md 42); before the first, the rate of the decay's current step."""
        if self._legacy_last_lr is not None:
            return self._legacy_last_lr
        if self._legacy_decay is not None:
            return self._legacy_decay._number(self._legacy_decay.step())
        return float(self.get_lr())

    def state_dict(self: Any) -> Dict[str, Any]:
        """1.8 `Optimizer.state_dict()`: the accumulators, and with a 1.8 decay its state
        (`LR_Scheduler`) and, for a per-step decay, `global_step` (int32, shape [1])."""
        import paddle

        state = target.state_dict(self)
        state.pop("LR_Scheduler", None)  # 2.x's own scheduler is not in use: the rate is the 1.8 decay's
        if self._legacy_decay is not None:
            state["LR_Scheduler"] = self._legacy_decay.state_dict()
            if not isinstance(self._legacy_decay, _EpochDecay):
                state["global_step"] = paddle.to_tensor([self._legacy_decay.step_num], dtype="int32")
        return state

    def set_dict(self: Any, state_dict: Any) -> None:
        """1.8 `Optimizer.set_dict(state_dict)`: the accumulators, and the decay's step where 1.8 kept it."""
        state = dict(state_dict)
        scheduler, step = state.pop("LR_Scheduler", None), state.pop("global_step", None)
        if self._legacy_decay is not None:
            self._legacy_decay.set_dict(scheduler)
            if not isinstance(self._legacy_decay, _EpochDecay):
                if step is None:
                    raise AssertionError("Global step not in state dict, Dygraph use LearningRateDecay, "
                                         "global_step must in state_dict")
                self._legacy_decay.step_num = int(np_value(step).reshape(-1)[0])
        self.set_state_dict(state)

    def clear_gradients(self: Any) -> None:
        self.clear_grad()

    members = {"minimize": minimize, "current_step_lr": current_step_lr, "state_dict": state_dict,
               "set_dict": set_dict, "clear_gradients": clear_gradients}
    import paddle

    if target is paddle.optimizer.Adam:
        members["_append_optimize_op"] = _adam_with_1_8_epsilon(target)
    return legacy_subclass(entry, target, attributes=learning_rate, members=members)


def np_value(value: Any) -> Any:
    import numpy as np

    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _adam_with_1_8_epsilon(target: type) -> Callable[..., Any]:
    """1.8's Adam adds epsilon to sqrt(v); Paddle 3's adds epsilon * sqrt(1 - beta2^t) (api_mapping/SEMANTICS.md
    44). The same update with 3.x's operator: epsilon / sqrt(1 - beta2^t) for each step, from the
    parameter's own beta2 power (a value in dygraph, an `EpsilonTensor` computed in the program)."""

    def _append_optimize_op(self: Any, block: Any, param_and_grad: Any) -> Any:
        import paddle

        epsilon = self._epsilon
        beta2_pow = self._get_accumulator_master(self._beta2_pow_acc_str, param_and_grad[0])
        if paddle.in_dynamic_mode():
            self._epsilon = float(epsilon) / math.sqrt(1.0 - float(np_value(beta2_pow).reshape(-1)[0]))
        else:
            self._epsilon = op("paddle.scale")(op("paddle.rsqrt")(1.0 - beta2_pow), scale=float(epsilon))
        try:
            return target._append_optimize_op(self, block, param_and_grad)
        finally:
            self._epsilon = epsilon

    return _append_optimize_op


def _is_static_variable(value: Any) -> bool:
    try:
        from paddle.base.framework import Variable
    except ImportError:
        return False
    return isinstance(value, Variable)


# ------------------------------------------------------------------------------------------------
# ExponentialMovingAverage (1.8 `optimizer.py:3303`)


def _moving_average() -> type:
    """Paddle 3's `paddle.static.ExponentialMovingAverage` (Paddle >= 2.2) keeps 1.8's `update()` and
    `restore()`, but differs where its constructor builds: 1.8's `apply()` writes the bias-corrected
    average back into the average before copying it to the parameters (`optimizer.py:3440`: a second
    `apply()`, or `update()` after one, goes on from the corrected value), averages the parameters whose
    `do_model_average` is not False (None by default), and caps the decay at
    `(thres_steps + 1) / (thres_steps + 10)` (which Paddle 3.3.1 fails to build: a numpy array in a
    `static.nn.cond`). This subclass builds 1.8's way and leaves the rest to Paddle 3."""
    import paddle
    from paddle.static import ExponentialMovingAverage as Paddle3
    from paddle.utils import unique_name

    class ExponentialMovingAverage(Paddle3):
        def __init__(self, decay: float = 0.999, thres_steps: Any = None, name: Optional[str] = None) -> None:
            self._decay, self._thres_steps, self._name = decay, thres_steps, name or ""
            self._decay_var = self._get_ema_decay()
            self._step_counter_name = "@EMA_STEP_COUNTER@"
            self._params_tmps = [
                (param, param.block.create_var(name=unique_name.generate(f"{self._name}{param.name}.ema_tmp"),
                                               dtype=param.dtype, persistable=False, stop_gradient=True))
                for param in paddle.static.default_main_program().global_block().all_parameters()
                if param.do_model_average is not False]
            self._ema_vars = {}
            for param, tmp in self._params_tmps:
                with param.block.program._optimized_guard([param, tmp]), paddle.static.name_scope("moving_average"):
                    self._ema_vars[param.name] = self._create_ema_vars(param)
            self.apply_program = self._copies(apply=True)
            self.restore_program = self._copies(apply=False)

        def _copies(self, apply: bool) -> Any:
            """apply: tmp <- param; ema <- ema / (1 - decay^step) when step > 0; param <- ema.
            restore: param <- tmp."""
            program = paddle.static.Program()
            block = program.global_block()
            with paddle.static.program_guard(program):
                if apply:
                    decay_pow, step = self._get_decay_pow(block)
                    divisor = paddle.where(step > 0, 1.0 - decay_pow, paddle.ones_like(decay_pow))
                for param, tmp in self._params_tmps:
                    param, tmp = block._clone_variable(param), block._clone_variable(tmp)
                    if not apply:
                        paddle.assign(tmp, output=param)
                        continue
                    ema = block._clone_variable(self._ema_vars[param.name])
                    paddle.assign(param, output=tmp)
                    paddle.assign(ema / divisor, output=ema)
                    paddle.assign(ema, output=param)
            return program

        def _get_ema_decay(self) -> Any:
            main = paddle.static.default_main_program()
            with main._lr_schedule_guard():
                decay_var = paddle.static.create_global_var(shape=[1], value=self._decay, dtype="float32",
                                                            persistable=True, name="scheduled_ema_decay_rate")
                if self._thres_steps is not None:
                    paddle.assign(self._capped(self._thres_steps), output=decay_var)
            return decay_var

        def _capped(self, steps: Any) -> Any:
            """min((steps + 1) / (steps + 10), decay) as 1.8 computed it: an integer step counter kept
            its dtype through the arithmetic, so the ratio truncated to an integer and was compared with
            the decay truncated alike (0 < 0 for a decay below 1: the decay stays as given)."""
            decay = paddle.full([1], self._decay, "float32")
            if isinstance(steps, (int, float)):
                steps = paddle.full([1], steps, "float32")
            ratio = (steps.astype("float64") + 1.0) / (steps.astype("float64") + 10.0)
            limit = float(self._decay)
            if "int" in str(steps.dtype):
                ratio, limit = paddle.trunc(ratio), float(int(self._decay))
            return paddle.where(ratio < limit, ratio.astype("float32"), decay)

    ExponentialMovingAverage.__module__ = "paddle.fluid.optimizer"
    return ExponentialMovingAverage


adapter("paddle.fluid.optimizer.ExponentialMovingAverage",
        "paddle.static.ExponentialMovingAverage (Paddle >= 2.2; apply() does not write the corrected average back)",
        )(_moving_average())
