"""`fluid.evaluator.EditDistance`: 1.8's static evaluator, whose state lives in the program.

1.8's evaluators (`evaluator.py`, deprecated in 1.8, gone in 2.x) keep persistable state variables that
operators appended to the main program add to on every run; `reset(exe)` zeroes them with a program of
its own and `eval(exe)` computes the result from them with another. EditDistance is served with 1.8's
`edit_distance` operator, which Paddle 3.3.1 still registers and which reads the LoD of both inputs,
and was checked against 1.8.5 (`fixtures/shim/evaluator_static.py`). `ignored_tokens` is refused: 1.8
erased them with `sequence_erase`, an LoD operator Paddle 3.3.1 no longer registers.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from runtime_shim.adapters import adapter
from runtime_shim.adapters.sequence_lod import require_legacy_static
from runtime_shim.messages import UnservedApiError
from runtime_shim.static_ops import run_op

_NAME = "paddle.fluid.evaluator.EditDistance"


def _clone(block: Any, var: Any) -> Any:
    """1.8's `_clone_var_`: the same persistable variable, declared in another program's block."""
    return block.create_var(name=var.name, shape=var.shape, dtype=var.dtype, persistable=True)


@adapter(_NAME, "1.8's evaluator: state variables the program adds to, read by eval(exe)")
class EditDistance:
    """1.8 `evaluator.EditDistance(input, label)` (`evaluator.py:218`): `metrics` are the batch's summed
    distance and count of wrong sequences; `eval(exe)` gives the mean distance and error rate since the
    last `reset(exe)`."""

    def __init__(self, input: Any, label: Any, ignored_tokens: Optional[Sequence[int]] = None,
                 **kwargs: Any) -> None:
        import paddle
        from paddle.base.layer_helper import LayerHelper

        require_legacy_static(_NAME)
        if ignored_tokens:
            raise UnservedApiError(f"{_NAME}: ignored_tokens= is not served: 1.8 erased them from the LoD "
                                   "sequences with sequence_erase, which Paddle 3.3.1 no longer registers")
        self.states: List[Any] = []
        self.metrics: List[Any] = []
        self.helper = LayerHelper("edit_distance", **kwargs)
        if self.helper.main_program.current_block().idx != 0:
            raise ValueError("You can only invoke Evaluator in root block")
        self.total_distance = self._create_state("float32", "total_distance")
        self.seq_num = self._create_state("int64", "seq_num")
        self.instance_error = self._create_state("int64", "instance_error")

        distances, seq_num = run_op("edit_distance", {"Hyps": input, "Refs": label}, {"normalized": True},
                                    outputs=("Out", "SequenceNum"), dtype="float32")
        seq_num = paddle.cast(seq_num, "int64")  # 1.8's operator counted in int64, 3.3.1's in float32
        right = paddle.cast(paddle.equal(distances, paddle.zeros([1], "float32")), "int64")
        instance_errors = seq_num - paddle.reshape(paddle.sum(right), [1])
        total_distance = paddle.reshape(paddle.sum(distances), [1])
        for state, batch in ((self.total_distance, total_distance), (self.seq_num, seq_num),
                             (self.instance_error, instance_errors)):
            paddle.assign(state + batch, output=state)  # 1.8: layers.sums([state, batch], out=state)
        self.metrics += [total_distance, instance_errors]

    def _create_state(self, dtype: str, suffix: str) -> Any:
        from paddle.base import unique_name

        state = self.helper.create_variable(name="_".join([unique_name.generate(self.helper.name), suffix]),
                                            persistable=True, dtype=dtype, shape=[1])
        self.states.append(state)
        return state

    def reset(self, executor: Any, reset_program: Any = None) -> None:
        """Zero the states, with a program of their own."""
        import paddle

        program = reset_program if reset_program is not None else paddle.static.Program()
        with paddle.static.program_guard(program):
            for state in self.states:
                cloned = _clone(program.current_block(), state)
                paddle.assign(paddle.zeros(cloned.shape, cloned.dtype), output=cloned)
        executor.run(program)

    def eval(self, executor: Any, eval_program: Any = None) -> Tuple[np.ndarray, np.ndarray]:
        """The mean distance and the rate of wrong sequences since the last reset."""
        import paddle

        program = eval_program if eval_program is not None else paddle.static.Program()
        block = program.current_block()
        with paddle.static.program_guard(program):
            total = _clone(block, self.total_distance)
            count = paddle.cast(_clone(block, self.seq_num), "float32")
            errors = paddle.cast(_clone(block, self.instance_error), "float32")
            result = executor.run(program, fetch_list=[total / count, errors / count])
        return np.array(result[0]), np.array(result[1])
