"""Unified diffs that `git apply` and `patch -p1` accept, plain or colored.

Headers are `a/<path>` and `b/<path>` with the path relative to the directory the command ran in;
git applies such paths relative to that directory (inside a repository too). Lines keep their own
newline characters (a CRLF file gives CRLF lines), and a missing final newline gets the
`\\ No newline at end of file` marker, so the patch's bytes match the file's exactly. Lines are split at "\n" only,
as git does; a lone CR stays inside its line.
"""
from __future__ import annotations

import difflib
from typing import Iterator, List

NO_NEWLINE = "\\ No newline at end of file\n"


def _lines(text: str) -> List[str]:
    """Lines as git and patch see them: split after each "\n" only (a lone CR stays in its line)."""
    out = text.split("\n")
    last = out.pop()
    lines = [line + "\n" for line in out]
    if last:
        lines.append(last)
    return lines


def header(path: str) -> str:
    """The two header lines of a diff of `path`."""
    posix = path.replace("\\", "/").lstrip("/")  # an absolute path: relative to / for patch -p1
    return f"--- a/{posix}\n+++ b/{posix}\n"


def unified(old: str, new: str, path: str, context: int = 3) -> str:
    """The diff from `old` to `new` for `path` ('' when they are equal)."""
    if old == new:
        return ""
    out: List[str] = [header(path)]
    a, b = _lines(old), _lines(new)
    # difflib's "popular line" heuristic (autojunk) keeps this linear on files with many identical
    # lines (a 10 MB data literal); the diff may be a little less minimal, never wrong.
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_mark(" ", a[i1:i2]))
                continue
            if tag in ("replace", "delete"):
                out.extend(_mark("-", a[i1:i2]))
            if tag in ("replace", "insert"):
                out.extend(_mark("+", b[j1:j2]))
    return "".join(out)


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
    for line in _lines(diff_text):
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
