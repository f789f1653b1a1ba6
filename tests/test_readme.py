"""What the README and docs/ say is what the code does: every flag, every finding code, every command
and every link; and the quick start does what the README says it does."""
from __future__ import annotations

import ast
import importlib.util
import re
import shutil
from pathlib import Path
from typing import Dict, Iterator, Set

import pytest
from click.testing import CliRunner

from refactors import findings as F
from upgrade_tool import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else len(README)]


def test_the_flags_table_lists_every_option_and_no_other() -> None:
    first_cells = [line.split(" | ")[0] for line in _section("Flags").splitlines() if line.startswith("| `")]
    flags = {name for cell in first_cells for name in re.findall(r"(?<![\w-])(--?[\w-]+)", cell)}
    options = {opt for param in cli.main.params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("-")}
    options |= {"--version", "-h", "--help"}
    assert flags == options


# The functions that make findings, and where their `code` argument is.
_CODE_ARG = {"report": 1, "Finding": 3, "notice": 2, "_failed": 2}


def _constants() -> Dict[str, str]:
    """Module-level string constants of the packages that report, by name (`F.CONVERTED`, `RERUN`)."""
    found: Dict[str, str] = {}
    for path in [*(ROOT / "refactors").rglob("*.py"), *(ROOT / "upgrade_tool").glob("*.py")]:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                found.update((t.id, node.value.value) for t in node.targets if isinstance(t, ast.Name))
    return found


def _reported_codes() -> Iterator[str]:
    constants = _constants()
    for path in [*(ROOT / "refactors").rglob("*.py"), *(ROOT / "upgrade_tool").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            at = _CODE_ARG.get(name)
            if at is None or len(node.args) <= at:
                continue
            code = node.args[at]
            if isinstance(code, ast.Constant):
                yield code.value
            elif isinstance(code, (ast.Name, ast.Attribute)):
                name = code.id if isinstance(code, ast.Name) else code.attr
                if name in constants:  # else a parameter passed on (`_failed`'s own `code`)
                    yield constants[name]


def test_the_finding_codes_table_lists_every_code_the_upgrade_reports() -> None:
    documented = set(re.findall(r"^\| `([a-z0-9-]+)` \|", _section("Reports"), re.M))
    reported = set(_reported_codes())
    assert {F.CONVERTED, F.NO_EQUIVALENT, F.FAILED, "api-warning", "act-moved"} <= reported
    assert documented == reported


def _commands() -> Iterator[str]:
    for page in PAGES:
        yield from re.findall(r"python -m ([\w.]+)", page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("module", sorted(set(_commands())))
def test_every_python_m_command_names_a_runnable_module(module: str) -> None:
    if module in ("pytest", "pip"):
        return
    spec = importlib.util.find_spec(module)
    assert spec is not None, module
    if spec.submodule_search_locations:  # a package runs its __main__
        assert importlib.util.find_spec(module + ".__main__") is not None, module
    else:
        assert "__main__" in Path(spec.origin).read_text(encoding="utf-8"), module


def _anchors(text: str) -> Set[str]:
    return {re.sub(r"[^\w\- ]", "", title).strip().lower().replace(" ", "-")
            for title in re.findall(r"^#+ (.+)$", text, re.M)}


def test_every_link_resolves() -> None:
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists() or (anchor and anchor not in _anchors(file.read_text(encoding="utf-8"))):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_quick_start_previews_and_writes_only_report_log(tmp_path, monkeypatch) -> None:
    work = tmp_path / "checkout"
    shutil.copytree(ROOT / "fixtures" / "example", work / "fixtures" / "example")
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    monkeypatch.chdir(work)
    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(cli.main, ["-i", "fixtures/example"], catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout.startswith("--- a/fixtures/example/")
    assert "paddle-upgrade summary" in result.stderr and "log: report.log" in result.stderr
    assert re.search(r"^done in \d+\.\ds$", result.stderr, re.M)
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    assert {p.relative_to(work).as_posix() for p in set(after) - set(before)} == {"report.log"}
    assert all(after[p] == data for p, data in before.items())
