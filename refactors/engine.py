"""One libcst pass that runs the ordered refactors at each legacy API use site.

The seven refactors are ordered steps, as in the reference tool, but running each as its own tree
walk would cost seven walks per file. Here every refactor module offers hooks (`call`, `reference`,
`with_stmt`, `module`), and this transformer calls the enabled ones, in the pipeline's order, at the
node they concern. The steps' order is therefore kept per site: a call is resolved, normalised,
given keywords, has its keywords changed, then is renamed.

The pass runs through a way (`refactors.fast`): libcst's own, or a faster one with the same result.
The steps never ask which.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Collection, Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst.helpers import parse_template_expression

from api_mapping import ApiEntry, Table
from refactors import constants, cpython, findings as F, kept_comments, tree_index
from refactors.findings import Finding
from refactors.fast import Plain, WholeModuleNeeded
from refactors.scopes import Analysis, ImportBinding, Reference, Scope, analyse, descendants
from refactors.local_values import all_statements, consecutive
from refactors.todo_comments import Mark, attach
from refactors.tree_index import TreeIndex

LEGACY_ROOT = "paddle.fluid"
STATIC_LAYERS = "paddle.static.nn."  # 2.x layer functions that assert static mode


class NeedsReview(Exception):
    """Raised by a step that cannot prove its rewrite keeps the 1.8 meaning.

    The call is then left exactly as the user wrote it, marked with a TODO and reported.
    """


class InternalError(Exception):
    """A step failed at a use site: a bug of ours. `line` is the site's line (1 when not at one)."""

    def __init__(self, line: int, cause: BaseException) -> None:
        super().__init__(f"line {line}: {type(cause).__name__}: {cause}")
        self.line = line


@dataclass(eq=False)
class Site:
    """One use of a paddle name: a maximal `a.b.c` chain that resolves through a paddle import."""

    node: Union[cst.Name, cst.Attribute]
    qualname: str  # fully qualified, as written (may be an alias path)
    binding: ImportBinding
    scope: Scope
    line: int
    col: int
    entry: Optional[ApiEntry] = None
    suffix: str = ""  # attributes after the entry's name, e.g. ".__init__"
    converted: bool = False
    finding: Optional[Finding] = None
    decorator: bool = False  # the reference is a whole decorator (`@fluid.dygraph.no_grad`)
    call: Optional[cst.Call] = None  # the call as written, when the site is its callee
    also: List[ImportBinding] = field(default_factory=list)  # other imports binding the name to the same API
    member: bool = False  # a method or attribute of an object (refactors.methods): runtime_shim cannot serve it

    @property
    def legacy(self) -> bool:
        return self.qualname.startswith(LEGACY_ROOT) or self.entry is not None

    @property
    def name(self) -> str:
        """The entry's main name, or the qualified name when the table does not know it."""
        return self.entry.name if self.entry is not None else self.qualname


def _shim_refuses(site: Site) -> bool:
    """Whether the runtime shim raises for this use: for every use of the entry (`no_equivalent.shim`), or
    for a call that passes one of `no_equivalent.shim_refuses` other than None (by keyword, by position,
    or possibly through `*`/`**`)."""
    ne = site.entry.no_equivalent
    if ne.shim or not ne.shim_refuses or site.call is None:
        return bool(ne.shim)
    names = [p.name for p in site.entry.args_list or ()]
    positional = [arg for arg in site.call.args if arg.keyword is None and not arg.star]
    given = [arg.value for arg in site.call.args if arg.keyword is not None and arg.keyword.value in ne.shim_refuses]
    given += [arg.value for name, arg in zip(names, positional) if name in ne.shim_refuses]
    return any(arg.star for arg in site.call.args) or any(
        not (isinstance(value, cst.Name) and value.value == "None") for value in given)


@dataclass
class Context:
    """What hooks may read and record while one module is upgraded."""

    table: Table
    module: cst.Module
    resolver: Analysis
    enabled: Tuple[str, ...]
    findings: List[Finding] = field(default_factory=list)
    sites: List[Site] = field(default_factory=list)
    needs_paddle: bool = False  # a `paddle.x` name was emitted
    static_graph: bool = False  # a static-graph-only API is used: 2.x must be told
    pending: List[Site] = field(default_factory=list)  # guard calls waiting for their `with`
    todos: List[List[Mark]] = field(default_factory=lambda: [[]])  # one list per open statement
    dropped: List[List[str]] = field(default_factory=lambda: [[]])  # comments rewrites dropped, per open statement
    # Edits beyond the call being rewritten, for rewrites that span statements (see `insert_around`,
    # `edit_class`); keyed by the id of an ORIGINAL node, applied when the pass leaves that node.
    statements: List[cst.CSTNode] = field(default_factory=list)  # original statements open, outermost first
    # id of each original statement the pass has left -> what it made of it (the statement's own nodes,
    # not the statements inserted around it); see `edit_left`
    left: Dict[int, List[cst.CSTNode]] = field(default_factory=dict)
    before: Dict[int, List[cst.BaseStatement]] = field(default_factory=dict)
    after: Dict[int, List[cst.BaseStatement]] = field(default_factory=dict)
    class_edits: Dict[int, List[Callable[[cst.ClassDef], cst.ClassDef]]] = field(default_factory=dict)
    replacements: Dict[int, Callable[[cst.CSTNode], cst.CSTNode]] = field(default_factory=dict)  # see `replace`
    block_edits: Dict[int, List[Callable[[cst.CSTNode], cst.CSTNode]]] = field(default_factory=dict)  # `edit_left`
    by_node: Dict[int, Site] = field(default_factory=dict)  # id(original chain node) -> its use site
    tracked: List[cst.CSTNode] = field(default_factory=list)  # nodes beyond the use sites whose position is wanted
    positions: Dict[int, Tuple[int, int]] = field(default_factory=dict)  # id(node) -> (line, column)
    imports: Set[str] = field(default_factory=set)  # standard-library modules the emitted code uses
    new_names: Set[str] = field(default_factory=set)  # names introduced by rewrites (see `fresh_name`)
    way: Plain = field(default_factory=lambda: Plain(""))  # how the module is parsed, read and generated
    memo: Dict[object, object] = field(default_factory=dict)  # what a transformer learnt about this module
    shim: bool = True  # legacy uses left run through runtime_shim (coexistence); False: pure 2.x text
    site: Optional[Site] = None  # the call site whose hooks are running (the names its arguments read)
    tree_index: Optional[TreeIndex] = None  # the tree's other modules (None: no path known); ask `other_modules`

    @property
    def other_modules(self) -> Optional[TreeIndex]:
        """What the tree's other modules define. Asking marks the result as depending on the tree, so the
        content cache keeps it only while the tree is as it was (a module added may change it)."""
        if self.tree_index is not None:
            self.tree_index.consulted = True
        return self.tree_index

    def finish(self, site: Site, node: Optional[cst.CSTNode] = None) -> None:
        """Record the site's outcome once: converted, or left with its reason. A use left as it was is
        marked TODO at `node`, the node that stands for it in the upgraded tree."""
        if site in self.pending:
            self.pending.remove(site)
        if site.finding is not None:
            pass
        elif site.converted:
            target = site.entry.update_to if site.entry and site.entry.update_to else "its 2.x form"
            site.finding = self.report(site, F.CONVERTED, "info", f"{site.name} -> {target}", True)
        elif site.entry is not None and site.entry.no_equivalent is not None:
            ne = site.entry.no_equivalent
            site.finding = self.report(
                site, F.NO_EQUIVALENT, "warning",
                f"{site.name} has no 2.x equivalent ({ne.reason}); instead: {ne.suggest}", False)
            # The shim raises for an API whose entry says why it cannot serve it, or for a call passing an
            # argument it refuses: the marker must not say it runs.
            served = ", and runtime_shim cannot run it" if self.shim and _shim_refuses(site) else self._served
            self.todo(f"{short_name(site.name)}: no 2.x equivalent{served}", node)
        elif site.entry is None:
            site.finding = self.report(
                site, F.UNKNOWN_API, "warning", f"{site.qualname} is not in the mapping table; left as it was",
                False)
            self.todo(f"{short_name(site.qualname)}: not in the mapping table{self._served}", node)
        else:
            site.finding = self.report(site, F.NEEDS_REVIEW, "warning",
                                       f"{site.name}: not converted here; see the table entry", False)
            self.todo(f"{short_name(site.name)}: not converted here{self._served}", node)
        if not site.converted:
            for binding in (site.binding, *site.also):
                binding.left += 1

    @property
    def _served(self) -> str:
        return ", runs through runtime_shim" if self.shim else ""

    # -- helpers for hooks ----------------------------------------------------------------------
    def entry_for(self, qualname: str) -> Optional[ApiEntry]:
        """The table entry `qualname` denotes; through an alias only when norm_api_alias runs."""
        if "norm_api_alias" in self.enabled:
            return self.table.lookup(qualname)
        return self.table.entries.get(qualname)

    def entry_of_chain(self, qualname: str) -> Optional[Tuple[ApiEntry, str]]:
        """The entry of the longest prefix of `a.b.c` the table knows, and the attributes after it
        (norm_api_alias resolves aliases)."""
        parts = qualname.split(".")
        for end in range(len(parts), 1, -1):
            entry = self.entry_for(".".join(parts[:end]))
            if entry is not None:
                return entry, "".join("." + p for p in parts[end:])
        return None

    def static_file(self) -> bool:
        """Whether the module uses a static-graph-only API anywhere: known before the pass reaches it,
        for rewrites that depend on the file's mode (a dygraph guard)."""
        known = self.memo.get("static file")
        if known is None:
            known = self.memo["static file"] = any(self._static_only(ref) for ref in self.resolver.references.values())
        return bool(known)

    def _static_only(self, ref: Reference) -> bool:
        if not ref.bindings or ref.mixed or self.in_dygraph_guard(ref.node):
            return False
        _, _, rest = ref.dotted.partition(".")
        matched = self.entry_of_chain(ref.bindings[0].qualname + ("." + rest if rest else ""))
        return matched is not None and matched[0].static_graph

    @property
    def source(self) -> str:
        """The text of the module being upgraded."""
        return self.way.source

    @property
    def tree(self) -> Optional[ast.Module]:
        """CPython's parse of `source`, when the caller had it."""
        return self.way.tree

    def python_tree(self) -> Optional[ast.Module]:
        """CPython's parse of `source`: the caller's, or made once here; None when CPython refuses it."""
        if self.tree is not None:
            return self.tree
        if "python tree" not in self.memo:
            self.memo["python tree"] = cpython.parse(self.source)
        return self.memo["python tree"]  # type: ignore[return-value]

    def code(self, node: cst.CSTNode) -> str:
        return self.way.code_for(self.module, node)

    def provide(self, site: Site, reads: Sequence[str]) -> None:
        """Before a transformer that reads, beyond its use site, the statements of the scopes around it
        ("scope") or all of the class around it ("class"), as it declared where it is registered."""
        scope: Optional[Scope] = site.scope
        while scope is not None:
            if "scope" in reads:
                self.way.provide(scope.node, into_definitions=False)
            if "class" in reads and scope.is_class:
                self.way.provide(scope.node, into_definitions=True)
                reads = tuple(r for r in reads if r != "class")
            scope = scope.parent

    def reads(self, node: cst.CSTNode, words: Sequence[str] = (), into_definitions: bool = True) -> None:
        """Before a step's analysis reads the parts of `node` that say one of `words` as a word (all of it
        without words; without `into_definitions` only the statements of its own scope): a way that left
        parts unparsed parses the file whole when one of them is needed. (A transformer declares what
        it reads where it is registered instead: `refactors.transformers.register(reads=...)`.)"""
        self.way.provide(node, into_definitions, words)

    def rewrite(self, node: cst.CSTNode, transformer: cst.CSTTransformer, where: Callable[[cst.CSTNode], bool],
                through: Optional[Tuple[type, ...]] = None):
        """`node.visit(transformer)`, for a transformer that changes only nodes for which `where` holds,
        all of them found by looking into children of the `through` types (any type by default)."""
        return self.way.rewrite(node, transformer, where=where, through=through)

    def expr(self, source: str) -> cst.BaseExpression:
        return cst.parse_expression(source, config=self.module.config_for_parsing)

    def template(self, source: str, **nodes: cst.CSTNode) -> cst.BaseExpression:
        """An expression whose `{name}` placeholders are the given nodes, kept as they are (comments
        too): code is never built from an operand's text (libcst.helpers.parse_template_expression)."""
        return parse_template_expression(source, config=self.module.config_for_parsing, **nodes)

    def statement(self, source: str) -> cst.BaseStatement:
        return cst.parse_statement(source, config=self.module.config_for_parsing)

    def name_node(self, qualname: str) -> cst.BaseExpression:
        """An attribute chain for a 2.x name; notes that `import paddle` is needed."""
        if qualname.split(".")[0] == "paddle":
            self.needs_paddle = True
        parts = qualname.split(".")
        node: cst.BaseExpression = cst.Name(parts[0])
        for part in parts[1:]:
            node = cst.Attribute(value=node, attr=cst.Name(part))
        return node

    def value(self, node: cst.BaseExpression, site: Optional[Site] = None) -> Any:
        """What the file fixes about the value of `node`, an expression read at the call `site` (default:
        the one being upgraded): a Python value, possibly holding `constants.UNKNOWN` parts or a
        `constants.Some` (refactors.constants)."""
        site = site or self.site
        expr = constants.parse_expression(self.code(node))
        if expr is None:
            return constants.UNKNOWN
        if isinstance(expr, ast.Constant):
            return expr.value
        table, at = self.constants_at(site)
        if table is None or at is None:
            return constants.UNKNOWN
        return table.evaluate(expr, table.scope_at(*at), at)

    def constants_at(self, site: Optional[Site]) -> Tuple[Optional[constants.Constants], Optional[Tuple[int, int]]]:
        """The file's constants (made once) and where `site` is in CPython's terms (line, byte column)."""
        known = self.memo.get("constants")
        if known is None:
            known = self.memo["constants"] = (constants.of_file(self.python_tree(), lambda: self.other_modules),
                                              self.source.split("\n"))
        table, lines = known  # type: ignore[misc]
        if table is None or site is None or not 0 < site.line <= len(lines):
            return table, None
        return table, (site.line, len(lines[site.line - 1][:site.col - 1].encode("utf-8")))

    def report(self, site: Optional[Site], code: str, severity: str, message: str, fixed: bool,
               line: int = 0, col: int = 0, api: str = "") -> Finding:
        """A finding at a use site, or at line:col about `api` (the console counts warnings per API)."""
        finding = Finding("", site.line if site else line, site.col if site else col, code, severity,
                          message, fixed, site.name if site else api)
        self.findings.append(finding)
        return finding

    def report_newer(self, site: Site, target: str) -> None:
        """A conversion to a target that came after Paddle 2.0 (the entry's `since`) says so."""
        entry = site.entry
        if entry is not None and entry.since:
            self.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(entry.name, target, entry.since), True)

    def todo(self, reason: str, node: Optional[cst.CSTNode] = None) -> None:
        """Mark the statement being upgraded with `# TODO(paddle-upgrade): reason`, on the line where
        `node` (a node of the upgraded tree) starts, else at the statement (refactors.todo_comments)."""
        self.todos[-1].append((reason, node))

    def insert_around(self, statement: cst.CSTNode, before: Sequence[cst.BaseStatement] = (),
                      after: Sequence[cst.BaseStatement] = ()) -> None:
        """Put statements before/after an original statement of the module (not yet left by the pass:
        see `left`)."""
        self.resolver.make_hot(statement)
        self.before.setdefault(id(statement), []).extend(before)
        self.after.setdefault(id(statement), []).extend(after)

    def planned(self, key: object, make: Callable[[], object]) -> object:
        """`make()`, made once per module for `key` and kept; when it raised NeedsReview, the same reason is
        raised again at each later ask (a plan shared by several use sites fails for all of them)."""
        if key not in self.memo:
            try:
                self.memo[key] = make()
            except NeedsReview as why:
                self.memo[key] = why
        found = self.memo[key]
        if isinstance(found, NeedsReview):
            raise NeedsReview(str(found))
        return found

    def fresh_name(self, scope: Scope, base: str, everywhere: bool = False) -> str:
        """A name not bound in `scope` or any enclosing scope (`everywhere`: in no scope of the module, for
        a module-level definition that calls in any function read), nor introduced by this upgrade before."""
        scopes = list(self.resolver.scopes.values()) if everywhere else [scope]

        def taken(name: str) -> bool:
            return name in self.new_names or any(self.resolver.lookup(name, s) is not None for s in scopes)
        name, n = base, 1
        while taken(name):
            n += 1
            name = f"{base}_{n}"
        self.new_names.add(name)
        return name

    def track_position(self, node: cst.CSTNode) -> None:
        """Before the pass: have `position_of(node)` answer for a node of the module that is no use site."""
        self.resolver.make_hot(node)  # (a fast way generates only what the pass enters)
        self.tracked.append(node)

    def position_of(self, node: cst.CSTNode) -> Tuple[int, int]:
        return self.positions.get(id(node), (0, 0))

    def was_converted(self, node: cst.CSTNode) -> bool:
        """Whether the use site `node` (a chain, or a call of one), already left by the pass, was converted."""
        site = self.by_node.get(id(node.func) if isinstance(node, cst.Call) else id(node))
        return site is not None and site.converted

    def in_dygraph_guard(self, node: cst.CSTNode) -> bool:
        """Whether `node`, of the module, is in the block of a `with` dygraph guard (1.8 runs it dynamically)."""
        blocks = self.memo.get("guard blocks")
        if blocks is None:
            blocks = {id(stmt.body) for stmt in self.dygraph_guards()}
            blocks |= {id(stmt.body) for before, stmt in consecutive(self.module)
                       if self._is_restoring_guard(before, stmt)}
            self.memo["guard blocks"] = blocks
        key = self.resolver.parents.get(id(node), 0)
        while key:
            if key in blocks:  # type: ignore[operator]
                return True
            key = self.resolver.parents.get(key, 0)
        return False

    def dygraph_guards(self) -> List[cst.With]:
        """The `with` statements of the module whose guard is 1.8's dygraph guard, in source order."""
        guards = self.memo.get("dygraph guards")
        if guards is None:
            guards = self.memo["dygraph guards"] = [s for s in all_statements(self.module) if self._is_dygraph_guard(s)]
        return guards  # type: ignore[return-value]

    def _is_dygraph_guard(self, stmt: cst.CSTNode) -> bool:
        if not isinstance(stmt, cst.With) or len(stmt.items) != 1 or not isinstance(stmt.items[0].item, cst.Call):
            return False
        ref = self.resolver.references.get(id(stmt.items[0].item.func))
        matched = self.entry_of_chain(self.resolver.qualname(ref.dotted, ref.scope) or "") if ref else None
        return matched is not None and not matched[1] and matched[0].with_guard == "unwrap"

    def _is_restoring_guard(self, before: cst.CSTNode, stmt: cst.CSTNode) -> bool:
        """`paddle.disable_static()` then `try: ... finally: ...`: the form refactor_with gives a dygraph
        guard in a file that also builds static graphs, so a second run sees the same dygraph block."""
        if not isinstance(stmt, cst.Try) or stmt.finalbody is None or not isinstance(before, cst.SimpleStatementLine):
            return False
        small = before.body[0] if len(before.body) == 1 else None
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return False
        ref = self.resolver.references.get(id(small.value.func))
        return ref is not None and self.resolver.qualname(ref.dotted, ref.scope) == "paddle.disable_static"

    def replace(self, original: cst.CSTNode, build: Callable[[cst.CSTNode], cst.CSTNode]) -> None:
        """When the pass leaves `original` (a node of the module, not yet left), use `build(updated)`
        instead: for code that is no use site but reads what one makes (planned before the pass)."""
        self.resolver.make_hot(original)
        earlier = self.replacements.get(id(original))
        self.replacements[id(original)] = build if earlier is None else lambda updated: build(earlier(updated))

    def edit_left(self, owner: cst.CSTNode, statement: cst.CSTNode,
                  build: Callable[[cst.CSTNode], cst.CSTNode]) -> bool:
        """Edit `statement`, which the pass has already left, when it leaves `owner` (the Module or
        IndentedBlock whose body holds the statement, and which the pass is inside): `build` gets what
        the pass made of the statement. False, and nothing done, when the pass made more than one
        statement of it (or none). A statement the pass did not enter (the fast way skips those) is
        in the body as written. Applied before the owner's own hooks (a module's import tidy), which
        may rebuild its statements."""
        made = self.left.get(id(statement), [statement])
        if len(made) != 1:
            return False
        target = made[0]

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            body = list(updated.body)  # type: ignore[attr-defined]
            at = next(i for i, node in enumerate(body) if node is target)
            body[at] = build(target)
            return updated.with_changes(body=body)

        self.resolver.make_hot(owner)
        self.block_edits.setdefault(id(owner), []).append(edit)
        return True

    def edit_class(self, original: cst.ClassDef, edit: Callable[[cst.ClassDef], cst.ClassDef]) -> None:
        """Run `edit` on the upgraded class when the pass leaves it (e.g. to change its `forward`)."""
        self.class_edits.setdefault(id(original), []).append(edit)


def literal(node: cst.BaseExpression, ctx: Context):
    """The Python value of a literal argument, or of one the file fixes (a name bound once to a literal,
    refactors.constants); raises ValueError when it is neither."""
    text = ctx.code(node).strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = ctx.value(node)
        if not constants.known(value):
            raise ValueError(f"{text} is not a literal") from None
        return value


def same_literal(node: cst.BaseExpression, default_source: Optional[str], ctx: Context) -> bool:
    if default_source is None:
        return False
    try:
        return literal(node, ctx) == ast.literal_eval(default_source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def refuse_static_layer_in_dygraph(ctx: Context, site: Site, original: cst.Call) -> None:
    """1.8 ran its layer functions (fc, conv2d, embedding, ...) dynamically in a dygraph guard's block;
    their 2.x names under paddle.static.nn only build static graphs (3.x asserts static mode)."""
    entry = site.entry
    if entry is not None and entry.static_graph and not site.suffix \
            and (entry.update_to or "").startswith(STATIC_LAYERS) and ctx.in_dygraph_guard(original):
        raise NeedsReview(f"in a dygraph block 1.8 ran it dynamically, but {entry.update_to} builds static "
                          "graphs only; use the paddle.nn layer class")


_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def short_name(qualname: str) -> str:
    """A 1.8 name as 1.8 code usually spells it: `paddle.fluid.layers.relu` -> `fluid.layers.relu`."""
    return qualname[len("paddle."):] if qualname.startswith(LEGACY_ROOT + ".") else qualname


def _with_todos(node, marks: List[Mark], module: cst.Module):
    """Attach TODO comments to a statement left by the pass (or to the statements it became)."""
    if isinstance(node, cst.FlattenSentinel) and node.nodes:
        return cst.FlattenSentinel([_with_todos(node.nodes[0], marks, module), *node.nodes[1:]])
    if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return attach(node, marks, module)
    return node


def _marks_moved(before: List[cst.BaseStatement], after: List[cst.BaseStatement], marks: List[Mark],
                 module: cst.Module) -> Tuple[List[cst.BaseStatement], List[cst.BaseStatement], List[Mark]]:
    """Attach the marks whose node is in a statement inserted before or after; the others are left."""
    left = list(marks)
    placed = []
    for group in (before, after):
        edited = []
        for stmt in group:
            inside = {id(n) for n in descendants(stmt)}
            own = [m for m in left if m[1] is not None and id(m[1]) in inside]
            left = [m for m in left if m not in own]
            edited.append(_with_todos(stmt, own, module) if own else stmt)
        placed.append(edited)
    return placed[0], placed[1], left


class Upgrader(cst.CSTTransformer):
    """Calls the steps' hooks at each use site (the nodes off the paths to them, in the analysis's hot
    set, matter to it no more than to the way that runs it)."""

    def __init__(self, ctx: Context, steps: Sequence[ModuleType]) -> None:
        super().__init__()
        self.ctx = ctx
        for step in steps:  # analyses of the module before the pass changes it (they may add hot nodes)
            if hasattr(step, "prepare"):
                step.prepare(ctx)
        layout = ctx.way.layout(ctx.module, [ref.node for ref in ctx.resolver.references.values()] + ctx.tracked,
                                ctx.resolver.hot)
        self._positions, self.reproduces = layout.positions, layout.reproduces
        ctx.positions = self._positions
        self.line = 1  # of the use site being upgraded, for an internal error's report
        self._callees: Set[int] = set()
        self._sites: Dict[int, Site] = {}
        self._left_ambiguous: Dict[int, str] = {}  # id of a use left because its name is ambiguous -> why
        self._hooks = {kind: [getattr(s, kind) for s in steps if hasattr(s, kind)]
                       for kind in ("call", "reference", "with_stmt", "module")}


    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    # -- use sites ------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self._callees.add(id(node.func))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        ref = self.ctx.resolver.references.get(id(node))
        if ref is not None:
            self._find_site(ref)

    def visit_Name(self, node: cst.Name) -> None:
        ref = self.ctx.resolver.references.get(id(node))
        if ref is not None:
            self._find_site(ref)

    def _find_site(self, ref: Reference) -> None:
        head, _, rest = ref.dotted.partition(".")
        bindings = ref.bindings
        binding: Optional[ImportBinding] = bindings[0]
        also: List[ImportBinding] = []
        if ref.mixed:
            self._ambiguous(ref, head)
            return
        if any(b.qualname != bindings[0].qualname for b in bindings):
            binding, also = self._one_api(bindings, rest)
            if binding is None:
                self._ambiguous(ref, head)
                return
        assert binding is not None
        qualname = binding.qualname + ("." + rest if rest else "")
        line, col = self._positions[id(ref.node)]
        site = Site(ref.node, qualname, binding, ref.scope, line, col,
                    decorator=id(ref.node) in self.ctx.resolver.decorators, also=also)
        self._match_entry(site)
        for b in (binding, *also):
            b.uses += 1
        self._sites[id(ref.node)] = self.ctx.by_node[id(ref.node)] = site
        if site.legacy:
            self.ctx.sites.append(site)

    def _one_api(self, bindings: List[ImportBinding], rest: str):
        """When a name is bound by several paddle imports (`try: from a import X` / `except ImportError:
        from b import X`) that all denote the same table entry, the first binding, and the others."""
        mains = set()
        for b in bindings:
            entry = self.ctx.entry_for(b.qualname + ("." + rest if rest else ""))
            mains.add(entry.name if entry is not None else None)
        if len(mains) != 1 or None in mains:
            return None, []
        return bindings[0], bindings[1:]

    def _ambiguous(self, ref: Reference, head: str) -> None:
        """A name bound by a paddle import and by something else (`except ImportError: fluid = None`),
        or by imports of different APIs: which one a use means is decided at run time, so the use is
        left, and the imports kept."""
        for b in ref.bindings:
            b.uses += 1
            b.left += 1
        line, col = self._positions[id(ref.node)]
        apis = ", ".join(sorted({b.qualname for b in ref.bindings}))
        how = "both by a paddle import and otherwise" if ref.mixed else f"by imports of different paddle APIs ({apis})"
        self.ctx.report(None, F.NEEDS_REVIEW, "warning", f"`{head}` is bound {how} here; left as written", False,
                        line=line, col=col)
        self._left_ambiguous[id(ref.node)] = f"`{head}` is bound {'otherwise too' if ref.mixed else 'to several APIs'}"

    def _match_entry(self, site: Site) -> None:
        matched = self.ctx.entry_of_chain(site.qualname)
        if matched is not None:
            site.entry, site.suffix = matched

    def _leave_reference(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        ambiguous = self._left_ambiguous.pop(id(original), None)
        if ambiguous is not None:
            self.ctx.todo(f"{ambiguous}; left as written", updated)
        site = self._sites.get(id(original))
        if site is None or not site.legacy or id(original) in self._callees:
            return updated
        self.line = site.line
        result = updated
        for hook in self._hooks["reference"]:
            result = hook(self.ctx, site, result)
        self.ctx.finish(site, result)
        return result

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._leave_reference(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._leave_reference(original, updated)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        site = self._sites.get(id(original.func))
        if site is None or not site.legacy:
            return updated
        if site.entry is not None and site.entry.with_guard == "unwrap":
            self.ctx.pending.append(site)  # decided by refactor_with when its `with` is left
            return updated
        self.line = site.line
        site.call = original
        result: cst.BaseExpression = updated
        self.ctx.site = site
        inserted = self._inserted()
        try:
            refuse_static_layer_in_dygraph(self.ctx, site, original)
            for hook in self._hooks["call"]:
                result = hook(self.ctx, site, result)
        except NeedsReview as why:
            self._take_back(inserted)  # statements inserted for a rewrite that is not made
            result = self._per_literal(site, updated, inserted)
            if result is None:
                result = updated
                site.converted = False
                self.ctx.todo(str(why), result)
                site.finding = self.ctx.report(site, F.NEEDS_REVIEW, "warning", f"{site.name}: {why}", False)
        finally:
            self.ctx.site = None
        self.ctx.finish(site, result)
        self._keep_comments(updated, result, moved=self._new_statements(inserted))
        return result

    def _per_literal(self, site: Site, updated: cst.Call, inserted) -> Optional[cst.BaseExpression]:
        """The call converted once per literal of its `A if c else B` argument (refactors.literal_branches),
        when both conversions need nothing inserted around the statement; else None."""
        from refactors import literal_branches  # it imports this module

        split = literal_branches.split(self.ctx, site, updated)
        if split is None:
            return None
        test, *calls = split
        made = []
        for call in calls:
            site.converted, site.finding = False, None
            result: cst.BaseExpression = call
            try:
                for hook in self._hooks["call"]:
                    result = hook(self.ctx, site, result)
            except NeedsReview:
                result = None  # type: ignore[assignment]
            if result is None or self._new_statements(inserted):
                self._take_back(inserted)
                site.converted = False
                return None
            made.append(result)
        return literal_branches.joined(test, *made)

    def _inserted(self) -> Tuple[Dict[int, int], Dict[int, int]]:
        return {k: len(v) for k, v in self.ctx.before.items()}, {k: len(v) for k, v in self.ctx.after.items()}

    def _take_back(self, inserted: Tuple[Dict[int, int], Dict[int, int]]) -> None:
        for planned, counts in zip((self.ctx.before, self.ctx.after), inserted):
            for key in list(planned):
                del planned[key][counts.get(key, 0):]

    def _new_statements(self, inserted: Tuple[Dict[int, int], Dict[int, int]]) -> List[cst.BaseStatement]:
        """The statements inserted since `inserted` was taken."""
        return [stmt for planned, counts in zip((self.ctx.before, self.ctx.after), inserted)
                for key, stmts in planned.items() for stmt in stmts[counts.get(key, 0):]]

    def _keep_comments(self, updated, result, skip: Collection[int] = (),
                       moved: Sequence[cst.BaseStatement] = ()) -> None:
        """Note the comments of `updated` a rewrite left out of `result` (and of the statements it
        inserted, `moved`), for the statement around."""
        before = kept_comments.comments(updated, skip) if result is not updated else None
        if before:
            after = [c for node in (result, *moved) for c in kept_comments.comments(node, skip)]
            self.ctx.dropped[-1].extend(kept_comments.dropped(before, after))

    # -- statements -----------------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _STATEMENTS):
            self.ctx.todos.append([])
            self.ctx.dropped.append([])
            self.ctx.statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        for edit in self.ctx.block_edits.pop(id(original), ()):
            updated = edit(updated)
        result = super().on_leave(original, updated)
        build = self.ctx.replacements.pop(id(original), None)
        if build is not None:
            built = build(result)
            self._keep_comments(result, built)
            result = built
        if isinstance(original, _STATEMENTS):
            self.ctx.statements.pop()
            result = kept_comments.above(result, self.ctx.dropped.pop())
            marks = self.ctx.todos.pop()
            before, after = self.ctx.before.pop(id(original), []), self.ctx.after.pop(id(original), [])
            if marks and (before or after):  # a use that moved into an inserted statement is marked there
                before, after, marks = _marks_moved(before, after, marks, self.ctx.module)
            if marks:
                result = _with_todos(result, marks, self.ctx.module)
            middle = list(result.nodes) if isinstance(result, cst.FlattenSentinel) else [result]
            if before or after:
                if before and middle and isinstance(before[-1], (cst.ClassDef, cst.FunctionDef)):
                    if not middle[0].leading_lines:  # set an inserted definition apart as it is set apart
                        middle[0] = middle[0].with_changes(leading_lines=before[-1].leading_lines)
                elif before and middle and getattr(middle[0], "leading_lines", None):
                    # The statement's blank lines and comments go above what was inserted for it.
                    before = [before[0].with_changes(leading_lines=middle[0].leading_lines), *before[1:]]
                    middle[0] = middle[0].with_changes(leading_lines=())
                result = cst.FlattenSentinel([*before, *middle, *after])
            self.ctx.left[id(original)] = middle
        return result

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        for edit in self.ctx.class_edits.pop(id(original), []):
            updated = edit(updated)
        return updated

    def leave_With(self, original: cst.With, updated: cst.With):
        result = updated
        for hook in self._hooks["with_stmt"]:
            result = hook(self.ctx, self._sites, original, result)
            if not isinstance(result, cst.With):
                break
        for index, item in enumerate(original.items):
            site = self._sites.get(id(item.item.func)) if isinstance(item.item, cst.Call) else None
            if site is not None and site in self.ctx.pending:
                kept = result.items[index].item if isinstance(result, cst.With) else None
                self.ctx.finish(site, kept)
        body = updated.body.body if isinstance(updated.body, cst.IndentedBlock) else ()
        self._keep_comments(updated, result, skip={id(stmt) for stmt in body})  # its statements move whole
        return result

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        for site in list(self.ctx.pending):  # a guard used outside a `with`
            self.ctx.finish(site)
        result = updated
        for hook in self._hooks["module"]:
            result = hook(self.ctx, result)
        return result


@dataclass
class Outcome:
    module: cst.Module
    findings: List[Finding]
    sites: List[Site]
    reproduces: Optional[bool] = None  # None when the module was returned untouched
    reads: Dict[str, str] = field(default_factory=dict)  # other modules of the tree consulted -> SHA-256
    # (and tree_index.TREE where the tree was consulted at all)


def run(module: cst.Module, table: Table, steps: Sequence[ModuleType], star_members, way: Plain,
        shim: bool = True, origin: Optional[str] = None) -> Outcome:
    """Upgrade one module, parsed by `way`, with the given ordered steps. A failure of a step is an
    `InternalError` naming the line of the use site it was upgrading. `shim`: the legacy uses left run
    through runtime_shim (coexistence). `origin`: the module's path, where the other modules of its
    tree may tell what its imported classes are (`refactors.tree_index`)."""
    resolver = analyse(module, star_members, way.stub_lines if way.partial else None)
    if not resolver.imports:
        return Outcome(module, [], [])
    resolver.unparsed = way.provide_binding if way.partial else None
    others = TreeIndex(origin, tree_index.classifier(table)) if origin else None
    ctx = Context(table=table, module=module, resolver=resolver,
                  enabled=tuple(getattr(s, "NAME") for s in steps), way=way, shim=shim, tree_index=others)
    upgrader = None
    try:
        upgrader = Upgrader(ctx, steps)
        new = way.rewrite(module, upgrader, hot=resolver.hot)
    except (WholeModuleNeeded, RecursionError, MemoryError):
        raise
    except Exception as exc:
        raise InternalError(upgrader.line if upgrader is not None else 1, exc) from exc
    reads = dict(others.reads) if others is not None else {}
    if others is not None and others.consulted:
        reads[tree_index.TREE] = ""  # the cache records the tree's digest (runner)
    return Outcome(new, ctx.findings, ctx.sites, upgrader.reproduces, reads)
