"""`fluid.DataFeeder(feed_list, place)`: a small class of the module whose `feed` builds the same feed dict.

1.8's `DataFeeder.feed(samples)` (`data_feeder.py:271`, the converter at `:118`) stacked each field of the
samples with `np.array(..., dtype=<the variable's dtype>)`, reshaped it to the variable's shape when the
ranks differ (unless that shape has more than one unknown dimension) and returned `{name: LoDTensor}`;
`feed_parallel` did so for one batch per place. 2.x has no DataFeeder (api_mapping/SEMANTICS.md 39):
`Executor.run` takes `{name: array}`, and checks the dtype. A variable's dtype is not readable as a NumPy
dtype through the 2.x API, so the rewrite needs it from the file:

    img = fluid.layers.data(name='img', shape=[784], dtype='float32')
    label = fluid.layers.data(name='label', shape=[1], dtype='int64')
    feeder = fluid.DataFeeder(feed_list=[img, label], place=place)

becomes `feeder = NumpyFeeder([img, label], dtypes=['float32', 'int64'])`, a class written once per module
(`NUMPY_FEEDER`), whose `feed`/`feed_parallel` the code calls as before (checked on 1.8.5 and 3.3.1,
fixtures/legacy/data_feeder_static.py). `feed_list` a list of names, each bound once to a `fluid.data`
or `fluid.layers.data` of a literal dtype and LoD level 0 (a LoD input needs LoD tensors), gives the
dtypes. Any other feed list (a parameter, `model.feeds()`, names of a `program`'s variables) becomes
`NumpyFeeder(feed_list, program=program)`, which reads each variable's dtype at run time and refuses one
of LoD level other than 0 (fixtures/legacy/data_feeder_elsewhere/): written only where no data variable
of the module, or of a module of the tree it imports, may have a LoD level (`refactors/lod_inputs.py`),
else left (runtime_shim serves it); the same rule (`feed_dtypes`) serves the sample sources of static
loaders (generator_loader). Either way the feeder must be a name bound once and used only through
`feed` and `feed_parallel` in its scope (not `decorate_reader`, not passed on). `place` does not change
the arrays.
"""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Sequence

import libcst as cst

from api_mapping.namespaces import DATA_VARIABLES
from refactors import call_args, lod_inputs
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site, literal
from refactors.local_values import assigned_name, bound_once, statements
from refactors.scopes import children, dotted
from refactors.target_signatures import target_params
from refactors.transformers import SCOPE, emit, module_definitions, register

STATIC_DATA = "paddle.static.data"  # what they become (a file upgraded before)
METHODS = ("feed", "feed_parallel")

NUMPY_FEEDER = '''\
class {name}:
    """1.8's DataFeeder (paddle-upgrade): `feed(samples)` is the feed dict of the samples' fields
    (`fields(samples)`), each stacked as its variable's dtype and, where the ranks differ, reshaped to its
    shape. A variable named by a string is the program's; without `dtypes`, each variable's own dtype,
    which needs LoD level 0 (1.8 fed the others LoD tensors, which this does not build)."""

    def __init__(self, feed_list, dtypes=None, program=None):
        if program is None:
            program = {paddle}.static.default_main_program()
        self.feed_list = [program.global_block().var(var) if isinstance(var, str) else var for var in feed_list]
        self.dtypes = [self.dtype(var) for var in self.feed_list] if dtypes is None else dtypes

    @staticmethod
    def dtype(var):
        lod_level = getattr(var, 'lod_level', None)
        if lod_level != 0:
            raise ValueError(f"{{var.name}}: LoD level {{lod_level}}, not 0 (1.8's DataFeeder fed a LoD tensor)")
        for name in ('bool', 'float16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8'):
            if var.dtype == getattr({paddle}, name):
                return name
        raise TypeError(f"1.8's DataFeeder does not feed {{var.name}} of dtype {{var.dtype}}")

    def feed(self, samples):
        samples, fields = list(samples), len(self.feed_list)
        wrong = [len(sample) for sample in samples if len(sample) != fields]
        if wrong:
            raise ValueError(f"The number of fields in data ({{wrong[0]}}) does not match len(feed_list) ({{fields}})")
        return {{var.name: array for var, array in zip(self.feed_list, self.fields(samples))}}

    def fields(self, samples):
        arrays = []
        for var, dtype, column in zip(self.feed_list, self.dtypes, zip(*samples)):
            array = {numpy}.array(column, dtype=dtype)
            shape = list(var.shape)
            if shape and sum(size < 0 for size in shape) <= 1 and array.ndim != len(shape):
                array = array.reshape(shape)
            arrays.append(array)
        return arrays

    def feed_parallel(self, iterable, num_places=None):
        return (self.feed(samples) for samples in iterable)

    def batch_reader(self, reader):
        """The reader of the fields of each list of samples `reader` yields (1.8's static loaders)."""
        return lambda: map(self.fields, reader())
'''


def _data_params(ctx: Context, qualname: Optional[str]) -> Optional[Sequence[str]]:
    """The parameters of a data-variable function `qualname` names (1.8's, or 2.x's), else None."""
    entry = ctx.entry_for(qualname) if qualname else None
    if entry is not None and entry.name in DATA_VARIABLES and entry.args_list:
        return [p.name for p in entry.args_list]
    return target_params(STATIC_DATA) if qualname == STATIC_DATA else None


def _argument(call: cst.Call, params: Sequence[str], name: str) -> Optional[cst.BaseExpression]:
    """The argument of the call bound to parameter `name` (by keyword or position)."""
    for index, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
        if arg.keyword is None and not arg.star and index < len(params) and params[index] == name:
            return arg.value
    return None


class _Unseen(NeedsReview):
    """The feed variables' dtypes are not in sight (the variables themselves give them at run time)."""


def _dtype(ctx: Context, site: Site, element: cst.BaseExpression) -> str:
    """The literal dtype of the data variable `element` names, from its `fluid.data(...)` in the file."""
    if not isinstance(element, cst.Name):
        raise _Unseen("feed_list holds what is not a name of a data variable")
    name = element.value
    scope = ctx.resolver.binding_scope(name, site.scope)
    if scope is None or not bound_once(scope, name):
        raise _Unseen(f"`{name}` in feed_list is not a name bound once here")
    value = next((found[1] for found in map(assigned_name, statements(scope.node))
                  if found is not None and found[0] == name), None)
    chain = dotted(value.func) if isinstance(value, cst.Call) else None
    params = _data_params(ctx, ctx.resolver.qualname(chain, scope) if chain else None)
    if params is None or call_args.has_star(value):  # type: ignore[arg-type]
        raise _Unseen(f"`{name}` is not assigned a fluid.data/layers.data variable here, so its dtype is "
                          f"not known")
    try:
        lod_level = _argument(value, params, "lod_level")  # type: ignore[arg-type]
        dtype = _argument(value, params, "dtype")  # type: ignore[arg-type]
        if lod_level is not None and literal(lod_level, ctx) != 0:
            raise NeedsReview(f"`{name}` has a LoD level: 1.8 fed it a LoD tensor")
        found = "float32" if dtype is None else literal(dtype, ctx)  # (2.x: None, the default float32)
        found = "float32" if found is None else found
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise _Unseen(f"the dtype or LoD level of `{name}` is not a literal") from None
    if not isinstance(found, str):
        raise _Unseen(f"the dtype of `{name}` is not a string")
    return found


def _seen(ctx: Context, root: cst.CSTNode, name: str) -> Iterator[cst.CSTNode]:
    """The nodes under `root` where `name` may be the one of `root`'s scope: not the parameters and body
    of a function defined there that binds `name` itself (its decorators and defaults, yes)."""
    stack = [root]
    while stack:
        node = stack.pop()
        inner = ctx.resolver.scopes.get(id(node)) if node is not root else None
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and inner is not None and name in inner.bindings:
            params = node.params
            defaults = [p.default for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                        if p.default is not None]
            stack.extend(reversed([*(d.decorator for d in getattr(node, "decorators", ())), *defaults]))
            continue
        yield node
        stack.extend(reversed(list(children(node))))


def _other_use(ctx: Context, site: Site, feeder: str, target: cst.Name) -> Optional[str]:
    """A use of the feeder in its scope other than calling `feed`/`feed_parallel`, as written."""
    methods = set()
    seen = list(_seen(ctx, site.scope.node, feeder))
    for node in seen:
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == feeder:
            if node.attr.value not in METHODS:
                return f"{feeder}.{node.attr.value}"
            methods.add(id(node.value))
    calls = [node for node in seen if isinstance(node, cst.Call)]
    passed = {id(arg.value): (call, index) for call in calls for index, arg in enumerate(call.args)
              if isinstance(arg.value, cst.Name) and arg.value.value == feeder}
    keywords = {id(arg.keyword) for call in calls for arg in call.args if arg.keyword is not None}
    for node in seen:
        if isinstance(node, cst.Name) and node.value == feeder and id(node) not in methods | keywords and \
                node is not target:
            if id(node) not in passed or not _feeds_only(ctx, site, *passed[id(node)]):
                return feeder
    return None


def _feeds_only(ctx: Context, site: Site, call: cst.Call, index: int) -> bool:
    """`call` is of a function the module defines at its top level (bound once), whose parameter taking
    argument `index` it uses only through `feed`/`feed_parallel` (read in CPython's parse of the file)."""
    func, arg = call.func, call.args[index]
    scope = ctx.resolver.module_scope
    tree = ctx.python_tree()
    if not isinstance(func, cst.Name) or call_args.has_star(call) or tree is None or \
            ctx.resolver.binding_scope(func.value, site.scope) is not scope or not bound_once(scope, func.value):
        return False
    function = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func.value), None)
    if function is None or function.decorator_list:
        return False
    positional = [a.arg for a in function.args.posonlyargs + function.args.args]
    if arg.keyword is not None:
        param = arg.keyword.value
        if param not in positional + [a.arg for a in function.args.kwonlyargs]:
            return False
    elif index < len(positional) and not any(a.keyword is not None for a in call.args[:index]):
        param = positional[index]
    else:
        return False
    feeds = {id(n.value) for n in ast.walk(function) if isinstance(n, ast.Attribute) and n.attr in METHODS}
    for node in ast.walk(function):
        if isinstance(node, ast.arg) and node.arg == param and node not in function.args.args + \
                function.args.posonlyargs + function.args.kwonlyargs:
            return False  # (a nested function's own parameter of that name)
        if isinstance(node, ast.Name) and node.id == param and (id(node) not in feeds or
                                                               not isinstance(node.ctx, ast.Load)):
            return False
        if isinstance(node, (ast.Global, ast.Nonlocal)) and param in node.names:
            return False
    return True


@register("data_feeder", reads=(SCOPE,))  # the feed variables' data calls, the feeder's uses
def data_feeder(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    statement = ctx.statements[-1] if ctx.statements else None
    bound = assigned_name(statement) if statement is not None else None
    if bound is None or bound[1] is not emit.original_call(ctx, site) or not bound_once(site.scope, bound[0]):
        raise NeedsReview("the feeder is not a name assigned once, so its uses are not in sight")
    feeder = bound[0]
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs")
    feed_list = emit.required(node, "feed_list")
    dtypes = feed_dtypes(ctx, site, feed_list)
    program = call_args.get(node, "program") if dtypes is None else None
    target = statement.body[0].targets[0].target  # type: ignore[union-attr]
    other = _other_use(ctx, site, feeder, target)
    if other is not None:
        how = "passed on" if other == feeder else "used"
        raise NeedsReview(f"`{other}` is {how}: only the uses of feed() and feed_parallel() are in sight")
    new = _feeder_call(ctx, site, feed_list, dtypes, program)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {new.func.value}, whose feed() "  # type: ignore
                                                         f"builds the 1.8 feed dict", True)
    return emit.converted(site, new)


def numpy_feeder(ctx: Context, site: Site, feed_list: cst.BaseExpression,
                 dtypes: Optional[List[str]] = None) -> cst.Call:
    """`NumpyFeeder(feed_list, dtypes=[...])`, which stacks samples as 1.8's DataFeeder did for these
    variables (also what 1.8's static loaders fed their samples through), or `NumpyFeeder(feed_list)`
    reading their dtypes at run time (`feed_dtypes`); with `dtypes`, the ones the caller knows."""
    return _feeder_call(ctx, site, feed_list, dtypes if dtypes is not None else feed_dtypes(ctx, site, feed_list))


def feed_dtypes(ctx: Context, site: Site, feed_list: cst.BaseExpression) -> Optional[List[str]]:
    """The feed variables' dtypes where `feed_list` is a list of data variables whose dtypes the file
    shows; None where NumpyFeeder reads them at run time, which is only where no data variable of the
    module or of a tree module it imports may have a LoD level (NeedsReview otherwise)."""
    try:
        return _dtypes(ctx, site, feed_list)
    except _Unseen as unseen:
        try:
            read_at_run_time(ctx)
        except NeedsReview as lod:
            raise NeedsReview(f"{unseen}, and {lod}") from None
        return None


def read_at_run_time(ctx: Context) -> None:
    """NeedsReview unless NumpyFeeder may read feed variables' dtypes at run time: where no data variable
    of the module, or of a tree module it imports, may have a LoD level (NumpyFeeder refuses one)."""
    made = lod_inputs.lod_input(ctx)
    if made is not None:
        raise NeedsReview(f"{made} may have a LoD level (1.8 fed it a LoD tensor)")


def _dtypes(ctx: Context, site: Site, feed_list: cst.BaseExpression) -> List[str]:
    if not isinstance(feed_list, cst.List) or any(isinstance(e, cst.StarredElement) for e in feed_list.elements):
        raise _Unseen("feed_list is not a list written here, so the variables' dtypes are not known")
    return [_dtype(ctx, site, element.value) for element in feed_list.elements]


def _feeder_call(ctx: Context, site: Site, feed_list: cst.BaseExpression, dtypes: Optional[List[str]],
                 program: Optional[cst.Arg] = None) -> cst.Call:
    """`NumpyFeeder(feed_list, dtypes=[...])`, or without dtypes (and with 1.8's `program`, where a
    variable may be named by a string) `NumpyFeeder(feed_list, program=program)`."""
    name = module_definitions.define_once(ctx, site, "NumpyFeeder", NUMPY_FEEDER)
    args = [cst.Arg(feed_list)]
    if dtypes is not None:
        args.append(call_args.keyword_arg("dtypes", cst.List([cst.Element(cst.SimpleString(repr(d))) for d in dtypes])))
    if program is not None:
        args.append(call_args.keyword_arg("program", program.value))
    return cst.Call(func=cst.Name(name), args=args)
