"""A legacy static run, as the shim's adapter tests do it (their `fluid` fixture is in conftest.py)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

import numpy as np


def run_static(fluid: Any, build: Callable[[], Sequence[Any]], feed: Dict[str, np.ndarray],
               return_numpy: bool = True) -> List[Any]:
    """Build a legacy-IR program with `build()` (its results are fetched), run it once on CPU; with
    return_numpy=False the results are LoDTensors (values and LoD both readable)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        fetches = list(build())
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        return exe.run(main, feed=feed, fetch_list=fetches, return_numpy=return_numpy)


def train_losses(fluid: Any, main: Any, startup: Any, feed: Dict[str, np.ndarray], cost: Any,
                 steps: int = 5) -> List[float]:
    """Run `startup`, then `main` `steps` times on the same feed; the loss after each step."""
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        return [float(np.asarray(exe.run(main, feed=feed, fetch_list=[cost])[0]).reshape(())) for _ in range(steps)]


def initialized_weight(fluid: Any, initializer: Any) -> np.ndarray:
    """The [400, 300] weight of an `fc` layer after the startup program ran `initializer` on it."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [2, 400], "float32")
        fluid.layers.fc(x, 300, param_attr=fluid.ParamAttr(name="w", initializer=initializer))
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        return np.array(scope.find_var("w").get_tensor())
