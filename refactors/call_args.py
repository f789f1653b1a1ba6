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


def has_comment(node: object) -> bool:
    """Whether a comma or whitespace carries a comment (only parenthesized whitespace can)."""
    ws = getattr(node, "whitespace_after", node)
    return isinstance(ws, cst.ParenthesizedWhitespace) and (
        ws.first_line.comment is not None or any(line.comment is not None for line in ws.empty_lines))


def with_args(call: cst.Call, args: Sequence[cst.Arg]) -> cst.Call:
    """Replace the arguments. Each one kept keeps its comma and the comment after it; the new last one
    takes the original last one's trailing comma (or lack of one) and what followed it, comments too."""
    args = list(args)
    old_last = call.args[-1] if call.args else None
    end = _NO_END if old_last is None else (old_last.whitespace_after_arg, old_last.comma)
    for i, arg in enumerate(args[:-1]):
        if arg is old_last:  # no longer last: the end of the list moves on to the new last one
            args[i] = arg.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""), comma=(
                arg.comma if has_comment(arg.comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        elif arg.comma is cst.MaybeSentinel.DEFAULT:
            args[i] = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    if not args or args[-1] is old_last:
        return call.with_changes(args=args)
    last = args[-1]
    if old_last in args and has_comment(old_last.comma):
        end = _NO_END  # the original last one kept its comma and its comment
    if has_comment(last.comma):  # its own comment stays on its line; what ended the list follows
        tail = end[1].whitespace_after if isinstance(end[1], cst.Comma) else end[0]
        args[-1] = last.with_changes(comma=last.comma.with_changes(
            whitespace_after=_followed_by(last.comma.whitespace_after, tail)))  # type: ignore[union-attr]
    else:
        args[-1] = last.with_changes(whitespace_after_arg=end[0], comma=end[1])
    return call.with_changes(args=args)


def _followed_by(ws: cst.ParenthesizedWhitespace, tail: cst.BaseParenthesizableWhitespace
                 ) -> cst.ParenthesizedWhitespace:
    """`ws` (a comment, a line break, the next line's indentation), then the comments of `tail` on lines
    of their own at that indentation, and `tail`'s last line (where the closing bracket goes)."""
    if not isinstance(tail, cst.ParenthesizedWhitespace):
        return ws
    own = [cst.EmptyLine(indent=ws.indent, whitespace=ws.last_line, comment=tail.first_line.comment)] \
        if tail.first_line.comment is not None else []
    return ws.with_changes(empty_lines=[*ws.empty_lines, *own, *tail.empty_lines], last_line=tail.last_line)


_NO_END = (cst.SimpleWhitespace(""), cst.MaybeSentinel.DEFAULT)


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
