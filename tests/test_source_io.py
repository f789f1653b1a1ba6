"""Byte-exact round trips: encoding, BOM, newline styles, final newline, tabs, Python 2 syntax.

`fixtures/io/<case>.in.<ext>` is upgraded in memory and compared byte for byte with
`<case>.out.<ext>`. The expected files were produced by the tool and reviewed; when the refactors
legitimately change their output, regenerate them with `PADDLE_UPGRADE_REGEN=1 python -m pytest
tests/test_source_io.py` and review the diff. The property checks below do not depend on what the
refactors emit, only on what this package must keep.
"""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from refactors import findings as F
from upgrade_tool import runner, source_io
from upgrade_tool.discovery import NOTEBOOK, PYTHON, Job
from upgrade_tool.pipeline import FileFailure, expand_tab_indents, split_tail, upgrade_text

IO = Path(__file__).resolve().parent.parent / "fixtures" / "io"
CASES = sorted(p.name for p in IO.glob("*.in.*"))


def _job(path: Path) -> Job:
    return Job(str(path), path.name, path.name, NOTEBOOK if path.suffix == ".ipynb" else PYTHON)


def _expected(name: str) -> Path:
    return IO / name.replace(".in.", ".out.")


def _upgrade(name: str) -> runner.FileResult:
    return runner.process(_job(IO / name))


def test_fixture_set_is_complete():
    stems = {name.split(".in.")[0] for name in CASES}
    assert {"crlf", "mixed_newlines", "bom", "latin1_cookie", "no_final_newline", "tabs", "no_paddle",
            "notebook_magics", "cr_only", "python2_print"} <= stems
    for name in CASES:
        assert _expected(name).exists(), f"{name} has no expected output"


@pytest.mark.parametrize("name", CASES)
def test_fixture_round_trip_is_byte_exact(name):
    result = _upgrade(name)
    assert result.status in (runner.CHANGED, runner.UNCHANGED), result.reason
    original = (IO / name).read_bytes()
    produced = result.new_data if result.new_data is not None else original
    if os.environ.get("PADDLE_UPGRADE_REGEN"):
        _expected(name).write_bytes(produced)
    assert produced == _expected(name).read_bytes()


@pytest.mark.parametrize("name", ["no_paddle.in.py", "python2_no_paddle.in.py", "notebook_no_paddle.in.ipynb"])
def test_files_without_paddle_come_out_byte_identical(name):
    result = _upgrade(name)
    assert result.status == runner.UNCHANGED
    assert result.new_data is None and result.diff == ""
    assert _expected(name).read_bytes() == (IO / name).read_bytes()


def _newlines(data: bytes):
    return re.findall(rb"\r\n|\r|\n", data)


@pytest.mark.parametrize("name", ["crlf.in.py", "mixed_newlines.in.py", "cr_only.in.py", "tabs.in.py",
                                  "no_final_newline.in.py", "bom.in.py", "latin1_cookie.in.py"])
def test_changed_file_keeps_its_newline_style_and_encoding(name):
    original = (IO / name).read_bytes()
    result = _upgrade(name)
    assert result.status == runner.CHANGED, result.reason
    new = result.new_data
    before, after = source_io.decode(original), source_io.decode(new)
    assert after.encoding == before.encoding and after.bom == before.bom
    assert after.final_newline == before.final_newline
    if before.newline in (source_io.LF, source_io.CRLF, source_io.CR):
        assert set(_newlines(new)) == set(_newlines(original))
    ast.parse(new)  # the interpreter reads the bytes (cookie and BOM included)


def test_mixed_newlines_keep_each_line_ending():
    result = _upgrade("mixed_newlines.in.py")
    new_lines = result.new_data.splitlines(keepends=True)
    # the line ending of every line is kept: here line 2 is LF, line 5 CRLF, the last LF
    assert new_lines[1] == b"\n"
    assert new_lines[4].endswith(b")\r\n") and b"axis=1" in new_lines[4]
    assert new_lines[-1] == b"# a comment line ending in LF\n"


def test_latin1_bytes_survive_exactly():
    original = (IO / "latin1_cookie.in.py").read_bytes()
    new = _upgrade("latin1_cookie.in.py").new_data
    for line in original.splitlines():
        if any(b > 0x7F for b in line):
            assert line in new.splitlines(), line


def test_bom_is_kept_and_shown_in_the_diff():
    result = _upgrade("bom.in.py")
    assert result.new_data.startswith(source_io.BOM)
    assert result.diff_encoding == "utf-8"


def test_tab_indentation_mixed_with_spaces_is_upgraded():
    result = _upgrade("tab_space_mix.in.py")
    assert result.status == runner.CHANGED
    # the line libcst could not read is upgraded with spaces; the untouched tab line stays as it was
    assert b"            y = paddle" in result.new_data or b"y = fluid" not in result.new_data
    assert b"keep = 'tab\tinside'" in result.new_data
    assert any(f.code == "indentation" for f in result.findings)


def test_python2_file_with_paddle_is_converted_and_reported():
    result = _upgrade("python2_print.in.py")
    assert result.status == runner.CHANGED
    assert result.python2_fixers == ("print", "except", "repr")
    assert b"print('built', x.name)" in result.new_data
    assert any(f.code == F.PYTHON2 and f.fixed for f in result.findings)
    ast.parse(result.new_data)


def test_python2_file_without_paddle_is_left_alone_unparsed():
    # No "paddle" in the bytes: nothing can need upgrading, so the file is not even parsed
    # (neither the Python 2 pass nor a syntax error is reported for it).
    result = _upgrade("python2_no_paddle.in.py")
    assert result.status == runner.UNCHANGED
    assert result.python2_fixers is None
    assert result.findings == []


def test_python2_file_mentioning_paddle_without_using_it_is_reported():
    text = "# not paddle code\nprint 'hello'\n"
    result = upgrade_text(text)
    assert result.text == text
    assert result.python2_fixers == ("print",)
    [finding] = result.findings
    assert finding.code == F.PYTHON2 and not finding.fixed and "left unchanged" in finding.message


# -- source_io units --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, style", [("a\nb\n", "LF"), ("a\r\nb\r\n", "CRLF"), ("a\rb\r", "CR"),
                                         ("a\nb\r\n", "mixed"), ("a", "none"), ("", "none")])
def test_newline_style(text, style):
    assert source_io.newline_style(text) == style


def test_decode_refuses_nul_bytes_as_binary():
    with pytest.raises(source_io.BinaryContent, match="binary"):
        source_io.decode(b"\x89PNG\r\n\x1a\n\x00\x00")


def test_decode_reports_undecodable_bytes_with_offset():
    with pytest.raises(source_io.SourceError, match=r"cannot decode as utf-8.*0xe9 at offset 8"):
        source_io.decode(b"x = 'caf\xe9'\n")


def test_decode_reports_unknown_cookie():
    with pytest.raises(source_io.SourceError, match="bad encoding declaration"):
        source_io.decode(b"# -*- coding: no-such-codec -*-\nx = 1\n")


def test_encode_refuses_characters_the_encoding_cannot_store():
    decoded = source_io.decode("# -*- coding: latin-1 -*-\nx = 1\n".encode("latin-1"))
    with pytest.raises(source_io.SourceError, match="cannot store"):
        source_io.encode("x = '\u2192'\n", decoded)


def test_split_tail_sets_aside_trailing_blank_lines():
    assert split_tail("x = 1\n   \n\t\n") == ("x = 1\n", "   \n\t\n")
    assert split_tail("x = 1") == ("x = 1", "")
    assert split_tail("x = 1\n") == ("x = 1\n", "")


def test_expand_tab_indents_reports_first_tab_line():
    text, first = expand_tab_indents("if x:\n    a = 1\n  \tb = 2\n")
    assert first == 3 and text == "if x:\n    a = 1\n        b = 2\n"


def test_unparseable_code_names_the_line():
    with pytest.raises(FileFailure, match="syntax error at line 2") as info:
        upgrade_text("import paddle.fluid as fluid\nx = (1 2)\n")
    assert info.value.line == 2


def test_pathological_nesting_is_refused_before_libcst():
    # libcst's native parser overflows its stack on this; CPython refuses it cleanly first
    deep = "x = a" + ".b" * 30000 + "\n"
    with pytest.raises(FileFailure):
        upgrade_text("import paddle\n" + deep)
