"""refactors/transformers/returned_reader.py: a py_reader a function returns to callers of its module is
rewritten only while no other module of the tree imports the module and names the function (its reads of
the reader there would stay 1.8's). The shapes converted and left in one module are the fixture pairs
refactor_kwargs/py_reader_layer_returned and py_reader_layer_left; the numbers,
fixtures/legacy/py_reader_returned_static.py."""
from __future__ import annotations

from pathlib import Path

import refactors

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "refactor_kwargs" / "py_reader_layer_returned.in.py"
BUILDS = "functools.partial(paddle.io.DataLoader"


def _upgrade(path: Path) -> refactors.Result:
    return refactors.upgrade_code(path.read_text(encoding="utf-8"), origin=str(path))


def test_converted_where_no_other_module_imports_it(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "other.py").write_text("def build_program():\n    return None\n\n\nbuild_program()\n",
                                       encoding="utf-8")  # (a function of its own with the same name)
    result = _upgrade(tmp_path / "model.py")
    assert result.code.count(BUILDS) == 2
    assert str(tmp_path / "other.py") in result.reads  # (the content cache checks it)


def test_left_where_another_module_imports_it(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "infer.py").write_text("from model import build_program\n\nreader, loss = build_program(False, 1, "
                                       "2, [4])\nreader.decorate_tensor_provider(None)\n", encoding="utf-8")
    result = _upgrade(tmp_path / "model.py")
    assert result.code.count(BUILDS) == 1  # (make_reader, which infer.py does not name)
    left = [f.message for f in result.findings if not f.fixed and f.line == 7]
    assert left and "`build_program` is also named in another module of the tree" in left[0], left


NESTED = '''\
import paddle.fluid as fluid


def build(main, startup):
    with fluid.program_guard(main, startup):
        reader = fluid.layers.py_reader(capacity=4, shapes=[[-1, 4]], dtypes=['float32'])
        image = fluid.layers.read_file(reader)
    return reader, image


def train(exe, main, startup, batches):
    reader, image = build(main, startup)
    reader.decorate_tensor_provider(batches)
    reader.start()
    while True:
        try:
            exe.run(main)
        except fluid.core.EOFException:
            reader.reset()
            break
    return lambda: reader.start()
'''


def test_left_where_a_nested_function_of_the_caller_reads_it() -> None:
    result = refactors.upgrade_code(NESTED)
    assert BUILDS not in result.code
    assert [f for f in result.findings if not f.fixed and "`reader` is read by a function or class defined there"
            in f.message]
    assert BUILDS in refactors.upgrade_code(NESTED.replace("    return lambda: reader.start()\n", "")).code
