"""Static control flow of 1.8 on the legacy IR: the block classes, and the 1.8 forms of the ops loops use.

`layers.cond`, `while_loop`, `case` and `switch_case` are their 2.x functions (the table renames them),
which build legacy-IR programs once `runtime_shim.static_ops` serves the functions they call. What 2.x
made private or changed is here: the `While` and `Switch` block classes (Paddle 3.3.1 keeps them in
`paddle.static.nn.control_flow`), comparisons that write their result into `cond` (how a `While`
loop updates its condition), and `increment(x, in_place=False)`.
"""
from __future__ import annotations

from typing import Any, Optional

from runtime_shim.adapters import adapter
from runtime_shim.static_ops import op


def _control_flow() -> Any:
    from paddle.static.nn import control_flow

    return control_flow


@adapter("paddle.fluid.layers.While", "paddle.static.nn.while_loop(cond, body, loop_vars) "
         "(Paddle 3 keeps the block class as paddle.static.nn.control_flow.While)")
class While(_control_flow().While):
    """1.8 `layers.While(cond, is_test=False, name=None)`: `with loop.block():` runs while `cond` holds."""

    def __init__(self, cond: Any, is_test: bool = False, name: Optional[str] = None) -> None:
        super().__init__(cond, is_test=is_test, name=name)


@adapter("paddle.fluid.layers.Switch", "paddle.static.nn.case(pred_fn_pairs, default) "
         "(Paddle 3 keeps the block class as paddle.static.nn.control_flow.Switch)")
class Switch(_control_flow().Switch):
    """1.8 `layers.Switch(name=None)`: `with switch.case(cond):` ... `with switch.default():`."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__(name=name)


def _compare(name: str, x: Any, y: Any, cond: Any) -> Any:
    """`paddle.<name>(x, y)`, written into `cond` when given, as the 1.8 op wrote its output there."""
    import paddle

    result = op(f"paddle.{name}")(x, y)
    if cond is None:
        result.stop_gradient = True
        return result
    return paddle.assign(result, cond)


@adapter("paddle.fluid.layers.less_than", "paddle.less_than(x, y); assign it to cond")
def less_than(x: Any, y: Any, force_cpu: Optional[bool] = None, cond: Any = None) -> Any:
    """1.8 `layers.less_than` (`control_flow.py`): the result, also written into `cond` when given."""
    return _compare("less_than", x, y, cond)


@adapter("paddle.fluid.layers.less_equal", "paddle.less_equal(x, y); assign it to cond")
def less_equal(x: Any, y: Any, cond: Any = None) -> Any:
    return _compare("less_equal", x, y, cond)


@adapter("paddle.fluid.layers.greater_than", "paddle.greater_than(x, y); assign it to cond")
def greater_than(x: Any, y: Any, cond: Any = None) -> Any:
    return _compare("greater_than", x, y, cond)


@adapter("paddle.fluid.layers.greater_equal", "paddle.greater_equal(x, y); assign it to cond")
def greater_equal(x: Any, y: Any, cond: Any = None) -> Any:
    return _compare("greater_equal", x, y, cond)


@adapter("paddle.fluid.layers.equal", "paddle.equal(x, y); assign it to cond")
def equal(x: Any, y: Any, cond: Any = None) -> Any:
    return _compare("equal", x, y, cond)


@adapter("paddle.fluid.layers.not_equal", "paddle.not_equal(x, y); assign it to cond")
def not_equal(x: Any, y: Any, cond: Any = None) -> Any:
    return _compare("not_equal", x, y, cond)


@adapter("paddle.fluid.layers.increment", "paddle.increment(x, value) (in place); x + value for a new tensor")
def increment(x: Any, value: float = 1.0, in_place: bool = True) -> Any:
    """1.8 `layers.increment`: `x += value` in place, or a new tensor holding `x + value`."""
    import paddle

    return paddle.increment(x if in_place else paddle.assign(x), value=float(value))
