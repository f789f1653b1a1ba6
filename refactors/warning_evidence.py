"""Whether an entry's `warning` is about the use in front of it.

Many table warnings state a difference that matters only under a condition: `to_variable(x)` when x
is already a tensor, `Program` when the program is cloned for test, `Executor` when what it fetches
has become 0-D. The entry's `warning_when` names checks registered here, each with its argument;
each looks at the use site for its condition and answers True (it holds), False (the site shows it
does not) or None (cannot tell). The warning is reported unless a check answers False.

The checks read CPython's parse of the whole file (`Context.tree`), never the libcst tree, so they do
not depend on which parts of the file libcst parsed (refactors.fast.partial_parse).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from refactors import findings as F
from refactors.engine import Context, Site
from refactors.scopes import Reference
from refactors.zero_d import PRODUCERS

Check = Callable[[Context, Site, Any], Optional[bool]]
CHECKS: Dict[str, Check] = {}


def check(name: str) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS[name] = fn
        return fn
    return register


def report_warning(ctx: Context, site: Site) -> None:
    """Report the entry's warning for a converted use, unless the use shows it does not apply."""
    entry = site.entry
    if entry is None or not entry.warning:
        return
    for name, argument in entry.warning_when.items():
        if CHECKS[name](ctx, site, argument) is False:
            return
    ctx.report(site, F.API_WARNING, "warning", f"{entry.name}: {entry.warning}", True)


# -- the file as CPython reads it ----------------------------------------------------------------------

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


@dataclass
class _File:
    lines: List[str]
    parents: Dict[int, ast.AST] = field(default_factory=dict)
    names: Dict[Tuple[int, int], ast.Name] = field(default_factory=dict)  # (line, byte column) -> Name
    numpy: Set[str] = field(default_factory=set)  # names an import binds to numpy or one of its members
    methods: Dict[str, List[ast.Call]] = field(default_factory=dict)  # m -> every `<expr>.m(...)`
    bound: Dict[Tuple[int, str], Optional[List[Optional[ast.expr]]]] = field(default_factory=dict)

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.parents.get(id(node))


def _file(ctx: Context) -> Optional[_File]:
    key = "warning evidence"
    if key not in ctx.memo:
        ctx.memo[key] = _read(ctx)
    return ctx.memo[key]  # type: ignore[return-value]


def _read(ctx: Context) -> Optional[_File]:
    tree = ctx.python_tree()
    if tree is None:
        return None
    view = _File(ctx.source.split("\n"))
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            view.parents[id(child)] = node
        if isinstance(node, ast.Name):
            view.names[(node.lineno, node.col_offset)] = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            view.methods.setdefault(node.func.attr, []).append(node)
        elif isinstance(node, ast.Import):
            view.numpy.update(a.asname or a.name for a in node.names if a.name == "numpy")
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy" and not node.level:
            view.numpy.update(a.asname or a.name for a in node.names)
    return view


def _use(ctx: Context, site: Site) -> Tuple[Optional[_File], Optional[ast.expr]]:
    """The file, and the expression of the use: the call when the site is a callee, else its whole
    attribute chain (`fluid.core.VarDesc.VarType.FP32`)."""
    view = _file(ctx)
    if view is None or not 0 < site.line <= len(view.lines):
        return view, None
    column = len(view.lines[site.line - 1][:site.col - 1].encode("utf-8"))
    node: Optional[ast.expr] = view.names.get((site.line, column))
    if node is None:
        return view, None
    parent = view.parent(node)
    while isinstance(parent, ast.Attribute) and parent.value is node:
        node, parent = parent, view.parent(parent)
    if isinstance(parent, ast.Call) and parent.func is node:
        node = parent
    return view, node


def _argument(site: Site, call: ast.Call, name: str) -> Optional[ast.expr]:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    params = [p.name for p in (site.entry.args_list or ())] if site.entry is not None else []
    if name in params and not any(isinstance(a, ast.Starred) for a in call.args):
        at = params.index(name)
        if at < len(call.args):
            return call.args[at]
    return None


# -- what a name is bound to -------------------------------------------------------------------------

def _scopes(view: _File, node: ast.AST) -> List[ast.AST]:
    """The scopes around `node`, innermost first, as Python looks names up (a class body does not
    enclose the functions in it)."""
    out: List[ast.AST] = []
    current = view.parent(node)
    while current is not None:
        if isinstance(current, _SCOPES) and not (isinstance(current, ast.ClassDef) and out):
            out.append(current)
        elif isinstance(current, ast.Module):
            out.append(current)
        current = view.parent(current)
    return out


def _targets(target: ast.expr) -> List[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _targets(element)]
    if isinstance(target, ast.Starred):
        return _targets(target.value)
    return []


class _Bindings(ast.NodeVisitor):
    """The values one scope binds a name to (None: a binding whose value is unknown here)."""

    def __init__(self, name: str, scope: ast.AST) -> None:
        self.name, self.scope = name, scope
        self.values: List[Optional[ast.expr]] = []
        self.global_ = False

    def generic_visit(self, node: ast.AST) -> None:
        if node is not self.scope and isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == self.name:
                self.values.append(None)
            if not isinstance(node, ast.Lambda):  # decorators, defaults, bases run in this scope
                for part in (getattr(node, "decorator_list", []), getattr(node, "bases", [])):
                    for child in part:
                        self.visit(child)
            return
        if isinstance(node, ast.arguments) and node is getattr(self.scope, "args", None):
            every = (*node.posonlyargs, *node.args, *node.kwonlyargs, node.vararg, node.kwarg)
            if any(a is not None and a.arg == self.name for a in every):
                self.values.append(None)
            return
        if isinstance(node, ast.comprehension) and self.name in _targets(node.target):
            self.values.append(None)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == self.name:
                    self.values.append(node.value)
                elif self.name in _targets(target):
                    self.values.append(None)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and _targets(node.target) == [self.name]:
            self.values.append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor)) and self.name in _targets(node.target):
            self.values.append(None)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None \
                and self.name in _targets(node.optional_vars):
            self.values.append(None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) \
                and any((a.asname or a.name.split(".")[0]) == self.name for a in node.names):
            self.values.append(None)
        elif isinstance(node, ast.ExceptHandler) and node.name == self.name:
            self.values.append(None)
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and self.name in node.names:
            self.global_ = True
        super().generic_visit(node)


def _bound_to(view: _File, name: str, at: ast.AST) -> Optional[List[Optional[ast.expr]]]:
    """What `name`, read at `at`, may be bound to; None when no scope of this file binds it."""
    for scope in _scopes(view, at):
        key = (id(scope), name)
        if key not in view.bound:
            finder = _Bindings(name, scope)
            finder.visit(scope)
            view.bound[key] = None if finder.global_ or not finder.values else finder.values
        if view.bound[key] is not None:
            return view.bound[key]
    return None


# -- what a value is ---------------------------------------------------------------------------------

NUMPY, TENSOR = "numpy", "tensor"  # a NumPy array or plain Python value; a paddle result


@dataclass
class _Values:
    """Tells what an expression evaluates to, as far as the file shows, for the use being judged."""

    ctx: Context
    site: Site
    view: _File
    around: Set[int]  # ids of the nodes that hold the use: `x = to_variable(x)` is not what x was

    def kind(self, node: Optional[ast.expr], depth: int = 0) -> Optional[str]:
        """NUMPY, TENSOR, or None when the expression does not show which."""
        if node is None or depth > 4:
            return None
        if isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.DictComp,
                             ast.SetComp, ast.JoinedStr)):
            return NUMPY
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return NUMPY if self.kind(node.value, depth + 1) == NUMPY else None
        if isinstance(node, ast.UnaryOp):
            return self.kind(node.operand, depth + 1)
        operands = (node.left, node.right) if isinstance(node, ast.BinOp) else \
            (node.left, *node.comparators) if isinstance(node, ast.Compare) else \
            (node.body, node.orelse) if isinstance(node, ast.IfExp) else None
        if operands is not None:
            return NUMPY if all(self.kind(n, depth + 1) == NUMPY for n in operands) else None
        if isinstance(node, ast.Name):
            values = [v for v in _bound_to(self.view, node.id, node) or () if v is None or id(v) not in self.around]
            kinds = {self.kind(value, depth + 1) for value in values}
            return kinds.pop() if len(kinds) == 1 else None
        return None

    def _call(self, node: ast.Call, depth: int) -> Optional[str]:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "numpy" and not node.args:
            return NUMPY  # Tensor.numpy()
        chain = _dotted(func)
        if chain is not None and chain.split(".")[0] in self.view.numpy:
            return NUMPY
        if chain is not None and self.ctx.resolver.qualname(chain, self.site.scope) is not None:
            return TENSOR
        if isinstance(func, ast.Attribute) and self.kind(func.value, depth + 1) == NUMPY:
            return NUMPY  # a method of an array: astype, reshape, ...
        return None


def _dotted(node: ast.expr) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


# -- the checks --------------------------------------------------------------------------------------

def argument_kind(ctx: Context, site: Site, name: str) -> Optional[str]:
    """What the argument `name` of the call at `site` is: NUMPY (a literal, a display, a NumPy array:
    `np.array(...)`, `t.numpy()`), TENSOR (what a paddle API returns), or None when the file does not
    show which. A name counts when every assignment of it binds one kind."""
    view, use = _use(ctx, site)
    if view is None or not isinstance(use, ast.Call):
        return None
    around = set()
    node: Optional[ast.AST] = use
    while node is not None:
        around.add(id(node))
        node = view.parent(node)
    return _Values(ctx, site, view, around).kind(_argument(site, use, name))


@check("argument_may_be_tensor")
def argument_may_be_tensor(ctx: Context, site: Site, name: str) -> Optional[bool]:
    """The argument `name` may already be a tensor: not when it is a literal or a NumPy array."""
    kind = argument_kind(ctx, site, name)
    return None if kind is None else kind == TENSOR


@check("argument_is_not")
def argument_is_not(ctx: Context, site: Site, values: Dict[str, str]) -> Optional[bool]:
    """Some argument differs from the given literal (source text); an argument left out counts as its
    1.8 default."""
    view, use = _use(ctx, site)
    if view is None or not isinstance(use, ast.Call):
        return None
    for name, text in values.items():
        given: Any = _argument(site, use, name)
        if given is None:
            param = site.entry.param(name) if site.entry is not None else None
            if param is None or param.default is None:
                return None
            given = param.default
        try:
            if ast.literal_eval(given) != ast.literal_eval(text):
                return True
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return False


@check("result_calls")
def result_calls(ctx: Context, site: Site, methods: List[str]) -> Optional[bool]:
    """The object the call makes has one of `methods` called on it (`clone(...)`: with arguments),
    chained or through the name or attribute it is assigned to. None when the object goes elsewhere
    (an argument, a return value) while this file calls such a method on something."""
    view, use = _use(ctx, site)
    if view is None:
        return None
    wanted = {m.rstrip("(.)"): m.endswith("(...)") for m in methods}
    found = [c for m in wanted for c in view.methods.get(m, ()) if not wanted[m] or c.args or c.keywords]
    if not found:
        return False
    if not isinstance(use, ast.Call):
        return None
    parent = view.parent(use)
    if isinstance(parent, ast.Attribute):
        return parent.attr in wanted and any(c.func is parent for c in found)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and _dotted(parent.targets[0]) is not None:
        target = _dotted(parent.targets[0])
        return any(_dotted(c.func.value) == target for c in found)  # type: ignore[attr-defined]
    return None


@check("compared")
def compared(ctx: Context, site: Site, _: Any) -> Optional[bool]:
    """The value is compared (`==`, `in`, ...): True as an operand of a comparison, False as a call's
    argument (passing it on works), None elsewhere (it may be compared later)."""
    view, use = _use(ctx, site)
    if view is None or use is None:
        return None
    parent = view.parent(use)
    if isinstance(parent, ast.Compare):
        return True
    if isinstance(parent, ast.keyword) or (isinstance(parent, ast.Call) and use is not parent.func):
        return False
    return None


@check("on_pir")
def on_pir(ctx: Context, site: Site, _: Any) -> bool:
    """The upgraded file builds on Paddle 3's default static graph (PIR): not when the upgrade selects the
    legacy IR, as it does in a file that builds static graphs unless the output is pure 2.x (`--no-shim`)."""
    return not (ctx.shim and ctx.static_file())


# The 1.8 APIs whose result had shape [1] and is 0-D on Paddle >= 2.5 cite this api_mapping/SEMANTICS.md
# entry. Those whose transformer is one of zero_d.PRODUCERS have the reads that indexed their result in its scope
# made scalar (refactors.zero_d), and a result that leaves its scope is reported where it is made.
ZERO_D_ENTRY = 8


@check("file_uses_zero_d")
def file_uses_zero_d(ctx: Context, site: Site, _: Any) -> bool:
    """The file uses an API whose 0-D result (shape [1] in 1.8) the upgrade does not follow to its reads."""
    key = "uses zero-d"
    if key not in ctx.memo:
        ctx.memo[key] = any(_unfollowed_zero_d(ctx, ref) for ref in ctx.resolver.references.values())
    return bool(ctx.memo[key])


def _unfollowed_zero_d(ctx: Context, ref: Reference) -> bool:
    _, _, rest = ref.dotted.partition(".")
    for binding in ref.bindings:
        matched = ctx.entry_of_chain(binding.qualname + ("." + rest if rest else ""))
        entry = matched[0] if matched is not None else None
        if entry is not None and entry.kind == "function" and ZERO_D_ENTRY in entry.semantics \
                and entry.transformer not in PRODUCERS:
            return True
    return False
