"""refactors/transformers/loader_readers.py: a function of the module that reads a returned non-iterable
loader given to it changes with it only where no other module of the tree may call it with another."""
from __future__ import annotations

from pathlib import Path

import refactors

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "refactor_kwargs" / "from_generator_returned_reading.in.py"


def _upgrade(tree: Path, others: dict) -> str:
    for name, text in others.items():
        (tree / name).write_text(text)
    source = FIXTURE.read_text()
    (tree / "train.py").write_text(source)
    return refactors.upgrade_code(source, origin=str(tree / "train.py")).code


def test_alone_in_its_tree_the_reading_function_changes(tmp_path: Path) -> None:
    code = _upgrade(tmp_path, {"other.py": "def evaluate(a, b, c, d):\n    return a\n"})  # its own function
    assert "for batch_2 in test_loader:" in code


def test_a_module_that_may_call_the_reading_function_leaves_it(tmp_path: Path) -> None:
    code = _upgrade(tmp_path, {"other.py": "from train import evaluate\n\n\ndef check(loader):\n"
                                           "    return evaluate(None, None, loader, [])\n"})
    assert "for batch_2 in test_loader:" not in code and "test_loader.start()" in code
    assert "`evaluate`, which reads the loader, is named in another module of the tree" in code


def test_a_module_that_names_it_but_cannot_import_this_one_keeps_it(tmp_path: Path) -> None:
    # `evaluate` of another library (BERT's run_squad.py and squad.py's 'predict'): no module says `train`
    code = _upgrade(tmp_path, {"other.py": "from metrics import evaluate\n\n\ndef check(x):\n    return evaluate(x)\n"})
    assert "for batch_2 in test_loader:" in code


def test_a_module_that_names_it_and_may_import_this_one_leaves_it(tmp_path: Path) -> None:
    for importer in ("import __main__\n", "import importlib\nm = importlib.import_module('train')\n",
                     "from pkg import train as t\n"):
        code = _upgrade(tmp_path, {"other.py": importer + "\n\ndef check(loader):\n    return evaluate(loader)\n"})
        assert "test_loader.start()" in code and "may import this one" in code, importer


def test_a_module_that_may_call_the_builder_leaves_its_loader(tmp_path: Path) -> None:
    # the builder returns 1.8's loader to that module too, which would get the 2.x constructor instead
    code = _upgrade(tmp_path, {"other.py": "from train import create_model\n\n\ndef check(reader):\n"
                                           "    loader, out = create_model(False)\n"
                                           "    loader.set_batch_generator(reader)\n    loader.start()\n"})
    assert "`create_model` is named in another module of the tree that may import this one" in code
    assert "functools.partial(paddle.io.DataLoader" not in code.split("def build_queued")[0]


def test_a_module_that_says_the_name_in_prose_alone_keeps_it(tmp_path: Path) -> None:
    # config.py's help text says "evaluate" (sentiment_classification): no code of it names the function
    code = _upgrade(tmp_path, {"config.py": "import train\n\n"
                                            "HELP = 'The steps interval to evaluate model performance.'\n"
                                            "def arg(name):\n    return getattr(train, name)  # evaluate\n"})
    assert "for batch_2 in test_loader:" in code
    code = _upgrade(tmp_path, {"config.py": "import train\n\nCODE = 'evaluate(None, None, None, [])'\n"
                                            "def run():\n    return eval(CODE)\n"})
    assert "for batch_2 in test_loader:" not in code and "test_loader.start()" in code
