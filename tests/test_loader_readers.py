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
