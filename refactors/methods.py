"""Methods and attributes of legacy objects: `opt.set_dict(d)` -> `opt.set_state_dict(d)`.

The table's class facts (`api_mapping/data/methods/`) say which 1.8 methods and attributes changed.
They apply to an object whose kind the file itself shows (`refactors.local_values`):

- a name bound once to what a 1.8 constructor or factory returns (`opt = fluid.optimizer.Adam(...)`,
  `prog = fluid.default_main_program()`), or to an instance of a class of the file derived from a 1.8
  class (`model = Net()` with `class Net(fluid.dygraph.Layer)`);
- `self.attr` assigned once in the methods of a class (`self.opt = fluid.optimizer.SGD(...)`);
- the call itself (`fluid.default_main_program().random_seed = 90`).

A method call is rewritten only when what made the object was converted (a 1.8 object the upgrade
left is served by runtime_shim with its 1.8 methods). Function parameters and other values are of
unknown kind: their calls of a changed method are left and reported. An attribute rule (`random_seed`,
whose 2.x form is `paddle.seed(v)`) applies in dynamic-graph code: inside a dygraph guard, or anywhere
in a file that builds no static graph.
"""
from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from api_mapping import ApiEntry, ClassFacts, Table
from refactors import call_args, returns, state_dicts, tree_index, used_as
from refactors.used_as import is_self, method_class
from refactors import findings as F
from refactors.engine import LEGACY_ROOT, Context, NeedsReview, Site, short_name
from refactors.local_values import all_statements, assigned_name, binding_statements, bound_once
from refactors.scopes import ImportBinding, Reference, Scope, descendants, dotted

_DEPTH = 4  # how many assignments a value is followed through


class _Kind:
    """What an expression holds: the class facts, and the nodes whose conversion made it a 2.x object
    (a call of a 1.8 API, or the 1.8 base of a class of the file; one per assignment of a name bound
    more than once). Without facts: a 2.x object (`paddle.nn.Linear(...)`, a class of the file derived
    from `paddle.nn.Layer`), whose methods are 2.x methods already."""

    def __init__(self, facts: Optional[ClassFacts], *makers: cst.CSTNode) -> None:
        self.facts, self.makers = facts, makers


_MODERN = _Kind(None)


def plan(ctx: Context) -> None:
    """Before the pass: find the uses of changed members, to rewrite them when the pass leaves them."""
    names = {m for facts in ctx.table.classes.values() for m in facts.members}
    source = ctx.source
    words = trigger_words(ctx.table, attributes=not ctx.static_file())
    if not names or not re.search(r"\b(?:%s)\b" % "|".join(map(re.escape, words)), source):
        return
    # Neither the objects nor the calls of their methods need mention paddle: the parts of the module
    # left unparsed (refactors.fast.partial_parse) are needed where they say a trigger word, and where
    # they bind what a receiver is (`_Kinds.of` looks it up).
    ctx.reads(ctx.module, words=words)
    kinds = _Kinds(ctx)
    for stmt in all_statements(ctx.module):
        found = _attribute_assignment(stmt)
        if found is not None:
            _plan_attribute(ctx, kinds, stmt, *found)
    for node in descendants(ctx.module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in names:
            _plan_method(ctx, kinds, node)


_TRIGGERS: Dict[Tuple[int, bool], Tuple[str, ...]] = {}


def trigger_words(table: Table, attributes: bool = True) -> Tuple[str, ...]:
    """Words without which no member use can change: a member whose 2.x name differs, or the argument
    a member renames or drops (`minimize` only changes with `parameter_list`); attribute rules only
    where dynamic-graph code may use them (`attributes`: outside dygraph guards, which stay parsed).
    The fast way keeps the statements that say one parsed (`refactors.keep`)."""
    key = (id(table), attributes)
    found = _TRIGGERS.get(key)
    if found is None:
        words = set()
        for facts in table.classes.values():
            for name, entry in facts.members.items():
                if entry.kind == "attribute":
                    if attributes:
                        words.add(name)
                    continue
                if entry.update_to != name or entry.no_equivalent is not None:
                    words.add(name)
                words.update(c.arg for c in entry.args_change if c.op in ("rename", "drop"))
        found = _TRIGGERS[key] = tuple(sorted(words))
    return found


# -- what an expression holds -----------------------------------------------------------------------

class _Kinds:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.values: Dict[Tuple[int, str], cst.BaseExpression] = {}  # (id(scope node), name) -> assigned value
        self.self_values: Dict[Tuple[int, str], List[Tuple[cst.BaseExpression, Scope]]] = {}  # per class
        self.classes: Dict[Tuple[int, str], cst.ClassDef] = {}  # (id(scope node), name) -> class of the file
        self._collect()

    def _collect(self) -> None:
        ctx = self.ctx
        for stmt in all_statements(ctx.module):
            found = assigned_name(stmt)
            if found is not None:
                scope = self._scope_of_value(found[1])
                if scope is not None and bound_once(scope, found[0]):
                    self.values[(id(scope.node), found[0])] = found[1]
            if isinstance(stmt, cst.ClassDef):
                self._collect_class(stmt)

    def _collect_class(self, cls: cst.ClassDef) -> None:
        """`self.attr = value` in the class's methods, and the class itself by its name."""
        scope = self._enclosing(cls)
        if scope is not None:
            self.classes[(id(scope.node), cls.name.value)] = cls
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        for method in body:
            if not isinstance(method, cst.FunctionDef) or not method.params.params:
                continue
            me = method.params.params[0].name.value
            method_scope = self.ctx.resolver.scopes.get(id(method))
            for stmt in all_statements(method):
                small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
                if not isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                    continue
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                for target in targets:
                    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                            and target.value.value == me and method_scope is not None:
                        value = small.value if isinstance(small, cst.Assign) and len(targets) == 1 else None
                        self.self_values.setdefault((id(cls), target.attr.value), []).append((value, method_scope))

    def _enclosing(self, cls: cst.ClassDef) -> Optional[Scope]:
        """The scope a class of the file is defined in (where its name is bound)."""
        body = self.ctx.resolver.scopes.get(id(cls))
        return body.parent if body is not None else None

    def scope_at(self, node: cst.BaseExpression) -> Optional[Scope]:
        """The scope of a chain (`a.b.c`, or `f().b.c` through its call)."""
        while True:
            ref = self.ctx.resolver.chains.get(id(node))
            if ref is not None:
                return ref.scope
            if isinstance(node, cst.Attribute):
                node = node.value
            elif isinstance(node, cst.Call):
                node = node.func
            else:
                return None

    def _scope_of_value(self, value: cst.BaseExpression) -> Optional[Scope]:
        for node in descendants(value):
            ref = self.ctx.resolver.chains.get(id(node))
            if ref is not None:
                return ref.scope
        return None

    def of(self, expr: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> Optional[_Kind]:
        if depth > _DEPTH or scope is None:
            return None
        ctx = self.ctx
        if isinstance(expr, cst.Call):
            ref = ctx.resolver.references.get(id(expr.func))
            if ref is not None:
                return self._made_by(ref, expr)
            cls = self._class_named(expr.func.value, scope) if isinstance(expr.func, cst.Name) else None
            if cls is not None:
                return self._of_class(cls)
            made = self._returned(expr, scope, None, depth)
            if made is not None:
                return made
            chain = dotted(expr.func)
            facts = tree_index.imported_class(ctx, chain, scope) if chain is not None else None
            return self._of_facts(facts)  # a class of another module
        if isinstance(expr, cst.Name):
            owner = _owner(scope, expr.value, ctx)
            if owner is None:
                return self._of_every_binding(expr.value, scope, depth)
            value = self.values.get((id(owner.node), expr.value))
            if value is None and is_self(owner, expr.value):
                cls = method_class(owner)
                return self._of_class(cls) if cls is not None else None
            if value is None:
                return self._of_every_binding(expr.value, scope, depth)  # `a, name = ...`
            return self.of(value, self._scope_of_value(value), depth + 1)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            cls = method_class(scope)
            if cls is None:
                return None
            ctx.reads(cls, words=(expr.attr.value,))
            assigned = self.self_values.get((id(cls), expr.attr.value), [])
            if len(assigned) == 1 and assigned[0][0] is not None:
                return self.of(assigned[0][0], assigned[0][1], depth + 1)
        return None

    def _of_every_binding(self, name: str, scope: Scope, depth: int) -> Optional[_Kind]:
        """A name bound more than once, or by unpacking a call of a function of the module (`net, opt =
        build()`), each time to a value of one kind (`opt = Adam(...)` on both branches of an `if`)."""
        owner = self.ctx.resolver.binding_scope(name, scope)
        found = binding_statements(owner, name) if owner is not None else None
        if not found or any(not isinstance(stmt, cst.Assign) for stmt, _ in found):
            return None
        kinds = [self.of(stmt.value, owner, depth + 1) if index is None  # type: ignore[attr-defined]
                 else self._returned(stmt.value, owner, index, depth) for stmt, index in found]  # type: ignore[attr-defined]
        return _one_kind(kinds)

    def _returned(self, call: cst.BaseExpression, scope: Scope, index: Optional[int], depth: int) -> Optional[_Kind]:
        """What a call of a function of the module returns (element `index` of its tuple), where every
        return agrees."""
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None
        found = returns.returned(self.ctx, scope, call.func.value, index)
        if found is None or depth > _DEPTH:
            return None
        inner, values = found
        return _one_kind([self.of(value, inner, depth + 1) if value is not None else None for value in values])

    def _of_facts(self, classified: Optional[str]) -> Optional[_Kind]:
        """The kind of a class of another module (`tree_index.classifier`): a 2.x one has 2.x methods."""
        if classified is None:
            return None
        facts = self.ctx.table.classes.get(classified)
        return _Kind(facts) if facts is not None else _MODERN

    def _class_named(self, name: str, scope: Scope) -> Optional[cst.ClassDef]:
        owner = _owner(scope, name, self.ctx)
        return self.classes.get((id(owner.node), name)) if owner is not None else None

    def _of_class(self, cls: cst.ClassDef, depth: int = 0) -> Optional[_Kind]:
        """The kind of a class of the file: its first base's (a paddle class, a class of the file, or a
        class another module of the tree defines)."""
        scope = self._enclosing(cls)
        for base in cls.bases:
            ref = self.ctx.resolver.references.get(id(base.value))
            if ref is not None:
                kind = self._made_by(ref, base.value)
            elif isinstance(base.value, cst.Name) and depth < _DEPTH and scope is not None:
                local = self._class_named(base.value.value, scope)
                kind = self._of_class(local, depth + 1) if local is not None and local is not cls else None
                if local is None:
                    facts = tree_index.imported_class(self.ctx, base.value.value, scope)
                    kind = self._of_facts(facts)
            else:
                chain = dotted(base.value)
                facts = tree_index.imported_class(self.ctx, chain, scope) if chain is not None else None
                kind = self._of_facts(facts)
            if kind is not None:
                return kind
        return None

    def _made_by(self, ref: Reference, maker: cst.CSTNode) -> Optional[_Kind]:
        """What a paddle name (a class, or a function called) makes."""
        qualname = self.ctx.resolver.qualname(ref.dotted, ref.scope) or ""
        if not qualname.startswith(LEGACY_ROOT + "."):
            return _MODERN if qualname.startswith("paddle.") else None
        matched = self.ctx.entry_of_chain(qualname)
        if matched is None or matched[1]:
            return None
        facts = self.ctx.table.class_facts(matched[0].name)
        return _Kind(facts, maker) if facts is not None else None


def _one_kind(kinds: List[Optional[_Kind]]) -> Optional[_Kind]:
    """The kind all of `kinds` are, with the makers of each; None unless they agree."""
    if not kinds or any(kind is None or kind.facts is not kinds[0].facts for kind in kinds):  # type: ignore[union-attr]
        return None
    return _Kind(kinds[0].facts, *(maker for kind in kinds for maker in kind.makers))  # type: ignore[union-attr]


def _owner(scope: Scope, name: str, ctx: Context) -> Optional[Scope]:
    """The scope whose binding of `name` a read in `scope` sees, when it binds it exactly once."""
    current = ctx.resolver.binding_scope(name, scope)
    return current if current is not None and bound_once(current, name) else None


# -- method calls -----------------------------------------------------------------------------------

def _plan_method(ctx: Context, kinds: _Kinds, call: cst.Call) -> None:
    attribute = call.func
    assert isinstance(attribute, cst.Attribute)
    scope = kinds.scope_at(attribute)
    kind = kinds.of(attribute.value, scope)
    if kind is None:
        if not _not_paddle(ctx, kinds, attribute.value, scope):
            _plan_unknown(ctx, call, scope)
        return
    member = kind.facts.members.get(attribute.attr.value) if kind.facts is not None else None
    if member is None or member.kind != "method":
        return
    ctx.track_position(attribute)
    ctx.replace(call, lambda updated: _method(ctx, kind, member, attribute, updated))


def _plan_unknown(ctx: Context, call: cst.Call, scope: Optional[Scope]) -> None:
    """A changed method called on an object of unknown kind: reported, and marked, where the call would
    change were the object a 1.8 one (`other.set_dict(d)`; not `opt.minimize(loss)`). Converted where
    every 1.8 class with that method takes the same 2.x call and the argument shows it is one of them
    (`state_dicts.loaded`)."""
    attribute = call.func
    assert isinstance(attribute, cst.Attribute)
    name = attribute.attr.value
    changing = {}
    for facts in ctx.table.classes.values():
        entry = facts.members.get(name)
        if entry is not None and entry.kind == "method" and _fits(entry, call):
            text = _changed_text(ctx, entry, call)
            if text is None:
                return  # right as it is for some 1.8 class (`clear_gradients()` of a Layer)
            changing[facts.name.rsplit(".", 1)[-1]] = (entry, text)
    if not changing:
        return
    ctx.track_position(attribute)
    known = _known_state_call(ctx, call, changing, scope) if len({t for _, t in changing.values()}) == 1 else None
    if known is not None:
        entry = min(changing.values(), key=lambda found: found[0].name)[0]
        ctx.replace(call, lambda updated: _state_method(ctx, entry, attribute, updated, None, known))
        return
    owners: Dict[str, List[str]] = {}
    for owner, (_, text) in sorted(changing.items()):
        owners.setdefault(text, []).append(owner)
    why = (f".{name}() of an object whose kind is not known here: if it is a 1.8 "
           + "; if a 1.8 ".join(f"{' or '.join(who)}, write {text}" for text, who in owners.items()))
    entry = min(changing.values(), key=lambda found: found[0].name)[0]

    def mark(updated: cst.Call) -> cst.Call:
        line, col = ctx.position_of(attribute)
        ctx.report(None, F.NEEDS_REVIEW, "warning", f"{entry.name}: {why}", False, line=line, col=col,
                   api=entry.name)
        ctx.todo(why, updated)
        return updated
    ctx.replace(call, mark)


def _not_paddle(ctx: Context, kinds: _Kinds, receiver: cst.BaseExpression, scope: Optional[Scope]) -> bool:
    """The receiver is no 1.8 object: a module imported by name (`reader.load_dict(path)`), or a plain
    class (based on `object` alone) of the file or of another module of the tree (`reader.DataReader`),
    an instance of one, or `self` in its methods."""
    chain = dotted(receiver)
    if chain is not None and scope is not None and tree_index.plain_class(ctx, chain, scope):
        return True
    if not isinstance(receiver, cst.Name) or scope is None:
        return False
    owner = ctx.resolver.binding_scope(receiver.value, scope)
    found = binding_statements(owner, receiver.value) if owner is not None else None
    if found and all(isinstance(stmt, cst.Import) for stmt, _ in found):
        return ctx.resolver.binding(receiver.value, scope) is None  # not a paddle module
    cls = kinds._class_named(receiver.value, scope)
    if cls is None and found and len(found) == 1 and found[0][1] is None and isinstance(found[0][0], cst.Assign):
        value = found[0][0].value  # (not `from m import name`: no value; AugAssign, AnnAssign: not one)
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            cls = kinds._class_named(value.func.value, owner)  # type: ignore[arg-type]
        made_by = dotted(value.func) if cls is None and isinstance(value, cst.Call) else None
        if made_by is not None and tree_index.plain_class(ctx, made_by, owner):
            return True
    if cls is None and owner is scope and is_self(scope, receiver.value):
        cls = method_class(scope)
    return cls is not None and not cls.keywords and all(
        isinstance(b.value, cst.Name) and b.value.value == "object" for b in cls.bases)


_USED_AS = {used_as.LAYER: "Layer", used_as.OPTIMIZER: "Optimizer"}  # the table's class facts, by short name


def _known_state_call(ctx: Context, call: cst.Call, changing: Dict[str, Tuple[ApiEntry, str]],
                      scope: Optional[Scope]) -> Optional[str]:
    """Why the call is one of a 1.8 class that has the method, when the file shows it (None: it does
    not): the method takes a state dict in 2.x (`set_state_dict`) for every such class, the file
    defines no method of that name of its own, and the call passes a state dict loaded from a file
    (`state_dicts.loaded`) or one of a Layer's parameters written out (`{"weight": w}`), or the receiver is
    used as an object of one such class (`used_as.kind_by_use`)."""
    name = call.func.attr.value  # type: ignore[attr-defined]
    if any(entry.update_to != "set_state_dict" for entry, _ in changing.values()) \
            or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    if any(isinstance(stmt, cst.FunctionDef) and stmt.name.value == name for stmt in all_statements(ctx.module)):
        return None
    if state_dicts.loaded(ctx, call.args[0].value, scope):
        return "the argument is a loaded state dict: a Layer's and an optimizer's take the same 2.x call"
    if state_dicts.parameters_by_name(call.args[0].value):
        return "the argument names a Layer's parameters"
    used = used_as.kind_by_use(ctx, call.func.value, scope)  # type: ignore[attr-defined]
    if used is not None and _USED_AS[used] in changing:
        return f"the object is used as a 1.8 {_USED_AS[used]} in its scope"
    return None


def _state_method(ctx: Context, entry: ApiEntry, attribute: cst.Attribute, node: cst.Call,
                  site: Optional[Site], why: str) -> cst.BaseExpression:
    """`x.set_dict(state)` of a Layer or an optimizer, whichever `x` is, converted or served by the shim:
    each has `set_state_dict`."""
    site = site or _site(ctx, None, entry, attribute)
    new = _converted_call(ctx, entry, node)
    site.converted = True
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{entry.name} -> .{entry.update_to} ({why})", True)
    return new


def _converts(ctx: Context, entry: ApiEntry, node: cst.Call) -> bool:
    try:
        _converted_call(ctx, entry, node)
    except NeedsReview:
        return False
    return True


def _fits(entry: ApiEntry, call: cst.Call) -> bool:
    """The call's keywords are parameters of this method (`include_sublayers=` is no optimizer's)."""
    params = {p.name for p in entry.args_list or () if not p.star}
    return any(p.star == "**" for p in entry.args_list or ()) \
        or all(a.keyword is None or a.keyword.value in params for a in call.args)


def _changed_text(ctx: Context, entry: ApiEntry, call: cst.Call) -> Optional[str]:
    """What to write instead, were the call one of this method (None: it is right as it is)."""
    if entry.no_equivalent is not None:
        return entry.no_equivalent.suggest
    try:
        new = _converted_call(ctx, entry, call)
    except NeedsReview as why:
        return str(why)
    before = {a.keyword.value for a in call.args if a.keyword is not None}
    after = {a.keyword.value for a in new.args if a.keyword is not None}
    renamed = [f"{c.to}= for {c.arg}=" for c in entry.args_change if c.op == "rename" and c.arg in before - after]
    name = new.func.attr.value if isinstance(new.func, cst.Attribute) else None
    if name == entry.name.rsplit(".", 1)[-1] and not renamed and len(new.args) == len(call.args):
        return None
    return f".{name}(...)" + (f" with {', '.join(renamed)}" if renamed else "")


def _method(ctx: Context, kind: _Kind, entry: ApiEntry, attribute: cst.Attribute, node: cst.Call) -> cst.BaseExpression:
    site = _site(ctx, kind, entry, attribute)
    if any(_pending(ctx, maker) for maker in kind.makers):
        if entry.update_to == "set_state_dict" and _converts(ctx, entry, node):
            return _state_method(ctx, entry, attribute, node, site, "the name is bound again below: converted "
                                 "there or served by the shim, the object has it")
        why = f".{attribute.attr.value}() of an object made below this call, whose conversion is not known here yet"
        ctx.todo(why, node)
        site.finding = ctx.report(site, F.NEEDS_REVIEW, "warning", f"{entry.name}: {why}", False)
        return node
    if not all(ctx.was_converted(maker) for maker in kind.makers):
        ctx.sites.remove(site)
        return node  # a 1.8 object runtime_shim serves, with its 1.8 methods
    if entry.no_equivalent is not None:
        ctx.todo(f"{short_name(entry.name)}: no 2.x equivalent", node)
        site.finding = ctx.report(site, F.NO_EQUIVALENT, "warning",
                                  f"{entry.name} has no 2.x equivalent ({entry.no_equivalent.reason}); "
                                  f"instead: {entry.no_equivalent.suggest}", False)
        return node
    try:
        new = _transformed(ctx, site, entry, node)
        if site.converted:
            site.finding = ctx.report(site, F.CONVERTED, "info", f"{entry.name} -> {ctx.code(new).strip()}", True)
            return new
        new = _converted_call(ctx, entry, node)
    except NeedsReview as why:
        ctx.todo(str(why), node)
        site.finding = ctx.report(site, F.NEEDS_REVIEW, "warning", f"{entry.name}: {why}", False)
        return node
    site.converted = True
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{entry.name} -> .{entry.update_to}", True)
    if entry.warning:
        ctx.report(site, "api-warning", "warning", f"{entry.name}: {entry.warning}", True)
    return new


def _transformed(ctx: Context, site: Site, entry: ApiEntry, node: cst.Call) -> cst.BaseExpression:
    """What the method's named transformer makes of the call (the call itself when it leaves it)."""
    if entry.transformer is None:
        return node
    from refactors.transformers import REGISTRY  # that package imports the engine's steps

    return REGISTRY[entry.transformer](ctx, site, node)


def _pending(ctx: Context, maker: cst.CSTNode) -> bool:
    """The use site that makes the object comes later in the module: the pass has not decided it yet."""
    site = ctx.by_node.get(id(maker.func) if isinstance(maker, cst.Call) else id(maker))
    return site is None or site.finding is None and not site.converted


def _converted_call(ctx: Context, entry: ApiEntry, node: cst.Call) -> cst.Call:
    """The call with the method's argument changes applied and the 2.x method name."""
    from refactors.refactor_kwargs import apply_changes  # that module imports the step list

    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs; map the arguments by hand")
    params = [p.name for p in entry.args_list or () if not p.star]
    dropped = {c.arg for c in entry.args_change if c.op == "drop"}
    args, positional = list(node.args), 0
    for i, arg in enumerate(args):  # positions hold in 2.x up to the first dropped parameter
        if arg.keyword is not None:
            continue
        if positional >= len(params):
            raise NeedsReview(f"more positional arguments than the 1.8 signature of {entry.name} has")
        if dropped & set(params[:positional + 1]):
            args[i] = call_args.as_keyword(arg, params[positional])
        positional += 1
    node = apply_changes(ctx, entry, node.with_changes(args=args))
    if entry.update_to and isinstance(node.func, cst.Attribute) and node.func.attr.value != entry.update_to:
        node = node.with_changes(func=node.func.with_changes(attr=cst.Name(entry.update_to)))
    return node


def _site(ctx: Context, kind: Optional[_Kind], entry: ApiEntry, node: cst.CSTNode) -> Site:
    """A use site for the report: the member of an object (no import binds it)."""
    line, col = ctx.position_of(node)
    site = Site(node, entry.name, ImportBinding("", kind.facts.name if kind else "", None, None, False),  # type: ignore[arg-type]
                ctx.resolver.module_scope, line, col, entry=entry, member=True)
    ctx.sites.append(site)
    return site


# -- attribute assignments --------------------------------------------------------------------------

def _attribute_assignment(stmt: cst.CSTNode) -> Optional[Tuple[cst.Attribute, cst.BaseExpression]]:
    """(target, value) for the statement `obj.attr = value`."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Attribute):
        return small.targets[0].target, small.value
    return None


def _plan_attribute(ctx: Context, kinds: _Kinds, stmt: cst.SimpleStatementLine, target: cst.Attribute,
                    value: cst.BaseExpression) -> None:
    if ctx.static_file() and not ctx.in_dygraph_guard(stmt):
        return  # static-graph code: the program's own seed is what 2.x reads too
    if not any(target.attr.value in facts.members for facts in ctx.table.classes.values()):
        return
    kind = kinds.of(target.value, kinds.scope_at(target))
    member = kind.facts.members.get(target.attr.value) if kind is not None and kind.facts is not None else None
    if kind is None or member is None or member.kind != "attribute" or member.update_to is None:
        return
    ctx.track_position(target)
    ctx.replace(stmt, lambda updated: _attribute(ctx, kind, member, target, updated))


def _attribute(ctx: Context, kind: _Kind, entry: ApiEntry, target: cst.Attribute,
               stmt: cst.SimpleStatementLine) -> cst.BaseStatement:
    small = stmt.body[0]
    assert isinstance(small, cst.Assign) and entry.update_to is not None
    site = _site(ctx, kind, entry, target)
    site.converted = True
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{entry.name} = ... -> {entry.update_to}(...)", True)
    call = cst.Call(func=ctx.name_node(entry.update_to), args=[cst.Arg(small.value)])
    return stmt.with_changes(body=[cst.Expr(call, semicolon=small.semicolon)])
