"""`fluid.layers.data` prepended the batch dimension; `paddle.static.data` takes the shape as written.

1.8 (`layers/io.py:117-124`): `shape=[13]` became `[-1, 13]` unless `append_batch_size=False` or an entry
is `None` or negative. The rewrite writes the final shape, so it must know which rule applies: from a
literal, or from what the file fixes (refactors.constants: `shape=image_shape` with `image_shape =
[3, 224, 224]` becomes `shape=[-1] + image_shape`, `[3, SIZE, SIZE]` becomes `[-1, 3, SIZE, SIZE]`). A
shape with a known `None` or negative entry, or `append_batch_size=False`, is passed as written, whatever
its other entries (`[-1, args.max_len]`, `[-1] + list(v.shape)`). A shape known only at run time that
reads names, attributes and items only (`self.data_shape`, `[3, IMAGE_SIZE[1], IMAGE_SIZE[0]]`) gets the
rule written out (`_ruled`); one computed by a call is left for review. `type` has no 2.x argument: a
value is left for review. Nor has `stop_gradient` (2.x data is always made with True): `False`, which
1.8 set on the variable (gradients then flow to it, `fluid.gradients(y, x)`), is set after the call,
`x.stop_gradient = False` after `x = <call>`, and elsewhere (a list comprehension of data, as in
PaddleCV/tracking) by a function written into the module that sets it and returns the variable;
`fixtures/legacy/data_stop_gradient_static.py`.
"""
from __future__ import annotations

import ast
from typing import List, Optional

import libcst as cst

from refactors import call_args
from refactors.constants import UNKNOWN, Some
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.transformers import emit, module_definitions, register


def _shape_source(shape) -> str:
    return "[" + ", ".join("None" if d is None else repr(d) for d in shape) + "]"


@register("data_batch_dim")
def data_batch_dim(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    shape_node = emit.required(node, "shape")
    append = emit.value_of(ctx, node, "append_batch_size", True)
    if not isinstance(append, bool):
        raise NeedsReview("append_batch_size is not a bool")
    stop_gradient = call_args.get(node, "stop_gradient")
    trainable = stop_gradient is not None and not same_literal(stop_gradient.value, "True", ctx)
    if trainable and not same_literal(stop_gradient.value, "False", ctx):  # type: ignore[union-attr]
        raise NeedsReview("stop_gradient is not a literal bool: 2.x data has no such argument; set "
                          "`.stop_gradient` on the result")
    if call_args.get(node, "type") is not None:
        raise NeedsReview("type= has no 2.x argument")
    shape = _final_shape(ctx, shape_node, append)
    new = call_args.remove(call_args.remove(node, "stop_gradient"), "append_batch_size")
    new = call_args.set_value(new, "shape", shape)
    if call_args.get(new, "dtype") is None:
        # 1.8's default, independent of 2.x's settable default dtype.
        new = call_args.add(new, "dtype", cst.SimpleString("'float32'"))
    if trainable:
        return emit.converted(site, _with_gradient(ctx, site, emit.finish(ctx, site, new)))
    return emit.converted(site, emit.finish(ctx, site, new))


# Written once into a module whose data calls set stop_gradient=False where no statement can follow.
WITH_GRADIENT = '''\
def {name}(variable):
    """1.8's fluid.layers.data(..., stop_gradient=False) (paddle-upgrade): gradients flow to the variable."""
    variable.stop_gradient = False
    return variable
'''


def _with_gradient(ctx: Context, site: Site, data: cst.BaseExpression) -> cst.BaseExpression:
    """The data variable `data` makes, with stop_gradient False: set by a statement after `target = <call>`
    (a name or an attribute chain), else by the module's function that sets it."""
    statement = ctx.statements[-1] if ctx.statements else None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and small.value is site.call \
                and isinstance(small.targets[0].target, (cst.Name, cst.Attribute)) \
                and emit.pure(small.targets[0].target):
            target = small.targets[0].target
            ctx.insert_around(statement, after=[cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(cst.Attribute(target, cst.Name("stop_gradient")))], cst.Name("False"))])])
            return data
    name = module_definitions.define_once(ctx, site, "with_gradient", WITH_GRADIENT)
    return cst.Call(cst.Name(name), [cst.Arg(data)])


def _final_shape(ctx: Context, shape: cst.BaseExpression, append: bool) -> cst.BaseExpression:
    """The shape 1.8 gave the variable, as 2.x text."""
    written = _written(ctx, shape)
    if written is not None:
        value = written.value  # written as a literal: normalised as before
        if not isinstance(value, (list, tuple)) or not all(d is None or _int(d) for d in value):
            raise NeedsReview("shape is not a list of ints")
        return ctx.expr(_shape_source(([-1] if append and not _as_written(value) else []) + list(value)))
    if not append:
        return shape
    value = ctx.value(shape)
    if value is UNKNOWN:
        return _ruled(ctx, shape, [shape])
    if not isinstance(value, (list, tuple)):
        raise NeedsReview("shape is not a list")
    if _as_written(value):
        return shape
    if isinstance(value, Some) or not all(_int(d) for d in value):
        return _ruled(ctx, shape, _unknown_entries(ctx, shape, value))
    minus_one = cst.Element(cst.UnaryOperation(cst.Minus(), cst.Integer("1")))
    if isinstance(shape, (cst.List, cst.Tuple)):
        return cst.List([minus_one, *shape.elements])
    if isinstance(value, list):
        chained = isinstance(shape, cst.BinaryOperation) and isinstance(shape.operator, cst.Add)
        return ctx.template("[-1] + {shape}", shape=shape if chained else emit.parenthesized(shape))
    return cst.List([minus_one, cst.StarredElement(shape)])


def _ruled(ctx: Context, shape: cst.BaseExpression, unknown: List[cst.BaseExpression]) -> cst.BaseExpression:
    """1.8's rule written out, for a shape known only at run time: `[-1, *s] if all(d is not None and
    d >= 0 for d in s) else s` (2.x reads None as -1 itself); `unknown` are the expressions whose entries
    are checked: the shape itself, or the entries of a list written here that the file does not fix."""
    if not all(_repeatable(node) for node in (shape, *unknown)):
        raise NeedsReview(_UNKNOWN)
    if isinstance(shape, (cst.List, cst.Tuple)):
        minus_one = cst.Element(cst.UnaryOperation(cst.Minus(), cst.Integer("1")))
        prepended: cst.BaseExpression = cst.List([minus_one, *shape.elements])
    else:
        prepended = ctx.template("[-1, *{shape}]", shape=emit.parenthesized(shape))
    whole = len(unknown) == 1 and unknown[0] is shape
    checked = shape if whole else cst.List([cst.Element(node) for node in unknown])
    return ctx.template("{prepended} if all(d is not None and d >= 0 for d in {checked}) else {shape}",
                        prepended=prepended, checked=emit.parenthesized(checked), shape=shape)


def _unknown_entries(ctx: Context, shape: cst.BaseExpression, value) -> List[cst.BaseExpression]:
    """The entries of a list or tuple written here whose value the file does not fix; else the shape."""
    if not isinstance(shape, (cst.List, cst.Tuple)) or isinstance(value, Some) or len(value) != len(
            shape.elements) or not all(type(e) is cst.Element for e in shape.elements):
        return [shape]  # a starred entry, or a computed shape: its entries are checked as a whole
    return [e.value for e, d in zip(shape.elements, value) if not _int(d)]


# Expressions that read names, attributes and items only: written twice or thrice, they give the same
# value (argparse namespaces, config dicts, module constants), where a call might not.
_PURE_LEAVES = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)


def _repeatable(node: cst.BaseExpression) -> bool:
    if isinstance(node, _PURE_LEAVES):
        return True
    if isinstance(node, cst.Attribute):
        return _repeatable(node.value)
    if isinstance(node, cst.Subscript):
        return _repeatable(node.value) and all(
            isinstance(e.slice, cst.Index) and e.slice.star is None and _repeatable(e.slice.value)
            for e in node.slice)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Minus) and _repeatable(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, _ARITHMETIC) and _repeatable(node.left) and _repeatable(node.right)
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(isinstance(e, (cst.Element, cst.StarredElement)) and _repeatable(e.value)
                   for e in node.elements)
    return False


def _written(ctx: Context, node: cst.BaseExpression) -> Optional[ast.Constant]:
    """The value of a shape written as a literal (not only known to the file), wrapped; else None."""
    try:
        return ast.Constant(ast.literal_eval(ctx.code(node).strip()))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _as_written(entries) -> bool:
    """1.8 takes the shape as written when an entry is None or negative."""
    return any(d is None or _int(d) and d < 0 for d in entries)


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_UNKNOWN = ("shape is not a literal: 1.8 prepends -1 unless an entry is None or negative; write "
            "paddle.static.data(name, [-1] + shape) when every entry is positive")
