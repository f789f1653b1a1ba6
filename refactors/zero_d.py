"""Full reductions are 0-D in 2.x: the reads that relied on 1.8's shape [1] become scalar reads.

1.8 returned a full reduction (`mean`, `reduce_sum`, `accuracy`, ...) with shape [1] (api_mapping/SEMANTICS.md
8); Paddle >= 2.5 returns the idiomatic 0-D result. The reduction is converted to its plain 2.x call, and
the reads that indexed the [1] become scalar reads, which work for both shapes:

    loss.numpy()[0]                                         -> loss.item()
    a, b = exe.run(prog, feed=f, fetch_list=[loss, acc])    (or fetch_list=[loss.name, ...])
    a[0]                                                    -> a.item()
    out[0][0]  (out = exe.run(..., fetch_list=[loss]))      -> out[0].item()
    total += loss.numpy(); ppl = np.exp(total / n); ppl[0]  -> ppl.item()

The value is followed through the code of the file, statement by statement (a name holds what its last
assignment gave it; after a branch or a loop, what every way through gave it): through `.numpy()`,
arithmetic with it, elementwise NumPy functions, `Executor.run` fetches, augmented assignments, and the
returns of the file's own functions and Layers (`pred, loss = model(x)` when `forward` returns the
reduction). An `x[0]` is rewritten only when every reduction its value comes from was converted to 0-D.
A result that leaves what the file shows (returned by a function the file never calls, stored on an
object) is reported.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from refactors.engine import Context, Site
from refactors.scopes import descendants, dotted

# The transformers whose results are 0-D in 2.x: full reductions (isfinite's too), and static learning-rate
# schedules (the program's rate variable that 1.8 code fetched).
PRODUCERS = ("full_reduce_shape1", "all_finite", "lr_decay_static")
_ZERO_D = "zero-d producers"  # ctx.memo key: ids of the original calls converted to a 0-D result
_UNSEEN = "zero-d unseen"  # ctx.memo key: id of an original call -> how its value leaves what the file shows

# NumPy functions that keep an array's shape: a [1] in, a [1] out (a 0-D one in 2.x).
_ELEMENTWISE = {"exp", "log", "log2", "log10", "log1p", "sqrt", "abs", "square", "array", "asarray", "copy",
                "negative", "float32", "float64"}
_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.Modulo)


@dataclass(frozen=True)
class Tensor:
    """A 0-D tensor in 2.x that was shape [1] in 1.8, made by these reduction calls (ids)."""
    made_by: FrozenSet[int]


@dataclass(frozen=True)
class Array:
    """Its NumPy value (`.numpy()`, or fetched by `Executor.run`), 0-D in 2.x, [1] in 1.8."""
    made_by: FrozenSet[int]


@dataclass(frozen=True)
class Fetched:
    """What `Executor.run` returned: position -> the Array at that position."""
    items: Tuple[Tuple[int, Array], ...]


@dataclass(frozen=True)
class Several:
    """A tuple of values (a function's `return a, b`), by position."""
    items: Tuple["Kind", ...]


@dataclass(frozen=True)
class Instance:
    """An object of a class of the file (its `forward` answers a call of it)."""
    cls: cst.ClassDef


Kind = Optional[Union[Tensor, Array, Fetched, Several, Instance]]
Env = Dict[str, Kind]


def produced(ctx: Context, site: Site) -> None:
    """Called by the transformer: this site's call now gives a 0-D result."""
    if site.call is None:
        return
    ctx.memo.setdefault(_ZERO_D, set()).add(id(site.call))  # type: ignore[union-attr]
    unseen = ctx.memo.get(_UNSEEN, {}).get(id(site.call))  # type: ignore[union-attr]
    if unseen is not None:
        ctx.report(site, "converted-note", "info",
                   f"{site.name}: its result is 0-D on Paddle >= 2.5 (shape [1] in 1.8) and {unseen}; where it "
                   f"is read with [0] (or its NumPy value, or its value fetched by Executor.run), read it "
                   f"with .item()", True)


def _converted(ctx: Context, made_by: Iterable[int]) -> bool:
    done = ctx.memo.get(_ZERO_D, ())
    return all(key in done for key in made_by)  # type: ignore[operator]


def plan(ctx: Context) -> None:
    """Before the pass: follow each reduction's result to the reads that index it."""
    producers = {id(ref.node) for ref in ctx.resolver.references.values() if _producer_ref(ctx, ref)}
    if not producers:
        return
    source = ctx.source
    if "[0]" in source:
        ctx.reads(ctx.module)  # the reads and the values' way there need not mention paddle
    elif "return" in source:
        ctx.reads(ctx.module, words=("return",))  # no read to rewrite: what leaves a function
    else:
        return
    _Flow(ctx, producers).run()


def _producer_ref(ctx: Context, ref) -> bool:
    matched = ctx.entry_of_chain(ctx.resolver.qualname(ref.dotted, ref.scope) or "")
    return matched is not None and matched[0].transformer in PRODUCERS and not matched[1]


class _Flow:
    """The file's functions, each read statement by statement with what each name holds."""

    def __init__(self, ctx: Context, producers: Iterable[int]) -> None:
        self.ctx = ctx
        self.producers = set(producers)  # ids of the callee chains of legacy reduction calls
        self.functions: Dict[str, cst.FunctionDef] = {}  # module-level functions by name
        self.classes: Dict[str, cst.ClassDef] = {}  # module-level classes by name
        self.returns: Dict[int, Kind] = {}  # id(function) -> what it returns
        self.called: set = set()  # ids of functions the file calls
        self.planned: set = set()  # ids of subscripts registered for rewriting
        self.stores: set = set()  # ids of subscripts written to (`x[0] = v`), which stay as they are
        self.recording = False

    def run(self) -> None:
        module = self.ctx.module
        for stmt in module.body:
            if isinstance(stmt, cst.FunctionDef):
                self.functions[stmt.name.value] = stmt
            elif isinstance(stmt, cst.ClassDef):
                self.classes[stmt.name.value] = stmt
        functions = list(self._all_functions())
        making = self._making(functions)
        for _ in range(2):  # what functions return, through the calls between them
            for function in making:
                self.returns[id(function)] = self._returned(function)
        self.recording = True
        for function in functions:
            self._block(function.body, {}, function)
        self._block(module.body, {}, None)
        for function in functions:
            kind = self.returns.get(id(function))
            if _made_by(kind) and id(function) not in self.called:
                for key in _made_by(kind):
                    self._unseen(key, f"is returned by {function.name.value}(), which this file does not call")

    def _all_functions(self) -> Iterator[cst.FunctionDef]:
        """The functions and methods of the file not nested in a function (those are read in place, where
        the names of the function around them are known)."""
        stack: List[cst.CSTNode] = list(self.ctx.module.body)
        while stack:
            node = stack.pop()
            if isinstance(node, cst.FunctionDef):
                yield node
            elif isinstance(node, cst.ClassDef):
                stack.extend(_body(node))
            elif isinstance(node, cst.BaseCompoundStatement):
                stack.extend(_inner(node))

    def _making(self, functions: List[cst.FunctionDef]) -> List[cst.FunctionDef]:
        """The functions with a reduction in their own code: only they can return one (one level: a
        function returning what another one returns is not followed)."""
        parents = self.ctx.resolver.parents
        inside = set()
        for key in self.producers:
            while key:
                inside.add(key)
                key = parents.get(key, 0)
        return [f for f in functions if id(f) in inside]

    def _returned(self, function: cst.FunctionDef) -> Kind:
        """What the function returns, when every `return` gives the same kind of value."""
        found: List[Kind] = []
        self._block(function.body, {}, function, found)
        return found[0] if found and all(k == found[0] for k in found) else None

    # -- statements ----------------------------------------------------------------------------------
    def _block(self, body, env: Env, function: Optional[cst.FunctionDef], returns: Optional[List[Kind]] = None) -> Env:
        for stmt in _statements(body):
            env = self._statement(stmt, env, function, returns)
        return env

    def _statement(self, stmt: cst.CSTNode, env: Env, function, returns) -> Env:
        if isinstance(stmt, cst.FunctionDef) and function is not None:  # a closure sees the names around it
            inner = {name: kind for name, kind in env.items() if name not in _parameters(stmt)}
            self._block(stmt.body, inner, stmt)
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            env = dict(env)
            env.pop(stmt.name.value, None)
            return env
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                env = self._small(small, env, returns)
            return env
        if isinstance(stmt, (cst.For, cst.While)):
            self._reads(stmt.iter if isinstance(stmt, cst.For) else stmt.test, env)
            start = dict(env)
            if isinstance(stmt, cst.For):
                _bind(start, stmt.target, None)
            once = self._block(stmt.body, dict(start), function, returns)
            if _join(start, once) != start:  # a name changed what it holds: what a second pass sees
                once = _join(once, self._block(stmt.body, _join(start, once), function, returns))
            after = _join(env, once)
            if stmt.orelse is not None:
                after = self._block(stmt.orelse.body, after, function, returns)
            return after
        if isinstance(stmt, cst.If):
            self._reads(stmt.test, env)
            then = self._block(stmt.body, dict(env), function, returns)
            other = self._statement(stmt.orelse, dict(env), function, returns) if isinstance(stmt.orelse, cst.If) \
                else self._block(stmt.orelse.body, dict(env), function, returns) if stmt.orelse is not None else env
            return _join(then, other)
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self._reads(item.item, env)
            return self._block(stmt.body, env, function, returns)
        if isinstance(stmt, cst.Match):  # like an `if` per case; a name its pattern binds is not followed
            self._reads(stmt.subject, env)
            merged, bound = env, set()
            for case in stmt.cases:
                bound |= _names(case.pattern)
                inner = {name: kind for name, kind in env.items() if name not in bound}
                self._reads(case.guard, inner)
                merged = _join(merged, self._block(case.body, inner, function, returns))
            return {name: kind for name, kind in merged.items() if name not in bound}
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            body = self._block(stmt.body, dict(env), function, returns)
            merged = _join(env, body)
            for handler in stmt.handlers:
                merged = _join(merged, self._block(handler.body, dict(merged), function, returns))
            if stmt.orelse is not None:
                merged = _join(merged, self._block(stmt.orelse.body, dict(body), function, returns))
            if stmt.finalbody is not None:
                merged = self._block(stmt.finalbody.body, merged, function, returns)
            return merged
        return {}  # a statement this reading does not follow: nothing is known after it

    def _small(self, small: cst.BaseSmallStatement, env: Env, returns: Optional[List[Kind]]) -> Env:
        env = dict(env)
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
            [small.target] if isinstance(small, (cst.AugAssign, cst.AnnAssign, cst.Del)) else []
        for target in targets:
            for node in _expressions(target):
                if isinstance(node, cst.Subscript):
                    self.stores.add(id(node))
        if isinstance(small, cst.Assign):
            value = self._kind(small.value, env)
            for target in small.targets:
                self._store(target.target, value, env)
            return env
        if isinstance(small, cst.AugAssign):
            value = self._binary(self._kind(small.target, env), self._kind(small.value, env), small.target, small.value)
            self._store(small.target, value, env)
            return env
        if isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self._store(small.target, self._kind(small.value, env), env)
            return env
        if isinstance(small, cst.Return):
            kind = self._kind(small.value, env) if small.value is not None else None
            if returns is not None:
                returns.append(kind)
            return env
        if isinstance(small, cst.Expr):
            self._kind(small.value, env)
            return env
        if isinstance(small, (cst.Global, cst.Nonlocal)):
            for name in small.names:
                env.pop(name.name.value, None)
            return env
        self._reads(small, env)
        return env

    def _store(self, target: cst.BaseExpression, value: Kind, env: Env) -> None:
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            self._reads(target, env)  # `a[b[0]] = v` reads b[0] (the store itself is in self.stores)
            if self.recording and _made_by(value):
                for key in _made_by(value):
                    self._unseen(key, "is stored on an object")
            return
        _bind(env, target, value)

    # -- expressions -----------------------------------------------------------------------------------
    def _reads(self, node: Optional[cst.CSTNode], env: Env) -> None:
        """Look at every expression in `node` for reads to rewrite (values are not kept)."""
        if node is not None and self.recording:
            for child in _expressions(node):
                if isinstance(child, cst.Subscript):
                    self._read(child, env)
                elif isinstance(child, cst.Call):
                    self._callee(child, env)

    def _kind(self, node: cst.BaseExpression, env: Env) -> Kind:
        if self.recording:
            self._reads(node, env)
        return self._value(node, env)

    def _value(self, node: cst.BaseExpression, env: Env) -> Kind:
        if isinstance(node, cst.Name):
            return env.get(node.value)
        if isinstance(node, cst.Call):
            return self._call(node, env)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _OPERATORS):
            return self._binary(self._value(node.left, env), self._value(node.right, env), node.left, node.right)
        if isinstance(node, cst.UnaryOperation):
            return _as_value(self._value(node.expression, env))
        if isinstance(node, cst.Subscript):
            position = _index(node)
            held = self._value(node.value, env)
            if isinstance(held, Fetched) and position is not None:
                return dict(held.items).get(position)
            if isinstance(held, Several) and position is not None and position < len(held.items):
                return held.items[position]
            return None
        if isinstance(node, cst.Tuple):
            return Several(tuple(self._value(e.value, env) for e in node.elements))
        return None

    def _binary(self, left: Kind, right: Kind, left_node, right_node) -> Kind:
        """A [1] value with numbers, or with another [1] value, stays one (broadcasting a [1] against a
        bigger array gives the same shape in both versions, so its reads need nothing)."""
        kinds = [k for k in (left, right) if isinstance(k, (Tensor, Array))]
        if not kinds:
            return None
        others = [n for n, k in ((left_node, left), (right_node, right)) if not isinstance(k, (Tensor, Array))]
        if any(not _scalar_like(n) for n in others):
            return None
        made_by = frozenset().union(*(k.made_by for k in kinds))
        return Array(made_by) if any(isinstance(k, Array) for k in kinds) else Tensor(made_by)

    def _call(self, call: cst.Call, env: Env) -> Kind:
        func = call.func
        if id(func) in self.producers:
            return Tensor(frozenset([id(call)]))
        if isinstance(func, cst.Attribute):
            held = self._value(func.value, env)
            name = func.attr.value
            if name == "numpy" and not call.args and isinstance(held, Tensor):
                return Array(held.made_by)
            if name == "astype" and isinstance(held, Array):
                return held
            if name == "run" and not isinstance(held, Instance):
                fetched = self._fetched(call, env)
                if fetched is not None:
                    return fetched
            if isinstance(held, Instance):
                return self._method(held.cls, name)
            chain = dotted(func) or ""
            if chain.split(".")[0] in ("np", "numpy") and chain.rsplit(".", 1)[-1] in _ELEMENTWISE and call.args:
                return _as_value(self._value(call.args[0].value, env))
            return None
        if isinstance(func, cst.Name):
            held = env.get(func.value)
            if isinstance(held, Instance):
                return self._method(held.cls, "forward")
            if func.value in self.classes:
                return Instance(self.classes[func.value])
            function = self.functions.get(func.value)
            if function is not None:
                self.called.add(id(function))
                return self.returns.get(id(function))
        return None

    def _callee(self, call: cst.Call, env: Env) -> None:
        """Note the file's functions that are called (for `_unseen`), wherever the call is."""
        if isinstance(call.func, cst.Name) and call.func.value in self.functions:
            self.called.add(id(self.functions[call.func.value]))
        elif isinstance(call.func, cst.Name) and isinstance(env.get(call.func.value), Instance):
            self._method(env[call.func.value].cls, "forward")  # type: ignore[union-attr]

    def _method(self, cls: cst.ClassDef, name: str) -> Kind:
        for stmt in _body(cls):
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                self.called.add(id(stmt))
                kind = self.returns.get(id(stmt))
                return kind
        return None

    def _fetched(self, call: cst.Call, env: Env) -> Optional[Fetched]:
        fetch = _fetch_list(call)
        if not isinstance(fetch, (cst.List, cst.Tuple)):
            return None
        items = []
        for i, element in enumerate(fetch.elements):
            value = element.value
            if isinstance(value, cst.Attribute) and value.attr.value == "name":
                value = value.value
            held = self._value(value, env) if not isinstance(element, cst.StarredElement) else None
            if isinstance(held, Tensor):
                items.append((i, Array(held.made_by)))
        return Fetched(tuple(items)) if items else None

    # -- reads -----------------------------------------------------------------------------------------
    def _read(self, node: cst.Subscript, env: Env) -> None:
        """`x[0]` of a value that was [1] in 1.8: `x.item()` (`t.numpy()[0]`: `t.item()`)."""
        if not self.recording or id(node) in self.planned or id(node) in self.stores or _index(node) != 0:
            return
        inner = node.value
        if isinstance(inner, cst.Call) and not inner.args and isinstance(inner.func, cst.Attribute) \
                and inner.func.attr.value == "numpy":
            held = self._value(inner.func.value, env)
            receiver_of = _receiver_of_numpy
            if not isinstance(held, Tensor):
                return
        else:
            held = self._value(inner, env)
            receiver_of = _same
            if not isinstance(held, Array):  # a tensor's [0] is a tensor in 1.8 too: left as it is
                return
        self.planned.add(id(node))
        ctx, made_by = self.ctx, held.made_by
        self.ctx.replace(node, lambda updated: _scalar(ctx, made_by, updated, receiver_of))

    def _unseen(self, key: int, how: str) -> None:
        self.ctx.memo.setdefault(_UNSEEN, {}).setdefault(key, how)  # type: ignore[union-attr]


def _scalar(ctx: Context, made_by: FrozenSet[int], updated: cst.Subscript, receiver_of) -> cst.BaseExpression:
    if not _converted(ctx, made_by):
        return updated
    return cst.Call(func=cst.Attribute(value=receiver_of(updated.value), attr=cst.Name("item")))


def _receiver_of_numpy(inner: cst.Call) -> cst.BaseExpression:
    return inner.func.value  # type: ignore[union-attr]


def _same(inner: cst.BaseExpression) -> cst.BaseExpression:
    return inner


# -- small helpers -------------------------------------------------------------------------------------

def _parameters(function: cst.FunctionDef) -> set:
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    names.update(p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param))
    return names


def _names(pattern: cst.CSTNode) -> Set[str]:
    """The names a `case` pattern may bind (every name in it, values' names too: more is safe)."""
    return {node.value for node in descendants(pattern) if isinstance(node, cst.Name)}


def _made_by(kind: Kind) -> FrozenSet[int]:
    if isinstance(kind, (Tensor, Array)):
        return kind.made_by
    if isinstance(kind, Several):
        return frozenset().union(*(_made_by(k) for k in kind.items))
    if isinstance(kind, Fetched):
        return frozenset().union(*(a.made_by for _, a in kind.items))
    return frozenset()


def _as_value(kind: Kind) -> Kind:
    """What an elementwise function or a sign gives: the same [1]-ness (a tensor stays a tensor)."""
    return kind if isinstance(kind, (Tensor, Array)) else None


def _scalar_like(node: cst.BaseExpression) -> bool:
    """A number, or a name or expression that is not a bigger array as far as this reading goes: a
    literal, a name, an attribute, a call (`len(x)`, `float(v)`), arithmetic of those."""
    return not isinstance(node, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp))


def _bind(env: Env, target: cst.BaseExpression, value: Kind) -> None:
    if isinstance(target, cst.Name):
        if value is None:
            env.pop(target.value, None)
        else:
            env[target.value] = value
    elif isinstance(target, (cst.Tuple, cst.List)):
        items: Sequence[Kind] = ()
        if isinstance(value, Several):
            items = value.items
        elif isinstance(value, Fetched):
            positions = dict(value.items)
            items = tuple(positions.get(i) for i in range(len(target.elements)))
        for i, element in enumerate(target.elements):
            if isinstance(element, cst.StarredElement):
                _bind(env, element.value, None)
            else:
                _bind(env, element.value, items[i] if i < len(items) else None)


def _join(a: Env, b: Env) -> Env:
    """What a name holds after two ways through: the same on both, or a [1] value and nothing else known
    about the other way (an accumulator that started as `0.0`)."""
    out: Env = {}
    for name in set(a) | set(b):
        x, y = a.get(name), b.get(name)
        if x == y:
            out[name] = x
        elif x is None or y is None:
            kept = x if x is not None else y
            if isinstance(kept, (Tensor, Array)):
                out[name] = kept
        elif isinstance(x, (Tensor, Array)) and type(x) is type(y):
            out[name] = type(x)(x.made_by | y.made_by)  # type: ignore[union-attr]
    return out


def _index(node: cst.Subscript) -> Optional[int]:
    """`i` for `x[i]` with a literal non-negative integer index, else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    return int(value.value) if isinstance(value, cst.Integer) and value.value.isdigit() else None


def _fetch_list(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The `fetch_list` of an `Executor.run(program, feed, fetch_list, ...)` call, else None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "fetch_list":
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[2].value if len(positional) > 2 else None


def _statements(body) -> List[cst.BaseStatement]:
    if isinstance(body, (list, tuple)):
        return list(body)
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return list(body.body)
    return []


def _body(node: cst.CSTNode) -> List[cst.BaseStatement]:
    return _statements(getattr(node, "body", None))


def _inner(stmt: cst.BaseCompoundStatement) -> List[cst.BaseStatement]:
    out = list(_body(stmt))
    for handler in getattr(stmt, "handlers", ()):
        out.extend(_body(handler))
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):
        out.append(orelse)
    elif orelse is not None:
        out.extend(_body(orelse))
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        out.extend(_body(final))
    return out


def _expressions(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes in `node`, not entering nested functions, classes or lambdas."""
    from refactors.scopes import children

    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(c for c in children(current) if not isinstance(c, (cst.FunctionDef, cst.ClassDef, cst.Lambda)))
