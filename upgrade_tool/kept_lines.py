"""Give lines the upgrade did not mean to change their original bytes back.

- Tab indentation that libcst could not read was expanded before the upgrade
  (`pipeline.expand_tab_indents`): each line the upgrade then left as it was gets its tabs back.
- A whitespace-only line that only moved to another indentation (in the body of an unwrapped `with`
  block) keeps its original whitespace: the change means nothing to Python and would only show in the
  diff. One the diff must show as new loses its whitespace, since an added line with trailing
  whitespace makes `git apply` warn. A line inside a multi-line string is left alone: there the
  whitespace is part of a value.
"""
from __future__ import annotations

import ast
import warnings
from typing import List, Optional, Set

from upgrade_tool.line_diff import changes, matched, split_lines

_BLANK = object()  # the key of every whitespace-only line


def _blank(line: str) -> bool:
    return not line.strip(" \t\f\r\n")


def restore(original: str, upgraded: str, normalised: Optional[str] = None) -> str:
    """`upgraded` with the bytes of `original` on each line it left as it was. `normalised` is
    `original` as the upgrade read it (line for line), when that was not `original` itself."""
    orig = split_lines(original)
    new = split_lines(upgraded)
    if normalised is None and not any(_blank(line) and line.strip("\r\n") for line in (*orig, *new)):
        return upgraded  # no whitespace-only line has whitespace to keep (nearly every file)
    read = split_lines(normalised) if normalised is not None else orig
    key = [_BLANK if _blank(line) else line for line in read]
    new_key = [_BLANK if _blank(line) else line for line in new]
    regions = changes(key, new_key)
    in_strings: Optional[Set[int]] = None

    def in_string(j: int) -> bool:
        nonlocal in_strings
        if in_strings is None:
            in_strings = _string_lines(upgraded)
        return j + 1 in in_strings
    for i, j in matched(regions, len(key)):
        if new[j] != orig[i] and (new[j] == read[i] or not in_string(j)):
            new[j] = orig[i]  # left as it was, or whitespace-only before and after
    for _, _, j1, j2 in regions:  # whitespace-only lines the upgrade wrote anew: no trailing whitespace
        for j in range(j1, j2):
            if _blank(new[j]) and new[j].strip("\r\n") and not in_string(j):
                new[j] = new[j][len(new[j].rstrip("\r\n")):]
    return "".join(new)


def _string_lines(text: str) -> Set[int]:
    """Line numbers (1-based) inside a string literal that spans lines; every line when the text cannot
    be read (nothing is then changed)."""
    if "\r" in text.replace("\r\n", ""):  # Python counts a lone CR as a line end, split_lines does not
        return _every_line(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _every_line(text)
    inside: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno and node.end_lineno > node.lineno:
            inside.update(range(node.lineno + 1, node.end_lineno))
    return inside


def _every_line(text: str) -> Set[int]:
    lines: List[str] = split_lines(text)
    return set(range(1, len(lines) + 1))
