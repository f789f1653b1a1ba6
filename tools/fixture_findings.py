"""The expected findings of every fixture pair, as a snapshot beside its `<case>.out.py`.

    python -m tools.fixture_findings          # write every fixtures/<dir>/<case>.findings
    python -m tools.fixture_findings --check  # exit 1 when one is missing or out of date

A pair's findings are checked as closely as its output text (tests/test_fixtures.py), as ruff keeps each
rule's messages in a snapshot beside its fixture. One line per finding, in report order:
`<line>:<col> <code> <severity> <message>`. After a change that alters findings, run this, and read the
diff of the snapshots before committing them.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterable, List

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Directories of fixture pairs: one per refactor step, the partial parse's, and the cases tools/fuzz.py found.
EXTRA_DIRS = ("partial_parse", "fuzz")


def pairs() -> List[Path]:
    """Every `<case>.in.py` with an `<case>.out.py` beside it, in the pair directories."""
    import refactors

    dirs = (*refactors.NAMES, *EXTRA_DIRS)
    return sorted(p for d in dirs for p in (FIXTURES / d).glob("*.in.py"))


def snapshot_path(case: Path) -> Path:
    return case.with_name(case.name[: -len(".in.py")] + ".findings")


def render(findings: Iterable) -> str:
    return "".join(f"{f.line}:{f.col} {f.code} {f.severity} {f.message}\n" for f in findings)


def expected(case: Path) -> str:
    """The snapshot of `case` as the upgrader makes it now."""
    import refactors

    with case.open(encoding="utf-8", newline="") as fh:
        return render(refactors.upgrade_code(fh.read()).findings)


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.fixture_findings", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a snapshot differs")
    args = parser.parse_args(argv)
    stale = []
    for case in pairs():
        text, path = expected(case), snapshot_path(case)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    verb = "out of date" if args.check else "written"
    for path in stale:
        print(f"{path.relative_to(FIXTURES.parent)}: {verb}")
    print(f"{len(pairs())} fixture pairs, {len(stale)} snapshots {verb}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
