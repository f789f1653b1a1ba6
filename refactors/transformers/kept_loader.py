"""A `DataLoader.from_generator` kept in an attribute, whose data source code out of sight sets.

    class TSN(ModelBase):                           # train.py (through a registry: models.get_model)
        def build_input(self):                      loader = train_model.dataloader()
            image = fluid.data('image', [None, 8])  loader.set_sample_list_generator(reader, places)
            self.dataloader = fluid.io.DataLoader.  # utils/train_utils.py
                from_generator(feed_list=[image],   for data in loader(): ...
                               capacity=4, iterable=True)

PaddleCV/video keeps each model's loader in `self.dataloader` (which shadows ModelBase's `dataloader()`
method: 1.8's `loader()` returns the loader itself), and which model a caller holds is a registry's choice at
run time, so no plan of the tree can tell the setters a build's loader gets. The loader's 1.8 protocol is
what those callers use, so the build becomes an object of that protocol, a small class written once in
the module (`KEPT_LOADER`): each setter makes the 2.x `paddle.io.DataLoader` from the build's arguments
(`functools.partial`, as generator_loader's loaders built apart) over GeneratorBatches, calling the object
gives the object (truthy, as 1.8's), and iterating it iterates that loader (checked on 1.8.5 and 3.3.1:
fixtures/legacy/kept_loader_registry/).

It is written where what a setter does with the samples is decided at the build: a static-graph loader
(a dygraph one's 2.x loader would be made in the mode of wherever a setter runs, out of sight), iterable
(a loader the program reads, with `start()`/`reset()`, is another protocol), whose samples data_feeder's
NumpyFeeder stacks as 1.8's setters did (each converted to its feed variable's dtype and shape: with the
dtypes the file shows, else read at run time where no data variable of the module or of the tree modules
it imports may have a LoD level, which it cannot feed), with a feed list that calls nothing (the loader
and its feeder read it both). A use of 1.8's loader beyond its setters, calling and iterating it
(`loader.queue`, `next(loader)`) fails on the object by name: such a use cannot be in sight.
"""
from __future__ import annotations

import libcst as cst

from refactors import call_args
from refactors.engine import Context, NeedsReview, Site
from refactors.scopes import descendants
from refactors.transformers import apart_loader, data_feeder, emit, module_definitions

KEPT_LOADER = '''\
class {name}:
    """1.8's DataLoader.from_generator whose data source is set later (paddle-upgrade): each setter makes the
    paddle.io.DataLoader `make` (the build's arguments) over the batches of its reader; calling this gives
    it back and iterating it reads that loader, as 1.8's did. `feeder` stacks the samples of a static
    graph's loader as its feed variables' dtypes and shapes."""

    def __init__(self, make, feeder=None):
        self.make = make
        self.feeder = feeder
        self.loader = None

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        return self.set_sample_list_generator({paddle}.batch(reader, batch_size=batch_size, drop_last=drop_last),
                                              places=places)

    def set_sample_list_generator(self, reader, places=None):
        if self.feeder is not None:
            return self.made({batches}(self.feeder.batch_reader(reader), samples=False), places)
        return self.made({batches}(reader, samples=True), places)

    def set_batch_generator(self, reader, places=None):
        return self.made({batches}(reader, samples=False), places)

    def made(self, batches, places):
        self.loader = self.make(batches, places=places)
        return self

    def __call__(self):
        return self

    def __iter__(self):
        return iter(self.loader)
'''


def kept_loader(ctx: Context, site: Site, node: cst.Call, dygraph: bool) -> cst.Call:
    """`KeptLoader(functools.partial(paddle.io.DataLoader, ...), feeder=...)` for the build `node`; NeedsReview
    naming what the class could not do as 1.8 did."""
    if dygraph:
        raise NeedsReview("a dygraph loader: the object would make the 2.x loader where a setter is called, in a mode "
                          "(dygraph or static graph) not in sight here")
    if call_args.has_star(node) or any(arg.keyword is None for arg in node.args):
        raise NeedsReview("its arguments are passed by position or *args/**kwargs")
    apart_loader.check_build(ctx, node, dygraph, lambda c, a, d: emit.value_of(ctx, c, a, d))
    if ctx.todos[-1]:
        raise NeedsReview("its arguments hold uses left as written")
    feeder = None
    if not dygraph:
        feed_list = call_args.get(node, "feed_list").value  # type: ignore[union-attr]
        if any(isinstance(n, (cst.Call, cst.Await, cst.Yield, cst.NamedExpr)) for n in descendants(feed_list)):
            raise NeedsReview("its feed_list calls something, which the loader and the feeder of its samples would "
                              "each evaluate")
        try:
            feeder = data_feeder.numpy_feeder(ctx, site, feed_list.deep_clone())
        except NeedsReview as reason:
            raise NeedsReview(f"a sample setter needs its feed variables' dtypes (1.8 converted each sample to "
                              f"them), and {reason}") from None
    from refactors.transformers import generator_loader  # (generator_loader calls this module)
    batches = module_definitions.define_once(ctx, site, "GeneratorBatches", generator_loader.GENERATOR_BATCHES)
    name = module_definitions.define_once(ctx, site, "KeptLoader", KEPT_LOADER.replace("{batches}", batches))
    make = generator_loader.partial_loader(ctx, site, node, None if dygraph else feed_list)
    args = [cst.Arg(make)] + ([call_args.keyword_arg("feeder", feeder)] if feeder is not None else [])
    return cst.Call(func=cst.Name(name), args=args)
