"""What a piece of Python syntax says, read statically: decorator names, overloads, parameter lists,
the `globals()` and `TYPE_CHECKING` idioms, and string constants."""
from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Sequence

def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def is_globals_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "globals"


def is_globals_subscript(node: ast.expr) -> bool:
    return isinstance(node, ast.Subscript) and is_globals_call(node.value)


def dedupe(names: Iterable[str]) -> List[str]:
    return list(dict.fromkeys(names))


def is_public(name: str) -> bool:
    return not name.startswith("_")


def public_path(dotted: str) -> bool:
    return all(is_public(p) for p in dotted.split("."))


def string_value(expr: ast.expr, env: Optional[dict]) -> Optional[str]:
    """A string constant, or a loop-local name bound to one (`env`: name -> (value, env then))."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if env and isinstance(expr, ast.Name) and expr.id in env:
        bound, _ = env[expr.id]
        if isinstance(bound, ast.Constant) and isinstance(bound.value, str):
            return bound.value
    return None


def decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def is_overload(node: ast.AST) -> bool:
    return any(decorator_name(d) == "overload" for d in getattr(node, "decorator_list", ()))


def pick_overload(defs: Sequence[ast.FunctionDef]) -> Optional[ast.FunctionDef]:
    """The definition to index among same-named ones: the last plain def (the one that runs); in a
    stub with only `@overload`s, the most permissive overload (one taking **kwargs), else the first."""
    plain = [d for d in defs if not is_overload(d)]
    if plain:
        return plain[-1]
    permissive = [d for d in defs if d.args.kwarg is not None]
    return (permissive or list(defs) or [None])[0]


def param_list(args: ast.arguments, drop_first: bool) -> list:
    """Parameters as `[name]` / `[name, default-source]`, with `*name`, `**name`, `*` and `/` markers."""
    positional = list(args.posonlyargs) + list(args.args)
    defaults: List[Optional[ast.expr]] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out: list = []
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        if not (drop_first and i == 0):
            out.append([arg.arg] if default is None else [arg.arg, ast.unparse(default)])
        if i == len(args.posonlyargs) - 1 and out:
            out.append(["/"])
    if args.vararg is not None:
        out.append(["*" + args.vararg.arg])
    elif args.kwonlyargs:
        out.append(["*"])
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        out.append([arg.arg] if default is None else [arg.arg, ast.unparse(default)])
    if args.kwarg is not None:
        out.append(["**" + args.kwarg.arg])
    return out


def kw_aliases(decorators: Sequence[ast.expr]) -> Dict[str, str]:
    """Keyword aliases added by Paddle 3's decorators (`param_one_alias(["x", "input"])` etc.)."""
    aliases: Dict[str, str] = {}
    for deco in decorators:
        if not isinstance(deco, ast.Call):
            continue
        name = decorator_name(deco)
        try:
            if name in ("param_one_alias", "param_two_alias"):
                for arg in deco.args:
                    pair = ast.literal_eval(arg)
                    aliases[pair[1]] = pair[0]
            elif name == "ParamAliasDecorator" and deco.args:
                for original, others in ast.literal_eval(deco.args[0]).items():
                    for other in others:
                        aliases[other] = original
        except (ValueError, TypeError, IndexError, SyntaxError):
            continue
    return aliases
