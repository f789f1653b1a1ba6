"""Inference models: 1.8 took feed *names* and a directory; 2.x takes variables and a path prefix.

- `save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program, model_filename,
  params_filename, ...)` (1.8.5 `io.py:1068`) writes `dirname/__model__` (or `model_filename`) and one
  file per persistable variable (or all of them in `params_filename`), and returns the fetch names.
- `load_inference_model(dirname, executor, model_filename, params_filename)` (`io.py:1275`) reads them
  back as `[program, feed_names, fetch_targets]`.

2.x `paddle.static.save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=...)`
writes `path_prefix.pdmodel` and `path_prefix.pdiparams`, which `load_inference_model(path_prefix,
executor)` reads back as the same triple. The two rewrites use the same prefix, `dirname/<model_filename
without .pdmodel, '__model__' by default>` (runtime_shim's adapters use it too), so a model saved by
the upgraded code is found by the upgraded loader; the files change (the table's warning says so).
"""
from __future__ import annotations

import posixpath

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.transformers import emit, register, static_program
from refactors.warning_evidence import report_warning

_MODEL = "__model__"  # 1.8's model file name without model_filename (io.py:1218)


def _unset(ctx: Context, node: cst.Call, arg: str) -> bool:
    found = call_args.get(node, arg)
    return found is None or emit.is_literal(ctx, found.value) and literal(found.value, ctx) is None


def _prefix(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """`dirname/<model file name>`, without the `.pdmodel` 2.x appends."""
    dirname = emit.required(node, "dirname")
    if _unset(ctx, node, "model_filename"):
        base = _MODEL
    else:
        model = emit.value_of(ctx, node, "model_filename")
        if not isinstance(model, str):
            raise NeedsReview("model_filename is not a string")
        base = posixpath.basename(model)  # 1.8 keeps only the base name (io.py:1216)
        base = base[:-len(".pdmodel")] if base.endswith(".pdmodel") and base != ".pdmodel" else base
    if isinstance(dirname, cst.SimpleString) and emit.is_literal(ctx, dirname):
        return cst.SimpleString(repr(posixpath.join(literal(dirname, ctx), base)))
    os_name = emit.stdlib_module(ctx, site, "os")
    join = cst.Attribute(cst.Attribute(os_name, cst.Name("path")), cst.Name("join"))
    return cst.Call(func=join, args=[cst.Arg(dirname, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                     cst.Arg(cst.SimpleString(repr(base)))])


def _result_unused(ctx: Context, site: Site) -> bool:
    """Whether the call is a statement of its own (its value is not read)."""
    stmt = ctx.statements[-1] if ctx.statements else None
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Expr) and small.value is site.call for small in stmt.body)


def _feed_vars(ctx: Context, site: Site, names: cst.BaseExpression,
               program: cst.BaseExpression) -> cst.BaseExpression:
    """The variables the feed names denote in `program`'s global block."""
    def var(name: cst.BaseExpression) -> cst.BaseExpression:
        return ctx.template("{program}.global_block().var({name})", program=emit.receiver(program), name=name)

    if isinstance(names, cst.SimpleString) and emit.is_literal(ctx, names):
        return cst.List([cst.Element(var(names))])  # 1.8 takes one name as a list of one (io.py:1161)
    if isinstance(names, (cst.List, cst.Tuple)) and not any(isinstance(el, cst.StarredElement)
                                                          for el in names.elements):
        elements = [cst.Element(var(el.value)) for el in names.elements]
        return cst.List([el.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                         for el in elements[:-1]] + elements[-1:])
    item = ctx.fresh_name(site.scope, "feed_name")
    return ctx.template(f"[{{var}} for {item} in {{names}}]", var=var(cst.Name(item)), names=names)


@register("save_inference_model")
def save_inference_model(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if not _result_unused(ctx, site):
        raise NeedsReview("1.8 returned the fetch variables' names, 2.x returns None")
    if emit.value_of(ctx, node, "export_for_deployment", True) is not True:
        raise NeedsReview("export_for_deployment=False saved the whole program for training; 2.x saves an "
                          "inference program only (use paddle.static.save for the whole program)")
    if emit.value_of(ctx, node, "program_only", False) is not False:
        raise NeedsReview("program_only=True: write paddle.static.serialize_program and save_to_file instead")
    prefix = _prefix(ctx, site, node)
    program = static_program.given(ctx, site, node, repeated=True)
    block_of = program if program is not None else static_program.default(ctx, site)
    feed = _feed_vars(ctx, site, emit.required(node, "feeded_var_names"), block_of)
    extra = {"program": program} if program is not None else {}
    report_warning(ctx, site)
    return emit.converted(site, emit.call(ctx, site, "paddle.static.save_inference_model", prefix, feed,
                                          emit.required(node, "target_vars"), emit.required(node, "executor"),
                                          **extra))


@register("load_inference_model")
def load_inference_model(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    if not _unset(ctx, node, "pserver_endpoints"):
        raise NeedsReview("pserver_endpoints: a model with distributed lookup tables; load it through fleet")
    prefix = _prefix(ctx, site, node)
    report_warning(ctx, site)
    return emit.converted(site, emit.call(ctx, site, "paddle.static.load_inference_model", prefix,
                                          emit.required(node, "executor")))
