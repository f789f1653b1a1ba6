"""Step 2: map each alias path (e.g. `paddle.fluid.dygraph.nn.Linear`) to the table's main name.

Matching a use site to its entry through aliases happens when the site is found (see
`engine.Upgrader._match_entry`, which consults this step's switch). The text is rewritten to the main
name only when no later `api_rename` will replace it anyway: an API left unconverted stays as written.
"""
from __future__ import annotations

import libcst as cst

from refactors.engine import Context, Site

NAME = "norm_api_alias"


def _normalise(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    if "api_rename" in ctx.enabled or site.entry is None or site.qualname == site.entry.name + site.suffix:
        return node
    return ctx.name_node(site.entry.name + site.suffix)


def call(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.Call):
        return node.with_changes(func=_normalise(ctx, site, node.func))
    return node


def reference(ctx: Context, site: Site, node: cst.BaseExpression) -> cst.BaseExpression:
    return _normalise(ctx, site, node)
