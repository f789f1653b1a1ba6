"""The repository stands on its own.

- Every citation of a behaviour fact, `api_mapping/SEMANTICS.md N` in code, comments, docs and the table,
  names an entry that file has, and names the file by its path in the repository (a relative link in
  Markdown).
- Nothing cites what lives outside the repository (the notes it was written from).
- A module's imports tell its place: `api_mapping` imports nothing of ours, the runtime packages do not
  import the maintenance tooling (`tools/`, `benchmarks/`), which the distribution does not install.
"""
from __future__ import annotations

import ast
import re
import sys
import warnings
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

import refactors
from tests.test_table_valid import TRAPS

ROOT = Path(__file__).resolve().parent.parent
SEMANTICS = ROOT / "api_mapping" / "SEMANTICS.md"
THIS = Path(__file__).resolve()  # it spells the patterns it looks for
RUNTIME = ("api_mapping", "refactors", "runtime_shim", "upgrade_tool")
SOURCES = (*RUNTIME, "tools", "tests", "benchmarks", "docs")  # not build output, caches or virtual environments
SKIP_DIRS = {"__pycache__", "out"}
TEXT = (".py", ".md", ".json", ".toml", ".yaml", ".yml", ".cfg", ".txt")


def _files() -> Iterator[Path]:
    yield from (p for p in sorted(ROOT.iterdir()) if p.is_file() and p.suffix in TEXT)
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in TEXT and not SKIP_DIRS & set(path.relative_to(ROOT).parts) \
                    and path not in (SEMANTICS, THIS):
                yield path
    yield ROOT / "fixtures" / "legacy" / "README.md"


def _entries() -> Set[int]:
    return {int(m.group(1)) for m in re.finditer(r"^(\d+)\. \*\*", SEMANTICS.read_text(encoding="utf-8"), re.M)}


# `SEMANTICS.md 8`, `SEMANTICS.md 22, 23`, `SEMANTICS.md 27-29`, `SEMANTICS.md entry 5`, `[SEMANTICS.md](...) 8`
CITATION = re.compile(r"SEMANTICS\.md(?:`|\]\([^)]*\))?\s+(?:entr(?:y|ies)\s+)?(\d+(?:\s*(?:,|-|and)\s*\d+)*)")
MENTION = re.compile(r"SEMANTICS\.md")


def _numbers(text: str) -> List[int]:
    out: List[int] = []
    for part in re.split(r"\s*(?:,|and)\s*", text):
        first, _, last = part.partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


def _citations() -> Iterator[Tuple[str, int]]:
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            for number in _numbers(match.group(1)):
                yield f"{path.relative_to(ROOT)}:{line}", number


def test_semantics_has_its_numbered_entries() -> None:
    entries = _entries()
    assert entries == set(range(1, max(entries) + 1)) and max(entries) >= 44  # numbered without gaps


def test_every_cited_entry_exists() -> None:
    entries = _entries()
    cited = list(_citations())
    assert len(cited) > 30
    assert [f"{where}: SEMANTICS.md {n}" for where, n in cited if n not in entries] == []


def test_every_entry_number_the_table_and_tests_name_exists() -> None:
    entries = _entries()
    table = refactors.table()
    named = {(f"table {e.name}", n) for e in table.entries.values() for n in e.semantics}
    named |= {(f"tests/test_table_valid.py TRAPS {name}", n) for n, name, *_ in TRAPS}
    shim_tests = (ROOT / "tests" / "test_shim_semantics.py").read_text(encoding="utf-8")
    named |= {(f"tests/test_shim_semantics.py {m.group(0)}", int(m.group(1)))
              for m in re.finditer(r"^def test_(\d+)_\w+", shim_tests, re.M)}
    assert len(named) > 50
    assert sorted(f"{where}: {n}" for where, n in named if n not in entries) == []


LINK = re.compile(r"\[([^\]]*)\]\(([^)#\s]+)[^)]*\)")


def test_every_mention_names_the_file_in_the_repository() -> None:
    """`api_mapping/SEMANTICS.md`, or in Markdown a link that resolves to it or that names it so."""
    wrong = []
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        links = [m.span() for m in LINK.finditer(text)
                 if (path.parent / m.group(2)).resolve() == SEMANTICS or m.group(1) == "api_mapping/SEMANTICS.md"]
        for match in MENTION.finditer(text):
            named = text[:match.start()].endswith("api_mapping/")
            if not named and not any(start <= match.start() < end for start, end in links):
                wrong.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}")
    assert wrong == []


OUTSIDE = re.compile(r"\.\./shared|shared/reference|\bDESIGN\.md|\bSTYLE\.md|(?<![\w/])reference/SEMANTICS")


def test_nothing_is_cited_from_outside_the_repository() -> None:
    found = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for path in _files() for text in [path.read_text(encoding="utf-8", errors="replace")]
             for m in OUTSIDE.finditer(text)]
    assert found == []


# -- imports ---------------------------------------------------------------------------------------------

OURS = {"api_mapping", "refactors", "runtime_shim", "upgrade_tool", "tools", "benchmarks", "tests"}
ALLOWED: Dict[str, Set[str]] = {
    "api_mapping": {"api_mapping"},
    "refactors": {"refactors", "api_mapping"},
    "runtime_shim": {"runtime_shim", "api_mapping"},
    "upgrade_tool": {"upgrade_tool", "refactors", "api_mapping"},
}


def _imports(path: Path) -> Set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found & OURS


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_runtime_package_imports_only_what_its_place_allows(package: str) -> None:
    wrong = {f"{path.relative_to(ROOT)}: {sorted(_imports(path) - ALLOWED[package])}"
             for path in (ROOT / package).rglob("*.py") if _imports(path) - ALLOWED[package]}
    assert wrong == set()


def test_the_distribution_installs_the_runtime_packages_only() -> None:
    if sys.version_info < (3, 11):
        pytest.skip("reads pyproject.toml with tomllib")
    import tomllib

    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert sorted(wheel["packages"]) == sorted(RUNTIME)


def test_a_warning_blamed_on_our_code_fails_the_test_and_paddles_deprecation_notice_does_not() -> None:
    """pyproject.toml's filterwarnings, as pytest applies them around each test."""
    with pytest.raises(DeprecationWarning):
        warnings.warn_explicit("deprecated", DeprecationWarning, "cli.py", 1, module="upgrade_tool.cli", registry={})
    with pytest.raises(UserWarning):
        warnings.warn_explicit("odd", UserWarning, "t.py", 1, module="tests.test_cli", registry={})
    notice = "\x1b[93m\nWarning:\nAPI \"paddle.x\" is deprecated since 2.0.0 \x1b[0m"  # paddle.utils.deprecated
    with warnings.catch_warnings(record=True) as shown:  # the filters as they are; only the display is caught
        warnings.warn_explicit(notice, UserWarning, "layers.py", 1, module="runtime_shim.adapters.layers", registry={})
        warnings.warn_explicit("deprecated", DeprecationWarning, "x.py", 1, module="paddle.base.x", registry={})
    assert [str(w.message) for w in shown] == [notice, "deprecated"]
