"""Jupyter notebooks: code cells upgraded, IPython syntax and everything else kept exactly."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from upgrade_tool import notebook
from upgrade_tool.notebook import is_magic
from upgrade_tool.pipeline import FileFailure
from upgrade_tool.source_io import SourceError

IO = Path(__file__).resolve().parent.parent / "fixtures" / "io"


def _nb(*sources, metadata=None, indent=1, ensure_ascii=False, tail="\n", as_string=False) -> bytes:
    cells = []
    for i, source in enumerate(sources):
        lines = source.splitlines(keepends=True)
        cells.append({"cell_type": "code", "execution_count": i + 1, "metadata": {"tags": ["t"]},
                      "outputs": [{"name": "stdout", "output_type": "stream", "text": [f"out {i}\n"]}],
                      "source": source if as_string else lines})
    nb = {"cells": cells,
          "metadata": metadata if metadata is not None else {"kernelspec": {"language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 4}
    return (json.dumps(nb, indent=indent, ensure_ascii=ensure_ascii) + tail).encode("utf-8")


def _sources(data: bytes):
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in json.loads(data)["cells"]]


@pytest.mark.parametrize("line", ["%matplotlib inline", "!pip install x", "  %time f()", "files = !ls",
                                  "a, b = %sx ls", "?fluid.layers", "fluid.layers.relu?", "obj??"])
def test_magic_lines_are_recognised(line):
    assert is_magic(line)


@pytest.mark.parametrize("line", ["x = 1", "y = a % b", "print('?')", "# what?", "d = {'a': 1}",
                                  "f(x)  # really?", ""])
def test_python_lines_are_not_magic(line):
    assert not is_magic(line)


def test_fixture_notebook_outputs_metadata_and_magics_untouched():
    original = (IO / "notebook_magics.in.ipynb").read_bytes()
    out = notebook.upgrade(original)
    before, after = json.loads(original), json.loads(out.data)
    assert after["metadata"] == before["metadata"]
    for old, new in zip(before["cells"], after["cells"]):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
        if old["cell_type"] != "code":
            assert old["source"] == new["source"]
    new_sources = _sources(out.data)
    for old_source in _sources(original):
        for line in old_source.splitlines():
            if is_magic(line):
                assert any(line.strip() in src.splitlines() or line in src.splitlines()
                           for src in new_sources), line
    assert "fluid.layers.relu is shell text here" in new_sources[3]  # the %%bash cell
    assert "z = paddle.nn.functional.relu(y)" in new_sources[4]


def test_legacy_api_in_a_magic_line_is_reported_and_its_import_kept():
    out = notebook.upgrade((IO / "notebook_magics.in.ipynb").read_bytes())
    messages = [f.message for f in out.findings]
    assert any("cell 3: IPython line left as it was" in m and "%time y = fluid.layers.relu(x)" in m
               for m in messages)
    assert "import paddle.fluid as fluid" in _sources(out.data)[1]


def test_import_used_only_by_an_unparsed_cell_is_kept():
    data = _nb("import paddle.fluid as fluid\nx = fluid.layers.relu(y)", "def broken(:\n    fluid.layers.relu(x)")
    out = notebook.upgrade(data)
    first, second = _sources(out.data)
    assert "paddle.nn.functional.relu(y)" in first and "import paddle.fluid as fluid" in first
    assert second == "def broken(:\n    fluid.layers.relu(x)"
    assert any("cell 2: does not parse" in f.message for f in out.findings)


def test_imports_shared_across_cells():
    data = _nb("import paddle.fluid as fluid", "y = fluid.layers.relu(x)")
    out = notebook.upgrade(data)
    assert _sources(out.data)[1] == "y = paddle.nn.functional.relu(x)"
    assert [s.cell for s in out.sites] == [2] and out.sites[0].line == 1


def test_untouched_notebook_is_byte_identical():
    data = _nb("import os\n%pwd\nprint(os.getcwd())")
    assert notebook.upgrade(data).data is data
    data = _nb("import paddle\nprint(paddle.__version__)")  # paddle, but nothing legacy
    assert notebook.upgrade(data).data == data


@pytest.mark.parametrize("layout", [dict(indent=1), dict(indent=2), dict(indent=4, ensure_ascii=True),
                                    dict(indent=1, tail=""), dict(indent=1, as_string=True)])
def test_json_layout_is_kept(layout):
    source = "import paddle.fluid as fluid\n# café\ny = fluid.layers.relu(x)"
    data = _nb(source, **layout)
    out = notebook.upgrade(data)
    expected = _nb(source.replace("fluid.layers.relu", "paddle.nn.functional.relu")
                   .replace("import paddle.fluid as fluid", "import paddle"), **layout)
    assert out.data == expected


def test_cell_text_without_final_newline_stays_so():
    data = _nb("import paddle.fluid as fluid\ny = fluid.layers.relu(x)")
    source = _sources(notebook.upgrade(data).data)[0]
    assert not source.endswith("\n")


def test_not_python_notebook_is_refused():
    data = _nb("x <- 1", metadata={"kernelspec": {"language": "R", "name": "ir"}})
    with pytest.raises(notebook.NotANotebook, match="not a Python notebook"):
        notebook.upgrade(data)


@pytest.mark.parametrize("data, message", [(b"{not json", "not valid notebook JSON"),
                                           (b'{"worksheets": []}', "nbformat 3"),
                                           (b"[1, 2]", "no list of cells"),
                                           (b'{"cells": [], "x": "\xff"}', "not UTF-8")])
def test_bad_notebooks_are_reported(data, message):
    with pytest.raises(SourceError, match=message):
        notebook.upgrade(data)


def test_unreproducible_layout_is_refused_rather_than_rewritten():
    # a float written as 1.50 cannot be written back the same way by json.dumps
    data = _nb("import paddle.fluid as fluid\ny = fluid.layers.relu(x)").replace(
        b'"nbformat_minor": 4', b'"nbformat_minor": 4, "x": 1.50')
    with pytest.raises(FileFailure, match="layout"):
        notebook.upgrade(data)
