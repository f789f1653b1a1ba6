"""Generated Python files with paddle 1.8 use sites in every syntactic position (tools/fuzz.py runs them).

`source(seed)` is one file, the same for a seed on every run and machine: imports of paddle in their
usual and unusual forms (aliases, `from` imports, non-ASCII aliases), then module-level statements,
functions, classes, blocks and expressions nested a few levels deep, each position holding use sites
of APIs the table converts, leaves, or does not know. The positions: lambda bodies and defaults,
comprehensions, decorators and their arguments, parameter defaults (keyword-only and positional-only
too), `*args`/`**kwargs`, f-strings (3.12 nesting on 3.12), walrus, `match`, `async def`/`with`/`for`/
`await`, `try`/`except*`, `global`/`nonlocal`, annotations (PEP 695 generics on 3.12), conditional
expressions, slices, starred targets, calls over several lines with comments between the arguments,
trailing commas, backslash continuations, semicolons, docstrings, nested classes and functions, very
long lines and non-ASCII names; each file is indented with spaces or tabs and ends its lines with LF
or CRLF. Every file parses (CPython's own parser, the version running this).
"""
from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from typing import Callable, List, Tuple

PY312 = sys.version_info >= (3, 12)

# (how a file imports paddle, the prefixes it gives: layers, dygraph, fluid root)
IMPORTS: List[Tuple[str, Tuple[str, ...], Tuple[str, ...], Tuple[str, ...]]] = [
    ("import paddle.fluid as fluid", ("fluid.layers.",), ("fluid.dygraph.",), ("fluid.",)),
    ("import paddle.fluid as fluid", ("fluid.layers.", "\uff46luid.layers."), ("fluid.dygraph.",), ("fluid.",)),
    ("import paddle.fluid as 飞桨", ("飞桨.layers.",), ("飞桨.dygraph.",), ("飞桨.",)),
    ("from paddle.fluid import layers", ("layers.",), (), ()),
    ("import paddle.fluid.layers as L", ("L.",), (), ()),
    ("import paddle\nimport paddle.fluid", ("paddle.fluid.layers.",), ("paddle.fluid.dygraph.",), ("paddle.fluid.",)),
    ("from paddle import fluid", ("fluid.layers.",), ("fluid.dygraph.",), ("fluid.",)),
    ("from paddle.fluid import dygraph, layers as 层", ("层.",), ("dygraph.",), ()),
]

# Calls whose arguments hold sub-expressions (`{}`): converted, converted by a transformer, left, unknown.
LAYERS = [
    "relu({})", "scale({}, scale=2.0)", "reduce_sum({}, dim=1, keep_dim=True)", "matmul({}, {}, transpose_y=True)",
    "elementwise_add({}, {}, axis=1)", "concat([{}, {}], axis=0)", "mean({})", "dropout({}, dropout_prob=0.5)",
    "shape({})", "lod_reset({})", "data(name='x', shape=[3], dtype='float32')", "fc(input={}, size=3, act='relu')",
    "softmax_with_cross_entropy(logits={}, label={})", "pool2d({}, pool_size=2, pool_type='max')",
    "one_hot({}, depth=3)", "argsort({})", "cos_sim({}, {})", "reshape({}, shape=[-1, 3])", "split({}, 2)",
    "fill_constant(shape=[1], dtype='int64', value=0)", "cond({}, lambda: {}, lambda: {})",
    "while_loop(lambda i: i < 3, lambda i: [i + 1], [{}])", "case([({}, lambda: {})], default=lambda: {})",
    "switch_case({}, {{0: lambda: {}}})", "pad2d({}, paddings=[1, 1, 1, 1])", "sequence_pool({}, 'sum')",
    "accuracy(input={}, label={})", "exponential_decay(learning_rate=0.1, decay_steps=10, decay_rate=0.5)",
    "no_such_layer({})", "relu(*{})", "fc(**{})", "leaky_relu({}, 0.1)", "transpose({}, perm=[1, 0])",
    "embedding({}, size=[10, 3])", "sigmoid(x={},)", "reduce_mean({})", "elementwise_mul({}, {})",
]
DYGRAPH = ["to_variable({})", "Linear(3, 4, act='relu')", "Linear(3, 4)", "Conv2D(3, 8, 3, act='relu')",
           "save_dygraph({}.state_dict(), 'model')", "load_dygraph('model')", "guard()", "no_grad()",
           "Embedding(size=[10, 3])", "BatchNorm(3, act='relu')", "Pool2D(2, 'max')"]
ROOT = ["CPUPlace()", "ParamAttr(name='w')", "initializer.Xavier()", "initializer.MSRA(uniform=False)",
        "Executor({})", "default_main_program()", "optimizer.SGD(learning_rate={})", "layers", "dygraph.Layer",
        "program_guard({}, {})", "unique_name.guard()", "CUDAPlace(0)"]
ATOMS = ["x", "y", "a", "1", "2.0", "'s'", "[1, 2]", "x.shape", "x[0]", "None", "True", "-1", "(x)", "数据",
         "café", "x + y", "42", "b'\\x00'", "{'k': x}", "x.numpy()[0]"]
COMMENTS = ["# a comment", "# ünïcödé comment", "# fluid.layers.relu(x) in a comment", "# TODO: later"]


@dataclass
class _Scope:
    """Where the statement being generated is: what it may say."""

    function: bool = False
    is_async: bool = False
    loop: bool = False
    names: List[str] = field(default_factory=list)  # names the enclosing function binds (for `nonlocal`)


class _Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        style = self.r.choice(IMPORTS)
        extra = self.r.sample(IMPORTS, self.r.randint(0, 2))
        self.imports = [style[0]] + [e[0] for e in extra]
        self.layers = style[1] + sum((e[1] for e in extra), ())
        self.dygraph = style[2] + sum((e[2] for e in extra), ())
        self.root = style[3] + sum((e[3] for e in extra), ())
        if self.r.random() < 0.3:
            self.imports.append("from paddle.fluid.dygraph import Linear, to_variable as tv")
            self.dygraph += ("",)
        if self.r.random() < 0.2:
            self.imports.append("from paddle.fluid.layers import relu as 激活")
        self.unit = self.r.choice(["    ", "    ", "  ", "\t"])
        self.counter = 0
        self.in_fstring = False

    # -- expressions ---------------------------------------------------------------------------
    def api(self, depth: int) -> str:
        """A use site: a call (or a bare reference) of an API through one of the file's imports."""
        r = self.r
        kinds: List[Tuple[Tuple[str, ...], List[str]]] = [(self.layers, LAYERS)]
        if self.dygraph:
            kinds.append((self.dygraph, DYGRAPH))
        if self.root:
            kinds.append((self.root, ROOT))
        if "激活" in self.imports[-1] and r.random() < 0.1:
            return f"激活({self.expr(depth - 1)})"
        prefixes, templates = r.choice(kinds)
        template = r.choice(templates)
        args = [self.expr(depth - 1) for _ in range(template.count("{}"))]
        if template.startswith("save_dygraph"):
            args = [self.receiver(a) for a in args]
        call = r.choice(prefixes) + template.format(*args)
        return self.spread(call) if r.random() < 0.15 and "(" in call else call

    @staticmethod
    def receiver(text: str) -> str:
        """`text` as the object of an attribute: `(1).x`, since `1.x` does not parse."""
        return f"({text})" if text.lstrip("-").isdigit() else text

    def expr(self, depth: int) -> str:
        """An expression; inside an f-string before 3.12 one that may stand there (no quotes of its
        kind, backslashes, comments or line breaks), in parentheses (a lambda's colon)."""
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            atom = r.choice(ATOMS) if r.random() < 0.7 else self.api(0)
            return "x" if self.in_fstring and "\\" in atom else atom
        choice = r.randrange(17)
        if self.in_fstring and choice in (10, 13):
            choice = 0
        e = lambda: self.expr(depth - 1)  # noqa: E731
        if choice < 6:
            return self.api(depth)
        if choice == 6:
            return "(" + r.choice([f"lambda: {e()}", f"lambda a={e()}: a", f"lambda *a, **k: {e()}",
                                   f"lambda a, /, b=1, *, c={e()}: {e()}"]) + ")"
        if choice == 7:
            return r.choice([f"[{e()} for i in range(3)]", f"{{i: {e()} for i in x}}", f"({e()} for i in x if {e()})",
                             f"{{{e()} for i in x}}", f"[j for i in {e()} for j in i]"])
        if choice == 8:
            return f"({e()} if {e()} else {e()})"
        if choice == 9:
            return f"(z := {e()})"
        if choice == 10:
            self.in_fstring = not PY312  # 3.12 lets an f-string hold any expression, f-strings too
            options = [f'f"{{ ({e()}) }}"', f'f"{{x!r:>{{({e()})}}}} and {{ ({e()}) }}"', f'f"{{ ({e()}) = }}"']
            if PY312:
                options.append(f'f"{{f"{{ ({e()}) }}"}}"')
            self.in_fstring = False
            return r.choice(options)
        if choice == 11:
            return r.choice([f"{e()}[1:2]", f"x[{e()}:]", f"x[::{e()}]", f"x[{e()}, ...]"])
        if choice == 12:
            return r.choice([f"print({e()}, *{e()}, **{{'a': {e()}}})", f"len({e()})", f"({e()}).shape",
                             f"(not {e()})", f"(-{e()})", f"({e()} * {e()})", f"{self.receiver(e())}.numpy()[0]"])
        if choice == 13:  # a call over several lines, comments between the arguments, a trailing comma
            inner = self.indent(1)
            return (f"{r.choice(self.layers)}fc(\n{inner}input={e()},  {self.comment()}\n{inner}{self.comment()}\n"
                    f"{inner}size=3,\n{inner}act='relu',  {self.comment()}\n)")
        if choice == 14:  # a very long line
            return f"{r.choice(self.layers)}concat([" + ", ".join(e() for _ in range(r.randint(15, 30))) + "], axis=0)"
        if choice == 15:
            return f"({e()},)"
        return f"{self.receiver(e())}.astype('float32')"

    def indent(self, level: int) -> str:
        return self.unit * level

    def comment(self) -> str:
        """A comment no other in the file equals (so that a lost or moved one is seen)."""
        self.counter += 1
        return f"{self.r.choice(COMMENTS)} {self.counter}"

    def spread(self, call: str) -> str:
        """`f(a, b=1)` over several lines, a comment after each argument (the call's own comma kept)."""
        start = call.index("(")
        if not call.endswith(")") or self.in_fstring:
            return call
        parts, depth, quote, at = [], 0, "", start + 1
        for index in range(start + 1, len(call) - 1):
            char = call[index]
            if quote:
                quote = "" if char == quote and call[index - 1] != "\\" else quote
            elif char in "'\"":
                quote = char
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            elif char == "," and depth == 0:
                parts.append(call[at:index].strip())
                at = index + 1
        last = call[at:-1].strip()
        if last:
            parts.append(last)
        if not parts:
            return call
        inner = self.indent(1)
        lines = [f"{inner}{part},  {self.comment()}" for part in parts]
        if self.r.random() < 0.5:  # no trailing comma: the last comment after the argument itself
            lines[-1] = f"{inner}{parts[-1]}  {self.comment()}"
        if self.r.random() < 0.3:
            lines.insert(self.r.randrange(len(lines) + 1), f"{inner}{self.comment()}")
        return call[:start + 1] + "\n" + "\n".join(lines) + "\n)"

    # -- statements ----------------------------------------------------------------------------
    def name(self) -> str:
        self.counter += 1
        return self.r.choice(["v", "out", "数据", "café", "loss", "h"]) + str(self.counter)

    def simple(self, scope: _Scope) -> List[str]:
        r = self.r
        e = lambda: self.expr(r.randint(1, 3))  # noqa: E731
        n = self.name()
        binding: List[Callable[[], List[str]]] = [  # statements that bind `n`
            lambda: [f"{n} = {e()}"],
            lambda: [f"{n}: {r.choice(self.root or self.layers)}Variable = {e()}"],
            lambda: [f"{n}, *rest = {e()}"],
            lambda: [f"a = 1; {n} = {e()}; b = 2"],
            lambda: [f"{n} = {e()};  {self.comment()}"],
            lambda: [f"{n} = \\", f"{self.unit}{e()}"],
            lambda: [f"{n} = {e()}  {self.comment()}"],
            lambda: [f"{n} = x", "x = 1", "y = [1,", "     2]"],  # with cold statements
            lambda: [f"{n} = {e()}", f"del {n}"],
            lambda: [f"{n} = {e()}", f"del {n}[0], x"],
        ]
        other: List[Callable[[], List[str]]] = [
            lambda: [f"{e()}"],
            lambda: [self.comment()],
            lambda: [""],
            lambda: ["pass"],
            lambda: [f"loss = {r.choice(self.layers)}mean({e()})", "print(loss.numpy()[0])"],
            lambda: [f"assert {e()}, {e()}"],
        ]
        if scope.function:
            other += [lambda: [f"return {e()}"], lambda: [f"return w * h;  {self.comment()}"]]
        if scope.is_async:
            binding.append(lambda: [f"{n} = await ({e()})"])
        if scope.loop:
            other.append(lambda: ["break"])
        if r.random() < 0.5:
            scope.names.append(n)
            return r.choice(binding)()
        return r.choice(other)()

    def block(self, scope: _Scope, depth: int, size: int = 0) -> List[str]:
        lines: List[str] = []
        if self.r.random() < 0.2:
            lines.append('"""A docstring."""')
        for _ in range(size or self.r.randint(1, 4)):
            stmt = self.compound(scope, depth) if depth > 0 and self.r.random() < 0.35 else self.simple(scope)
            lines += stmt
            if stmt and stmt[0].startswith(("return", "break")):
                break
        if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            lines.append("pass")
        return lines

    def nested(self, header: str, body: List[str]) -> List[str]:
        """A compound statement's clause; its header has a comment now and then, and so has the line
        before it."""
        before = [self.comment()] if self.r.random() < 0.1 else []
        if self.r.random() < 0.2:
            header += "  " + self.comment()
        return before + [header] + [self.unit + line if line else line for line in body]

    def compound(self, scope: _Scope, depth: int) -> List[str]:
        r = self.r
        e = lambda: self.expr(r.randint(1, 2))  # noqa: E731
        inner = lambda **kw: self.block(_Scope(**{**scope.__dict__, "names": list(scope.names), **kw}),  # noqa: E731
                                         depth - 1)
        kind = r.randrange(16)
        if kind == 3:
            star = r.random() < 0.3  # `break`, `continue` and `return` may not stand in an except* block
            handler = "except* ValueError:" if star else "except (ValueError, KeyError) as err:"
            out = self.nested("try:", inner()) + self.nested(handler, inner(loop=False, function=False) if star
                                                            else inner())
            return out + (self.nested("finally:", inner()) if r.random() < 0.4 else [])
        if kind == 0:
            out = self.nested(f"if {e()}:", inner())
            if r.random() < 0.5:
                out += self.nested(f"elif {e()}:", inner())
            return out + (self.nested("else:", inner()) if r.random() < 0.5 else [])
        if kind == 1:
            return self.nested(f"for i in {e()}:", inner(loop=True)) + \
                (self.nested("else:", inner()) if r.random() < 0.3 else [])
        if kind == 2:
            return self.nested(f"while {e()}:", inner(loop=True) + ["break"])
        if kind == 4:
            guard = r.choice([f"{p}guard()" for p in self.dygraph if p] + [f"{p}program_guard(a, b)" for p in self.root]
                             + [f"open({e()}) as fh"])
            return self.nested(f"with {guard}:", inner())
        if kind in (5, 6, 7):
            return self.function(scope, depth)
        if kind == 8:
            return self.klass(scope, depth)
        if kind == 9:
            cases = self.nested("case [a, *rest] if rest:", inner()) + self.nested("case {'k': v, **kw}:", inner()) \
                + self.nested("case _:", inner())
            return self.nested(f"match {e()}:", cases)
        if kind == 10 and scope.is_async:
            return self.nested(f"async with {e()} as m:", inner()) + self.nested(f"async for i in {e()}:",
                                                                               inner(loop=True))
        if kind == 11 and scope.function:
            name = f"g{self.counter}"
            self.counter += 1
            return [f"global {name}", f"{name} = {e()}"]
        if kind == 12 and scope.function and scope.names:
            target = r.choice(scope.names)
            return self.nested("def inner():", [f"nonlocal {target}", f"{target} = {e()}", f"return {target}"])
        if kind == 13 and PY312:
            return r.choice([[f"type Alias{self.counter} = {e()}"],
                             self.nested(f"def generic[T](v: T) -> T:", [f"return {e()}"]),
                             self.nested("class Box[T]:", [f"item: T = {e()}"])])
        if kind == 14:  # an optimizer stepped in a loop: learning-rate schedules read the scope
            p = r.choice(self.layers)
            opt = r.choice(self.root) + "optimizer.SGD" if self.root else "SGD"
            return [f"lr = {p}exponential_decay(learning_rate=0.1, decay_steps=10, decay_rate=0.5)",
                    f"opt = {opt}(learning_rate=lr)"] + self.nested("for batch in data:", ["opt.minimize(loss)"])
        return self.simple(scope)

    def params(self) -> Tuple[str, List[str]]:
        """A parameter list, and the names it binds."""
        e = lambda: self.expr(1)  # noqa: E731
        return self.r.choice([("", []), ("x", ["x"]), ("x, y", ["x", "y"]),
                              (f"x, /, y={e()}, *args, z={e()}, **kwargs", ["x", "y", "args", "z", "kwargs"]),
                              (f"*, k={e()}", ["k"]), (f"a: {self.r.choice(self.layers)}Variable = {e()}", ["a"]),
                              ("*args, **kwargs", ["args", "kwargs"]), (f"x, y={e()}, *, w=1, h", ["x", "y", "w", "h"])])

    def function(self, scope: _Scope, depth: int) -> List[str]:
        r = self.r
        is_async = r.random() < 0.2
        decorators = [r.choice([f"@{p}no_grad" for p in self.dygraph if p] + [f"@{p}no_grad()" for p in self.dygraph if p]
                               + [f"@decorate({self.expr(1)})", "@staticmethod"])] if r.random() < 0.4 else []
        returns = f" -> {r.choice(self.layers)}Variable" if r.random() < 0.2 else ""
        params, names = self.params()
        body = self.block(_Scope(True, is_async, False, names), depth - 1, r.randint(1, 5))
        header = f"{'async ' if is_async else ''}def {self.name()}({params}){returns}:"
        return decorators + self.nested(header, body)

    def klass(self, scope: _Scope, depth: int) -> List[str]:
        r = self.r
        base = r.choice([f"{p}Layer" for p in self.dygraph if p] + ["object", ""])
        fc = r.choice([f"{p}Linear(3, 4, act='relu')" for p in self.dygraph if p] + [self.expr(1)])
        init = self.nested("def __init__(self):", ["super().__init__()", f"self.fc = {fc}"])
        forward = self.nested("def forward(self, x):", self.block(_Scope(True, False, False, ["x"]), depth - 1)
                              + ["return self.fc(x)"])
        helper = self.nested("def helper(self):", ["total = 0", "for i in range(3):", f"{self.unit}total += i",
                                                   "return total"])
        members = [init, forward, helper] + ([self.klass(scope, depth - 1)] if depth > 1 and r.random() < 0.3 else [])
        r.shuffle(members)
        body = [line for member in members for line in member + [""]]
        return self.nested(f"class {self.name().capitalize()}({base}):", body[:-1])

    def module(self) -> str:
        r = self.r
        lines: List[str] = []
        if r.random() < 0.3:
            lines.append("# -*- coding: utf-8 -*-")
        if r.random() < 0.4:
            lines.append('"""A generated module."""')
        for line in self.imports:
            if r.random() < 0.2:
                lines.append(self.comment())
            lines.append(line + ("  " + self.comment() if r.random() < 0.2 and "\n" not in line else ""))
        scope = _Scope()
        for _ in range(r.randint(2, 7)):
            lines += [""] + (self.compound(scope, 3) if r.random() < 0.7 else self.simple(scope))
        text = "\n".join(lines) + "\n"
        if r.random() < 0.05:
            text = text.rstrip("\n")
        return text.replace("\n", "\r\n") if r.random() < 0.2 else text


def source(seed: int) -> str:
    """The generated file for `seed` (its text, newlines as they are to be written)."""
    return _Gen(seed).module()
