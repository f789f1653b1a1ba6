"""`fluid.load_op_library`: custom-operator libraries on Paddle 3.3.1.

1.8 (`framework.py:5148`) called `core.load_op_library(lib_filename)`: Paddle's dynamic loader opens the
library (`dlopen`, after `FLAGS_op_dir` when set), the library's static registrars add its operators to
the framework, and `OpProtoHolder.update_op_proto()` makes them known to `LayerHelper.append_op`.

Paddle 3.3.1 has one loader left, for libraries built with the custom-operator API
(`PD_BUILD_OP` compiled by `paddle.utils.cpp_extension`): `paddle.utils.cpp_extension.
load_op_meta_info_and_register_op`. The shim serves:

- a library that is missing or that `dlopen` refuses: the loader's own error (PreconditionNotMet,
  naming the file and the `dlopen` message), as 1.8 failed, catchable as 1.8's `fluid.core.EnforceNotMet`
  and as the `RuntimeError` Paddle 3 raises;
- a library built with the custom-operator API: loaded and registered, usable from legacy programs;
- an existing shared library without the custom-operator API (a 1.8 library of C++ operators, which
  registered through 1.8's `REGISTER_OPERATOR` and links against 1.8's `libpaddle_framework.so`):
  `OpLibraryABIError`, saying exactly that. It is not opened: its registrars would write into a
  framework that Paddle 3 no longer has.
"""
from __future__ import annotations

import functools
import os
from typing import List, Optional

from runtime_shim.adapters import adapter
from runtime_shim.messages import OpLibraryABIError

ELF_MAGIC = b"\x7fELF"
# Every library built with the custom-operator API (PD_BUILD_OP) calls this class's constructor.
CUSTOM_OP_API_SYMBOL = b"OpMetaInfoBuilder"
LEGACY_FRAMEWORK_LIBRARY = b"libpaddle_framework.so"


@functools.lru_cache(maxsize=None)
def enforce_not_met_error() -> type:
    """The class of a loader failure: Paddle 3's `RuntimeError` and 1.8's `core.EnforceNotMet` at once."""
    from paddle.base import core

    return type("EnforceNotMet", (RuntimeError, core.EnforceNotMet), {
        "__module__": "paddle.fluid.core",
        "__doc__": "A Paddle loader failure, catchable as 1.8's `fluid.core.EnforceNotMet` and as `RuntimeError`.",
    })


def library_kind(path: str) -> Optional[str]:
    """`"custom_op_api"`, `"legacy_framework"` (links against 1.x's libpaddle_framework.so), `"other"`
    (another ELF library without the custom-operator API), or None.

    None when the file cannot be inspected as a shared library here (missing, unreadable, not ELF):
    the loader then reports why, as 1.8's did.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if not data.startswith(ELF_MAGIC):
        return None
    if CUSTOM_OP_API_SYMBOL in data:
        return "custom_op_api"
    return "legacy_framework" if LEGACY_FRAMEWORK_LIBRARY in data else "other"


def _register(lib_filename: str) -> List[str]:
    """Paddle 3's loader; its failure re-raised as the 1.8-compatible error, naming the file."""
    from paddle.utils.cpp_extension import load_op_meta_info_and_register_op

    try:
        return load_op_meta_info_and_register_op(lib_filename)
    except RuntimeError as exc:
        error = enforce_not_met_error()(str(exc))
        error.filename = lib_filename  # as OSError has it: which file could not be loaded
        raise error from None


def _inspected_path(lib_filename: str) -> Optional[str]:
    """The file `dlopen` would open, when that does not depend on the system's search path."""
    op_dir = os.environ.get("FLAGS_op_dir", "")
    if op_dir and os.path.isfile(os.path.join(op_dir, lib_filename)):
        return os.path.join(op_dir, lib_filename)
    # A name without a slash is looked up by dlopen in the system's library path: leave it to the loader.
    return lib_filename if "/" in lib_filename else None


@adapter("paddle.fluid.load_op_library",
         "paddle.utils.cpp_extension.load_op_meta_info_and_register_op(lib_filename), for a library built "
         "with paddle.utils.cpp_extension")
def load_op_library(lib_filename: str) -> None:
    """1.8 `fluid.load_op_library(lib_filename)` (`framework.py:5148`): load a library of operators."""
    path = _inspected_path(lib_filename)
    kind = library_kind(path) if path is not None else None
    if kind in ("legacy_framework", "other"):
        links = " and links against Paddle 1.x's libpaddle_framework.so" if kind == "legacy_framework" else ""
        error = OpLibraryABIError(
            f"{lib_filename}: this shared library was not built with Paddle's custom-operator API "
            f"(PD_BUILD_OP, compiled by paddle.utils.cpp_extension){links}. A library of Paddle 1.8 C++ "
            "operators (REGISTER_OPERATOR, built against Paddle 1.8's headers) cannot be loaded by "
            "Paddle 3: port its operators to the custom-operator API and build them with "
            "paddle.utils.cpp_extension.setup or .load")
        error.filename = lib_filename
        raise error
    _register(lib_filename)
