"""Subclasses of 1.8's dygraph `LearningRateDecay`: 1.8's base class written once in the module.

A 1.8 schedule subclasses `fluid.dygraph.learning_rate_scheduler.LearningRateDecay` with a `step()` that
computes the rate from `self.step_num`; 1.8's dygraph optimizer called the object once per `minimize`,
which took `step()` and advanced `step_num` by `step` (`dygraph/learning_rate_scheduler.py:44-50`), and
`current_step_lr()` read back the rate the last `minimize` took, else `step()` (`optimizer.py:298`). 2.x
wants a `paddle.optimizer.lr.LRScheduler`, whose `step()` advances and which the optimizer reads once per
update through `__call__`, and once per `get_lr()`. So the module gets 1.8's base class written over
LRScheduler (api_mapping.kernels LEARNING_RATE_DECAY): `__call__` is 1.8's, except from the optimizer's
`get_lr()`, which is the converted `current_step_lr()` and advances nothing; the state dict is 1.8's
`step_num`. The subclass keeps its own `step()`, which its code and its callers keep calling for the rate.
Checked on 1.8.5 (per update the optimizer calls the schedule once, `current_step_lr()` never advances it;
3.3.1 calls `__call__` once per `step()`/`minimize()` and per `get_lr()`): fixtures/legacy/lr_decay_subclass_dygraph.

The same base carries 1.8's own dygraph schedules (api_mapping.kernels DYGRAPH_DECAYS) where the upgrade
cannot write the 2.x scheduler's `step()` after each optimizer step (`lr_decay.py`: the optimizer steps out
of sight, in another module's trainer or a method called per batch) or no 2.x scheduler computes 1.8's rates
(1.8.5's dygraph warm-up, a `step` other than 1, a floored natural-exp decay): `written_schedule` writes the
1.8 class into the module and calls it with the 1.8 arguments; the optimizer given it advances it. Only in
dygraph: a 1.8 dygraph class, or a `fluid.layers` schedule under a dygraph guard (1.8 made that class).
Checked on 1.8.5: fixtures/legacy/lr_decay_written_dygraph.

Left with the reason: a class of the module in the family that defines `__call__` (1.8's stepping replaced),
and a reference to the base that is not a base of a class statement (`isinstance(x, LearningRateDecay)`:
a converted schedule, a 2.x scheduler or 1.8's class written in its own module, is no instance of the base
the shim serves there).
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from api_mapping.kernels import DYGRAPH_DECAYS, LEARNING_RATE_DECAY
from refactors import call_args
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import descendants
from refactors.transformers import emit, module_definitions, register

# What the written base serves a subclass through: one defined in the family would bypass it.
_SERVED = ("__call__",)


def _defined(node: cst.ClassDef) -> List[str]:
    """The names a class body defines (methods and plain assignments)."""
    found: List[str] = []
    for stmt in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        if isinstance(stmt, cst.FunctionDef):
            found.append(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    found += [t.target.value for t in small.targets if isinstance(t.target, cst.Name)]
    return found


def _classes(ctx: Context) -> Dict[str, cst.ClassDef]:
    """The class statements of the module, anywhere in it, by name (a name bound twice is left out)."""
    def make() -> Dict[str, cst.ClassDef]:
        ctx.reads(ctx.module, words=("class", *_SERVED))  # every class statement and what it defines of _SERVED
        found: Dict[str, List[cst.ClassDef]] = {}
        for node in descendants(ctx.module):
            if isinstance(node, cst.ClassDef):
                found.setdefault(node.name.value, []).append(node)
        return {name: nodes[0] for name, nodes in found.items() if len(nodes) == 1}
    return ctx.planned(("lr decay class", "classes"), make)  # type: ignore[return-value]


def _reason(ctx: Context, root: cst.ClassDef) -> Optional[str]:
    """Why the family of `root` (its subclasses in the module, by name) is left, or None."""
    classes = _classes(ctx)
    family, names = [root], {root.name.value}
    grown = True
    while grown:
        grown = False
        for name, node in classes.items():
            if name not in names and any(isinstance(b.value, cst.Name) and b.value.value in names for b in node.bases):
                family.append(node)
                names.add(name)
                grown = True
    for node in family:
        overridden = sorted(set(_defined(node)).intersection(_SERVED))
        if overridden:
            return f"class {node.name.value} defines {', '.join(overridden)}, 1.8's stepping, which the written base serves"
    return None


def _class_of_base(ctx: Context, site: Site) -> Optional[cst.ClassDef]:
    """The class statement that has the reference `site.node` as a base."""
    for node in _classes(ctx).values():
        if any(b.value is site.node and b.keyword is None and not b.star for b in node.bases):
            return node
    return None


@register("lr_decay_base", references=True)
def lr_decay_base(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    cls = _class_of_base(ctx, site)
    if cls is None:
        raise NeedsReview("not the base of a class statement: a schedule the upgrade converts (a 2.x scheduler, "
                          "or 1.8's class written in its module) is no instance of the base the shim serves")
    reason = _reason(ctx, cls)
    if reason is not None:
        raise NeedsReview(reason)
    base = _base(ctx, site)
    site.finding = ctx.report(site, F.CONVERTED, "info",
                              f"{site.name} -> {base}, 1.8's base class written in the module over "
                              "paddle.optimizer.lr.LRScheduler (the optimizer advances it on each update)", True)
    return emit.converted(site, cst.Name(base))


def _base(ctx: Context, site: Site) -> str:
    return module_definitions.define_once(ctx, site, "LearningRateDecay", LEARNING_RATE_DECAY, stdlib=("sys",))


# 1.8's `fluid.layers` schedules made these classes in dygraph (`layers/learning_rate_scheduler.py`), with the
# same argument names, `piecewise_decay` with `begin=0`.
_CLASS_OF = {"exponential_decay": "ExponentialDecay", "natural_exp_decay": "NaturalExpDecay",
             "inverse_time_decay": "InverseTimeDecay", "polynomial_decay": "PolynomialDecay",
             "piecewise_decay": "PiecewiseDecay", "noam_decay": "NoamDecay", "cosine_decay": "CosineDecay",
             "linear_lr_warmup": "LinearLrWarmup"}


def written_schedule(ctx: Context, site: Site, node: cst.Call, dygraph_class: bool) -> Optional[cst.BaseExpression]:
    """`node`, a 1.8 schedule with its 1.8 keywords, as a call of 1.8's class written in the module over the
    written base; None (nothing written) where 1.8 may not have made that class: a `fluid.layers` schedule
    out of a dygraph guard."""
    assert site.entry is not None
    short = site.entry.name.rsplit(".", 1)[-1]
    name = short if dygraph_class else _CLASS_OF.get(short)
    if name not in DYGRAPH_DECAYS or not dygraph_class and not ctx.in_dygraph_guard(site.node):
        return None
    if call_args.has_star(node):
        raise NeedsReview("called with *args/**kwargs")
    if name == "PiecewiseDecay" and not dygraph_class:
        node = call_args.add(node, "begin", cst.Integer("0"))
    template = DYGRAPH_DECAYS[name].replace("{base}", _base(ctx, site))
    written = module_definitions.define_once(ctx, site, name, template,
                                             stdlib=("math",) if "{math}" in template else ())
    site.finding = ctx.report(site, F.CONVERTED, "info",
                              f"{site.name} -> {written}, 1.8's {name} written in the module over 1.8's base "
                              "class (the optimizer given it advances it on each update, as 1.8's minimize did)",
                              True)
    return emit.converted(site, node.with_changes(func=cst.Name(written)))
