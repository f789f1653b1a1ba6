"""`import runtime_shim.coexist`: the line the upgrader writes into a file that still uses legacy APIs.

The file's converted code is plain 2.x; the legacy uses the upgrade left (each marked
`# TODO(paddle-upgrade)`) keep working because this import serves `paddle.fluid` names
(`runtime_shim.serve_names`). It changes nothing else: the mode and the IR are what the converted code
selects. When the last legacy use is converted, the upgrader removes the line.
"""
from runtime_shim import serve_names

serve_names()
