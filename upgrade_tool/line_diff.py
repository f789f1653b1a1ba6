"""Which lines of two texts differ, with as few changed lines as possible, placed as `git diff` places them.

1. Lines common to both ends are set aside, and so are lines that occur in only one of the two
   sequences: they can never be matched, so leaving them out of the search changes no minimal answer
   and, in an upgrade's diff (most changed lines are new text), leaves little to search.
2. What remains is diffed with Myers' O(ND) greedy algorithm (E. Myers, "An O(ND) Difference
   Algorithm and Its Variations", 1986), which finds a shortest edit script.
3. A run of changed lines that could as well sit a few lines higher or lower (an inserted block
   between two blank lines) is slid to where git shows it: next to a change on the other side when
   it can be, else as low as it goes.

A search longer than `MAX_EDITS` (two unrelated files of thousands of lines) falls back to difflib,
whose answer is correct but not always minimal.
"""
from __future__ import annotations

import difflib
from typing import Dict, Hashable, Iterator, List, Sequence, Tuple

MAX_EDITS = 1000

# (i1, i2, j1, j2): a[i1:i2] is replaced by b[j1:j2] (one side may be empty); in order, never adjacent.
Change = Tuple[int, int, int, int]


def split_lines(text: str) -> List[str]:
    """Lines as git and patch see them: split after each "\n" only (a lone CR stays in its line)."""
    out = text.split("\n")
    last = out.pop()
    lines = [line + "\n" for line in out]
    if last:
        lines.append(last)
    return lines


def matched(regions: List[Change], n: int) -> Iterator[Tuple[int, int]]:
    """The (i, j) pairs of lines that the changed `regions` of `a` -> `b` leave as they were; n = len(a)."""
    i = j = 0
    for i1, i2, _, j2 in regions:
        while i < i1:
            yield i, j
            i, j = i + 1, j + 1
        i, j = i2, j2
    while i < n:
        yield i, j
        i, j = i + 1, j + 1


def changes(a: Sequence[Hashable], b: Sequence[Hashable]) -> List[Change]:
    """The changed regions of `a` -> `b`, minimal in the number of changed lines."""
    a_changed, b_changed = _changed_lines(a, b)
    _slide(a, a_changed, b_changed)
    _slide(b, b_changed, a_changed)
    return _regions(a_changed, b_changed)


def _changed_lines(a: Sequence[Hashable], b: Sequence[Hashable]) -> Tuple[List[bool], List[bool]]:
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    a_changed, b_changed = [False] * n, [False] * m
    ids: Dict[Hashable, int] = {}
    a_ids = [ids.setdefault(line, len(ids)) for line in a[head:n - tail]]
    in_a = set(a_ids)
    b_ids = [ids.setdefault(line, len(ids)) for line in b[head:m - tail]]
    in_b = set(b_ids)
    # Only lines found on both sides can match: search those, remember where they were.
    a_keep = [i for i, x in enumerate(a_ids, head) if x in in_b]
    b_keep = [j for j, x in enumerate(b_ids, head) if x in in_a]
    for i in range(head, n - tail):
        a_changed[i] = True
    for j in range(head, m - tail):
        b_changed[j] = True
    matches = _myers([ids[a[i]] for i in a_keep], [ids[b[j]] for j in b_keep])
    if matches is None:
        matcher = difflib.SequenceMatcher(None, a[head:n - tail], b[head:m - tail])
        matches = [(head + blk.a + k, head + blk.b + k) for blk in matcher.get_matching_blocks()
                   for k in range(blk.size)]
    else:
        matches = [(a_keep[x], b_keep[y]) for x, y in matches]
    for i, j in matches:
        a_changed[i] = b_changed[j] = False
    return a_changed, b_changed


def _myers(a: List[int], b: List[int]):
    """The matched index pairs of a shortest edit script from `a` to `b`, or None beyond MAX_EDITS."""
    n, m = len(a), len(b)
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    trace: List[List[int]] = []
    for d in range(min(n + m, MAX_EDITS) + 1):
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]  # down: an insertion
            else:
                x = v[offset + k - 1] + 1  # right: a deletion
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[offset + k] = x
            if x >= n and y >= m:
                trace.append(v[offset - d:offset + d + 1])
                return _backtrack(trace, n, m)
        trace.append(v[offset - d:offset + d + 1])
    return None


def _backtrack(trace: List[List[int]], n: int, m: int) -> List[Tuple[int, int]]:
    """Walk the recorded frontiers back from the end, collecting the diagonal (matching) moves."""
    matches: List[Tuple[int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        before = trace[d - 1]  # the frontier after d - 1 edits, for k in -(d-1)..d-1

        def reach(k: int) -> int:
            return before[k + d - 1]
        k = x - y
        if k == -d or (k != d and reach(k - 1) < reach(k + 1)):
            prev_k = k + 1
            start_x = reach(prev_k)
            start_y = start_x - prev_k + 1  # then one step down
            start_x_after = start_x
        else:
            prev_k = k - 1
            start_x = reach(prev_k)
            start_x_after = start_x + 1
            start_y = start_x_after - k
        while x > start_x_after and y > start_y:
            x -= 1
            y -= 1
            matches.append((x, y))
        x, y = start_x, start_x - prev_k
    while x > 0 and y > 0:  # the snake of d = 0
        x -= 1
        y -= 1
        matches.append((x, y))
    matches.reverse()
    return matches


def _slide(lines: Sequence[Hashable], changed: List[bool], other: List[bool]) -> None:
    """Move each run of changed lines of `lines` to where git shows it, without changing what it means:
    a run can move down one line when the line after it equals its first line (and up likewise).
    Runs that meet merge. The run ends next to a change of the other side when it can, else lowest."""
    n = len(lines)
    kept_other = [j for j, c in enumerate(other) if not c]  # the other side's unchanged lines, in order

    def other_run_here(unchanged_before: int) -> bool:
        """Whether the other side has changed lines at the place `unchanged_before` unchanged lines in."""
        at = kept_other[unchanged_before - 1] + 1 if unchanged_before else 0
        return at < len(other) and other[at]

    start = unchanged = 0
    while start < n:
        if not changed[start]:
            unchanged += 1
            start += 1
            continue
        end = start
        while end < n and changed[end]:
            end += 1
        while True:
            size = end - start
            while start > 0 and lines[start - 1] == lines[end - 1]:  # up
                changed[start - 1], changed[end - 1] = True, False
                start, end, unchanged = start - 1, end - 1, unchanged - 1
                while start > 0 and changed[start - 1]:
                    start -= 1
            matching_end = end if other_run_here(unchanged) else -1
            while end < n and lines[start] == lines[end]:  # down
                changed[start], changed[end] = False, True
                start, end, unchanged = start + 1, end + 1, unchanged + 1
                while end < n and changed[end]:
                    end += 1
                if other_run_here(unchanged):
                    matching_end = end
            if end - start == size:
                break
        while matching_end != -1 and end > matching_end:  # back up, next to the other side's change
            changed[start - 1], changed[end - 1] = True, False
            start, end, unchanged = start - 1, end - 1, unchanged - 1
        start = end


def _regions(a_changed: List[bool], b_changed: List[bool]) -> List[Change]:
    out: List[Change] = []
    i = j = 0
    n, m = len(a_changed), len(b_changed)
    while i < n or j < m:
        if (i < n and a_changed[i]) or (j < m and b_changed[j]):
            i1, j1 = i, j
            while i < n and a_changed[i]:
                i += 1
            while j < m and b_changed[j]:
                j += 1
            out.append((i1, i, j1, j))
        else:
            i += 1
            j += 1
    return out
