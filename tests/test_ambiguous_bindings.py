"""A name whose binding is decided at run time is left as written, marked TODO, and the report says why."""
from __future__ import annotations

import refactors
from refactors import findings as F

DIFFERENT_APIS = """\
try:
    from paddle.fluid.layers import relu as act
except ImportError:
    from paddle.fluid.layers import sigmoid as act
y = act(x)
"""

NOT_ONLY_IMPORTS = """\
try:
    import paddle.fluid as fluid
except ImportError:
    fluid = None
y = fluid.layers.relu(x)
"""


def _review(source: str):
    result = refactors.upgrade_code(source, shim=False)
    *head, last = source.splitlines(keepends=True)
    why = "`act` is bound to several APIs" if "act" in last else "`fluid` is bound otherwise too"
    assert result.code == "".join(head) + last.rstrip("\n") + f"  # TODO(paddle-upgrade): {why}; left as written\n"
    return [(f.line, f.message) for f in result.findings if f.code == F.NEEDS_REVIEW]


def test_imports_of_different_apis_are_named() -> None:
    assert _review(DIFFERENT_APIS) == [
        (5, "`act` is bound by imports of different paddle APIs (paddle.fluid.layers.relu, "
            "paddle.fluid.layers.sigmoid) here; left as written")]


def test_a_name_bound_otherwise_too_says_so() -> None:
    assert _review(NOT_ONLY_IMPORTS) == [
        (5, "`fluid` is bound both by a paddle import and otherwise here; left as written")]


def test_the_use_left_runs_through_the_shim() -> None:
    result = refactors.upgrade_code(NOT_ONLY_IMPORTS)
    assert result.code.startswith("import runtime_shim.coexist  # paddle-upgrade: runs the legacy uses marked TODO below\n")
