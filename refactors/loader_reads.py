"""Whether every read of a non-iterable loader a caller gets from another module is a reading loop that
reading_loop rewrites, in CPython's parse (refactors.loader_across: the builder's module and each caller's
compute the plan alike, so both must see the same loops).

1.8's non-iterable loader is read by the program: `loader.start()`, a `while True:` loop whose run reads a
batch, and `reset()` where EOFException ends the data. A caller of the builder may read it so in its own
scope, or pass it to plain functions of its module that do. The caller's upgrade rewrites each such loop
into a `for` loop over the 2.x loader feeding each batch to the run (reading_loop, through loader_readers);
the builder's upgrade makes the loader a `functools.partial(paddle.io.DataLoader, ...)` on the strength of
that. So the test here takes only what reading_loop takes, and less where telling it needs more than
CPython's parse (the run is a statement of its own unless it opens the loop body right after `start()`; a
statement between `start()` and the loop names no loader, runs no program and does not leave):

    loader.start()                           try:
    <statements apart from it>                   loader.start()        (or just before the `try`)
    while True:  (or a test, no loader)          <statements apart from it>
        try:                                     while True:
            ...                                      ...
            outputs = exe.run(...)                   outputs = exe.run(...)
            ...                                      ...
        except fluid.core.EOFException:      except fluid.core.EOFException:
            <statements>                         <statements>
            loader.reset()                       loader.reset()        (or first in `finally`)
            break

The run is the loop body's one `.run(...)` call, given no feed and at most the program by position;
the loop body leaves it by no `break` or `yield`, and by `return` only in the caller's scope, which holds the
loader (reading_loop's `_leaves_early`). A `loader.queue.size()` whose value is
used (logged) in the scope's own code is a use served too: the rewrite makes it 0 (refactors.queue_size).
Where the loader is passed on, the function is a plain `def` of the module, bound once, every call of it
passing a loader of the plan for that parameter (`planned`), no other module of the tree that may import its
module naming it (loader_across.importable), and the parameter is used only by such loops.
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from api_mapping.namespaces import EOF_EXCEPTIONS
from refactors import queue_size
from refactors.cpython import NESTED, bindings, own_nodes

READ = ("start", "reset")  # what a reading loop calls on the loader
Resolve = Callable[[ast.AST], Optional[str]]  # a dotted name's fully qualified name by the module's imports
Alone = Callable[[ast.stmt], bool]  # no other statement of the scope starts on its line (libcst sees one line)


# Expressions that may not evaluate a part of them (each pass of the loop must run the program once).
_SOMETIMES = (ast.IfExp, ast.BoolOp, ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


class Unread(Exception):
    """A use of the loader that is not a reading loop of the shape taken, named."""


def started(scope: ast.AST, loader: str) -> bool:
    """The scope's own code calls `loader.start()` or `loader.reset()` (1.8's non-iterable protocol)."""
    return any(isinstance(n, ast.Attribute) and n.attr in READ and isinstance(n.value, ast.Name) and
               n.value.id == loader for n in own_nodes(scope))


def reads_started(scope: ast.AST, loader: str, module: ast.Module) -> bool:
    """The scope starts or resets the loader, or passes it to a function of the module that does so to the
    parameter getting it: read by the program (where the build does not say, a second run meeting the
    builder's 2.x form)."""
    if started(scope, loader):
        return True
    for call in (n for n in own_nodes(scope) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
        function = next((s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == call.func.id), None)
        for param in [p.arg for p in function.args.posonlyargs + function.args.args + function.args.kwonlyargs] \
                if function is not None else ():
            given = _given(call, function, param)  # type: ignore[arg-type]
            if isinstance(given, ast.Name) and given.id == loader and started(function, param):
                return True
    return False


def in_scope(scope: ast.AST, loader: str, setter: ast.stmt, module: ast.Module,
             resolve: Resolve) -> Dict[str, Tuple[ast.FunctionDef, str]]:
    """The functions of the module a caller's scope passes the loader to (name -> it, its parameter that
    gets it), when every use of `loader` there after its `setter` is a reading loop or such a pass (the
    binding and the setter being the others); else Unread."""
    loops = _loops(scope, loader, setter.lineno, module, resolve, True)
    passed: Dict[str, Tuple[ast.FunctionDef, str]] = {}
    count = 0
    for node in own_nodes(scope):
        if not isinstance(node, ast.Call):
            continue
        given = [a for a in node.args if isinstance(a, ast.Name) and a.id == loader] + \
            [k.value for k in node.keywords if isinstance(k.value, ast.Name) and k.value.id == loader]
        for arg in given:
            function, param = _passed_to(node, arg, module, loader)
            known = passed.setdefault(function.name, (function, param))
            if known[1] != param:
                raise Unread(f"`{function.name}` is given loaders for two of its parameters")
            count += 1
    names = sum(isinstance(n, ast.Name) and n.id == loader for n in own_nodes(scope))
    if names != 2 + loops + count + len(queue_size.names(scope, loader)):
        raise Unread(f"`{loader}` is used other than by its reading loops and the functions of its module it is "
                     f"passed to, which may start it out of sight")
    return passed


def in_function(function: ast.FunctionDef, param: str, module: ast.Module, resolve: Resolve) -> None:
    """Unread unless the function uses its parameter `param` only in reading loops."""
    if bindings(function, param) != 1 or any(isinstance(n, (ast.Global, ast.Nonlocal)) and param in n.names
                                             for n in ast.walk(function)):
        raise Unread(f"`{param}` is rebound in `{function.name}`")
    loops = _loops(function, param, function.lineno, module, resolve, False)
    if sum(isinstance(n, ast.Name) and n.id == param for n in ast.walk(function)) != \
            loops + len(queue_size.names(function, param)):
        raise Unread(f"`{function.name}` uses `{param}` other than in the loops that read it")


def calls_pass_planned(module: ast.Module, function: ast.FunctionDef, param: str,
                       planned: Set[Tuple[int, str]]) -> None:
    """Unread unless the module names `function` (bound once: `_passed_to`) only to call it from the module's
    code or its functions', each call passing for `param` a name the plan binds to a loader in the calling
    scope (`planned`: (id of the scope node, name))."""
    calls = 0
    for scope in [module] + [n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for node in own_nodes(scope):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function.name:
                given = _given(node, function, param)
                if not (isinstance(given, ast.Name) and (id(scope), given.id) in planned):
                    raise Unread(f"`{function.name}` is also called with a `{param}` that is not a loader the rewrite "
                                 f"makes, so its reading loop stays")
                calls += 1
    if sum(isinstance(n, ast.Name) and n.id == function.name for n in ast.walk(module)) != calls:
        raise Unread(f"`{function.name}`, which reads the loader, is named other than to be called, so where it is "
                     f"called is not in sight")


def _passed_to(call: ast.Call, arg: ast.expr, module: ast.Module, loader: str) -> Tuple[ast.FunctionDef, str]:
    """The plain function of the module `call` calls, and its parameter that gets `arg`; else Unread."""
    name = call.func.id if isinstance(call.func, ast.Name) else None
    defs = [s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == name]
    function = defs[0] if len(defs) == 1 and bindings(module, name) == 1 else None  # type: ignore[arg-type]
    if function is None or function.decorator_list:
        shown = ast.unparse(call.func) if hasattr(ast, "unparse") else "a function"
        raise Unread(f"`{loader}` is passed to `{shown}`, which may start it out of sight")
    params = [p.arg for p in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
    found = [p for p in params if _given(call, function, p) is arg]
    if len(found) != 1:
        raise Unread(f"which parameter of `{function.name}` gets `{loader}` is not in sight")
    return function, found[0]


def _given(call: ast.Call, function: ast.FunctionDef, param: str) -> Optional[ast.expr]:
    """What `call` passes for `param`; None where it passes none or it cannot be told (`*args`, `**kwargs`)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    positional = [p.arg for p in function.args.posonlyargs + function.args.args]
    for i, arg in enumerate(call.args):
        if i < len(positional) and positional[i] == param:
            return arg
    return next((k.value for k in call.keywords if k.arg == param), None)


def _blocks(scope: ast.AST) -> Iterator[List[ast.stmt]]:
    for node in [scope, *own_nodes(scope)]:
        if isinstance(node, NESTED) and node is not scope:
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
        for handler in getattr(node, "handlers", ()):
            yield handler.body
        for case in getattr(node, "cases", ()):
            yield case.body


def _method(stmt: ast.AST, loader: str, method: str) -> bool:
    """`stmt` is `loader.<method>()` alone."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and not call.args and not call.keywords and \
        isinstance(call.func, ast.Attribute) and call.func.attr == method and \
        isinstance(call.func.value, ast.Name) and call.func.value.id == loader


def _loops(scope: ast.AST, loader: str, after: int, module: ast.Module, resolve: Resolve, returns: bool) -> int:
    """How many names of `loader` the scope's reading loops use (each `start()` after line `after` opening
    one of the shapes taken, and every `start`/`reset` of it in one); Unread otherwise. `returns`: the scope
    holds the loader (not a parameter), so a loop may `return` (reading_loop's `_leaves_early`)."""
    uses = {id(n) for n in own_nodes(scope) if isinstance(n, ast.Attribute) and n.attr in READ and
            isinstance(n.value, ast.Name) and n.value.id == loader}
    covered: Set[int] = set()
    lines = [s.lineno for s in own_nodes(scope) if isinstance(s, ast.stmt)]

    def alone(stmt: ast.stmt) -> bool:
        return lines.count(stmt.lineno) == 1

    for block in _blocks(scope):
        for index, stmt in enumerate(block):
            if not _method(stmt, loader, "start"):
                continue
            if stmt.lineno <= after:
                raise Unread(f"`{loader}.start()` comes before its data source is set")
            if not alone(stmt):
                raise Unread(f"`{loader}.start()` shares its line with another statement")
            covered.add(id(stmt.value.func))  # type: ignore[attr-defined]
            covered.add(_loop(scope, block, index, loader, module, resolve, alone, returns))
    if uses - covered:
        raise Unread(f"`{loader}.start()` or `reset()` is called apart from a loop that reads it")
    return len(uses)


def _loop(scope: ast.AST, block: Sequence[ast.stmt], index: int, loader: str, module: ast.Module,
          resolve: Resolve, alone: Alone, returns: bool) -> int:
    """The id of the `reset` attribute of the loop `block[index]` (`start()`) opens; Unread unless it has
    one of the shapes taken."""
    start = block[index]
    around = next((n for n in ast.walk(scope) if isinstance(n, ast.Try) and n.body[:1] == [start]), None)
    if around is None and index + 1 < len(block) and isinstance(block[index + 1], ast.Try):
        around = block[index + 1]
    if around is not None and any(h.type is not None and resolve(h.type) in EOF_EXCEPTIONS for h in around.handlers):
        return _around(around, start, loader, module, resolve, alone, returns)
    rest = list(block[index + 1:])
    between = False
    while rest and not isinstance(rest[0], ast.While):
        if _apart(rest[0], loader):
            rest.pop(0)
        elif isinstance(rest[0], ast.With) and all(_apart(item, loader) for item in rest[0].items):
            rest = list(rest[0].body)  # the loop in a `with`, which runs its body once (reading_loop's `_opens_apart`)
        else:
            break
        between = True
    loop = rest[0] if rest else None
    tested = _tested(loop, loader)
    if not ((_endless(loop) or tested) and len(loop.body) == 1 and isinstance(loop.body[0], ast.Try)):  # type: ignore
        raise Unread(f"`{loader}.start()` is not followed by `while True:` around one `try`")
    attempt: ast.Try = loop.body[0]  # type: ignore[union-attr, assignment]
    if len(attempt.handlers) != 1 or attempt.orelse or attempt.finalbody:
        raise Unread("the reading loop's `try` has other handlers, `else` or `finally`")
    handled = _eof_handler(attempt, module, resolve).body
    if not (len(handled) >= 2 and _method(handled[-2], loader, "reset") and isinstance(handled[-1], ast.Break) and
            alone(handled[-2]) and alone(handled[-1])) or any(_names(s, loader) or _leaves(s) for s in handled[:-2]):
        raise Unread(f"the EOFException handler does not end with `{loader}.reset()` then `break`")
    _left_alike(attempt.body, returns)
    _read_by_one_run(attempt.body, module, alone, between or tested)
    return id(handled[-2].value.func)  # type: ignore[attr-defined]


def _around(attempt: ast.Try, start: ast.stmt, loader: str, module: ast.Module, resolve: Resolve,
            alone: Alone, returns: bool) -> int:
    """The second shape: the `try` holds (after `start()`, when that opens it) statements apart from the
    loader, then the `while True:` loop; its one handler catches the EOFException, `reset()` ends it or
    opens the `finally`."""
    body = list(attempt.body)
    inside = body[:1] == [start]
    loop = body[-1]
    if not _endless(loop) or any(isinstance(s, ast.While) for s in body[:-1]):
        raise Unread(f"the `try` after `{loader}.start()` does not end with the `while True:` loop that reads it")
    if len(attempt.handlers) != 1 or attempt.orelse:
        raise Unread("the `try` around the reading loop has other handlers or `else`")
    handled = list(_eof_handler(attempt, module, resolve).body)
    final = list(attempt.finalbody)
    if handled and _method(handled[-1], loader, "reset"):
        reset, rest, kept = handled[-1], handled[:-1], final
    elif final and _method(final[0], loader, "reset"):
        reset, rest, kept = final[0], handled, final[1:]
    else:
        reset = None
    if reset is None or not alone(reset):
        raise Unread(f"`{loader}.reset()` neither ends the EOFException handler nor opens the `finally`")
    if any(_names(s, loader) for s in rest + kept):
        raise Unread(f"the handler or `finally` of the loop reading `{loader}` names it again")
    if any(isinstance(n, ast.Raise) and n.exc is None for s in rest for n in ast.walk(s)):
        raise Unread("the EOFException handler re-raises it")
    between = body[1 if inside else 0:-1]
    if not all(_apart(s, loader) for s in between):
        raise Unread(f"statements between `{loader}.start()` and the loop that reads it name it, run a program or "
                     f"leave")
    _left_alike(loop.body, returns)  # type: ignore[attr-defined]
    _read_by_one_run(loop.body, module, alone, bool(between))  # type: ignore[attr-defined]
    return id(reset.value.func)  # type: ignore[attr-defined]


def _eof_handler(attempt: ast.Try, module: ast.Module, resolve: Resolve) -> ast.ExceptHandler:
    handler = attempt.handlers[0]
    head = _head(handler.type)
    if handler.type is None or resolve(handler.type) not in EOF_EXCEPTIONS or head is None or \
            bindings(module, head) != 1 or (handler.name and any(isinstance(n, ast.Name) and n.id == handler.name
                                                                  for s in handler.body for n in ast.walk(s))):
        raise Unread("the reading loop does not catch fluid.core.EOFException alone")
    return handler


def _head(node: Optional[ast.AST]) -> Optional[str]:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _read_by_one_run(body: Sequence[ast.stmt], module: ast.Module, alone: Alone, between: bool) -> None:
    """Unread unless the loop body runs one program, given no feed, and does not leave the loop (reading_loop's
    rule); the run a statement of its own unless it is in the body's first statement with nothing `between`
    `start()` and the loop (where reading_loop's `for` needs none)."""
    runs = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "run"]
    if len(runs) != 1:
        raise Unread(f"the reading loop runs {len(runs)} programs: which of them read the loader is not in sight")
    run = runs[0]
    if any(isinstance(a, ast.Starred) for a in run.args) or len(run.args) > 1 or \
            any(k.arg in (None, "feed", "feed_dict") for k in run.keywords):
        raise Unread("the program run in the reading loop is given a feed of its own")
    first = not between and isinstance(body[0], (ast.Expr, ast.Assign)) and any(n is run for n in ast.walk(body[0])) \
        and not any(isinstance(n, _SOMETIMES) and any(m is run for m in ast.walk(n)) for n in ast.walk(body[0]))
    if not first and not any(isinstance(s, (ast.Expr, ast.Assign)) and s.value is run and alone(s) for s in body):
        raise Unread("the run in the reading loop is not a statement of its own")
    if bindings(module, "iter") or bindings(module, "next"):
        raise Unread("`iter` or `next` is rebound in the module")


def _endless(loop: Optional[ast.AST]) -> bool:
    """`while True:` without `else`."""
    return isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant) and loop.test.value is True and \
        not loop.orelse


def _tested(loop: Optional[ast.AST], loader: str) -> bool:
    """`while <test>:` without `else`, the test naming no loader (reading_loop's `_tested`)."""
    return isinstance(loop, ast.While) and not loop.orelse and not _endless(loop) and \
        not _names(loop.test, loader) and not any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr))
                                                  for n in ast.walk(loop.test))


def _apart(stmt: ast.stmt, loader: str) -> bool:
    """`stmt` may run between `start()` and the loop: it names no loader, runs no program, does not leave."""
    return not _names(stmt, loader) and not _leaves(stmt) and not any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "run" for n in ast.walk(stmt))


def _names(stmt: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt))


def _leaves(stmt: ast.AST) -> bool:
    """Any `break`, `continue`, `return` or `yield` in it (nested loops' own too: stricter than need be)."""
    return any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(stmt))


def _left_alike(body: Sequence[ast.stmt], returns: bool) -> None:
    if _leaves_early(body, returns):
        raise Unread("the reading loop is left early (by break, yield, or return where the loader was given), after "
                     "which 1.8 read it again from where its thread had got")


def _leaves_early(body: Sequence[ast.stmt], returns: bool) -> bool:
    """A `yield`, a `break` of the loop whose body is `body`, or unless `returns`, a `return` (reading_loop's
    `_leaves_early`)."""
    stack: List[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Break)) or isinstance(node, ast.Return) and not returns:
            return True
        if isinstance(node, NESTED):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) or isinstance(n, ast.Return) and not returns
                   for n in ast.walk(node)):
                return True
            stack.extend(node.orelse)  # (a nested loop's body keeps its own break)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False
