"""Differential fuzzing of the upgrader on generated files (tools/fuzz_sources.py).

    python -m tools.fuzz --files 5000 [--seed 0] [--jobs 2] [--save DIR]

Each generated file is upgraded as the command would (`pipeline.upgrade_text`), and checked:

- no internal error, and no output that does not parse (the pipeline refuses to write one);
- the fast way equals the plain way (refactors.fast): text, findings and sites, byte for byte (and
  so it never needs the plain way as a fallback);
- a second run changes nothing;
- every comment of the input is still there, and those that end a line keep their order (one in a part
  the upgrade rewrote away stands on its own line above the statement: refactors.kept_comments; one
  inside an operand bound to a fresh name goes with it above its statement);
- every function keeps its parameters (names and kinds), and no name an import bound is left used
  but no longer bound.

Prints the count of files per problem and the first seeds of each; with --save, writes each failing
input to DIR/<problem>/<seed>.py. tests/test_fuzz.py runs a short profile of the same checks.
"""
from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import AbstractSet, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from refactors.cpython import written_by_upgrade
from tools.fuzz_sources import source
from upgrade_tool import pipeline, source_io

# Problems a generated file can show (a refused input is the generator's or libcst's business, counted apart).
PROBLEMS = ("internal-error", "output-does-not-parse", "fast-differs-from-plain", "not-idempotent", "comment-lost", "comment-moved", "parameters-changed", "import-gone-but-used", "refused")


def _outcome(text: str, way: Optional[str]):
    try:
        done = pipeline.upgrade_text(text, way=way)
    except pipeline.FileFailure as exc:
        return str(exc)
    return done.text, [asdict(f) for f in done.findings], [asdict(s) for s in done.sites]


def _comments(text: str, free_lines: AbstractSet[int] = frozenset()) -> List[Tuple[str, bool]]:
    """Each comment, and whether it is free of the order: on a line of its own, or on one of `free_lines`."""
    try:
        return [(t.string, not t.line[:t.start[1]].strip() or t.start[0] in free_lines)
                for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return []


def _comment_problems(before: Sequence[Tuple[str, bool]], after: Sequence[Tuple[str, bool]]) -> List[Tuple[str, str]]:
    """A comment of the input missing from the output (a TODO may be appended to it), or out of order.
    A comment may have moved to a line of its own above its statement (refactors.kept_comments: what
    it followed was rewritten away), or with its code into a binding hoisted above the statement: those are
    not held to the order."""
    def found(comment: str) -> List[int]:
        return [i for i, (text, _) in enumerate(after) if text == comment or text.startswith(comment + "  # TODO")]
    lost = [text for text, _ in before if not found(text)]
    if lost:
        return [("comment-lost", f"lost: {lost[0]!r}")]
    lifted = {text for text, _ in before if all(after[i][1] for i in found(text))}
    at = 0
    for text, _ in before:
        if text in lifted:
            continue
        while at < len(after) and at not in found(text):
            at += 1
        if at == len(after):
            return [("comment-moved", f"out of order: {text!r}")]
        at += 1
    return []


def _signatures(tree: ast.AST) -> List[Tuple]:
    """Every function's and lambda's parameters (a rewrite may move a lambda, never change one), but those
    of a definition the upgrade writes into the module (refactors.cpython.written_by_upgrade)."""
    out = []
    written = {id(n) for d in ast.walk(tree) if written_by_upgrade(d) for n in ast.walk(d)}
    for node in ast.walk(tree):
        if id(node) in written:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            out.append((type(node).__name__, tuple(p.arg for p in a.posonlyargs), tuple(p.arg for p in a.args),
                        a.vararg.arg if a.vararg else None, tuple(p.arg for p in a.kwonlyargs),
                        a.kwarg.arg if a.kwarg else None))
    return out


def _import_names(tree: ast.AST) -> set:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name.split(".")[0]) for a in node.names)
    return names


def _bound(tree: ast.AST) -> set:
    names = set(_import_names(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _hoisted_lines(tree: ast.AST, bound_before: AbstractSet[str]) -> Set[int]:
    """The lines of the statements that bind a name the input never bound: an operand bound to a fresh
    name ahead of its statement (refactors/transformers/bind.py) carries its comments with it."""
    lines: Set[int] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id not in bound_before):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def check(text: str) -> List[Tuple[str, str]]:
    """The problems of upgrading `text` (a file's text as the runner reads it): (problem, detail).
    The command runs the fast way, and the plain way only when the fast way fails: so the plain way
    decides whether the file fails, and the fast way must give exactly what it gives."""
    try:
        before = ast.parse(text)
    except SyntaxError as exc:
        return [("refused", f"the generated input does not parse: {exc}")]
    plain, fast = _outcome(text, "plain"), _outcome(text, "fast")
    problems: List[Tuple[str, str]] = []
    if fast != plain:
        problems.append(("fast-differs-from-plain", _difference(fast, plain)))
    if isinstance(plain, str):
        if "internal error" in plain:
            return problems + [("internal-error", plain)]
        if "does not parse" in plain:
            return problems + [("output-does-not-parse", plain)]
        return problems + [("refused", plain)]
    out = plain[0]
    again = _outcome(out, None)
    if isinstance(again, str) or again[0] != out:
        problems.append(("not-idempotent", again if isinstance(again, str) else "a second run changed the text"))
    after = ast.parse(out)
    problems += _comment_problems(_comments(text), _comments(out, _hoisted_lines(after, _bound(before))))
    if Counter(_signatures(before)) != Counter(_signatures(after)):
        problems.append(("parameters-changed", "a function's parameters differ"))
    used = {n.id for n in ast.walk(after) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    gone = sorted((_import_names(before) & used) - _bound(after))
    if gone:
        problems.append(("import-gone-but-used", f"no longer bound: {', '.join(gone)}"))
    return problems


def _difference(fast, plain) -> str:
    if isinstance(fast, str) or isinstance(plain, str):
        return f"fast: {fast if isinstance(fast, str) else 'ok'}; plain: {plain if isinstance(plain, str) else 'ok'}"
    parts = [name for name, a, b in zip(("text", "findings", "sites"), fast, plain) if a != b]
    return "differ in " + ", ".join(parts)


def runner_text(seed: int) -> str:
    """The generated file for `seed`, as the runner hands it to the pipeline (bytes decoded)."""
    return source_io.to_parser_text(source_io.decode(source(seed).encode("utf-8")))


def check_seed(seed: int) -> Tuple[int, List[Tuple[str, str]]]:
    return seed, check(runner_text(seed))


def run(seeds: Iterable[int], jobs: int = 1) -> Dict[str, List[Tuple[int, str]]]:
    """problem -> [(seed, detail)] over the seeds."""
    found: Dict[str, List[Tuple[int, str]]] = {}
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(check_seed, seeds, chunksize=20))
    else:
        results = [check_seed(seed) for seed in seeds]
    for seed, problems in results:
        for problem, detail in problems:
            found.setdefault(problem, []).append((seed, detail))
    return found


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="the first seed; files use seed, seed+1, ...")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--save", type=Path, help="write each failing input to DIR/<problem>/<seed>.py")
    args = parser.parse_args(argv)
    found = run(range(args.seed, args.seed + args.files), args.jobs)
    print(f"{args.files} generated files (seeds {args.seed}-{args.seed + args.files - 1}), "
          f"Python {sys.version.split()[0]}")
    counts = Counter({problem: len({seed for seed, _ in found.get(problem, [])}) for problem in PROBLEMS})
    for problem in PROBLEMS:
        cases = found.get(problem, [])
        print(f"  {problem:26} {counts[problem]:6}" + (f"   e.g. seed {cases[0][0]}: {cases[0][1][:150]}" if cases else ""))
        if args.save:
            for seed, _ in cases:
                (args.save / problem).mkdir(parents=True, exist_ok=True)
                (args.save / problem / f"{seed}.py").write_bytes(source(seed).encode("utf-8"))
    return 1 if any(counts[p] for p in PROBLEMS if p != "refused") else 0


if __name__ == "__main__":
    sys.exit(main())
