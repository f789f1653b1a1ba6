"""Property tests over generated inputs: the command never crashes, never produces a file that does
not parse, and leaves files without paddle byte-identical."""
from __future__ import annotations

import ast
import os
import tempfile

import libcst as cst
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from upgrade_tool import runner, source_io
from upgrade_tool.discovery import PYTHON, Job

PADDLE_LINES = [
    "y = fluid.layers.relu(x)",
    "z = fluid.layers.reduce_sum(y, dim=1, keep_dim=True)",
    "w = fluid.layers.matmul(a, b, transpose_y=True)",
    "m = fluid.dygraph.Linear(3, 4, act='relu')",
    "d = fluid.layers.data(name='x', shape=[3], dtype='float32')",
    "q = fluid.layers.lod_reset(z)",
    "o = fluid.layers.fc(input=d, size=3)",
    "p = layers.relu(x)",
]
PLAIN_LINES = [
    "x = 1", "s = 'caf\u00e9 \u2192 ok'", "# a comment \u00fcber alles", "", "values = [1, 2,\n    3]",
    "def f(a, b=2):\n    return a * b", "if x:\n\tx += 1", "text = '''multi\nline'''", "pass",
    "fluid = 'a local variable named fluid'", "layers = []",
]
IMPORTS = ["import paddle.fluid as fluid", "from paddle.fluid import layers", "import paddle.fluid",
           "import paddle"]
NEWLINES = ["\n", "\r\n", "\r"]


@st.composite
def sources(draw):
    """(bytes, mentions paddle): generated Python source in varied encodings and newline styles."""
    with_paddle = draw(st.sampled_from([True, True, False]))
    body = draw(st.lists(st.sampled_from(PLAIN_LINES + (PADDLE_LINES if with_paddle else [])), max_size=12))
    if with_paddle:
        body = [draw(st.sampled_from(IMPORTS))] + body
        if draw(st.booleans()):
            block = draw(st.lists(st.sampled_from(PADDLE_LINES), min_size=1, max_size=3))
            body += ["with fluid.dygraph.guard():"] + ["    " + line for line in block]
    text = "\n".join(body)
    if draw(st.booleans()):
        text += "\n"
    style = draw(st.sampled_from(NEWLINES + ["mixed"]))
    if style == "mixed":
        lines = text.split("\n")
        text = "".join(line + draw(st.sampled_from(NEWLINES[:2])) for line in lines[:-1]) + lines[-1]
    else:
        text = text.replace("\n", style)
    encoding = draw(st.sampled_from(["utf-8", "utf-8-bom", "latin-1"]))
    if encoding == "latin-1":
        text = "# -*- coding: latin-1 -*-" + (style if style != "mixed" else "\n") + text.replace("\u2192", "->")
        data = text.encode("latin-1")
    elif encoding == "utf-8-bom":
        data = source_io.BOM + text.encode("utf-8")
    else:
        data = text.encode("utf-8")
    return data, with_paddle


def _process(data: bytes) -> runner.FileResult:
    fd, path = tempfile.mkstemp(suffix=".py")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        result = runner.process(Job(path, "gen.py", "gen.py", PYTHON))
        with open(path, "rb") as fh:
            assert fh.read() == data  # processing never writes
        return result
    finally:
        os.unlink(path)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sources())
def test_generated_sources(case):
    data, with_paddle = case
    result = _process(data)
    event(f"{result.status}, paddle={with_paddle}")
    assert result.status in (runner.CHANGED, runner.UNCHANGED), result.reason
    assert not any(f.code == "failed" for f in result.findings)
    if result.status == runner.CHANGED:
        new = result.new_data
        ast.parse(new)  # the interpreter reads it (encoding cookie, BOM and all)
        before, after = source_io.decode(data), source_io.decode(new)
        assert (after.encoding, after.bom) == (before.encoding, before.bom)
        cst.parse_module(after.text)
    if not with_paddle:
        assert result.status == runner.UNCHANGED and result.new_data is None


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_arbitrary_bytes_never_crash_and_never_yield_unparseable_output(data):
    result = _process(data)
    assert result.status in (runner.CHANGED, runner.UNCHANGED, runner.FAILED, runner.SKIPPED)
    assert not result.detail, result.detail  # no internal error: every failure has a plain reason
    if result.status in (runner.FAILED, runner.SKIPPED):
        assert result.reason and "\n" not in result.reason
    if result.status == runner.CHANGED:
        ast.parse(result.new_data)
    if b"paddle" not in data:
        assert result.status != runner.CHANGED


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(PADDLE_LINES + PLAIN_LINES + ["%matplotlib inline", "!ls", "x?"]),
                max_size=8),
       st.sampled_from(IMPORTS))
def test_generated_notebooks(lines, import_line):
    import json

    cells = [import_line] + lines
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": cell.splitlines(keepends=True)} for cell in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    data = (json.dumps(nb, indent=1) + "\n").encode()
    fd, path = tempfile.mkstemp(suffix=".ipynb")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        result = runner.process(Job(path, "gen.ipynb", "gen.ipynb", "notebook"))
    finally:
        os.unlink(path)
    assert result.status in (runner.CHANGED, runner.UNCHANGED), result.reason
    if result.status == runner.CHANGED:
        new = json.loads(result.new_data)
        assert len(new["cells"]) == len(cells)
        for old_cell, new_cell in zip(nb["cells"], new["cells"]):
            old_src = "".join(old_cell["source"])
            new_src = "".join(new_cell["source"])
            if old_src.startswith(("%", "!")) or old_src.endswith("?"):
                assert new_src == old_src  # magics come back exactly
