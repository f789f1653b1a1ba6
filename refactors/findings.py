"""The one structured finding model behind every report (console, report.log, JSON)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Dict

# Stable codes; a report consumer may filter on them.
CONVERTED = "converted"  # a legacy API use site was rewritten
NO_EQUIVALENT = "no-equivalent"  # 2.x has no replacement; the use is left as it was
UNKNOWN_API = "unknown-api"  # a paddle.fluid name the table does not know
NEEDS_REVIEW = "needs-review"  # left as it was with a TODO: the rewrite could change the result
NEWER_PADDLE = "newer-paddle"  # converted, to a 2.x name that a Paddle newer than 2.0 introduced
API_WARNING = "api-warning"  # converted; the table warns about a difference this use may depend on
PYTHON2 = "python2-syntax"  # converted from Python 2 syntax before upgrading
SKIPPED = "skipped"  # the file was not processed (binary, symlink out of root, ...)
FAILED = "failed"  # the file could not be read, decoded, parsed or written

SEVERITIES = ("info", "warning", "error")


def newer_paddle(api: str, target: str, since: str) -> str:
    """The message of a NEWER_PADDLE finding: the rewrite runs on Paddle `since` and later only."""
    return f"{api} -> {target} needs Paddle >= {since} (not in 2.0)"


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    col: int
    code: str
    severity: str
    message: str
    fixed: bool
    api: str = ""

    def at(self, file: str) -> "Finding":
        return replace(self, file=file)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def log_line(self) -> str:
        """`file:line LEVEL message`, the report.log format."""
        return f"{self.file}:{self.line} {self.severity.upper()} {self.message}"
