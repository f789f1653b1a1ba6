"""`fluid.layers.RNNCell`, `LSTMCell`, `GRUCell` and `rnn`: 1.8's cell API, run as the upgrade writes it.

The upgrade writes 1.8's RNNCell (a `paddle.nn.RNNCellBase` whose `forward` calls `call`), LSTMCell (1.8's
weight layout, names and forget_bias) and GRUCell (1.8's gate and candidate weights and names) into the module,
and `rnn(cell, inputs, ...)` becomes `paddle.nn.RNN(cell, is_reverse, time_major)(inputs, ...)`
(refactors/transformers/rnn_cells.py). The shim compiles the same classes from api_mapping.kernels and runs
`rnn` the same way. What the upgrade adds to
a user's cell class, `super().__init__()` first in its `__init__`, the shim cannot write: its RNNCell makes
the Layer's state when an object is created, before the class's own `__init__`, which 1.8's cells did not
make call their base's. Checked against 1.8.5 by fixtures/legacy/rnn_cell_static.py and gru_cell_static.py,
upgraded and under the shim.
"""
from __future__ import annotations

from typing import Any, Tuple

from api_mapping.kernels import GRU_CELL_CLASS, LSTM_CELL_CLASS, RNN_CELL_BASE, RNN_UNIT_PARAMETER
from runtime_shim.adapters import adapter


def _classes() -> Tuple[type, type, type]:
    import copy

    import numpy
    import paddle

    from api_mapping.kernels import compiled

    written = compiled(RNN_CELL_BASE, "RNNCell", paddle, numpy)

    class RNNCell(written):  # type: ignore[misc, valid-type]
        __doc__ = written.__doc__

        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            cell = super().__new__(cls)
            paddle.nn.Layer.__init__(cell)  # (a later super().__init__() resets only Layer's registries)
            return cell

    parameter = compiled(RNN_UNIT_PARAMETER, "parameter", paddle, numpy, copy=copy)
    lstm, gru = (compiled(template, name, paddle, numpy, base=RNNCell, parameter=parameter)
                 for template, name in ((LSTM_CELL_CLASS, "LSTMCell"), (GRU_CELL_CLASS, "GRUCell")))
    return RNNCell, lstm, gru


@adapter("paddle.fluid.layers.rnn", "paddle.nn.RNN(cell, is_reverse, time_major)(inputs, initial_states, "
         "sequence_length)")
def rnn(cell: Any, inputs: Any, initial_states: Any = None, sequence_length: Any = None, time_major: bool = False,
        is_reverse: bool = False, **kwargs: Any) -> Any:
    """1.8 `layers.rnn` (`layers/rnn.py`): (outputs, final states) of `cell` over `inputs`, states kept past each
    sequence's length; paddle.nn.RNN computes the same from the cell's `forward`."""
    import paddle

    return paddle.nn.RNN(cell, is_reverse=is_reverse, time_major=time_major)(
        inputs, initial_states=initial_states, sequence_length=sequence_length, **kwargs)


# The classes need paddle to be made: the adapters are loaded when the shim first resolves a legacy name.
RNNCell, LSTMCell, GRUCell = _classes()
adapter("paddle.fluid.layers.RNNCell", "a paddle.nn.RNNCellBase subclass whose forward is the cell's `call`")(RNNCell)
adapter("paddle.fluid.layers.LSTMCell", "1.8's LSTMCell over paddle.nn.RNNCellBase (paddle.nn.LSTMCell needs "
        "input_size and has no forget_bias)")(LSTMCell)
adapter("paddle.fluid.layers.GRUCell", "1.8's GRUCell over paddle.nn.RNNCellBase (paddle.nn.GRUCell needs "
        "input_size and has other weights)")(GRUCell)
