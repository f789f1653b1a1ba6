"""Arguments an upgrade dropped without saying so: a cheap proxy, and an upper bound.

The output is aligned with the input line by line (difflib), and each changed region is widened to
whole calls on both sides. In a region that holds a call of a paddle name in the input, if the calls
there have fewer arguments in the output and no TODO comment in the region says why, the difference
counts as dropped. Not counted: an argument whose value was `None` or the 1.8.5 default of its
parameter, and a string that became part of a new callee's name anywhere in the changed code
(`pool_type='max'` -> `max_pool2d`, a layer's `act='relu'` -> `relu(...)` in `forward`). An argument
a rewrite legitimately encodes some other way still counts.
"""
from __future__ import annotations

import ast
import difflib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from api_mapping.signatures import load_index

TODO_MARK = "TODO"


@dataclass(frozen=True)
class _CallFact:
    start: int  # 0-based first line
    end: int  # 0-based line after the last
    nargs: int
    values: Tuple[str, ...]  # source of each argument's value
    defaults: Tuple[str, ...]  # values of keywords that equal the 1.8.5 default of their parameter
    callee: str
    paddle: bool


def _normalised(source: str) -> Optional[str]:
    try:
        return ast.unparse(ast.parse(source, mode="eval"))
    except SyntaxError:
        return None


@lru_cache(maxsize=4096)
def _defaults_18(callee: str) -> Dict[str, str]:
    params = load_index("1.8.5").params(callee) or []
    found = {}
    for spec in params:
        if len(spec) == 2:
            text = _normalised(spec[1])
            if text is not None:
                found[spec[0]] = text
    return found


def _call_facts(tree: ast.Module, paddle_at: Mapping[Tuple[int, int], str]) -> List[_CallFact]:
    facts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = paddle_at.get((node.lineno, node.col_offset))
            values = tuple(ast.unparse(v) for v in (*node.args, *(k.value for k in node.keywords)))
            defaults: Tuple[str, ...] = ()
            if callee is not None:
                known = _defaults_18(callee)
                defaults = tuple(text for k in node.keywords
                                 if k.arg in known and (text := ast.unparse(k.value)) == known[k.arg])
            facts.append(_CallFact(node.lineno - 1, node.end_lineno or node.lineno, len(values), values, defaults,
                                   ast.unparse(node.func), callee is not None))
    return facts


def _cover(facts: Sequence[_CallFact], lo: int, hi: int) -> Tuple[int, int]:
    """[lo, hi) widened to whole calls that overlap it (an empty range: calls strictly around it)."""
    a, b = lo, hi
    for f in facts:
        inside = (f.start < hi and f.end > lo) if hi > lo else (f.start < lo < f.end)
        if inside:
            a, b = min(a, f.start), max(b, f.end)
    return a, b


def changed_regions(old_lines: Sequence[str], new_lines: Sequence[str], old_calls: Sequence[_CallFact],
                    new_calls: Sequence[_CallFact]) -> List[Tuple[int, int, int, int]]:
    """Aligned changed regions (old [i1, i2) <-> new [j1, j2)), each widened to hold whole calls."""
    matcher = difflib.SequenceMatcher(None, [s.strip() for s in old_lines], [s.strip() for s in new_lines],
                                      autojunk=False)
    blocks = [[i1, i2, j1, j2] for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    for _ in range(16):  # widening can reach a neighbouring region; a few rounds settle it
        widened = []
        for i1, i2, j1, j2 in blocks:
            a1, a2 = _cover(old_calls, i1, i2)
            c1, c2 = _cover(new_calls, j1, j2)
            # lines outside a changed region are equal on both sides, so widen both by the same amount
            before = min(max(i1 - a1, j1 - c1), i1, j1)
            after = min(max(a2 - i2, c2 - j2), len(old_lines) - i2, len(new_lines) - j2)
            widened.append([i1 - before, i2 + after, j1 - before, j2 + after])
        merged: List[List[int]] = []
        for block in sorted(widened):
            if merged and (block[0] < merged[-1][1] or block[2] < merged[-1][3]):
                last = merged[-1]
                merged[-1] = [min(last[0], block[0]), max(last[1], block[1]),
                              min(last[2], block[2]), max(last[3], block[3])]
            else:
                merged.append(block)
        if merged == blocks:
            break
        blocks = merged
    return [tuple(b) for b in blocks]  # type: ignore[misc]


def _folded(value: str, new_callees: str) -> bool:
    """A string argument that became part of a new callee's name (`pool_type='max'` -> `max_pool2d`)."""
    try:
        literal = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return False
    return isinstance(literal, str) and bool(literal) and literal.lower() in new_callees


def dropped_arguments(old_text: str, old_tree: ast.Module, paddle_at: Mapping[Tuple[int, int], str],
                      new_text: str, new_tree: ast.Module) -> Tuple[int, int]:
    """(arguments lost without a TODO, changed regions where a TODO comes with a loss).

    paddle_at maps the (line, col) of each input call whose callee is a paddle name to that name."""
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
    old_facts = _call_facts(old_tree, paddle_at)
    new_facts = _call_facts(new_tree, {})
    regions = changed_regions(old_lines, new_lines, old_facts, new_facts)
    # an argument may move to another changed region (a layer's `act` applied in `forward`)
    new_callees = " ".join(f.callee for j1, j2 in ((r[2], r[3]) for r in regions)
                           for f in new_facts if j1 <= f.start < j2).lower()
    dropped = explained = 0
    for i1, i2, j1, j2 in regions:
        before = [f for f in old_facts if i1 <= f.start < i2]
        if not any(f.paddle for f in before):
            continue
        after = [f for f in new_facts if j1 <= f.start < j2]
        shrink = sum(f.nargs for f in before) - sum(f.nargs for f in after)
        if shrink <= 0:
            continue
        if any(TODO_MARK in line for line in new_lines[j1:j2]):
            explained += 1
            continue
        vanished = Counter(v for f in before for v in f.values) - Counter(v for f in after for v in f.values)
        at_default = Counter(v for f in before for v in f.defaults)
        excused = sum(n if value == "None" or _folded(value, new_callees) else min(n, at_default[value])
                      for value, n in vanished.items())
        dropped += max(0, shrink - excused)
    return dropped, explained
