"""Dropout: 1.8's default mode and its `is_test` are not 2.x's.

- Mode (`layers/nn.py:2294`, doc `:2323-2326`): 1.8 defaults to `downgrade_in_infer` (train `x * mask`,
  infer `x * (1 - p)`); 2.x defaults to `upscale_in_train` and spells the 1.8 mode
  `'downscale_in_infer'`. The mode is always written out.
- `is_test`: in a static graph it chooses inference; 2.x says `training=not is_test`. In 1.8 dygraph,
  `layers.dropout` ignores it and follows the global train mode that `Layer.train()`/`.eval()` set
  (`layers/nn.py:2367`), so inside a method of a dygraph `Layer` subclass the rewrite is
  `training=self.training`. `dygraph.Dropout` never used its `is_test` (`dygraph/nn.py:1421`).
- `seed`: a seed other than None fixed the op's mask: 1.8.5 drew the same mask on every run, and the
  same for every op given the same seed (checked on 1.8.5, static and dygraph). 2.x dropout draws
  each mask from the global generator and has no per-op seed, so such a call is left for review, except
  at inference (`is_test=True` in a function, not a method), where no mask is drawn
  (fixtures/legacy/dropout_seed_static.py).
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site, same_literal
from refactors.transformers import emit, register

_MODES = {"downgrade_in_infer": "downscale_in_infer", "upscale_in_train": "upscale_in_train"}


def _mode(ctx: Context, node: cst.Call) -> cst.Call:
    implementation = emit.value_of(ctx, node, "dropout_implementation", "downgrade_in_infer")
    if implementation not in _MODES:
        raise NeedsReview(f"dropout_implementation={implementation!r} is not a 1.8 mode")
    node = call_args.remove(node, "dropout_implementation")
    return call_args.add(node, "mode", cst.SimpleString(repr(_MODES[implementation])))


def _no_seed(ctx: Context, node: cst.Call, inference: bool = False) -> cst.Call:
    seed = call_args.get(node, "seed")
    if seed is not None and not inference and not same_literal(seed.value, "None", ctx):
        raise NeedsReview(_FIXED_MASK)
    return call_args.remove(node, "seed")


_FIXED_MASK = ("a seed fixed this op's mask in 1.8 (the same mask on every run); 2.x dropout has no seed and "
               "draws a new mask each run from the global generator (paddle.seed): drop seed= by hand if that "
               "is acceptable")


def _layer_self(ctx: Context, site: Site) -> Optional[str]:
    """`self` when the call is in a method of a dygraph Layer subclass."""
    scope = site.scope
    if not isinstance(scope.node, cst.FunctionDef) or scope.parent is None or not scope.parent.is_class:
        return None
    params = scope.node.params.params
    if not params or not emit.is_layer_class(ctx, scope.parent.node, scope.parent.parent):  # type: ignore[arg-type]
        return None
    return params[0].name.value


def _in_method(site: Site) -> bool:
    scope = site.scope
    return isinstance(scope.node, cst.FunctionDef) and scope.parent is not None and scope.parent.is_class


@register("dropout_mode")
def dropout_mode(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    is_test = call_args.get(node, "is_test")
    owner = _layer_self(ctx, site)
    # Not in any method: a class whose Layer base the upgrade renamed is not told from another one.
    inference = not _in_method(site) and is_test is not None and same_literal(is_test.value, "True", ctx)
    node = call_args.remove(_no_seed(ctx, _mode(ctx, node), inference), "is_test")
    if owner is not None:
        training: Optional[cst.BaseExpression] = cst.Attribute(value=cst.Name(owner), attr=cst.Name("training"))
    elif is_test is None or same_literal(is_test.value, "False", ctx):
        training = None  # 2.x's default, True
    else:
        training = emit.negated(ctx, is_test.value)
    if training is not None:
        node = call_args.add(node, "training", training)
    return emit.converted(site, emit.finish(ctx, site, node))


@register("dropout_layer")
def dropout_layer(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    node = _no_seed(ctx, _mode(ctx, node))
    node = call_args.remove(node, "is_test")  # unused by 1.8's Dropout layer: .train()/.eval() decide
    return emit.converted(site, emit.finish(ctx, site, node))
