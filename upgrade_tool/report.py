"""Renderers of the one list of findings: console (rich), report.log lines, JSON, and the summary.

report.log has one line per finding, `file:line LEVEL message`, in input order. The JSON report
holds the same findings (every field of `Finding`), one record per file, and the summary.
"""
from __future__ import annotations

import datetime as _dt
import io
import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple

from refactors.findings import Finding
from upgrade_tool import __version__
from upgrade_tool.runner import CHANGED, FAILED, SKIPPED, UNCHANGED, FileResult
from upgrade_tool.writer import atomic_file

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_RANK = {"info": 1, "warning": 2, "error": 3}
_THRESHOLD = {"DEBUG": 0, "INFO": 1, "WARNING": 2, "ERROR": 3}
TOP_LEFT = 10


def shown(finding: Finding, level: str) -> bool:
    """Whether a finding is at or above a --log-level."""
    return _RANK.get(finding.severity, 3) >= _THRESHOLD[level.upper()]


@dataclass
class LeftApi:
    name: str
    count: int
    code: str
    reason: str


@dataclass
class Summary:
    scanned: int = 0
    changed: int = 0
    unchanged: int = 0
    failed: int = 0
    skipped: int = 0
    written: int = 0
    declined: int = 0  # answered "no" (or quit) at the per-file confirm
    sites_found: int = 0
    sites_converted: int = 0
    python2: int = 0
    legacy_files: int = 0  # files that still use a legacy API after the upgrade
    top_left: List[LeftApi] = field(default_factory=list)
    interrupted: bool = False

    @property
    def sites_left(self) -> int:
        return self.sites_found - self.sites_converted

    @property
    def conversion_rate(self) -> Optional[float]:
        return self.sites_converted / self.sites_found if self.sites_found else None

    def rate_text(self) -> str:
        rate = self.conversion_rate
        return "n/a (no legacy API use found)" if rate is None else f"{rate:.1%}"

    def to_dict(self) -> Dict[str, Any]:
        return {
            "files": {"scanned": self.scanned, "changed": self.changed, "unchanged": self.unchanged,
                      "failed": self.failed, "skipped": self.skipped, "written": self.written,
                      "declined": self.declined, "python2": self.python2, "legacy": self.legacy_files},
            "sites": {"found": self.sites_found, "converted": self.sites_converted, "left": self.sites_left,
                      "conversion_rate": self.conversion_rate},
            "top_left": [{"api": t.name, "count": t.count, "code": t.code, "reason": t.reason}
                         for t in self.top_left],
            "interrupted": self.interrupted,
        }


class Tally:
    """The summary, accumulated file by file: a run keeps counters, not every file's sites."""

    def __init__(self) -> None:
        self.summary = Summary()
        self._left: Dict[str, Counter] = {}

    def add(self, r: FileResult) -> None:
        s = self.summary
        s.scanned += 1
        if r.status == CHANGED:
            s.changed += 1
        elif r.status == UNCHANGED:
            s.unchanged += 1
        elif r.status == FAILED:
            s.failed += 1
        elif r.status == SKIPPED:
            s.skipped += 1
        if r.python2_fixers:
            s.python2 += 1
        if r.legacy_left:
            s.legacy_files += 1
        for site in r.sites:
            s.sites_found += 1
            if site.converted:
                s.sites_converted += 1
            else:
                self._left.setdefault(site.name, Counter())[(site.code, site.reason)] += 1

    def finish(self, written: int = 0, declined: int = 0, interrupted: bool = False) -> Summary:
        s = self.summary
        s.written, s.declined, s.interrupted = written, declined, interrupted
        ranked = sorted(self._left.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        s.top_left = []
        for name, reasons in ranked[:TOP_LEFT]:
            (code, reason), _ = reasons.most_common(1)[0]
            s.top_left.append(LeftApi(name, sum(reasons.values()), code, reason))
        return s


# -- report.log ----------------------------------------------------------------------------------

class LogFile:
    """report.log, written as results arrive (so an interrupted run still leaves its log)."""

    def __init__(self, path: str, level: str) -> None:
        self.path = path
        self.level = level
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        self._fh: Optional[IO[str]] = open(path, "w", encoding="utf-8")

    def add(self, result: FileResult) -> None:
        if self._fh is None:
            return
        for finding in result.findings:
            if shown(finding, self.level):
                self._fh.write(finding.log_line() + "\n")
        if self.level == "DEBUG":
            self._fh.write(f"{result.display}:1 DEBUG {result.status} in {result.seconds:.3f}s\n")
            if result.detail:
                for line in result.detail.rstrip().splitlines():
                    self._fh.write(f"{result.display}:1 DEBUG {line}\n")
        self._fh.flush()

    def close(self, summary: Summary) -> None:
        if self._fh is None:
            return
        self._fh.write(
            f"summary: {summary.scanned} files scanned, {summary.changed} changed, {summary.unchanged} unchanged, "
            f"{summary.failed} failed, {summary.skipped} skipped; legacy API uses {summary.sites_found} found, "
            f"{summary.sites_converted} converted, {summary.sites_left} left; conversion rate "
            f"{summary.rate_text()}\n")
        self._fh.close()
        self._fh = None


# -- JSON ----------------------------------------------------------------------------------------

class JsonReport:
    """The JSON report, streamed: findings are spooled to disk as files finish, so memory stays flat
    on large trees; `close` writes the document next to its destination and moves it into place."""

    def __init__(self, path: str, argv: Sequence[str]) -> None:
        self.path = os.path.abspath(path)
        self.argv = list(argv)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._files: List[Dict[str, Any]] = []  # one small record per file
        self._spool = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._findings = 0

    def add(self, r: FileResult) -> None:
        self._files.append({"path": r.display, "status": r.status, "reason": r.reason, "sites": len(r.sites),
                            "converted": r.converted,
                            "python2_fixers": list(r.python2_fixers) if r.python2_fixers else None})
        for finding in r.findings:
            self._spool.write(("," if self._findings else "") + json.dumps(finding.to_dict(), ensure_ascii=False))
            self._findings += 1

    def close(self, summary: Summary) -> None:
        head = {"tool": "paddle-upgrade", "version": __version__,
                "created": _dt.datetime.now().isoformat(timespec="seconds"), "argv": self.argv,
                "summary": summary.to_dict(), "files": self._files}
        text = json.dumps(head, indent=2, ensure_ascii=False)
        self._spool.seek(0)
        try:
            with atomic_file(self.path) as raw:
                out = io.TextIOWrapper(raw, encoding="utf-8")
                out.write(text[:-2] + ',\n  "findings": [')  # reopen the object: findings follow
                shutil.copyfileobj(self._spool, out)
                out.write("]\n}\n")
                out.detach()  # flushes; atomic_file fsyncs and closes the file itself
        finally:
            self._spool.close()


# -- console -------------------------------------------------------------------------------------

QUIET, NORMAL, VERBOSE, VERY_VERBOSE = -1, 0, 1, 2  # console verbosity: -q, default, -v, -vv
_STYLE = {"info": "dim", "warning": "yellow", "error": "bold red"}


def on_console(finding: Finding, verbosity: int) -> bool:
    """Whether the console shows a finding as it comes: errors always; warnings about a file always,
    those about a legacy API use with -v (else counted, see `ApiWarnings`); info findings with -vv."""
    if finding.severity == "error":
        return True
    if finding.severity == "warning":
        return verbosity >= VERBOSE or (verbosity == NORMAL and not finding.api)
    return verbosity >= VERY_VERBOSE


def print_findings(console, findings: Sequence[Finding], verbosity: int) -> None:
    for finding in findings:
        if on_console(finding, verbosity):
            _print(console, f"{finding.file}:{finding.line} ", finding.severity, finding.message)


def _print(console, where: str, severity: str, message: str) -> None:
    from rich.text import Text

    if not console.is_terminal:  # the same characters, without rich's rendering (a log or a pipe)
        console.file.write(f"{where}{severity.upper()} {message}\n")
        return
    line = Text(where, style="bold")
    line.append(severity.upper(), style=_STYLE.get(severity, ""))
    line.append(" " + message)
    console.print(line, soft_wrap=True, highlight=False)


class ApiWarnings:
    """Warnings about legacy API uses, counted per API and finding code: the console closes a run with
    one line for each (each use, with its file and line, is in the log and the JSON report)."""

    def __init__(self) -> None:
        self._messages: Dict[Tuple[str, str], Counter] = {}

    def add(self, findings: Sequence[Finding]) -> None:
        for finding in findings:
            if finding.severity == "warning" and finding.api:
                self._messages.setdefault((finding.api, finding.code), Counter())[finding.message] += 1

    def __len__(self) -> int:
        return len(self._messages)

    def lines(self) -> List[str]:
        """`155 uses of <api> (<code>): <the most common message>`, most frequent first."""
        ranked = sorted(self._messages.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        out = []
        for (api, code), messages in ranked:
            uses = sum(messages.values())
            message = _without_name(messages.most_common(1)[0][0], api)
            others = len(messages) - 1
            more = f" (+{others} other message{'s' if others > 1 else ''})" if others else ""
            out.append(f"{uses} use{'s' if uses > 1 else ''} of {api} ({code}): {message}{more}")
        return out

    def print(self, console, log_path: Optional[str]) -> None:
        where = f"each use is in {log_path}" if log_path else "-v lists each use"
        console.print(f"warnings about legacy API uses, one line per API ({where}):", highlight=False)
        for line in self.lines():
            _print(console, "", "warning", line)


def _without_name(message: str, api: str) -> str:
    """A message without the API name it often starts with (the line names the API already)."""
    for prefix in (api + ": ", api + " "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


def print_matches(console, result: FileResult) -> None:
    """--print-match: every legacy use site, where it is, which refactors act on it, its code."""
    from rich.text import Text

    for site in result.sites:
        where = f"{result.display}:{site.line}:{site.col}" if site.cell is None \
            else f"{result.display}:cell{site.cell}:{site.line}:{site.col}"
        line = Text(f"{where} ", style="bold")
        line.append(f"[{' > '.join(site.refactors)}] ", style="cyan")
        line.append(f"{site.name} ", style="magenta")
        line.append(f"({site.code}) ", style="green" if site.converted else "yellow")
        line.append(site.source)
        console.print(line, soft_wrap=True, highlight=False)


def summary_table(summary: Summary):
    from rich.table import Table

    table = Table(title="paddle-upgrade summary", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("count", justify="right")
    table.add_row("files scanned", str(summary.scanned))
    table.add_row("  changed", str(summary.changed))
    table.add_row("  unchanged", str(summary.unchanged))
    table.add_row("  failed", str(summary.failed), style="red" if summary.failed else None)
    table.add_row("  skipped", str(summary.skipped))
    if summary.written or summary.declined:
        table.add_row("  written", str(summary.written))
        table.add_row("  declined at confirm", str(summary.declined))
    if summary.python2:
        table.add_row("  with Python 2 syntax", str(summary.python2))
    table.add_row("  still using legacy APIs", str(summary.legacy_files),
                  style="yellow" if summary.legacy_files else None)
    table.add_row("legacy API uses found", str(summary.sites_found))
    table.add_row("  converted", str(summary.sites_converted))
    table.add_row("  left", str(summary.sites_left))
    table.add_row("conversion rate", summary.rate_text())
    return table


def left_table(summary: Summary):
    """The APIs most often left as written, with their outcome (the reasons are in the warning lines)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="top legacy APIs left", title_justify="left")
    table.add_column("API")
    table.add_column("uses", justify="right")
    table.add_column("outcome")
    for left in summary.top_left:
        table.add_row(Text(left.name), str(left.count), left.code)  # Text: no markup in names
    return table
