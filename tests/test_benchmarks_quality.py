"""The benchmark's quality counters, on tiny hand-written inputs and outputs (no network, no paddle).

Each counter is checked on a case that must count and on its near miss that must not, so a counter
that always answers 0 (or always counts) fails.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks import our_tool, reference_tool, synthetic
from benchmarks.corpus import fresh_copy, parse, python_files, uses_paddle
from benchmarks.measure import run_measured
from benchmarks.quality import (MISSING, OK, UNKNOWN, TreeQuality, _index, classify_name, file_quality,
                                measure_tree, paddle_refs)

HEAD = "import paddle\nimport paddle.fluid as fluid\n"


def judge(old: str, new: str, **kw):
    return file_quality("m.py", old, new, failed=False, **kw)


# -- names ----------------------------------------------------------------------------------------

def test_classify_name_against_3_3_1():
    index = _index("3.3.1")
    assert classify_name("paddle.nn.functional.relu", index) == OK
    assert classify_name("paddle.nn.functional.relu_no_such", index) == MISSING
    assert classify_name("paddle.fluid.layers.fc", index) == MISSING
    assert classify_name("paddle.base.core.anything_compiled", index) == UNKNOWN
    assert classify_name("paddle.nn.Layer.__init__", index) == OK
    assert classify_name("paddle.nn.Layer.__new__", index) == OK
    assert classify_name("paddle.nn.Layer.__no_such__", index) == MISSING


def test_refs_resolve_through_imports_and_respect_shadowing():
    tree = parse("import paddle.nn.functional as F\nfrom paddle import nn\n"
                 "F.relu(x)\nnn.Linear(2, 3)\n"
                 "def f(F):\n    return F.relu(x)\n")
    refs, calls = paddle_refs(tree)
    assert refs["paddle.nn.functional.relu"] == 1  # the parameter F is not the module
    assert refs["paddle.nn.Linear"] == 1
    assert refs["paddle.nn.functional"] == 1  # the import itself
    assert {c.callee for c in calls} == {"paddle.nn.functional.relu", "paddle.nn.Linear"}


def test_emitted_missing_name_counts():
    q = judge(HEAD + "y = fluid.layers.relu(x)\n", HEAD + "y = paddle.nn.functional.relu_v2(x)\n")
    assert q.missing_names == {"paddle.nn.functional.relu_v2": 1}


def test_existing_emitted_name_does_not_count():
    q = judge(HEAD + "y = fluid.layers.relu(x)\n", HEAD + "y = paddle.nn.functional.relu(x)\n")
    assert not q.missing_names and not q.unknown_names


def test_name_already_in_the_input_is_not_emitted():
    old = HEAD + "y = fluid.layers.relu(x)\nz = paddle.no_such_api(x)\n"
    new = HEAD + "y = paddle.nn.functional.relu(x)\nz = paddle.no_such_api(x)\n"
    assert not judge(old, new).missing_names
    # ... but a second copy of it is
    twice = new + "w = paddle.no_such_api(y)\n"
    assert judge(old, twice).missing_names == {"paddle.no_such_api": 1}


def test_emitted_fluid_paths_are_counted_apart():
    old = HEAD + "y = fluid.layers.conv2d(x, 8, 3)\n"
    new = HEAD + "y = paddle.fluid.layers.nn.conv2d(x, 8, 3)\n"
    q = judge(old, new)
    assert q.missing_names == {"paddle.fluid.layers.nn.conv2d": 1}
    summary = TreeQuality([q]).summary()
    assert summary["missing_names"] == 0 and summary["missing_legacy_names"] == 1


# -- keywords -------------------------------------------------------------------------------------

def test_emitted_keyword_the_target_rejects_counts():
    q = judge(HEAD + "y = fluid.layers.relu(x)\n", HEAD + "y = paddle.nn.functional.relu(x, inplace=True)\n")
    assert q.bad_keywords == {"paddle.nn.functional.relu(inplace=)": 1}


def test_accepted_keyword_does_not_count():
    q = judge(HEAD + "y = fluid.layers.relu(x)\n", HEAD + "y = paddle.nn.functional.relu(x=x, name='r')\n")
    assert not q.bad_keywords


def test_rejected_keyword_already_in_the_input_is_not_emitted():
    old = HEAD + "y = paddle.nn.functional.relu(x, inplace=True)\nz = fluid.layers.relu(x)\n"
    new = HEAD + "y = paddle.nn.functional.relu(x, inplace=True)\nz = paddle.nn.functional.relu(x)\n"
    assert not judge(old, new).bad_keywords


# -- conversion, parse, failure, idempotence ------------------------------------------------------

def test_conversion_counts_fluid_sites_left():
    old = HEAD + "a = fluid.layers.relu(x)\nb = fluid.layers.fc(x, 10)\n"
    new = HEAD + "a = paddle.nn.functional.relu(x)\nb = fluid.layers.fc(x, 10)\n"
    q = judge(old, new)
    assert (q.sites_in, q.sites_out, q.parses, q.changed) == (2, 1, True, True)


def test_unparsable_output_converts_nothing():
    q = judge(HEAD + "a = fluid.layers.relu(x)\n", "import paddle\na = paddle.nn.functional.relu(x\n")
    assert q.parses is False and q.sites_out == q.sites_in == 1


def test_failed_file_is_not_judged_further():
    q = file_quality("m.py", HEAD + "a = fluid.layers.relu(x)\n", HEAD + "a = fluid.layers.relu(x)\n", failed=True)
    assert q.failed and q.parses is None and q.sites_out == 1
    assert file_quality("m.py", HEAD, None, failed=False).failed  # no output at all


def test_idempotence():
    old, new = HEAD + "a = fluid.layers.relu(x)\n", HEAD + "a = paddle.nn.functional.relu(x)\n"
    assert judge(old, new, again_text=new, judge_idempotence=True).idempotent is True
    assert judge(old, new, again_text=new + "# again\n", judge_idempotence=True).idempotent is False
    assert judge(old, new, again_text=new, again_failed=True, judge_idempotence=True).idempotent is False


# -- dropped arguments ----------------------------------------------------------------------------

def test_dropped_argument_counts():
    q = judge(HEAD + "z = fluid.layers.elementwise_mul(x, y, axis=1)\n", HEAD + "z = paddle.multiply(x, y)\n")
    assert q.dropped_args == 1


def test_dropped_argument_with_todo_is_explained():
    q = judge(HEAD + "z = fluid.layers.elementwise_mul(x, y, axis=1)\n",
              HEAD + "z = paddle.multiply(x, y)  # TODO(paddle-upgrade): axis=1 broadcasting\n")
    assert (q.dropped_args, q.explained_drops) == (0, 1)


def test_kept_arguments_do_not_count():
    q = judge(HEAD + "z = fluid.layers.elementwise_mul(x, y, axis=1)\n",
              HEAD + "z = paddle.multiply(x, paddle.unsqueeze(y, axis=1))\n")
    assert q.dropped_args == 0


def test_drops_that_keep_meaning_are_excused():
    old = HEAD + ("a = fluid.layers.reshape(x, [2, 3], inplace=False, name=None)\n"
                  "b = fluid.layers.pool2d(x, pool_size=2, pool_type='max')\n")
    new = HEAD + ("a = paddle.reshape(x, [2, 3])\n"
                  "b = paddle.nn.functional.max_pool2d(x, kernel_size=2)\n")
    assert judge(old, new).dropped_args == 0
    # a non-default value is not excused
    assert judge(old.replace("inplace=False", "inplace=True"), new).dropped_args == 1


def test_drop_inside_a_multiline_call_counts_once():
    old = HEAD + "z = fluid.layers.elementwise_mul(\n    x,\n    y,\n    axis=1,\n)\nw = 1\n"
    new = HEAD + "z = paddle.multiply(\n    x,\n    y,\n)\nw = 1\n"
    assert judge(old, new).dropped_args == 1
    # the call's first line is unchanged: only widening the changed lines to the whole call sees it
    kept_head = HEAD + "z = fluid.layers.elementwise_mul(\n    x,\n    y)\nw = 1\n"
    assert judge(old.replace("    y,\n    axis=1,\n)", "    y,\n    axis=1)"), kept_head).dropped_args == 1


# -- a tree, with a re-run ------------------------------------------------------------------------

def _fake_upgrade(root: Path, stamp: str = "") -> None:
    """A stand-in tool: converts relu, fails on files containing 'BROKEN'."""
    for rel in python_files(root):
        path = root / rel
        text = path.read_text()
        if "BROKEN" in text:
            continue
        path.write_text(text.replace("fluid.layers.relu", "paddle.nn.functional.relu") + stamp)


@pytest.mark.parametrize("stamp, idempotent", [("", 2), ("# upgraded\n", 0)])
def test_measure_tree(tmp_path, stamp, idempotent):
    src = tmp_path / "in"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "a.py").write_text(HEAD + "a = fluid.layers.relu(x)\nb = fluid.layers.fc(x, 10)\n")
    (src / "b.py").write_text(HEAD + "a = fluid.layers.relu(x)\n")
    (src / "c.py").write_text(HEAD + "# BROKEN\na = fluid.layers.relu(x)\n")
    (src / "plain.py").write_text("import os\n")
    (src / "py2.py").write_text("import paddle.fluid as fluid\nprint 'hi'\n")
    out = tmp_path / "out"
    fresh_copy(src, out)
    _fake_upgrade(out, stamp)

    def rerun(tree: Path):
        again = tmp_path / "again"
        fresh_copy(tree, again)
        _fake_upgrade(again, stamp)
        return again, {"c.py", "py2.py"}

    q = measure_tree(src, out, failed={"c.py"}, rerun=rerun)
    s = q.summary()
    assert s["files_using_paddle"] == 4  # plain.py does not use paddle
    assert s["failed"] == 1
    assert (s["sites_in"], s["sites_converted"], s["uncountable_inputs"]) == (4, 2, 1)
    assert s["parsed"] == 2 and s["parse_judged"] == 3  # py2.py was "upgraded" but does not parse
    assert s["idempotent"] == idempotent and s["idempotence_judged"] == 2
    assert q.details()["failed_files"] == ["c.py"]


def test_uses_paddle():
    assert uses_paddle("def f():\n    from paddle.fluid import layers\n")
    assert uses_paddle("import os, paddle\n")
    assert not uses_paddle("import paddlehub as hub\nx = 'paddle'\n")
    assert uses_paddle("import paddle.fluid as fluid\nprint 'python 2'\n")  # by the regex fallback


# -- what the tools report as failed --------------------------------------------------------------

def test_reference_log_failures(tmp_path):
    log = ("\x1b[0;31mCan't parse ./a/x.py: ParseError: bad input\x1b[0m\n"
           "Bowler exception during transform of ./b.py: Transforms generated invalid CST for ./b.py\n"
           "Skipping ./c.py: failed to transform because boom\n"
           "\"./d.py\" refactor done! Recover your files from ...\n")
    assert reference_tool.failed_files(log, tmp_path) == {"a/x.py", "b.py", "c.py"}


def test_our_report_failures(tmp_path):
    report = tmp_path / "r.json"
    report.write_text(json.dumps({"files": [{"path": "a.py", "status": "changed"},
                                            {"path": "sub/b.py", "status": "failed"},
                                            {"path": "c.py", "status": "skipped"},
                                            {"path": "d.py", "status": "unchanged"}]}))
    assert our_tool.failed_files(report, tmp_path) == {"sub/b.py", "c.py"}


def test_crlf_normalised_only_in_the_copy(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "w.py").write_bytes(b"import paddle\r\nx = 1\r\n")
    changed = fresh_copy(src, tmp_path / "dst", normalise_crlf=True)
    assert changed == ["w.py"]
    assert (tmp_path / "dst" / "w.py").read_bytes() == b"import paddle\nx = 1\n"
    assert (src / "w.py").read_bytes() == b"import paddle\r\nx = 1\r\n"


# -- measuring ------------------------------------------------------------------------------------

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="memory sampling reads /proc")
def test_run_measured_sees_memory_and_exit_status(tmp_path):
    code = "import time; b = bytearray(64 * 2**20); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.3); raise SystemExit(3)"
    m = run_measured([sys.executable, "-c", code], tmp_path, tmp_path / "log")
    assert m.returncode == 3
    assert m.max_rss_mb >= 64 and m.tree_rss_mb is not None and m.tree_rss_mb >= 64
    assert m.max_rss_mb < 64 + 200  # not inflated by the (larger) test process's own memory


# -- the synthetic corpus -------------------------------------------------------------------------

def test_synthetic_corpus_is_deterministic_and_valid(tmp_path):
    first = synthetic.generate(tmp_path / "a", 40, seed=3)
    again = synthetic.generate(tmp_path / "b", 60, seed=3)
    files = python_files(first)
    assert len(files) == 40
    for rel in files:
        assert (first / rel).read_bytes() == (again / rel).read_bytes()  # n=40 is a prefix of n=60
    using = 0
    for rel in files:
        text = (first / rel).read_bytes().decode()
        if uses_paddle(text):
            using += 1
            if "print '" not in text:  # the odd Python 2 file is deliberate
                refs, _ = paddle_refs(parse(text.replace("\r\n", "\n")))
                assert any(name.startswith("paddle.fluid.") for name in refs)
    assert 0 < using < 40
    assert synthetic.render(5, 3) != synthetic.render(5, 4)


def test_keyword_already_wrong_in_1_8_is_carried_over_not_emitted():
    old = HEAD + "y = fluid.layers.dropout(x, dropout_prob=0.5, upscale_in_train='upscale_in_train')\n"
    new = HEAD + "y = paddle.nn.functional.dropout(x, p=0.5, upscale_in_train='upscale_in_train')\n"
    assert not judge(old, new).bad_keywords
    valid_before = old.replace("upscale_in_train=", "dropout_implementation=")
    assert judge(valid_before, new).bad_keywords == {"paddle.nn.functional.dropout(upscale_in_train=)": 1}


def test_member_of_a_compiled_class_is_unknown_not_missing():
    old = HEAD + "t = fluid.core.VarDesc.VarType.FP16\n"
    new = HEAD + "t = paddle.framework.core.VarDesc.VarType.FP16\n"
    q = judge(old, new)
    assert not q.missing_names and q.unknown_names == {"paddle.framework.core.VarDesc.VarType.FP16": 1}
