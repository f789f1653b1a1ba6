"""A legacy static run, as the shim's adapter tests do it (their `fluid` fixture is in conftest.py)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

import numpy as np


def run_static(fluid: Any, build: Callable[[], Sequence[Any]], feed: Dict[str, np.ndarray]) -> List[np.ndarray]:
    """Build a legacy-IR program with `build()` (its results are fetched), run it once on CPU."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        fetches = list(build())
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        return exe.run(main, feed=feed, fetch_list=fetches)
