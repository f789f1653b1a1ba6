"""Every 2.x target of the table resolves in the installed Paddle and accepts the emitted keywords.

The signature-index tests prove this statically for 2.0.2 and 3.3.1; this one asks the real
`paddlepaddle` (3.3.1 in CI) by importing it, so an index that misread a source cannot hide a break.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any, Optional, Tuple

import pytest

from test_table_valid import emitted_keywords, emitted_names

paddle = pytest.importorskip("paddle")
pytestmark = pytest.mark.paddle


def resolve(dotted: str) -> Tuple[bool, Any]:
    """Follow `dotted` the way emitted code does after `import paddle`: attribute by attribute.

    A submodule that the package does not import itself is imported on the way (as the upgrader's
    `import paddle.x` would); an attribute always wins over a submodule of the same name
    (`paddle.batch` is the function, not the module `paddle/batch.py`).
    """
    parts = dotted.split(".")
    try:
        obj: Any = importlib.import_module(parts[0])
    except ImportError:
        return False, None
    for i, part in enumerate(parts[1:], start=1):
        if not hasattr(obj, part):
            try:
                importlib.import_module(".".join(parts[:i + 1]))
            except ImportError:
                return False, None
            if not hasattr(obj, part):
                return False, None
        obj = getattr(obj, part)
    return True, obj


def _signature(obj: Any) -> Optional[inspect.Signature]:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):  # compiled callables without text signatures
        return None


def _accepts(sig: inspect.Signature, keyword: str) -> bool:
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return True
        if p.name == keyword and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return True
    return False


@pytest.fixture(scope="module")
def table():
    from refactors import table as registered_table

    return registered_table()


def test_installed_paddle_is_the_target_version():
    assert paddle.__version__.startswith("3."), paddle.__version__


def test_every_emitted_name_resolves(table):
    failures = []
    for name, entry in sorted(table.entries.items()):
        for emitted in sorted(emitted_names(entry)):
            found, _ = resolve(emitted)
            if not found:
                failures.append(f"{name}: {emitted} does not resolve in paddle {paddle.__version__}")
    assert not failures, f"{len(failures)} unresolved targets:\n  " + "\n  ".join(failures)


def test_every_emitted_keyword_is_accepted(table):
    failures = []
    for name, entry in sorted(table.entries.items()):
        words = emitted_keywords(entry)
        if entry.update_to is None or not words:
            continue
        found, target = resolve(entry.update_to)
        if not found:
            continue  # reported by test_every_emitted_name_resolves
        sig = _signature(target)
        if sig is None:
            failures.append(f"{name}: {entry.update_to} has no inspectable signature to accept {sorted(words)}")
            continue
        for word in sorted(words):
            if not _accepts(sig, word):
                failures.append(f"{name}: {entry.update_to}({word}=...) is rejected by paddle {paddle.__version__}")
    assert not failures, f"{len(failures)} rejected keywords:\n  " + "\n  ".join(failures)


def test_resolve_follows_attributes_like_emitted_code():
    assert resolve("paddle.batch") == (True, paddle.batch)  # the function, not paddle/batch.py
    assert resolve("paddle.nn.functional.relu")[1] is paddle.nn.functional.relu
    assert resolve("paddle.no_such_api") == (False, None)
    assert resolve("paddle.nn.NoSuchLayer") == (False, None)
