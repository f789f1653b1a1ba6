"""Fixtures shared by test modules."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def fluid():
    """`paddle.fluid` as the runtime shim serves it on the installed Paddle (warnings off), per module.
    A module that defines its own `fluid` fixture uses that one."""
    runtime_shim = pytest.importorskip("runtime_shim")
    with runtime_shim.installed(warnings="off"):
        import paddle.fluid as fluid

        yield fluid
