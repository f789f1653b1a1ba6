"""`fluid.evaluator.EditDistance` under the shim: what 1.8.5 declared, and what the shim refuses.

Its numbers (batch metrics, eval after one and two batches, reset) are checked against 1.8.5 by
fixtures/shim/evaluator_static.py. Read on 1.8.5: two evaluators in one program declare the persistable
states `edit_distance_0_0_total_distance` (float32), `edit_distance_0_1_seq_num`,
`edit_distance_0_2_instance_error` (int64), then `edit_distance_2_...`.
"""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.paddle


def _inputs(fluid: Any) -> Any:
    return (fluid.data("decoded", [None, 1], "int64", lod_level=1),
            fluid.data("label", [None, 1], "int64", lod_level=1))


def test_states_are_named_and_typed_as_in_1_8(fluid):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        decoded, label = _inputs(fluid)
        first = fluid.evaluator.EditDistance(input=decoded, label=label)
        second = fluid.evaluator.EditDistance(input=decoded, label=label)
    states = [(v.name, str(v.dtype).split(".")[-1], v.persistable) for v in first.states + second.states]
    assert states == [("edit_distance_0_0_total_distance", "float32", True),
                      ("edit_distance_0_1_seq_num", "int64", True),
                      ("edit_distance_0_2_instance_error", "int64", True),
                      ("edit_distance_2_0_total_distance", "float32", True),
                      ("edit_distance_2_1_seq_num", "int64", True),
                      ("edit_distance_2_2_instance_error", "int64", True)]
    assert len(first.metrics) == 2


def test_ignored_tokens_are_refused_with_the_reason(fluid):
    """The argument the table lists as refused (the upgrader's marker says so for a call passing it)."""
    from api_mapping import load_table
    from runtime_shim import UnservedApiError

    assert load_table().entries["paddle.fluid.evaluator.EditDistance"].no_equivalent.shim_refuses == (
        "ignored_tokens",)

    with fluid.program_guard(fluid.Program(), fluid.Program()):
        decoded, label = _inputs(fluid)
        with pytest.raises(UnservedApiError, match="sequence_erase"):
            fluid.evaluator.EditDistance(input=decoded, label=label, ignored_tokens=[0])
