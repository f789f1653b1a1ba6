"""The execution-model facts of 1.x vs 2.x: which calls switch graph modes.

1.x builds static graphs by default and runs dygraph only inside `fluid.dygraph.guard()`; 2.x is
dynamic by default. The upgrader inserts STATIC_ON in files that build static graphs (LEGACY_STATIC_ON
where the output runs through runtime_shim: the static graph on the legacy IR that 1.x code relies on);
the runtime shim uses both to keep the 1.x default. COEXIST is the module whose import lets the
legacy uses an upgrade left run beside the converted code.
"""
STATIC_ON = "paddle.enable_static"
DYNAMIC_ON = "paddle.disable_static"
LEGACY_STATIC_ON = "runtime_shim.enable_static"
COEXIST = "runtime_shim.coexist"
