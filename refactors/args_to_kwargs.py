"""Step 3: turn positional arguments of mapped calls into keywords, from the real 1.8 signature.

A positional argument stays positional only while it provably lands on the same parameter in the
2.x target: same position, same name after the table's renames, nothing before it dropped, and no
transformer that needs to see it by name. Everything after the first mismatch becomes a keyword.
`*args`/`**kwargs` in a call hide which parameter a value binds to, so such a call is left and
reported rather than guessed, unless the 2.x target has the very same signature
(`LayerHelper(layer_type, **kwargs)`, `Sequential(*layers)`), where every value binds as it did. When
the 1.8 signature itself has `*args` and the call fills it, all positional arguments stay positional (a
keyword cannot precede them). A keyword the 1.8 signature does not have, or a parameter given both by
position and by keyword, is a bug in the input (1.8 raised TypeError): the call is left and reported,
not carried over.
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from api_mapping import ApiEntry
from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.target_signatures import target_params, target_signature

NAME = "args_to_kwargs"


def _renamed(entry: ApiEntry, name: str) -> Optional[str]:
    """The 2.x keyword for a 1.8 parameter, or None when the table drops it."""
    for change in entry.args_change:
        if change.arg == name and change.op == "drop":
            return None
        if change.arg == name and change.op == "rename":
            return change.to
    return name


def _kept_positional(entry: ApiEntry, positional: List[str]) -> int:
    """How many leading positional arguments can stay positional."""
    if entry.transformer is not None or entry.update_to is None:
        return 0
    target = target_params(entry.update_to)
    if target is None:
        return 0
    kept = 0
    for i, name in enumerate(positional):
        if i >= len(target) or target[i] != _renamed(entry, name):
            break
        kept += 1
    return kept


def _same_signature(entry: ApiEntry) -> bool:
    """The 2.x target takes the 1.8 parameters as they were (names, order, stars, defaults), and the
    table changes no argument nor warns about one: a call binds its arguments there as in 1.8."""
    if entry.transformer is not None or entry.args_change or entry.args_warning or entry.update_to is None:
        return False
    target = target_signature(entry.update_to)
    return target is not None and target == tuple(
        (p.star + p.name, p.default) for p in entry.args_list or ())


def call(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    entry = site.entry
    if not isinstance(node, cst.Call) or entry is None or entry.args_list is None or site.suffix:
        return node  # `Entry.method(...)` calls the method, not the entry: its signature is not known
    if entry.update_to is None and entry.transformer is None:
        return node  # nothing will be renamed; leave the call exactly as written
    if call_args.has_star(node):
        if _same_signature(entry):
            return node  # every argument binds in 2.x as in 1.8, whatever `*args`/`**kwargs` hold
        raise NeedsReview("called with *args/**kwargs; map the arguments by hand")
    params = []
    for p in entry.args_list:
        if p.star:
            break
        params.append(p.name)
    varargs = any(p.star == "*" and p.name for p in entry.args_list)
    if not any(p.star == "**" for p in entry.args_list):
        known = {p.name for p in entry.args_list if not p.star}
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value not in known:
                raise NeedsReview(f"`{arg.keyword.value}=` is not a parameter of {entry.name} in 1.8, "
                                  "so this call fails there too; fix it by hand")
    args = list(node.args)
    positional = [i for i, a in enumerate(args) if a.keyword is None]
    if len(positional) > len(params):
        if varargs:
            return node  # the extra values fill `*args`, so every positional must stay positional
        raise NeedsReview(f"{len(positional)} positional arguments, but the 1.8 signature has {len(params)}")
    twice = {params[i] for i in range(len(positional))} & {a.keyword.value for a in args if a.keyword is not None}
    if twice:
        raise NeedsReview(f"`{sorted(twice)[0]}` is given by position and by keyword, so this call fails in 1.8 "
                          f"too (TypeError); fix it by hand")
    keep = _kept_positional(entry, params[:len(positional)])
    for index in positional[keep:]:
        args[index] = call_args.as_keyword(args[index], params[index])
    return node.with_changes(args=args)
