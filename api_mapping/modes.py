"""The execution-model facts of 1.x vs 2.x: which calls switch graph modes.

1.x builds static graphs by default and runs dygraph only inside `fluid.dygraph.guard()`; 2.x is
dynamic by default. The upgrader inserts STATIC_ON in files that build static graphs; the runtime
shim uses both to keep the 1.x default.
"""
STATIC_ON = "paddle.enable_static"
DYNAMIC_ON = "paddle.disable_static"
