"""The `sys.meta_path` finder and loader that serve `paddle.fluid` and its submodules.

Modules are lazy: `paddle.fluid.layers` is an empty `LegacyModule` whose attributes are resolved on
first access (`runtime_shim.resolve`) and then cached in the module. The finder answers only for
`paddle.fluid` and below, and only when the installed Paddle has no real `paddle.fluid` (Paddle <= 2.5
still ships one, and it is never shadowed).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any, List, Optional, Sequence

from runtime_shim import legacy_index, mode, resolve

ROOT = "paddle.fluid"


class LegacyModule(types.ModuleType):
    """A 1.8 module whose names resolve on first access."""

    def __getattr__(self, attr: str) -> Any:
        if attr == "__all__":
            names = self._public_names()
            self.__dict__["__all__"] = names
            return names
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        obj = resolve.default_resolver().resolve(f"{self.__name__}.{attr}")
        self.__dict__[attr] = obj
        return obj

    def __setattr__(self, attr: str, value: Any) -> None:
        home = None
        if not attr.startswith("_"):  # the import machinery sets dunders before adapters can load
            from runtime_shim.adapters.internals import REBOUND_GLOBALS

            home = REBOUND_GLOBALS.get(f"{self.__name__}.{attr}")
        if home is not None:
            module, _, name = home.rpartition(".")
            setattr(importlib.import_module(module), name, value)
        super().__setattr__(attr, value)

    def _public_names(self) -> List[str]:
        """What `from <this module> import *` binds: the 1.8 names the shim can resolve."""
        resolver = resolve.default_resolver()
        names = []
        with resolve.quiet():
            for short in resolver.module_names(self.__name__):
                if short.startswith("_"):
                    continue
                try:
                    self.__dict__.setdefault(short, resolver.resolve(f"{self.__name__}.{short}"))
                except (AttributeError, ImportError):
                    continue
                names.append(short)
        return names

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(resolve.default_resolver().module_names(self.__name__)))

    def __repr__(self) -> str:
        return f"<module {self.__name__!r} (Paddle 1.8 API served by runtime_shim)>"


def real_fluid_exists(paddle_path: Optional[Sequence[str]] = None) -> bool:
    """True when the installed Paddle ships its own `paddle.fluid` (Paddle <= 2.5)."""
    if paddle_path is None:
        spec = importlib.util.find_spec("paddle")
        if spec is None or spec.submodule_search_locations is None:
            return False
        paddle_path = list(spec.submodule_search_locations)
    return importlib.machinery.PathFinder.find_spec(ROOT, list(paddle_path)) is not None


class LegacyFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and loads `paddle.fluid[.*]` as `LegacyModule`s. With `legacy_mode` (`runtime_shim.install`),
    importing `paddle.fluid` also enters 1.x's static-by-default mode; without it (`serve_names`), the
    program's mode is left alone."""

    legacy_mode = True

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: Any = None
                  ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != ROOT and not fullname.startswith(ROOT + "."):
            return None
        if fullname == ROOT:
            if real_fluid_exists(path):
                return None
        else:
            parent = sys.modules.get(fullname.rpartition(".")[0])
            if not isinstance(parent, LegacyModule):
                return None  # a real paddle.fluid is loaded: not ours to serve
            if not self._serves(fullname):
                return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    @staticmethod
    def _serves(fullname: str) -> bool:
        if legacy_index.is_module(fullname):
            return True
        entry = resolve.default_resolver().entry(fullname)
        return entry is not None and entry.kind == "module"

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = LegacyModule(spec.name)
        module.__path__ = []  # a package, so that `import paddle.fluid.x.y` asks this finder again
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ == ROOT and self.legacy_mode:
            # 1.x builds static graphs by default (api_mapping/SEMANTICS.md 35).
            mode.static_by_default()


def paddle_getattr(name: str) -> Any:
    """Installed as `paddle.__getattr__`: `paddle.fluid` works without `import paddle.fluid`."""
    if name == "fluid":
        return importlib.import_module(ROOT)
    raise AttributeError(f"module 'paddle' has no attribute {name!r}")
