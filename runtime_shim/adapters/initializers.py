"""1.8 initializers whose 2.x counterparts split or changed their arguments."""
from __future__ import annotations

from typing import Optional

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
