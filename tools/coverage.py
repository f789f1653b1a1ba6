"""Measure how much of Paddle 1.8 the mapping table covers, and print it.

    python -m tools.coverage [--usage FILE] [--csv FILE] [--check]

Two measures, both read from committed files (no network, no Paddle import):

- the public 1.8 -> 2.0 correspondence (`api_mapping/reference/paddle_1.8_to_2.0_api_mapping.csv`, 362 rows):
  each row is mapped to a 2.x target that exists in both the 2.0.2 and 3.3.1 signature indexes (in
  3.3.1 only when its entry's `since` names a later release), marked "no 2.x equivalent" with a reason, or missing;
- the use sites of a real 1.8 corpus (`api_mapping/usage/models-release-1.8.json`, written by
  `python -m tools.count_uses`): which share of them the table knows.

A name is covered when it, or a prefix of it, is a main name or an alias of an entry: the use site
`paddle.fluid.io.DataLoader.from_generator` is covered by an entry `paddle.fluid.io.DataLoader`.
With `--check` the exit status is 1 when a target is missed (a row missing or invalid, fewer than
98% of the use sites covered, or an uncovered name with 2 or more sites).
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import api_mapping
from api_mapping.loader import load_table
from api_mapping.schema import BASELINE, Table, version_tuple

TABLE_DIR = Path(api_mapping.__file__).parent  # holds the reference CSV and the usage counts
DEFAULT_CSV = TABLE_DIR / "reference" / "paddle_1.8_to_2.0_api_mapping.csv"
DEFAULT_USAGE = TABLE_DIR / "usage" / "models-release-1.8.json"
TARGET_VERSIONS = ("2.0.2", "3.3.1")
SITE_SHARE_TARGET = 0.98
TOP = 20


def covering_entry(table: Table, name: str) -> Optional[str]:
    """The main name of the entry that covers `name` (itself or its longest known prefix), or None."""
    parts = name.split(".")
    for end in range(len(parts), 1, -1):
        main = table.main_name(".".join(parts[:end]))
        if main is not None:
            return main
    return None


class TargetChecker:
    """Whether a 2.x name exists in every target version's signature index."""

    def __init__(self, versions: Sequence[str] = TARGET_VERSIONS) -> None:
        from api_mapping.signatures import load_index

        self.indexes = {v: load_index(v) for v in versions}

    def missing_in(self, dotted: str, since: Optional[str] = None) -> List[str]:
        """The versions lacking `dotted`, among those from `since` (the entry's first release) on."""
        first = version_tuple(since or BASELINE)
        return [v for v, index in self.indexes.items()
                if version_tuple(v) >= first and not self._known(index, dotted)]

    @staticmethod
    def _known(index, dotted: str) -> bool:
        if index.exists(dotted):
            return True
        parts = dotted.split(".")  # members of compiled modules are unknown, not absent
        return any(index.is_dynamic(".".join(parts[:i])) for i in range(2, len(parts)))


# -- the public correspondence --------------------------------------------------------------------------

@dataclass
class CsvReport:
    rows: int = 0
    mapped: List[Tuple[int, str, str]] = field(default_factory=list)
    no_equivalent: List[Tuple[int, str]] = field(default_factory=list)
    invalid: List[Tuple[int, str, str]] = field(default_factory=list)  # (row, name, why)
    missing: List[Tuple[int, str]] = field(default_factory=list)


def read_csv(path: Path) -> List[Tuple[int, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return [(int(row["index"]), row["paddle_1_8_api"].strip()) for row in csv.DictReader(fh)]


def check_rows(table: Table, rows: Iterable[Tuple[int, str]], checker: TargetChecker) -> CsvReport:
    report = CsvReport()
    for index, name in rows:
        report.rows += 1
        entry = table.lookup(name)
        if entry is None:
            report.missing.append((index, name))
        elif entry.no_equivalent is not None:
            if entry.no_equivalent.reason.strip():
                report.no_equivalent.append((index, name))
            else:
                report.invalid.append((index, name, "no_equivalent without a reason"))
        elif entry.update_to is not None:
            absent = checker.missing_in(entry.update_to, entry.since)
            if absent:
                report.invalid.append((index, name, f"{entry.update_to} missing in {', '.join(absent)}"))
            else:
                report.mapped.append((index, name, entry.update_to))
        elif entry.transformer is not None:
            report.mapped.append((index, name, f"transformer {entry.transformer}"))
        else:
            report.invalid.append((index, name, "no target, transformer or reason"))
    return report


# -- the corpus ---------------------------------------------------------------------------------------------

@dataclass
class CorpusReport:
    files: int
    names: int
    sites: int
    covered_names: int
    covered_sites: int
    uncovered: Counter
    not_in_1_8_5: Counter  # uncovered names that 1.8.5 never exported (typos, later builds, private paths)

    @property
    def share(self) -> float:
        return self.covered_sites / self.sites if self.sites else 1.0

    def uncovered_with(self, min_sites: int, apis_only: bool = False) -> List[Tuple[str, int]]:
        names = self.uncovered
        if apis_only:
            names = Counter({n: c for n, c in names.items() if n not in self.not_in_1_8_5})
        return sorted(((n, c) for n, c in names.items() if c >= min_sites), key=lambda nc: (-nc[1], nc[0]))


def exported_by_1_8_5(name: str) -> bool:
    """True when `name`, or a prefix of it that is not a module (`Class.method`), is a 1.8.5 API."""
    from api_mapping.signatures import load_index

    index = load_index("1.8.5")
    parts = name.split(".")
    for end in range(len(parts), 1, -1):
        found = index.get(".".join(parts[:end]))
        if found is not None:
            return found.kind != "module" or end == len(parts)
    return False


def check_usage(table: Table, usage: Mapping) -> CorpusReport:
    counts: Dict[str, int] = usage["names"]
    uncovered: Counter = Counter()
    covered_names = covered_sites = 0
    for name, sites in counts.items():
        if covering_entry(table, name) is not None:
            covered_names += 1
            covered_sites += sites
        else:
            uncovered[name] = sites
    foreign = Counter({n: c for n, c in uncovered.items() if not exported_by_1_8_5(n)})
    return CorpusReport(files=int(usage.get("files", 0)), names=len(counts), sites=sum(counts.values()),
                        covered_names=covered_names, covered_sites=covered_sites, uncovered=uncovered,
                        not_in_1_8_5=foreign)


# -- output ---------------------------------------------------------------------------------------------------

def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def table_summary(table: Table) -> List[str]:
    entries = list(table.entries.values())
    with_transformer = sum(1 for e in entries if e.transformer is not None)
    no_eq = sum(1 for e in entries if e.no_equivalent is not None)
    return [f"Mapping table: {len(entries)} entries, {len(table.by_alias)} aliases; "
            f"{with_transformer} with a transformer, {no_eq} with no 2.x equivalent, "
            f"{sum(1 for e in entries if e.automatic)} converted automatically"]


def csv_lines(report: CsvReport, path: Path) -> List[str]:
    lines = [f"Public 1.8 -> 2.0 correspondence ({_rel(path)}): {report.rows} rows",
             f"  mapped to a valid 2.x target (exists in {' and '.join(TARGET_VERSIONS)}): {len(report.mapped)}",
             f"  marked no 2.x equivalent, with a reason: {len(report.no_equivalent)}",
             f"  invalid (target missing in a version, or no reason): {len(report.invalid)}"]
    lines += [f"    row {i:3d} {name}: {why}" for i, name, why in report.invalid]
    lines.append(f"  missing from the table: {len(report.missing)}")
    lines += [f"    row {i:3d} {name}" for i, name in report.missing]
    return lines


def corpus_lines(report: CorpusReport, path: Path) -> List[str]:
    repeated = report.uncovered_with(2, apis_only=True)
    lines = [f"Corpus use sites ({_rel(path)}: {report.files} files, {report.sites} use sites, "
             f"{report.names} distinct paddle.fluid names)",
             f"  distinct names covered: {report.covered_names} / {report.names}",
             f"  use sites covered: {report.covered_sites} / {report.sites} = {100 * report.share:.2f}% "
             f"(target >= {100 * SITE_SHARE_TARGET:.0f}%)",
             f"  uncovered 1.8.5 APIs with >= 2 use sites: {len(repeated)} (target: none)"]
    lines += [f"    {count:5d}  {name}" for name, count in repeated]
    top = report.uncovered_with(1)[:TOP]
    lines.append(f"  top {TOP} uncovered names (of {len(report.uncovered)}; "
                 f"* = not exported by 1.8.5, so no 1.8 table entry can hold it):")
    lines += [f"    {count:5d}  {name}{' *' if name in report.not_in_1_8_5 else ''}" for name, count in top]
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.coverage",
                                     description=__doc__.strip().splitlines()[0])
    parser.add_argument("--usage", type=Path, default=DEFAULT_USAGE, help="use-site counts (JSON)")
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV, help="the 1.8 -> 2.0 correspondence")
    parser.add_argument("--check", action="store_true", help="exit 1 when a coverage target is missed")
    args = parser.parse_args(argv)

    table = load_table()
    rows = check_rows(table, read_csv(args.csv), TargetChecker())
    with args.usage.open(encoding="utf-8") as fh:
        corpus = check_usage(table, json.load(fh))
    out = table_summary(table) + [""] + csv_lines(rows, args.csv) + [""] + corpus_lines(corpus, args.usage)
    print("\n".join(out))
    missed = bool(rows.missing or rows.invalid or corpus.share < SITE_SHARE_TARGET
                  or corpus.uncovered_with(2, apis_only=True))
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
