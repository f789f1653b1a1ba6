"""Unified diffs that `git apply` and `patch -p1` accept, plain or colored.

Headers are `a/<path>` and `b/<path>` with the path relative to the directory the command ran in;
git applies such paths relative to that directory (inside a repository too). Lines keep their own
newline characters (a CRLF file gives CRLF lines), and a missing final newline gets the
`\\ No newline at end of file` marker, so the patch's bytes match the file's exactly. Lines are split at "\n" only,
as git does; a lone CR stays inside its line.
"""
from __future__ import annotations

from typing import Iterator, List

from upgrade_tool.line_diff import Change, changes, split_lines

NO_NEWLINE = "\\ No newline at end of file\n"


def header(path: str) -> str:
    """The two header lines of a diff of `path`."""
    posix = path.replace("\\", "/").lstrip("/")  # an absolute path: relative to / for patch -p1
    return f"--- a/{posix}\n+++ b/{posix}\n"


def unified(old: str, new: str, path: str, context: int = 3) -> str:
    """The diff from `old` to `new` for `path` ('' when they are equal): the fewest changed lines,
    hunks as `git diff` groups them (changes up to 2 * context lines apart share a hunk)."""
    if old == new:
        return ""
    out: List[str] = [header(path)]
    a, b = split_lines(old), split_lines(new)
    for hunk in _hunks(changes(a, b), len(a), context):
        (i1, _, j1, _), (_, i2, _, j2) = hunk[0], hunk[-1]
        first_i, first_j = max(i1 - context, 0), max(j1 - context, 0)
        last_i = min(i2 + context, len(a))
        out.append(f"@@ -{_range(first_i, last_i)} +{_range(first_j, last_i - i2 + j2)} @@\n")
        at = first_i
        for c1, c2, d1, d2 in hunk:
            out.extend(_mark(" ", a[at:c1]))
            out.extend(_mark("-", a[c1:c2]))
            out.extend(_mark("+", b[d1:d2]))
            at = c2
        out.extend(_mark(" ", a[at:last_i]))
    return "".join(out)


def _hunks(regions: List[Change], length: int, context: int) -> Iterator[List[Change]]:
    """Changed regions grouped into hunks: two regions share one when their context lines would meet."""
    hunk: List[Change] = []
    for region in regions:
        if hunk and region[0] - hunk[-1][1] > 2 * context:
            yield hunk
            hunk = []
        hunk.append(region)
    if hunk:
        yield hunk


def _range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def _mark(prefix: str, lines: List[str]) -> Iterator[str]:
    for line in lines:
        if line.endswith("\n"):
            yield prefix + line
        else:
            yield prefix + line + "\n" + NO_NEWLINE


def colored(diff_text: str):
    """A rich Text of the diff: additions green, removals red, hunk headers cyan."""
    from rich.text import Text

    text = Text()
    for line in split_lines(diff_text):
        shown = line.rstrip("\r\n") + "\n"
        if line.startswith(("+++", "---")):
            text.append(shown, style="bold")
        elif line.startswith("@@"):
            text.append(shown, style="cyan")
        elif line.startswith("+"):
            text.append(shown, style="green")
        elif line.startswith("-"):
            text.append(shown, style="red")
        else:
            text.append(shown)
    return text
