"""A QueueDataset a function returns to its callers is converted (refactors/transformers/dataset_factory.py)
only when no other module of the tree may call that function: a caller out of sight could use a setter
the 2.x object does not have. Another script that only says the name of a function of its own (two
scripts, each with its `get_dataset`) calls no function of this one (refactors/transformers/callers.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import refactors

CASE = Path(__file__).resolve().parent.parent / "fixtures" / "refactor_kwargs" / "dataset_factory_setters.in.py"
CONVERTED = "dataset.init(use_var=var_list, batch_size=batch)\n    return dataset, files"
OWN = "def made_for_callers():\n    return 1\n\n\nx = made_for_callers()\n"


def _upgraded(tree: Path, others: dict) -> str:
    shutil.copy(CASE, tree / "train.py")
    for name, text in others.items():
        (tree / name).write_text(text, encoding="utf-8")
    path = tree / "train.py"
    return refactors.upgrade_code(path.read_text(encoding="utf-8"), origin=str(path)).code


@pytest.mark.parametrize("others", [
    pytest.param({"reader.py": "def batches():\n    return []\n"}, id="alone"),
    pytest.param({"infer.py": OWN}, id="another-script-with-its-own-function"),
])
def test_returned_to_callers_in_sight(tmp_path: Path, others: dict) -> None:
    assert CONVERTED in _upgraded(tmp_path, others)


@pytest.mark.parametrize("others", [
    pytest.param({"infer.py": "from train import made_for_callers\n"}, id="imported"),
    pytest.param({"infer.py": "import train\n" + OWN + "y = train.made_for_callers([], [], 1)\n"},
                 id="own-function-and-the-module's"),
    pytest.param({"infer.py": "from train import *\n" + OWN}, id="star-import"),
    pytest.param({"infer.py": OWN + "f = globals()['made_for_callers']\n"}, id="by-string"),
])
def test_returned_to_a_caller_out_of_sight(tmp_path: Path, others: dict) -> None:
    code = _upgraded(tmp_path, others)
    assert CONVERTED not in code
    assert "made_for_callers` returns the dataset to a caller" in code
