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
`params_filename` only chose 1.8's layout (one file per variable, or one file): 2.x always writes one
`.pdiparams`, so its value (a name or None) does not matter and it is dropped.

A `model_filename` known only at run time gets the same rule as an expression, exact for every value
1.8.5 takes (None, a name, a path, an os.PathLike; '' made 1.8.5 open the directory itself):

    model_name = os.path.basename(model_filename or '__model__')
    paddle.static.save_inference_model(os.path.join(dirname, os.path.splitext(model_name)[0]
                                       if model_name.endswith('.pdmodel') else model_name), ...)

(`.pdmodel` is dropped in os.path.splitext's sense, here and in the literal rule: `.pdmodel` alone is a
name.) `name + '_model.pdmodel'` needs no binding: its literal end decides. The binding moves the value's
evaluation before the call's other arguments, so it is made only for a value that calls nothing, in a
call that is a statement's first effect (refactors.transformers.bind).
"""
from __future__ import annotations

import posixpath
from ast import literal_eval

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.scopes import descendants
from refactors.transformers import bind, emit, register, static_program
from refactors.warning_evidence import report_warning

_MODEL = "__model__"  # 1.8's model file name without model_filename (io.py:1218)
_SUFFIX = ".pdmodel"  # what 2.x appends to the prefix
_EFFECTS = (cst.Call, cst.Await, cst.Yield, cst.NamedExpr, cst.Lambda, cst.BaseComp)  # moved earlier: not safe


def _unset(ctx: Context, node: cst.Call, arg: str) -> bool:
    found = call_args.get(node, arg)
    return found is None or emit.is_literal(ctx, found.value) and literal(found.value, ctx) is None


def _stem(base: str) -> str:
    """The base name without a `.pdmodel` extension (in os.path.splitext's sense: `.pdmodel` alone is
    a name, not an extension), which 2.x adds again."""
    stem, ext = posixpath.splitext(base)
    return stem if ext == _SUFFIX else base


def _prefix(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    """`dirname/<model file name>`, without the `.pdmodel` 2.x appends."""
    dirname = emit.required(node, "dirname")
    if emit.is_literal(ctx, dirname) and literal(dirname, ctx) is None:
        raise NeedsReview("dirname=None: model_filename and params_filename hold the model's bytes")
    if _unset(ctx, node, "model_filename"):
        base: cst.BaseExpression = cst.SimpleString(repr(_MODEL))
    else:
        model = call_args.get(node, "model_filename").value  # type: ignore[union-attr]
        base = _known_base(ctx, model) if emit.is_literal(ctx, model) else _run_time_base(ctx, site, model)
    if isinstance(dirname, cst.SimpleString) and emit.is_literal(ctx, dirname) and isinstance(base, cst.SimpleString):
        return cst.SimpleString(repr(posixpath.join(literal(dirname, ctx), literal(base, ctx))))
    return ctx.template("{os}.path.join({dirname}, {base})", os=emit.stdlib_module(ctx, site, "os"),
                        dirname=dirname, base=base)


def _known_base(ctx: Context, model: cst.BaseExpression) -> cst.SimpleString:
    value = literal(model, ctx)
    if not isinstance(value, str):
        raise NeedsReview("model_filename is not a string")
    return cst.SimpleString(repr(_stem(posixpath.basename(value))))  # 1.8 keeps the base name (io.py:1216)


def _run_time_base(ctx: Context, site: Site, model: cst.BaseExpression) -> cst.BaseExpression:
    """The literal rule as an expression of `model`'s value, for every value 1.8.5 takes: None (and only
    None: '' made 1.8 open the directory itself), a name, a path, an os.PathLike."""
    os_name = emit.stdlib_module(ctx, site, "os")
    if isinstance(model, cst.BinaryOperation) and isinstance(model.operator, cst.Add) \
            and isinstance(model.right, cst.SimpleString) and emit.is_literal(ctx, model.right):
        end = literal(model.right, ctx)
        # `name + '<end>'` where the literal end alone decides whether `.pdmodel` is dropped
        if isinstance(end, str) and not {"/", "\\"} & set(end) \
                and (_stem(end) != end if end.endswith(_SUFFIX) else not _SUFFIX.endswith(end)):
            return ctx.template("{os}.path.basename({model})", os=os_name,
                                model=model.with_changes(right=_without_suffix(model.right)))
    why = f"`model_filename={ctx.code(model).strip()}` is known only at run time"
    if any(isinstance(n, _EFFECTS) for n in descendants(model)):
        raise NeedsReview(f"{why}, and computing it first (to name the 2.x files) could change what it gives")
    if not _never_empty(ctx, model):
        model = ctx.template("{model} or {default}", model=emit.parenthesized(model),
                             default=cst.SimpleString(repr(_MODEL)))
    [name] = bind.first(ctx, site, [("model_name", ctx.template("{os}.path.basename({model})", os=os_name,
                                                                  model=model))],
                        f"{why}, and the call is not where a statement naming the 2.x files can go first")
    return ctx.template(f"{{os}}.path.splitext({{name}})[0] if {{name}}.endswith({_SUFFIX!r}) else {{name}}",
                        os=os_name, name=name)


def _without_suffix(end: cst.SimpleString) -> cst.SimpleString:
    """The literal without its `.pdmodel`, in its own quotes where its text ends so."""
    text, quote = end.value, end.quote
    if text[:-len(quote)].endswith(_SUFFIX):
        return end.with_changes(value=text[:-len(quote) - len(_SUFFIX)] + quote)
    return cst.SimpleString(repr(_stem(literal_eval(text))))


def _never_empty(ctx: Context, model: cst.BaseExpression) -> bool:
    """`x or '<name>'`, `x + '<name>'`: never None or ''."""
    return isinstance(model, (cst.BooleanOperation, cst.BinaryOperation)) \
        and isinstance(model.operator, (cst.Or, cst.Add)) and emit.is_literal(ctx, model.right) \
        and isinstance(literal(model.right, ctx), str) and literal(model.right, ctx) != ""


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
