"""benchmarks.run itself: what keeps one run's measurements its own (no network, no paddle)."""
from __future__ import annotations

from pathlib import Path

import pytest


def test_a_second_run_in_the_same_work_folder_is_refused(tmp_path: Path) -> None:
    # two runs copying corpora into one folder judged each other's half-written copies
    pytest.importorskip("fcntl")
    from benchmarks.run import exclusive

    with exclusive(tmp_path):
        with pytest.raises(SystemExit, match="another run is using"):
            with exclusive(tmp_path):
                pass
    with exclusive(tmp_path):  # released at the end of the first: a later run goes on
        pass
