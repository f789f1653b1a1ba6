"""refactors/constants.py across the tree: a value another module of the tree fixes (`from desc import *`,
`import config` + `config.X`), and a parameter of a public function or class no other module names. Fixture
pairs of whole trees (`fixtures/constants_across/<case>/in` -> `out`), each module upgraded in its tree; and
the content cache, which must miss when the module that fixed the value changes."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import refactors
from refactors import tree_index
from upgrade_tool import runner
from upgrade_tool.discovery import PYTHON, Job

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "constants_across"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "in").is_dir())
LEFT = {"patched_elsewhere": ("model.py", "a seed fixed this op's mask"),
        "constructed_elsewhere": ("train.py", "`pool_type=pool_type` is not a literal")}
# A value the tree leaves open that the upgrade applies when the program runs (act_at_run_time).
AT_RUN_TIME = {"constructed_elsewhere": ("train.py", "`act=act` is not a literal (another module names "
                                                     "`SimpleImgConvPool` and may call it with other values)")}


@pytest.mark.parametrize("case", CASES)
def test_each_module_in_its_tree(case: str, tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / case / "in", tmp_path, dirs_exist_ok=True)
    for path in sorted(tmp_path.rglob("*.py")):
        result = refactors.upgrade_code(path.read_text(encoding="utf-8"), origin=str(path))
        name = str(path.relative_to(tmp_path))
        assert result.code == (FIXTURES / case / "out" / name).read_text(encoding="utf-8"), name
        left = [f.message for f in result.findings if not f.fixed]
        if LEFT.get(case, ("",))[0] == name:
            assert any(LEFT[case][1] in m for m in left), left
        else:
            assert not left, (name, left)
        if AT_RUN_TIME.get(case, ("",))[0] == name:
            at_run_time = [f.message for f in result.findings if f.code == "act-at-run-time"]
            assert any(AT_RUN_TIME[case][1] in m for m in at_run_time), at_run_time
        assert refactors.upgrade_code(result.code, origin=str(path)).code == result.code, name


@pytest.mark.parametrize("case", sorted(set(CASES) - set(LEFT)))
def test_without_its_tree_the_value_is_not_known(case: str) -> None:
    """The same modules upgraded as texts alone (no path, no tree) keep what only the tree fixes."""
    results = [refactors.upgrade_code(p.read_text(encoding="utf-8")) for p in (FIXTURES / case / "in").rglob("*.py")]
    assert any(not f.fixed for r in results for f in r.findings)


def test_the_cache_misses_when_the_module_that_fixed_the_value_changes(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "star_import_seed" / "in", tmp_path, dirs_exist_ok=True)
    script = tmp_path / "model.py"
    options = runner.Options(cache_dir=str(tmp_path / "cache"))
    job = Job(str(script), script.name, script.name, PYTHON)
    first = runner.process(job, options)
    assert b"paddle.nn.functional.dropout" in first.new_data
    assert str(tmp_path / "desc.py") in first.reads and tree_index.TREE in first.reads
    assert runner.process(job, options).new_data == first.new_data  # a hit
    (tmp_path / "desc.py").write_text("dropout_seed = 5\nd_model = 16\n")
    again = runner.process(job, options)
    assert b"TODO(paddle-upgrade): a seed fixed this op's mask" in again.new_data
