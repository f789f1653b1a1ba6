"""References to 1.8 functions whose arguments change, called through a name a function binds.

A reference cannot be renamed on its own when the 2.x function takes other arguments: the calls made
through it still pass the 1.8 ones. Where the function shows every such call, they are converted with
the reference (each as a call of the API it reaches would be), and the reference is renamed:

    op = layers.elementwise_mul                        op = paddle.multiply
    return op(a, b)                                    return op(a, b)

    fc = wrap(layers.fc, i) if c else layers.fc    ->  fc = wrap(paddle.static.nn.fc, i) if c else paddle.static.nn.fc
    k = fc(input=q, size=8)                            k = fc(x=q, size=8)

The rule, all of which must hold, else the reference is left and reported as before:
- the reference is the value a function assigns to a name (`n = <value>`): alone, a branch of
  `a if c else b`, or the argument of a forwarder, a function of the module that only calls it with
  its inner function's own `*args, **kwargs` and returns that inner function;
- the name is local to that function (no `global`/`nonlocal`, no walrus), and following its statements
  (refactors.reaching), every read of the name that such an assignment may reach is the
  callee of a call and is reached by no other binding (a parameter, another value); a read in a
  nested function or comprehension may be reached by every binding of the function;
- each such call converts, as a call of every API that may reach it, to the same text, with no
  statement inserted elsewhere and no result whose reads change (full reductions, refactors.zero_d).
Only names of functions are followed: a module-level name may be imported and called by other modules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Tuple

import libcst as cst

from api_mapping import ApiEntry
from refactors import args_to_kwargs, findings as F, reaching, refactor_kwargs
from refactors.engine import Context, NeedsReview, Site, refuse_static_layer_in_dygraph
from refactors.reaching import is_name, walk
from refactors.scopes import Reference, Scope, children
from refactors.zero_d import PRODUCERS

_PLAN = "called through"  # ctx.memo key: id(reference node) -> its Group


@dataclass(eq=False)
class Group:
    """The references a function assigns to one name, and the calls made through it."""

    refs: Dict[int, List[Reference]] = field(default_factory=dict)  # id(assignment) -> references in its value
    calls: List[Tuple[cst.Call, FrozenSet[int], Scope]] = field(default_factory=list)  # call, assignments reaching it
    decided: Optional[bool] = None


def plan(ctx: Context) -> None:
    """Before the pass: the references called through a function's name, and the calls to convert."""
    candidates = [ref for ref in ctx.resolver.references.values() if _entry(ctx, ref) is not None]
    spelled = {ref.dotted for ref in candidates}
    # Most uses are calls: read the module further only where its text shows one that is not.
    if not any(re.search(re.escape(dotted) + r"\b(?!\s*\()", ctx.source) for dotted in spelled):
        return
    ctx.reads(ctx.module)
    parents = _parents(ctx.module)
    groups: Dict[Tuple[int, str], Group] = {}
    for ref in candidates:
        held = _holder(ctx, ref, parents)
        if held is not None:
            function, assignment, name = held
            group = groups.setdefault((id(function), name), Group())
            group.refs.setdefault(id(assignment), []).append(ref)
    planned: Dict[int, Group] = {}
    for (_, name), group in groups.items():
        function = next(ref.scope.node for refs in group.refs.values() for ref in refs)
        whole = all({id(leaf) for leaf in _leaves(ctx, _assigned(line))} == {id(ref.node) for ref in refs}
                    for line, refs in ((_line(parents, refs[0]), refs) for refs in group.refs.values()))
        if not whole or not _follow(ctx, function, name, group, parents):
            continue
        for call, _, _ in group.calls:
            ctx.track_position(call)
            ctx.replace(call, lambda updated, g=group, c=call: _converted_call(ctx, g, c, updated))
        for refs in group.refs.values():
            for ref in refs:
                planned[id(ref.node)] = group
    ctx.memo[_PLAN] = planned


def converts(ctx: Context, site: Site) -> bool:
    """Whether the reference `site` is renamed, its calls through a name being converted."""
    group = ctx.memo.get(_PLAN, {}).get(id(site.node))  # type: ignore[union-attr]
    return group is not None and _decide(ctx, group)


def _entry(ctx: Context, ref: Reference) -> Optional[ApiEntry]:
    """The entry of a reference to a function whose calls change, when the rule may follow it."""
    if ref.mixed or not ref.bindings or id(ref.node) in ctx.resolver.decorators:
        return None
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "")
    if matched is None or matched[1]:
        return None
    entry = matched[0]
    if entry.kind != "function" or entry.update_to is None or entry.transformer in PRODUCERS \
            or not (entry.transformer or entry.args_change):
        return None
    return entry


def _parents(module: cst.Module) -> Dict[int, cst.CSTNode]:
    parents: Dict[int, cst.CSTNode] = {}
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    return parents


def _holder(ctx: Context, ref: Reference, parents) -> Optional[Tuple[cst.FunctionDef, cst.CSTNode, str]]:
    """(function, assignment statement, name) when the reference is the value, or a part the rule
    follows of the value, of `name = value` in a function's own code."""
    if not isinstance(ref.scope.node, cst.FunctionDef):
        return None
    node: cst.CSTNode = ref.node
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, cst.IfExp) and node is not parent.test:
            node = parent
        elif isinstance(parent, cst.Arg) and isinstance(parents.get(id(parent)), cst.Call) \
                and _forwards(ctx, parents[id(parent)], parent):
            node = parents[id(parent)]
        else:
            break
    if not (isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)):
        return None
    line = parents.get(id(parent))
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    return ref.scope.node, line, parent.targets[0].target.value


def _line(parents, ref: Reference) -> cst.CSTNode:
    node: cst.CSTNode = ref.node
    while not isinstance(node, cst.SimpleStatementLine):
        node = parents[id(node)]
    return node


def _assigned(line: cst.CSTNode) -> cst.BaseExpression:
    return line.body[0].value  # type: ignore[attr-defined]


def _leaves(ctx: Context, value: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The values an assignment's value may be: the branches of `a if c else b`, a forwarder's function."""
    if isinstance(value, cst.IfExp):
        return _leaves(ctx, value.body) + _leaves(ctx, value.orelse)
    if isinstance(value, cst.Call):
        forwarded = [arg for arg in value.args if _forwards(ctx, value, arg)]
        if len(forwarded) == 1:
            return _leaves(ctx, forwarded[0].value)
    return [value]


def _forwards(ctx: Context, call: cst.Call, arg: cst.Arg) -> bool:
    """`call` is `W(..., arg, ...)` where W, a function of the module, passes the parameter `arg`
    binds only to `def inner(*a, **k): ... P(*a, **k) ...` and returns `inner`."""
    if not isinstance(call.func, cst.Name) or arg.star or any(a.star for a in call.args):
        return False
    name = call.func.value
    definitions = [s for s in ctx.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    if len(definitions) != 1 or len(ctx.resolver.module_scope.bindings.get(name, ())) != 1:
        return False
    function = definitions[0]
    params = [*function.params.posonly_params, *function.params.params]
    if function.decorators or function.asynchronous:
        return False
    if arg.keyword is not None:
        matching = [p for p in params if p.name.value == arg.keyword.value]
    else:
        index = call.args.index(arg)
        matching = params[index:index + 1]
    if len(matching) != 1:
        return False
    param = matching[0].name.value
    body = function.body.body
    inner = next((s for s in body if isinstance(s, cst.FunctionDef) and _calls_with_own_stars(s, param)), None)
    if inner is None:
        return False
    last = body[-1]
    returned = last.body[0] if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 else None
    if not (isinstance(returned, cst.Return) and isinstance(returned.value, cst.Name)
            and returned.value.value == inner.name.value):
        return False
    outer = [n.value for n in walk(function.body, skip=inner) if isinstance(n, cst.Name)]
    own = list(walk(function.body, skip=inner, nested=False))
    return outer.count(param) == 0 and outer.count(inner.name.value) == 1 \
        and not any(isinstance(n, (cst.Yield, cst.Await)) for n in own) \
        and sum(isinstance(n, cst.Return) for n in own) == 1


def _calls_with_own_stars(inner: cst.FunctionDef, param: str) -> bool:
    """`def inner(*a, **k)` whose only use of `param`, `a` and `k` is one call `param(*a, **k)`."""
    p = inner.params
    if inner.decorators or inner.asynchronous or p.params or p.posonly_params or p.kwonly_params \
            or not isinstance(p.star_arg, cst.Param) or p.star_kwarg is None:
        return False
    star, double = p.star_arg.name.value, p.star_kwarg.name.value
    names = [n for n in walk(inner.body) if isinstance(n, cst.Name)]
    if [n.value for n in names].count(param) != 1 or [n.value for n in names].count(star) != 1 \
            or [n.value for n in names].count(double) != 1:
        return False
    calls = [n for n in walk(inner.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
             and n.func.value == param]
    return len(calls) == 1 and len(calls[0].args) == 2 \
        and calls[0].args[0].star == "*" and is_name(calls[0].args[0].value, star) \
        and calls[0].args[1].star == "**" and is_name(calls[0].args[1].value, double)


def _follow(ctx: Context, function: cst.FunctionDef, name: str, group: Group, parents) -> bool:
    scope: Optional[Scope] = ctx.resolver.scopes.get(id(function))
    if scope is None or name in scope.globals or name in scope.nonlocals:
        return False
    found = reaching.reads(ctx, function, name, set(group.refs))
    if found is None:
        return False
    for node, bindings in found:
        planned = {token for token in bindings if token in group.refs}
        if not planned:
            continue
        call = parents.get(id(node))
        if len(planned) != len(bindings) or not (isinstance(call, cst.Call) and call.func is node):
            return False
        group.calls.append((call, frozenset(planned), _scope_of(ctx, call, parents)))  # type: ignore[arg-type]
    return bool(group.calls)


def _scope_of(ctx: Context, node: cst.CSTNode, parents) -> Scope:
    while id(node) not in ctx.resolver.scopes:
        node = parents[id(node)]
    return ctx.resolver.scopes[id(node)]


# -- converting the calls ------------------------------------------------------------------------
def _decide(ctx: Context, group: Group) -> bool:
    """Once per group: every reference can be renamed and every call converts, the same way for every
    API that may reach it (tried on the calls as written, with nothing the trial did kept)."""
    if group.decided is None:
        refs = [ref for refs in group.refs.values() for ref in refs]
        group.decided = "api_rename" in ctx.enabled and all(ctx.resolver.is_paddle_root(r.scope) for r in refs) \
            and all(_trial(ctx, group, call, bindings, scope) for call, bindings, scope in group.calls)
    return group.decided


def _sites(ctx: Context, group: Group, call: cst.Call, bindings: FrozenSet[int], scope: Scope) -> List[Site]:
    """A use site for the call as a call of each API that may reach it."""
    line, col = ctx.position_of(call)
    sites = []
    for token in sorted(bindings):
        for ref in group.refs[token]:
            entry = _entry(ctx, ref)
            if entry is not None and all(s.entry is not entry for s in sites):
                site = Site(call.func, entry.name, ref.bindings[0], scope, line, col, entry=entry)  # type: ignore[arg-type]
                site.call = call
                sites.append(site)
    return sites


def _convert(ctx: Context, site: Site, node: cst.Call) -> cst.Call:
    """The call's arguments as the steps convert a call of the site's API; its callee as it was."""
    refuse_static_layer_in_dygraph(ctx, site, site.call)  # type: ignore[arg-type]
    result: cst.BaseExpression = node
    for step in (args_to_kwargs, refactor_kwargs):
        if step.NAME in ctx.enabled:
            result = step.call(ctx, site, result)
    # A transformer that builds the final call names the 2.x function: the call keeps its own callee.
    if isinstance(result, cst.Call) and (result.func.deep_equals(node.func)
                                         or ctx.module.code_for_node(result.func) == site.entry.update_to):
        return result.with_changes(func=node.func)
    raise NeedsReview(f"a call through `{ctx.code(node.func)}` becomes another expression in 2.x")


def _trial(ctx: Context, group: Group, call: cst.Call, bindings: FrozenSet[int], scope: Scope) -> bool:
    kept = _Kept(ctx)
    texts = set()
    try:
        for site in _sites(ctx, group, call, bindings, scope):
            ctx.site = site
            texts.add(ctx.module.code_for_node(_convert(ctx, site, call)))
    except NeedsReview:
        return False
    finally:
        clean = kept.restore(ctx)
    return clean and len(texts) == 1


@dataclass
class _Kept:
    """What a trial conversion may change in the context, to be put back as it was."""

    ctx: Context
    findings: int = 0
    inserted: Tuple = ()
    other: Tuple = ()

    def __post_init__(self) -> None:
        ctx = self.ctx
        self.findings = len(ctx.findings)
        self.inserted = self._inserted(ctx)
        self.other = ([list(t) for t in ctx.todos], set(ctx.new_names), ctx.needs_paddle, ctx.static_graph,
                      dict(ctx.memo), ctx.site)

    @staticmethod
    def _inserted(ctx: Context) -> Tuple:
        return tuple({k: len(v) for k, v in edits.items() if v} for edits in (
            ctx.before, ctx.after, ctx.class_edits, ctx.block_edits)) + (set(ctx.replacements), set(ctx.imports))

    def restore(self, ctx: Context) -> bool:
        """Put the context back; False when the trial planned edits beyond the call."""
        clean = self._inserted(ctx) == self.inserted
        del ctx.findings[self.findings:]
        ctx.todos[:], ctx.new_names, ctx.needs_paddle, ctx.static_graph, memo, ctx.site = self.other
        ctx.memo.clear()
        ctx.memo.update(memo)
        return clean


def _converted_call(ctx: Context, group: Group, call: cst.Call, updated: cst.CSTNode) -> cst.CSTNode:
    """When the pass leaves a call through the name: its arguments converted, if the group's are."""
    if not _decide(ctx, group) or not isinstance(updated, cst.Call):
        return updated
    bindings, scope = next((b, s) for c, b, s in group.calls if c is call)
    site = _sites(ctx, group, call, bindings, scope)[0]
    before, ctx.site = ctx.site, site
    try:
        return _convert(ctx, site, updated)
    except NeedsReview as why:  # the trial converted the call as written; its converted arguments did not
        reason = f"{site.name} renamed where it is referenced, but this call through it was not converted: {why}"
        ctx.todo(reason, updated)
        ctx.report(None, F.NEEDS_REVIEW, "warning", reason, False, line=site.line, col=site.col, api=site.name)
        return updated
    finally:
        ctx.site = before
