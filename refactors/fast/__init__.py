"""The machinery that runs the steps over one file, in two interchangeable ways: plain and fast.

The steps (`refactors.engine` and the modules it runs) parse, read, rewrite and generate a libcst
tree through a `Plain` or a `Fast` object and never ask which one it is:

| operation | `Plain`: the specification | `Fast`: an optimization of it |
| --- | --- | --- |
| parse | `libcst.parse_module(text)` | the parts that cannot concern the upgrade left out (`partial_parse`) |
| positions, round trip | `MetadataWrapper` + `PositionProvider`; `module.code == text` | only the statements that hold use sites generated, the others cut from the text (`positions`) |
| rewrite | `node.visit(transformer)` | only the paths to the nodes the transformer changes entered (`hot_paths`) |
| code | `module.code` | the recorded text of untouched statements copied (`codegen`) |
| reading beyond a use site | everything is there | a part left unparsed that is needed raises `WholeModuleNeeded`: the text is parsed whole |

`upgrade` runs a file the fast way and, on any exception there, again the plain way: an optimization
never costs a file. tests/test_fuzz.py holds the two equal (text, findings, positions) on generated
files; the tests of each fast module prove what it assumes about libcst for every node class.
"""
from __future__ import annotations

import ast
import re
import traceback
import unicodedata
from dataclasses import dataclass
from typing import Callable, Collection, Dict, List, Optional, Sequence, Tuple, TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from refactors.fast import codegen, hot_paths, partial_parse, positions
from refactors.fast.partial_parse import Keep

__all__ = ["Fast", "Keep", "Layout", "Plain", "WholeModuleNeeded", "fast_way", "upgrade"]

Lines = Tuple[int, int]  # first and last line of the source a stub stands for


class WholeModuleNeeded(Exception):
    """The upgrade needs a part of the module that was left unparsed: parse the whole text."""


@dataclass
class Layout:
    positions: Dict[int, Tuple[int, int]]  # id(node) -> (line, column), both 1-based
    reproduces: bool  # libcst gives the text back byte for byte


class Plain:
    """libcst's own way: nothing cut, stubbed or copied."""

    name = "plain"
    partial = False
    tree: Optional[ast.Module] = None  # CPython's parse of the source, when at hand

    def __init__(self, source: str) -> None:
        self.source = source

    def parse(self) -> cst.Module:
        return cst.parse_module(self.source)

    def stub_lines(self, stmt: cst.SimpleStatementLine) -> Optional[Lines]:
        """The source lines a statement stands for when it is a stub (never, here)."""
        return None

    def layout(self, module: cst.Module, nodes: Sequence[cst.CSTNode], hot: Collection[int]) -> Layout:
        """Where `nodes` start (after any parentheses), and whether `module.code` is the source."""
        ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        found = {id(n): (ranges[n].start.line, ranges[n].start.column + 1) for n in nodes}
        return Layout(found, module.code == self.source)

    def rewrite(self, node: cst.CSTNode, transformer: cst.CSTTransformer, hot: Optional[Collection[int]] = None,
                where: Optional[Callable[[cst.CSTNode], bool]] = None, through: Optional[Tuple[type, ...]] = None):
        """`node.visit(transformer)`. A fast way enters only the `hot` nodes, or the paths to the nodes
        for which `where` holds (looking only into children of the `through` types)."""
        return node.visit(transformer)

    def code(self, module: cst.Module) -> str:
        return module.code

    def code_for(self, module: cst.Module, node: cst.CSTNode) -> str:
        return module.code_for_node(node)

    def provide(self, node: cst.CSTNode, into_definitions: bool, words: Sequence[str] = ()) -> None:
        """For a reader of all of `node` (without `into_definitions`: of its own scope's statements), or
        with `words` of the parts that say one of them."""

    def provide_binding(self, stubs: Sequence[Lines], name: str) -> None:
        """For a reader of the bindings of `name` in a scope whose `stubs` were left unparsed."""


class Fast(Plain):
    """The same result as `Plain`, faster. `tree` is CPython's parse of the source (None: not at hand);
    with `partial`, the parts of the source that `keep` does not need are left unparsed."""

    name = "fast"

    def __init__(self, source: str, tree: Optional[ast.Module], keep: Keep, partial: bool = True) -> None:
        super().__init__(source)
        self.tree = tree
        self.parsed = partial_parse.stub_cold_parts(source, tree, keep) if partial and tree is not None else None
        self.partial = self.parsed is not None
        self.recorded: Dict[int, codegen.Recorded] = {}
        self._offsets: List[int] = []  # where each line of the source starts (read for stubs only)

    def parse(self) -> cst.Module:
        return cst.parse_module(self.parsed if self.parsed is not None else self.source)

    def stub_lines(self, stmt: cst.SimpleStatementLine) -> Optional[Lines]:
        return partial_parse.stub_lines(stmt) if self.partial else None

    def layout(self, module: cst.Module, nodes: Sequence[cst.CSTNode], hot: Collection[int]) -> Layout:
        found = positions.layout(module, nodes, hot, self.source, self.tree)
        self.recorded = found.recorded
        return Layout(found.positions, found.reproduces)

    def rewrite(self, node, transformer, hot=None, where=None, through=None):
        if hot is None:
            hot = hot_paths.paths_to(node, where or (lambda n: True), through)
        return hot_paths.rebuild(node, transformer, hot)

    def code(self, module: cst.Module) -> str:
        return self._whole(codegen.code(module, self.recorded))

    def code_for(self, module: cst.Module, node: cst.CSTNode) -> str:
        return self._whole(module.code_for_node(node))

    def _whole(self, text: str) -> str:
        if self.partial and partial_parse.MARKER in text:
            raise WholeModuleNeeded("the code of a part left unparsed")
        return text

    def provide(self, node: cst.CSTNode, into_definitions: bool, words: Sequence[str] = ()) -> None:
        if self.partial:
            self._needed(list(partial_parse.stubs_in(node, into_definitions)), words)

    def provide_binding(self, stubs: Sequence[Lines], name: str) -> None:
        if self.partial:
            self._needed(stubs, (name,))

    def _needed(self, stubs: Sequence[Lines], words: Sequence[str]) -> None:
        """Raise WholeModuleNeeded when one of the stubs stands for text that says one of the words
        (as a name, as Python reads names), or for any text without words."""
        pattern = re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(map(re.escape, words))) if words else None
        for first, last in stubs:
            text = self._lines(first, last)
            if pattern is not None and not text.isascii():
                text = unicodedata.normalize("NFKC", text)
            if pattern is None or pattern.search(text):
                raise WholeModuleNeeded(f"lines {first}-{last} were not parsed")

    def _lines(self, first: int, last: int) -> str:
        if not self._offsets:
            self._offsets = partial_parse.line_offsets(self.source)
        return self.source[self._offsets[first - 1]:partial_parse.line_end(self.source, self._offsets, last)]


R = TypeVar("R")


def fast_way(source: str, tree: Optional[ast.Module], keep: Keep, run: Callable[[Plain], R]) -> R:
    """`run(way)` the fast way: with the parts `keep` does not need left out, then, if they are
    needed after all, with the whole text parsed."""
    if tree is not None:
        way = Fast(source, tree, keep, partial=True)
        if way.partial:
            try:
                return run(way)
            except WholeModuleNeeded:
                pass
    return run(Fast(source, tree, keep, partial=False))


def upgrade(source: str, tree: Optional[ast.Module], keep: Keep, run: Callable[[Plain], R]) -> Tuple[R, str]:
    """`run(way)` the fast way and, on any exception there, the plain way. Returns the result and,
    when the fast way failed, its traceback."""
    try:
        return fast_way(source, tree, keep, run), ""
    except Exception:  # an optimization never costs a file: the plain way decides
        failure = traceback.format_exc()
    return run(Plain(source)), failure
