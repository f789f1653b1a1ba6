"""Derive the signature indexes (`signatures/paddle-<version>.json.gz`) from the real Paddle wheels.

    python -m tools.signature_index [--wheel-dir DIR] [--versions 1.8.5 2.0.2 3.3.1] [--report]

Each wheel is read as a zip: the `paddle/**/*.py` sources (and the `.pyi` stubs Paddle ships for
compiled and runtime-filled modules) are parsed with `ast`, never imported, so building needs no
Paddle, no GPU and no matching Python. Test trees and `test_*`/`*_test*` modules are skipped. The index
layout is documented in `api_mapping/signatures.py`, its reader.

How names are found, statically:

- Every module's top-level statements are replayed in order (both arms of an `if`, the `try` body after
  its handlers so the normal path wins, `if TYPE_CHECKING:` bodies only) into a namespace of references:
  an API defined somewhere, a module, something outside Paddle, or an "opaque" name taken from a
  compiled module. `import`, `from x import name [as y]`, `from x import *` (honouring the source's
  `__all__`), `name = other.name` aliases, `__all__` arithmetic and `for NAME in LIST: globals()[NAME] =
  ...` generators are understood. Modules import each other in cycles, so all modules are replayed
  until nothing changes (a fixpoint) instead of following Python's import order.
- Signatures come from the `def`s; a class's parameters from its own `__init__` or the first base class
  (in the same wheel) that has one; a generated function's from the function its generator returns.

The output is byte-for-byte reproducible for a given wheel and Python version (defaults are rendered
with `ast.unparse`, so building needs Python >= 3.9, and one recent enough to parse the newest sources).
"""
from __future__ import annotations

from tools.signature_index.index import build_index, index_bytes, index_path
from tools.signature_index.wheels import WHEELS, obtain_wheel

__all__ = ["WHEELS", "build_index", "index_bytes", "index_path", "obtain_wheel"]
