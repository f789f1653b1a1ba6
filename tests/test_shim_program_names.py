"""Under the shim, programs name layers and parameters from one generator, as 1.8.5 did.

Read on 1.8.5 (`fixtures/shim/lod_decoding_static.py` runs the same case against its golden): an `fc`
in a second main program built on the same startup program is `fc_1`, not `fc_0` again; inside
`unique_name.guard()` names start over, so a program built twice in guards gets the same names.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.paddle


def _fc_parameters(fluid, main, startup, width):
    with fluid.program_guard(main, startup):
        x = fluid.data(f"x{width}", [None, width], "float32")
        fluid.layers.fc([x, x], size=3)
    return [p.name for p in main.global_block().all_parameters()]


def test_second_program_on_one_startup_gets_new_names(fluid):
    startup = fluid.Program()
    with fluid.unique_name.guard():
        first = _fc_parameters(fluid, fluid.Program(), startup, 12)
        second = _fc_parameters(fluid, fluid.Program(), startup, 3)
    assert first == ["fc_0.w_0", "fc_0.w_1", "fc_0.b_0"]
    assert second == ["fc_1.w_0", "fc_1.w_1", "fc_1.b_0"]


def test_unique_name_guard_starts_names_over(fluid):
    names = []
    for _ in range(2):
        with fluid.unique_name.guard():
            names.append(_fc_parameters(fluid, fluid.Program(), fluid.Program(), 4))
    assert names[0] == names[1] == ["fc_0.w_0", "fc_0.w_1", "fc_0.b_0"]


def test_a_clone_continues_the_names(fluid):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard():
        _fc_parameters(fluid, main, startup, 4)
        test = main.clone(for_test=True)
        assert _fc_parameters(fluid, test, startup, 5)[-3:] == ["fc_1.w_0", "fc_1.w_1", "fc_1.b_0"]
