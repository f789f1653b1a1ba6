"""Differential fuzzing: generated files with use sites in every syntactic position (tools/fuzz_sources.py)
upgrade with no internal error, to output that parses, that a second run leaves alone, that keeps every
comment and parameter, and the fast way gives byte for byte what the plain way gives (tools/fuzz.py).

The short profile runs here; the long one by count, also in parallel from the command line:

    PADDLE_UPGRADE_FUZZ_FILES=5000 python -m pytest tests/test_fuzz.py
    python -m tools.fuzz --files 5000 --jobs 2
"""
from __future__ import annotations

import ast
import os

import pytest

from tools import fuzz
from tools.fuzz_sources import source

FILES = int(os.environ.get("PADDLE_UPGRADE_FUZZ_FILES", "40"))
FIRST = int(os.environ.get("PADDLE_UPGRADE_FUZZ_SEED", "0"))
CHUNK = 10


@pytest.mark.parametrize("start", range(FIRST, FIRST + FILES, CHUNK), ids=lambda s: f"seeds-{s}")
def test_generated_files(start: int) -> None:
    found = fuzz.run(range(start, min(start + CHUNK, FIRST + FILES)))
    problems = [f"seed {seed}: {problem}: {detail}" for problem, cases in sorted(found.items())
                for seed, detail in cases if problem != "refused"]
    assert not problems, "\n".join(problems)


def test_the_generator_is_deterministic_and_reaches_every_position() -> None:
    assert source(7) == source(7) and source(7) != source(8)
    text = "".join(source(seed) for seed in range(200))
    for construct in ("lambda", " for i in ", "@", "*args", "**kwargs", ", /, ", "*, ", 'f"', ":=", "match ",
                      "case ", "async def", "async with", "async for", "await ", "except* ", "global ", "nonlocal ",
                      ") -> ", " if ", "[1:2]", "*rest", "  # ", ",  # ", "\n)", "x,)", "\\\n", "; ", "\t", "\r\n", '"""', "class ",
                      "飞桨", "ｆluid", "café"):
        assert construct in text, construct
    assert max(len(line) for line in text.splitlines()) > 300, "no very long line"


def test_a_comment_may_go_with_its_operand_into_a_hoisted_binding_and_nowhere_else() -> None:
    before = "y = 1\nz = add(\n    x,  # c1\n    f(3,  # c2\n      4),\n)\n"
    hoisted = "y = 1\nz_2 = f(3,  # c2\n      4)\nz = add(\n    x,  # c1\n    z_2,\n)\n"
    swapped = "y = f(3,  # c2\n      4)\nz = add(\n    x,  # c1\n    y,\n)\n"
    check = lambda after: fuzz._comment_problems(
        fuzz._comments(before), fuzz._comments(after, fuzz._hoisted_lines(ast.parse(after), fuzz._bound(ast.parse(before)))))
    assert check(hoisted) == []
    assert [problem for problem, _ in check(swapped)] == ["comment-moved"]
