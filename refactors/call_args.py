"""Arguments of a call: find them by name, rename, remove, add, keeping commas and layout valid."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import libcst as cst

_NO_SPACE = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""))


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(name), equal=_NO_SPACE)


def as_keyword(arg: cst.Arg, name: str) -> cst.Arg:
    return arg.with_changes(keyword=cst.Name(name), equal=_NO_SPACE)


def by_keyword(call: cst.Call) -> Dict[str, cst.Arg]:
    return {a.keyword.value: a for a in call.args if a.keyword is not None}


def get(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def has_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)


def with_args(call: cst.Call, args: Sequence[cst.Arg]) -> cst.Call:
    """Replace the arguments, keeping the original trailing comma style on the new last one."""
    args = list(args)
    if args:
        last_comma = call.args[-1].comma if call.args else cst.MaybeSentinel.DEFAULT
        for i, arg in enumerate(args[:-1]):
            if arg.comma is cst.MaybeSentinel.DEFAULT:
                args[i] = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args[-1] = args[-1].with_changes(comma=last_comma)
    return call.with_changes(args=args)


def rename(call: cst.Call, old: str, new: str) -> cst.Call:
    return call.with_changes(args=[as_keyword(a, new) if a.keyword is not None and a.keyword.value == old
                                   else a for a in call.args])


def remove(call: cst.Call, name: str) -> cst.Call:
    kept: List[cst.Arg] = [a for a in call.args if a.keyword is None or a.keyword.value != name]
    return with_args(call, kept) if len(kept) != len(call.args) else call


def add(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    return with_args(call, [*call.args, keyword_arg(name, value)])


def set_value(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """Set `name=value`, replacing an existing keyword or adding one."""
    if get(call, name) is None:
        return add(call, name, value)
    return call.with_changes(args=[a.with_changes(value=value) if a.keyword is not None and a.keyword.value == name
                                   else a for a in call.args])
