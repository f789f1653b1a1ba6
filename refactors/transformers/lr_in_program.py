"""Static learning-rate schedules the program computes itself, as 1.8 built them.

A 1.8 static decay (`layers/learning_rate_scheduler.py`) is a Variable the program computes from
`@LR_DECAY_COUNTER@`, a counter it increments first thing on every run (SEMANTICS 29). Paddle 2.6 and
later keep these functions, with the same operators, as `paddle.optimizer.lr.<name>` (3.3.1
`optimizer/lr.py`, not in its `__all__` but documented there). Given to a 2.x optimizer on the legacy IR
(`runtime_shim.enable_static()`, which lets a 2.x optimizer read a Variable rate as 1.8's did), the rate
advances on each run of the program whoever runs it, in any module, through a `CompiledProgram`, with
no `scheduler.step()` to write: 1.8's numbers by construction.

`lr_decay.py` writes this form for a static schedule whose runs it cannot step (its scheduler form
needs every run in sight), and for the schedules no 2.x scheduler computes: the static warm-up, the floored natural-exp and inverse-time decays. The warm-up reads its
`learning_rate` in the program: a number, or a rate the program computes (a schedule written in this
form, here or bound to a name before); a 2.x scheduler object there is left for review. With
`--no-shim` the file runs on PIR, where a 2.x optimizer takes no Variable: nothing is written here.
"""
from __future__ import annotations

from typing import Dict, Optional, Set, Tuple

import libcst as cst

from refactors import call_args
from refactors import findings as F
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import dotted
from refactors.transformers import emit

# By the last part of the 1.8 name; the arguments are the same, name for name.
FUNCTIONS: Dict[str, str] = {
    "exponential_decay": "paddle.optimizer.lr.exponential_decay",
    "natural_exp_decay": "paddle.optimizer.lr.natural_exp_decay",
    "inverse_time_decay": "paddle.optimizer.lr.inverse_time_decay",
    "polynomial_decay": "paddle.optimizer.lr.polynomial_decay",
    "piecewise_decay": "paddle.optimizer.lr.piecewise_decay",
    "noam_decay": "paddle.optimizer.lr.noam_decay",
    "cosine_decay": "paddle.optimizer.lr.cosine_decay",
    "linear_lr_warmup": "paddle.optimizer.lr.linear_lr_warmup",
}
SINCE = "2.6"  # absent from the 2.0.2 wheel, present in 2.6.2's paddle/optimizer/lr.py and in 3.3.1's
_NAMED = "lr_in_program: names"  # (scope id, name) bound to a rate written in this form


def applies(ctx: Context) -> bool:
    """Whether the file runs on the legacy IR, where a 2.x optimizer reads a Variable rate."""
    return ctx.shim


def rate(ctx: Context, site: Site, node: cst.Call, assigned: Optional[str]) -> cst.Call:
    """`paddle.optimizer.lr.<name>(<the same arguments>)`; `assigned`, the name the statement binds
    it to, is remembered for a warm-up that reads it later."""
    assert site.entry is not None
    short = site.entry.name.rsplit(".", 1)[-1]
    target = FUNCTIONS.get(short)
    if target is None:
        raise NeedsReview(f"no in-program 2.x form known for {short}")
    if short == "linear_lr_warmup":
        _check_warmup_rate(ctx, site, node)
    new = emit.positional_again(ctx, site, node, target).with_changes(func=emit.name(ctx, site, target))
    ctx.report(site, F.NEWER_PADDLE, "info", F.newer_paddle(site.entry.name, target, SINCE), True)
    site.finding = ctx.report(site, F.CONVERTED, "info", f"{site.name} -> {target}", True)
    if assigned is not None:
        named: Set[Tuple[int, str]] = ctx.memo.setdefault(_NAMED, set())  # type: ignore[assignment]
        named.add((id(site.scope), assigned))
    return new


def _check_warmup_rate(ctx: Context, site: Site, node: cst.Call) -> None:
    given = call_args.get(node, "learning_rate")
    if given is None:
        raise NeedsReview("`learning_rate` is missing")
    value = given.value
    if isinstance(value, cst.Call) and dotted(value.func) in FUNCTIONS.values():
        return
    if isinstance(value, cst.Name) and (id(site.scope), value.value) in ctx.memo.get(_NAMED, ()):  # type: ignore[operator]
        return
    if emit.is_literal(ctx, value) and isinstance(emit.value_of(ctx, node, "learning_rate"), (int, float)):
        return
    raise NeedsReview("the warm-up's learning_rate is not a number nor a rate this upgrade wrote in the "
                      "program; 1.8's warm-up reads a Variable or a float")
