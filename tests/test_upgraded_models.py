"""`benchmarks/upgraded_models.py`: the corpus is upgraded whole, and its upgraded files run without the shim.

The rules (layout, outcomes, causes) are `benchmarks/corpus_probe.py`'s, tested in test_shim_models.py;
here, what is particular to running upgraded files: the copy keeps what the upgrader does not write,
the shim is importable but not installed unless asked, upgrade flags reach the upgrader.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import upgraded_models as um
from file_trees import SMALL_CORPUS, write_tree

ROOT = Path(__file__).resolve().parent.parent


def test_count_imports_after_the_upgrade(tmp_path):
    texts = {"a.py": "import paddle\nimport paddle.fluid as fluid\n",
             "b.py": "import paddle\nimport runtime_shim.coexist\nfrom paddle import fluid\n",
             "c.py": "import paddle\n# import runtime_shim\nx = 'import paddle.fluid'\n"}
    write_tree(tmp_path, texts)
    files = [tmp_path / name for name in texts]
    assert um.count_imports(files) == {"upgraded_importing_fluid": 2, "upgraded_importing_runtime_shim": 1}


def run_benchmark(corpus: Path, out: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks/upgraded_models.py"), str(corpus), "--jobs", "2",
                           "--json", str(out), *flags], capture_output=True, text=True, timeout=600)


@pytest.mark.paddle
@pytest.mark.slow
def test_upgraded_files_run_without_the_shim_unless_asked(tmp_path):
    pytest.importorskip("paddle")
    # proj/models/net.py reads proj/conf/args.txt, which the upgrader does not write: the copy must have it.
    corpus = write_tree(tmp_path / "corpus", dict(SMALL_CORPUS, **{
        "proj/no_shim.py": ("import paddle.fluid as fluid\nimport runtime_shim\n"
                            "assert not runtime_shim.is_installed(), 'the shim was installed'\n"),
        "proj/boom.py": "import paddle.fluid as fluid\nraise RuntimeError('boom')\n",
        "helper.py": "import os\n",
    }))
    out = tmp_path / "summary.json"
    done = run_benchmark(corpus, out)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["files"] == 6  # the files importing paddle.fluid before the upgrade
    assert summary["ok"] == 3, summary["failures"]
    assert summary["skipped_third_party"] == 1
    assert [f[0] for f in summary["failures"]] == ["gpu/main.py", "proj/boom.py"]
    assert summary["failures"][1][1] == "RuntimeError: boom"
    assert summary["environment_causes"] == [["needs a GPU", 1]]
    assert "(a) share that runs:          60.0%  (3 / 5)" in done.stdout
    assert "75.0%  (3 / 4)" in done.stdout
    assert summary["upgrade_flags"] == [] and summary["shim_installed"] is False

    installed = run_benchmark(corpus, tmp_path / "installed.json", "--install-shim")
    assert installed.returncode == 0, installed.stderr[-3000:]
    failures = json.loads((tmp_path / "installed.json").read_text())["failures"]
    assert ["proj/no_shim.py", "AssertionError: the shim was installed", None] in failures


def test_upgrade_flags_reach_the_upgrader(tmp_path):
    corpus = write_tree(tmp_path / "corpus", {"a.py": "import paddle.fluid as fluid\n"})
    done = run_benchmark(corpus, tmp_path / "s.json", "--no-such-upgrade-flag")
    assert done.returncode != 0
    assert "upgrade failed (exit 2)" in done.stderr and "--no-such-upgrade-flag" in done.stderr
