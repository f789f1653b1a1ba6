"""1.8 initializers whose 2.x counterparts split or changed their arguments."""
from __future__ import annotations

from typing import Any, Optional

from runtime_shim.adapters import adapter


def _msra_base() -> type:
    from paddle.nn.initializer.kaiming import MSRAInitializer as Base

    return Base


@adapter("paddle.fluid.initializer.MSRA",
         "paddle.nn.initializer.KaimingUniform(fan_in) if uniform else paddle.nn.initializer.KaimingNormal(fan_in)")
class MSRA(_msra_base()):
    """1.8 `MSRAInitializer(uniform=True, fan_in=None, seed=0)` (`initializer.py:571`).

    `uniform=True`: U(-sqrt(6 / fan_in), sqrt(6 / fan_in)) (`:657`); `uniform=False`: N(0, 2 / fan_in),
    untruncated (`:672`); fan_in from the variable's shape unless given; `seed=0` means the program's
    random seed, any other value fixes the op's seed (`:640`). Paddle 3 keeps that class as
    `paddle.nn.initializer.kaiming.MSRAInitializer` (the base of KaimingUniform/KaimingNormal), with the
    same formulas for its default relu gain sqrt(2) and the same seed rule.
    """

    def __init__(self, uniform: bool = True, fan_in: Optional[float] = None, seed: int = 0) -> None:
        super().__init__(uniform=uniform, fan_in=fan_in, seed=seed)


def _xavier_base() -> type:
    from paddle.nn.initializer.xavier import XavierInitializer as Base

    return Base


@adapter("paddle.fluid.initializer.Xavier",
         "paddle.nn.initializer.XavierUniform(fan_in, fan_out) if uniform else "
         "paddle.nn.initializer.XavierNormal(fan_in, fan_out)")
class Xavier(_xavier_base()):
    """1.8 `XavierInitializer(uniform=True, fan_in=None, fan_out=None, seed=0)` (`initializer.py:437`).

    U(+-sqrt(6 / (fan_in + fan_out))) (`:530`) or N(0, 2 / (fan_in + fan_out)) (`:545`), each fan from the
    variable's shape unless given (`:509`), with 1.8's seed rule. Paddle 3 keeps that class as
    `paddle.nn.initializer.xavier.XavierInitializer` (gain 1), except that it draws zeros when a fan is 0
    (`xavier.py:153` in 3.3.1); 1.8 then used the other fan alone, so such a call gets the same sum
    split evenly between the two fans, which leaves both formulas unchanged.
    """

    def __init__(self, uniform: bool = True, fan_in: Optional[float] = None, fan_out: Optional[float] = None,
                 seed: int = 0) -> None:
        super().__init__(uniform=uniform, fan_in=fan_in, fan_out=fan_out, seed=seed)

    def forward(self, var: Any, block: Any = None) -> Any:
        f_in, f_out = self._compute_fans(var)
        fan_in = f_in if self._fan_in is None else self._fan_in
        fan_out = f_out if self._fan_out is None else self._fan_out
        if 0 not in (fan_in, fan_out):
            return super().forward(var, block)
        total = float(fan_in + fan_out)
        if total == 0:
            raise ZeroDivisionError("Xavier initializer: fan_in + fan_out is 0")  # as 1.8's 6.0 / 0.0 did
        given = self._fan_in, self._fan_out
        self._fan_in = self._fan_out = total / 2
        try:
            return super().forward(var, block)
        finally:
            self._fan_in, self._fan_out = given
