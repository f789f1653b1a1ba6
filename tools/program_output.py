"""How a runnable fixture program's output reads: lines `key: v1 v2 ...` (at least one value), other lines ignored."""
from __future__ import annotations

import re
from typing import Dict, List

_LINE = re.compile(r"^([A-Za-z_][\w.]*): ?(.*)$")


def parse_output(text: str) -> Dict[str, List[float]]:
    """The `key: v1 v2 ...` lines of a program's output (other lines, e.g. Paddle's logs, are ignored)."""
    values: Dict[str, List[float]] = {}
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match is None:
            continue
        try:
            numbers = [float(v) for v in match.group(2).split()]
        except ValueError:
            continue
        if not numbers:  # a heading such as paddle.profiler's "Note:", not a result
            continue
        if match.group(1) in values:
            raise ValueError(f"key {match.group(1)!r} printed twice")
        values[match.group(1)] = numbers
    return values
