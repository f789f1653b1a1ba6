"""`fluid.wrapped_decorator.signature_safe_contextmanager` -> `contextlib.contextmanager`.

1.8.5 (wrapped_decorator.py:30) wraps contextlib.contextmanager with the `decorator` package: each call
of the decorated function applies contextlib.contextmanager to it and calls the result, so it returns
the same `_GeneratorContextManager`, enters, exits, raises and decorates alike (checked on 1.8.5 and
3.3.1). Its name, docstring and inspect.signature() are the same too (contextlib's functools.wraps sets
`__wrapped__`); only inspect.getfullargspec() of the decorated function differs (`(*args, **kwds)`).

Served as a call (`signature_safe_contextmanager(f)`) and as a bare reference (`@signature_safe_...`,
`cm = ...`): the table entry's transformer is registered with `references=True`.
"""
from __future__ import annotations

import libcst as cst

from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.transformers import emit, register

TARGET = "contextlib.contextmanager"


@register("contextmanager", references=True)
def contextmanager(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.Call) and (len(node.args) != 1 or node.args[0].star):
        raise NeedsReview("not called with the one function it decorates alone")
    target = cst.Attribute(emit.stdlib_module(ctx, site, "contextlib"), cst.Name("contextmanager"))
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {TARGET} (the same context manager; "
                                                         "only inspect.getfullargspec() of what it decorates "
                                                         "differs)", True)
    if isinstance(node, cst.Call):
        return emit.converted(site, node.with_changes(func=target, args=[cst.Arg(node.args[0].value)]))
    return emit.converted(site, target)
