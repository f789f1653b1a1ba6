"""The plain way (libcst's own parse, visit, positions and code) and the fast way give the same upgrade,
and an optimization never costs a file (refactors.fast).

- every fixture of the repository upgrades the same both ways: text, findings, sites and positions;
- any exception on the fast way re-runs the file the plain way, recorded at DEBUG level;
- a failure of the plain way is an internal error naming the line of the use site, and code
  generation happens inside that boundary too.
(tests/test_fuzz.py compares the two ways on generated files.)
"""
from __future__ import annotations

import ast
from dataclasses import asdict
from pathlib import Path

import pytest

import refactors
from refactors import api_rename, fast
from upgrade_tool import pipeline, runner, source_io
from upgrade_tool.discovery import PYTHON, Job

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ALL_FIXTURES = sorted(p for p in FIXTURES.rglob("*.py") if b"paddle" in p.read_bytes())


def outcome(text: str, way: str):
    """What the pipeline makes of the text one way: (text, findings, sites), or the failure's message."""
    try:
        done = pipeline.upgrade_text(text, way=way)
    except pipeline.FileFailure as exc:
        return str(exc)
    return done.text, [asdict(f) for f in done.findings], [asdict(s) for s in done.sites]


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=[str(p.relative_to(FIXTURES)) for p in ALL_FIXTURES])
def test_fast_way_equals_plain_way(path: Path) -> None:
    text = source_io.to_parser_text(source_io.decode(path.read_bytes()))  # as the runner reads files
    assert outcome(text, "fast") == outcome(text, "plain")


LAMBDA = ("import paddle.fluid as fluid\n"
          "def f(m, p):\n"
          "    return fluid.layers.cond(p, lambda: fluid.layers.scale(m, scale=2.0), lambda: m)\n")


def test_a_fast_way_failure_reruns_the_file_the_plain_way(monkeypatch, tmp_path) -> None:
    expected = pipeline.upgrade_text(LAMBDA, way="plain")

    def broken(self, module):
        raise RuntimeError("fast code generation broke")

    monkeypatch.setattr(fast.Fast, "code", broken)
    done = pipeline.upgrade_text(LAMBDA)
    assert (done.text, done.findings, done.sites) == (expected.text, expected.findings, expected.sites)
    assert "RuntimeError: fast code generation broke" in done.fast_failure
    path = tmp_path / "m.py"
    path.write_text(LAMBDA)
    result = runner.process(Job(str(path), "m.py", "m.py", PYTHON))
    assert result.status == runner.CHANGED and not any(f.code == "failed" for f in result.findings)
    assert result.detail.startswith("the fast way failed; upgraded the plain way:")  # written at DEBUG only


def test_a_plain_way_failure_is_an_internal_error_at_the_sites_line(monkeypatch) -> None:
    def broken(ctx, site, node):
        raise KeyError("oops")

    monkeypatch.setattr(api_rename, "call", broken)
    with pytest.raises(pipeline.FileFailure) as failure:
        pipeline.upgrade_text(LAMBDA)
    assert str(failure.value) == "internal error in the refactors at line 3: KeyError: 'oops'"
    assert failure.value.line == 3


def test_code_generation_is_inside_the_boundary(monkeypatch) -> None:
    def broken(self, module):
        raise ValueError("cannot generate")

    monkeypatch.setattr(fast.Fast, "code", broken)
    monkeypatch.setattr(fast.Plain, "code", broken)
    with pytest.raises(pipeline.FileFailure, match="internal error in the refactors: ValueError: cannot generate"):
        pipeline.upgrade_text(LAMBDA)


def test_the_import_tidy_leaves_other_lines_alone_under_a_plain_visit() -> None:
    source = ("import paddle.fluid as fluid; import os;\n"
              "def area(w, h):\n"
              "    fluid.layers.relu(w)\n"
              "    return w * h;  # c\n")
    plain = refactors.upgrade_code(source, way="plain").code
    assert plain == ("import paddle\nimport os;\n"
                     "def area(w, h):\n"
                     "    paddle.nn.functional.relu(w)\n"
                     "    return w * h;  # c\n")
    assert refactors.upgrade_code(source, tree=ast.parse(source), way="fast").code == plain
