"""Count the `paddle.fluid` API use sites of a corpus, resolving imports, with `ast` only.

    python -m tools.count_uses --corpus /path/to/models [--out api_mapping/usage/models-release-1.8.json]

A use site is a maximal `a.b.c` chain whose head is bound by a paddle import (`import paddle.fluid as
fluid`, `from paddle.fluid import layers`, `from paddle.fluid.layers import fc as F`, ...), counted under
its fully qualified name. Names a function binds itself (parameters, assignments) shadow imports
there, as Python does. This is a measuring tool for the table's coverage, independent of the upgrader.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set

ROOT = "paddle"


def _chain(node: ast.AST) -> Optional[List[str]]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _local_names(fn: ast.AST) -> Set[str]:
    """Names bound inside a function (not counting nested functions' own bodies)."""
    names: Set[str] = set()
    args = fn.args  # type: ignore[attr-defined]
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if a is not None:
            names.add(a.arg)
    body = fn.body if isinstance(fn.body, list) else [fn.body]  # type: ignore[attr-defined]
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return names


class _Counter(ast.NodeVisitor):
    def __init__(self, star_members) -> None:
        self.scopes: List[Dict[str, Optional[str]]] = [{}]
        self.counts: Counter = Counter()
        self.star_members = star_members

    # imports bind into the current scope; None marks a non-paddle binding
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if alias.asname:
                self.scopes[-1][alias.asname] = alias.name if root == ROOT else None
            else:
                self.scopes[-1][root] = ROOT if root == ROOT else None

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        paddle = node.level == 0 and module.split(".")[0] == ROOT
        for alias in node.names:
            if alias.name == "*":
                if paddle:
                    for member in self.star_members(module):
                        self.scopes[-1][member] = f"{module}.{member}"
                continue
            self.scopes[-1][alias.asname or alias.name] = f"{module}.{alias.name}" if paddle else None

    def _function(self, node) -> None:
        for dec in getattr(node, "decorator_list", ()):
            self.visit(dec)
        for default in (*node.args.defaults, *node.args.kw_defaults):
            if default is not None:
                self.visit(default)
        self.scopes.append({name: None for name in _local_names(node)})
        for stmt in (node.body if isinstance(node.body, list) else [node.body]):
            self.visit(stmt)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _resolve(self, name: str) -> Optional[str]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def _count(self, node: ast.AST) -> bool:
        parts = _chain(node)
        if parts is None:
            return False
        qual = self._resolve(parts[0])
        if qual is None:
            return False
        full = ".".join([qual, *parts[1:]])
        if full.startswith(ROOT + ".fluid"):
            self.counts[full] += 1
        return True

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not self._count(node):
            self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._count(node)


def count_source(source: str, star_members=lambda module: ()) -> Counter:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    counter = _Counter(star_members)
    counter.visit(tree)
    return counter.counts


def iter_python_files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield Path(dirpath) / name


def count_corpus(root: Path, star_members=lambda module: ()) -> Dict[str, object]:
    total: Counter = Counter()
    files = unparsable = 0
    for path in iter_python_files(root):
        files += 1
        try:
            total.update(count_source(path.read_bytes().decode("utf-8", "replace"), star_members))
        except SyntaxError:
            unparsable += 1  # Python 2 files; the upgrader converts them before parsing
    return {"files": files, "unparsable": unparsable, "sites": sum(total.values()),
            "names": dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.count_uses", description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--out", type=Path, help="write the counts as JSON here")
    args = parser.parse_args(argv)
    try:
        from api_mapping.signatures import load_index
        members = load_index("1.8.5").module_members
    except (ImportError, FileNotFoundError):
        members = lambda module: ()  # noqa: E731
    result = count_corpus(args.corpus, members)
    text = json.dumps(result, indent=1, sort_keys=False) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    print(f"{result['files']} files ({result['unparsable']} not Python 3), {result['sites']} use sites, "
          f"{len(result['names'])} distinct names", file=sys.stderr)
    if not args.out:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
