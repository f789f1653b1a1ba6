"""Python 2 syntax pre-pass: fissix's 2to3 fixers, only for syntax Python 3 cannot parse.

Used only when a file does not parse as Python 3 (the file upgraded, and the modules of its tree that
`refactors.lod_inputs` reads as their upgrade will read). The fixers here change syntax, never meaning
that Python 3 code could have (`print x` -> `print(x)`, `except E, e` -> `except E as e`, backticks,
`<>`, `0777`/`10L`, `raise E, v`, `exec code`, tuple parameters, `[x for x in 1, 2]`). Library-level
fixers (dict.iteritems, unicode, ...) are deliberately left out: they are not needed to parse the
file and would change code the user did not ask us to touch.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Tuple

SYNTAX_FIXERS: Tuple[str, ...] = (
    "print", "except", "repr", "ne", "numliterals", "raise", "exec", "tuple_params", "paren",
)

# fissix logs each fixer's doings at INFO/WARNING on the root of its own logger tree.
logging.getLogger("RefactoringTool").setLevel(logging.CRITICAL)


class NotPython2(Exception):
    """The text does not parse as Python 2 either; `line` is where that parse stopped (0 if unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


def _error_line(exc: Exception) -> int:
    context = getattr(exc, "context", None)  # fissix ParseError: (prefix, (line, column))
    if context and len(context) == 2 and isinstance(context[1], tuple):
        return int(context[1][0])
    if len(exc.args) == 2 and isinstance(exc.args[1], tuple):  # TokenError: (message, (line, column))
        return int(exc.args[1][0])
    return int(getattr(exc, "lineno", 0) or 0)


@dataclass(frozen=True)
class Converted:
    text: str
    fixers: Tuple[str, ...]  # the fixers that changed something, in SYNTAX_FIXERS order


@lru_cache(maxsize=None)
def _tool(fixer: str):
    from fissix.refactor import RefactoringTool

    # `print` runs first; once it has run, no print statement is left, and `print(x, file=f)` only
    # parses with the grammar in which print is a function.
    return RefactoringTool([f"fissix.fixes.fix_{fixer}"], options={"print_function": fixer != "print"})


def convert(text: str) -> Converted:
    """Apply the syntax fixers one after another, recording which of them changed something.

    Running them one by one (instead of in one tool) costs a few parses, but this path only runs
    for the rare Python 2 file, and the report can then name exactly what was converted.
    """
    from fissix.pgen2.parse import ParseError
    from fissix.pgen2.tokenize import TokenError

    # lib2to3's driver wants a final newline; add one and take it away afterwards.
    added = not text.endswith(("\n", "\r"))
    current = text + "\n" if added else text
    used = []
    for fixer in SYNTAX_FIXERS:
        try:
            tree = _tool(fixer).refactor_string(current, "<python2>")
        except (ParseError, TokenError, IndentationError, SyntaxError) as exc:
            raise NotPython2(str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                             _error_line(exc)) from None
        except RecursionError:
            raise NotPython2("too deeply nested") from None
        except Exception as exc:  # lib2to3's parser has its own failure modes (KeyError on odd tokens)
            raise NotPython2(f"{type(exc).__name__}: {exc}") from None
        new = str(tree)
        if new != current:
            used.append(fixer)
            current = new
    if added and current.endswith("\n"):
        current = current[:-1]
    return Converted(current, tuple(used))
