"""A function that makes and returns an optimizer with an inline schedule returns the scheduler beside it
(refactors/transformers/lr_decay_returned.py) only when no other module of the tree says its name: one
could import and call it, and would get a pair where 1.8 gave an optimizer."""
from __future__ import annotations

import shutil
from pathlib import Path

import refactors

CASE = Path(__file__).resolve().parent.parent / "fixtures" / "refactor_kwargs" / "lr_decay_dygraph_returned_optimizer.in.py"


def _upgraded(tree: Path) -> str:
    path = tree / "train.py"
    return refactors.upgrade_code(path.read_text(encoding="utf-8"), origin=str(path)).code


def test_alone_in_its_tree_the_function_returns_the_scheduler(tmp_path: Path) -> None:
    shutil.copy(CASE, tmp_path / "train.py")
    (tmp_path / "reader.py").write_text("def batches():\n    return []\n", encoding="utf-8")
    assert "return optimizer, lr_scheduler" in _upgraded(tmp_path)


def test_named_by_another_module_it_keeps_its_result(tmp_path: Path) -> None:
    shutil.copy(CASE, tmp_path / "train.py")
    (tmp_path / "evaluate.py").write_text("from train import optimizer_setting\n", encoding="utf-8")
    code = _upgraded(tmp_path)
    assert "return optimizer, lr_scheduler" not in code
    assert "optimizer_setting(" in code and "return optimizer\n" in code
