"""--cache-dir: a file whose bytes, options and tool were seen before is not upgraded again."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from upgrade_tool import cache, cli, runner
from upgrade_tool.discovery import PYTHON, Job

LEGACY = "import paddle.fluid as fluid\n\n\ndef f(x):\n    return fluid.layers.relu(x)  # note\n"
REVIEW = "import paddle.fluid as fluid\ny = fluid.layers.data(name='x', shape=s)\n"


def _job(path: Path) -> Job:
    return Job(str(path), path.name, path.name, PYTHON)


def _fresh(path: Path, options: runner.Options) -> runner.FileResult:
    return runner.process(_job(path), runner.Options(names=options.names, mode=options.mode))


def _same(a: runner.FileResult, b: runner.FileResult) -> None:
    for name in ("display", "status", "findings", "sites", "new_data", "diff", "diff_encoding", "reason",
                 "python2_fixers", "old_sha256"):
        assert getattr(a, name) == getattr(b, name), name


BROKEN = "import paddle.fluid as fluid\nx = (\n"
PYTHON2 = "print 'py2'\nimport paddle\n"


@pytest.mark.parametrize("text", [LEGACY, REVIEW, BROKEN, PYTHON2], ids=["changed", "review", "broken", "python2"])
def test_a_hit_gives_the_result_a_fresh_run_gives(tmp_path, monkeypatch, text):
    source = tmp_path / "m.py"
    source.write_text(text)
    options = runner.Options(cache_dir=str(tmp_path / "cache"))
    first = runner.process(_job(source), options)
    _same(first, _fresh(source, options))
    monkeypatch.setattr(runner, "_upgrade", lambda *a: pytest.fail("upgraded again"))
    _same(runner.process(_job(source), options), first)


def test_the_same_bytes_elsewhere_hit_with_their_own_path(tmp_path, monkeypatch):
    options = runner.Options(cache_dir=str(tmp_path / "cache"))
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(LEGACY)
    b.write_text(LEGACY)
    first = runner.process(_job(a), options)
    monkeypatch.setattr(runner, "_upgrade", lambda *args: pytest.fail("upgraded again"))
    hit = runner.process(_job(b), options)
    assert hit.display == "b.py" and hit.findings and all(f.file == "b.py" for f in hit.findings)
    assert hit.diff.startswith("--- a/b.py\n+++ b/b.py\n")
    assert hit.diff.split("\n", 2)[2] == first.diff.split("\n", 2)[2]
    assert hit.new_data == first.new_data and hit.status == runner.CHANGED


def test_different_bytes_or_options_miss(tmp_path, monkeypatch):
    calls = []
    upgrade = runner._upgrade
    monkeypatch.setattr(runner, "_upgrade", lambda *a: calls.append(a[0].display) or upgrade(*a))
    source = tmp_path / "m.py"
    source.write_text(LEGACY)
    options = runner.Options(cache_dir=str(tmp_path / "cache"))
    runner.process(_job(source), options)
    runner.process(_job(source), options)
    assert len(calls) == 1
    runner.process(_job(source), runner.Options(cache_dir=options.cache_dir, names=("refactor_import",)))
    assert len(calls) == 2
    source.write_text(LEGACY + "z = 1\n")
    runner.process(_job(source), options)
    assert len(calls) == 3


def test_a_corrupt_or_foreign_entry_is_a_miss_and_is_replaced(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(LEGACY)
    options = runner.Options(cache_dir=str(tmp_path / "cache"))
    first = runner.process(_job(source), options)
    [entry] = (tmp_path / "cache").rglob("*.json")
    for junk in (b"{not json", b'{"format": "0"}', b"[]"):
        entry.write_bytes(junk)
        _same(runner.process(_job(source), options), first)
        assert cache.load(options.cache_dir, entry.parent.name + entry.stem) is not None


def test_an_unwritable_cache_costs_nothing_but_speed(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    source = tmp_path / "m.py"
    source.write_text(LEGACY)
    result = runner.process(_job(source), runner.Options(cache_dir=str(blocker)))
    _same(result, _fresh(source, runner.Options()))


def test_the_cli_rerun_prints_the_same_diff_and_upgrades_nothing(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(LEGACY)
    (tmp_path / "src" / "n.py").write_text(REVIEW)
    monkeypatch.chdir(tmp_path)
    # -p 1: the stand-in for _upgrade below exists in this process only
    args = ["-i", "src", "--no-log-file", "--cache-dir", str(tmp_path / "cache"), "-p", "1"]
    first = CliRunner().invoke(cli.main, args)
    monkeypatch.setattr(runner, "_upgrade", lambda *a: pytest.fail("upgraded again"))
    second = CliRunner().invoke(cli.main, args)
    assert first.exit_code == second.exit_code == 0
    assert "+    return paddle.nn.functional.relu(x)  # note" in first.stdout
    assert second.stdout == first.stdout
