"""Upgrade one piece of Python source text: parse checks, the Python 2 pre-pass, the refactors,
and a final check that the result still parses.

Everything here works on text and never touches the file system, so a worker process can run it
and the property tests can call it directly.
"""
from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import refactors
from refactors import findings as F, python2
from refactors.findings import Finding
from upgrade_tool import kept_lines

INDENTATION = "indentation"  # finding code: tab indentation was expanded on the lines we changed

# A file that never mentions paddle cannot import it, so the refactors cannot change it.
PADDLE_MARK = "paddle"


class FileFailure(Exception):
    """The text cannot be upgraded; the message is one line naming the reason."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class SiteInfo:
    """A legacy API use site, reduced to what reports need (picklable, no libcst nodes)."""

    line: int
    col: int
    name: str  # the table's main name, or the qualified name when the table does not know it
    converted: bool
    code: str  # the finding code (converted, no-equivalent, unknown-api, needs-review, ...)
    reason: str  # the finding's message
    refactors: Tuple[str, ...]  # the pipeline steps that act on this site
    source: str  # the source line, stripped
    cell: Optional[int] = None  # notebooks: the 1-based cell number `line` counts in


@dataclass
class TextOutcome:
    text: str  # the upgraded text; the input itself when nothing changed
    findings: List[Finding] = field(default_factory=list)  # `file` left empty: the caller knows it
    sites: List[SiteInfo] = field(default_factory=list)
    python2_fixers: Optional[Tuple[str, ...]] = None  # set when the Python 2 pre-pass was needed
    fast_failure: str = ""  # the fast way failed and the plain way upgraded the text: its traceback
    reads: Dict[str, str] = field(default_factory=dict)  # other modules of the tree consulted -> SHA-256
    # (and tree_index.TREE where the tree was consulted at all)


def syntax_error(text: str) -> Optional[SyntaxError]:
    """CPython's own verdict on the text; None when it parses."""
    return parse(text)[1]


def parse(text: str) -> Tuple[Optional[ast.Module], Optional[SyntaxError]]:
    """CPython's parse of the text, or its syntax error.

    This runs before libcst on purpose: libcst's native parser can crash the process (stack
    overflow) on pathological nesting that CPython rejects cleanly. The tree's line numbers then
    spare parsing and generating the parts the upgrade does not touch (refactors.fast).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences etc. are not our business
            return ast.parse(text), None
    except SyntaxError as exc:
        return None, exc
    except (RecursionError, MemoryError):
        raise FileFailure("too deeply nested to parse safely") from None
    except ValueError as exc:  # e.g. NUL bytes, already refused by source_io
        raise FileFailure(str(exc)) from None


def _describe(exc: SyntaxError) -> str:
    where = f"line {exc.lineno}" if exc.lineno else "unknown line"
    return f"syntax error at {where}: {exc.msg}"


def split_tail(text: str) -> Tuple[str, str]:
    """(code, trailing whitespace-only lines): libcst drops some of the latter, so they are set
    aside and put back unchanged. The split is after the newline of the last non-blank line."""
    lines = text.splitlines(keepends=True)
    cut = len(lines)
    while cut and not lines[cut - 1].strip(" \t\f\r\n"):
        cut -= 1
    if cut == len(lines) or (cut and not lines[cut - 1].endswith(("\n", "\r"))):
        return text, ""
    head = "".join(lines[:cut])
    return head, text[len(head):]


def _leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def expand_tab_indents(text: str) -> Tuple[str, int]:
    """Indentation with tabs expanded to 8 columns (CPython's reading of it), and the first line
    that had a tab in its indentation (0 if none). libcst rejects some tab/space mixes CPython takes."""
    lines = text.splitlines(keepends=True)
    first = 0
    out = []
    for number, line in enumerate(lines, 1):
        ws = _leading_ws(line)
        if "\t" in ws:
            first = first or number
            line = ws.expandtabs(8) + line[len(ws):]
        out.append(line)
    return "".join(out), first


def handling_refactors(site, enabled: Sequence[str]) -> Tuple[str, ...]:
    """The pipeline steps that act on a site, in pipeline order (for --print-match)."""
    entry = site.entry
    steps = ["refactor_import"]
    if entry is not None:
        written = site.qualname[: len(site.qualname) - len(site.suffix)] if site.suffix else site.qualname
        if written != entry.name:
            steps.append("norm_api_alias")
        if entry.args_list:
            steps.append("args_to_kwargs")
        if entry.args_change or entry.transformer:
            steps.append("refactor_kwargs")
        if entry.update_to or entry.no_equivalent:
            steps.append("api_rename")
        if entry.with_guard:
            steps.append("refactor_with")
    return tuple(s for s in steps if s in enabled)


def _site_info(site, lines: List[str], enabled: Sequence[str]) -> SiteInfo:
    finding = site.finding
    source = lines[site.line - 1].strip() if 0 < site.line <= len(lines) else ""
    return SiteInfo(
        line=site.line, col=site.col, name=site.name, converted=bool(site.converted),
        code=finding.code if finding is not None else (F.CONVERTED if site.converted else F.NEEDS_REVIEW),
        reason=finding.message if finding is not None else "",
        refactors=handling_refactors(site, enabled), source=source)


def upgrade_text(text: str, names: Optional[Sequence[str]] = None, shim: bool = True,
                 way: Optional[str] = None, origin: Optional[str] = None) -> TextOutcome:
    """Upgrade Python source text. Raises FileFailure when it cannot be parsed or upgraded safely.
    `shim`: the legacy uses the upgrade leaves run through runtime_shim (see refactors.upgrade_code).

    Text that never mentions paddle cannot import it: it is returned as it is, without being parsed
    (a third of a typical repository, Python 2 leftovers and broken scripts included). `way`: as
    `refactors.upgrade_code` takes it (the tests compare the ways; the default is the one to use).
    `origin`: the file's path, where the modules beside it tell what the classes it imports are.
    """
    if PADDLE_MARK not in text:
        return TextOutcome(text)
    tree, error = parse(text)
    work = text
    fixers: Optional[Tuple[str, ...]] = None
    if error is not None:
        try:
            converted = python2.convert(text)
        except python2.NotPython2 as not2:
            if not2.line > (error.lineno or 0):  # Python 2 up to a later line: that is the real error
                line = min(not2.line, len(text.splitlines()) or 1)  # an unclosed bracket ends after the file
                raise FileFailure(f"syntax error at line {line} (read as Python 2, which the file uses "
                                  f"from line {error.lineno})", line) from None
            raise FileFailure(_describe(error), error.lineno or 1) from None
        if not converted.fixers or syntax_error(converted.text) is not None:
            raise FileFailure(_describe(error), error.lineno or 1)
        work, fixers = converted.text, converted.fixers
        tree = None  # of the original text, whose lines the converted one no longer has

    body, tail = split_tail(work)
    original_body = body
    try:
        result = _upgrade_body(body, names, tree, shim, way, origin)
        tab_line = 0
    except _LibcstMismatch:
        body, tab_line = expand_tab_indents(body)
        if not tab_line:
            raise
        try:
            result = _upgrade_body(body, names, None, shim, way, origin)
        except _LibcstMismatch:
            raise FileFailure(f"libcst cannot parse this file's indentation (tabs mixed with spaces from "
                              f"line {tab_line})", tab_line) from None

    enabled = tuple(names) if names else refactors.NAMES
    new_body = original_body if result.unchanged else kept_lines.restore(original_body, result.code,
                                                                        body if tab_line else None)
    new = new_body + tail
    lines = work.splitlines()
    outcome = TextOutcome(text, list(result.findings), [_site_info(s, lines, enabled) for s in result.sites],
                          fast_failure=result.fast_failure, reads=result.reads)
    if new == work:  # nothing upgraded: keep the original, even if the 2to3 pre-pass changed it
        if fixers is not None:
            outcome.python2_fixers = fixers
            outcome.findings.insert(0, _python2_finding(error, fixers, changed=False))
        return outcome
    late_error = syntax_error(new)
    if late_error is not None:
        raise FileFailure(f"the upgrade produced code that does not parse ({_describe(late_error)}); "
                          "left untouched, please report this", late_error.lineno or 1)
    outcome.text = new
    if tab_line:
        outcome.findings.insert(0, Finding("", tab_line, 1, INDENTATION, "info",
                                           "indentation mixing tabs and spaces: changed lines use spaces "
                                           "(tabs expanded to 8 columns, as Python reads them)", True))
    if fixers is not None:
        outcome.python2_fixers = fixers
        outcome.findings.insert(0, _python2_finding(error, fixers, changed=True))
    return outcome


class _LibcstMismatch(FileFailure):
    """libcst cannot parse the text, or cannot give it back byte for byte (e.g. some tab/space mixes)."""


def _upgrade_body(text: str, names: Optional[Sequence[str]], tree: Optional[ast.Module],
                  shim: bool, way: Optional[str], origin: Optional[str] = None) -> "refactors.Result":
    """Upgrade the text: the fast way, and on any exception there the plain way (refactors.fast).
    Parse, upgrade and code generation are inside this one boundary."""
    import libcst as cst  # here, not at the top: the CLI's main process never parses (see refactors/__init__)
    from refactors.engine import InternalError

    try:
        result = refactors.upgrade_code(text, names or None, shim, tree, way, origin)
    except cst.ParserSyntaxError as exc:
        raise _LibcstMismatch(f"libcst cannot parse line {exc.raw_line}: {exc.message}", exc.raw_line) from None
    except (RecursionError, MemoryError):
        raise FileFailure("too deeply nested to upgrade safely") from None
    except InternalError as exc:  # a refactor bug must cost one file, never the run
        cause = exc.__cause__
        raise FileFailure(f"internal error in the refactors at line {exc.line}: {type(cause).__name__}: {cause}",
                          exc.line) from cause
    except Exception as exc:
        raise FileFailure(f"internal error in the refactors: {type(exc).__name__}: {exc}") from exc
    # Never write what libcst could not reproduce byte for byte (checked on the code the engine
    # generated to locate use sites); a module returned untouched is not written at all.
    if result.reproduces is False:
        raise _LibcstMismatch("libcst cannot reproduce this file byte for byte; left untouched")
    return result


def _python2_finding(error: Optional[SyntaxError], fixers: Tuple[str, ...], changed: bool) -> Finding:
    line = (error.lineno or 1) if error is not None else 1
    what = ", ".join(fixers)
    if changed:
        message = f"Python 2 syntax converted with fissix's 2to3 fixers ({what}) before upgrading"
    else:
        message = f"Python 2 syntax ({what}) parsed with fissix's 2to3 fixers; nothing to upgrade, left unchanged"
    return Finding("", line, 1, F.PYTHON2, "info", message, changed)
