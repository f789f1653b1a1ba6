"""Signature indexes of real Paddle releases: which names exist, and what they accept.

One gzip'd JSON file per release, `api_mapping/signatures/paddle-<version>.json.gz`, derived from the
release's wheel by `python -m tools.signature_index` (static reading of the sources; Paddle is never
imported). The tests use them to prove that every name and keyword the upgrader emits exists in the
target Paddle, and that the table's 1.8 parameter lists match 1.8.5.

Layout (keys sorted, compact separators)::

    {
      "format": 1,
      "version": "1.8.5",
      "wheel": "paddlepaddle-1.8.5-cp38-cp38-manylinux1_x86_64.whl",
      "sha256": "<sha256 of that wheel>",
      "apis": {                       # keyed by the *defining* dotted path
        "paddle.fluid.layers.nn.fc": {"kind": "function",
                                      "params": [["input"], ["size"], ["num_flatten_dims", "1"], ...]},
        "paddle.fluid.dygraph.nn.Linear": {"kind": "class", "params": [...],   # __init__ without self
                                           "bases": ["paddle.fluid.dygraph.layers.Layer"],
                                           "methods": {"forward": [["input"]]},  # own public methods
                                           "attrs": [...]},                      # properties, class attrs
        "paddle.nn.functional.common.dropout": {"kind": "function", "params": [...],
                                                "kwalias": {"input": "x"}},     # Paddle 3 keyword aliases
        "paddle.fluid.core.CPUPlace": {"kind": "unknown"},
        ...
      },
      "modules": {"paddle.fluid.layers": ["fc", "data", ...], ...},   # public members of each module
      "aliases": {"paddle.fluid.layers.fc": "paddle.fluid.layers.nn.fc", ...},
      "dynamic": ["paddle.fluid.core", ...]
    }

- `kind` is "function", "class", "constant" (any other module-level value) or "unknown" (a name taken
  from a compiled module: it exists, nothing more is known). Module paths live in "modules".
- `params` lists parameters in order: `[name]` when required, `[name, default-source-text]` otherwise;
  `["*args"]`/`["**kwargs"]` carry the real names of the star parameters; `["*"]` marks the start of
  keyword-only parameters and `["/"]` the end of positional-only ones. Missing `params` means unknown.
  Functions generated at import time (1.8's `fluid.layers.exp` from `generate_activation_fn`) carry the
  parameters of the function their generator returns.
- `methods` maps public method names to their parameters (without self/cls), own methods only; the
  reader follows `bases` (defining paths of base classes found in the same wheel) for inherited ones.
  `opaque_bases: true` marks a class whose base classes are all outside what could be read.
- `modules` holds each module's `__all__` (resolved statically) or, without one, its public names that
  refer to Paddle objects. `aliases` maps every other public path under which an API or module is
  reachable (re-exports, `name = other.name`) to its defining path. `dynamic` lists modules whose
  namespace is filled at runtime (compiled cores, protobuf modules): names missing there are unknown,
  not proven absent.
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, List, Mapping, Optional, Set, Tuple

INDEX_DIR = Path(__file__).with_name("signatures")
FORMAT = 1

ParamSpec = Tuple[str, ...]
"""One parameter: `(name,)` when required, `(name, default_source)` otherwise."""


def _params_tuple(raw: Optional[list]) -> Optional[Tuple[ParamSpec, ...]]:
    return None if raw is None else tuple(tuple(p) for p in raw)


def _params_accept(params: Tuple[ParamSpec, ...], keyword: str) -> bool:
    """Whether a call may pass `keyword=` to a callable with these parameters."""
    names = [p[0] for p in params]
    if any(n.startswith("**") for n in names):
        return True
    first = names.index("/") + 1 if "/" in names else 0  # positional-only parameters come before "/"
    return keyword in (n for n in names[first:] if not n.startswith("*") and n != "/")


@dataclass(frozen=True)
class ApiSignature:
    """What the index knows about one API (or a method or attribute of a class)."""

    name: str
    kind: str
    params: Optional[Tuple[ParamSpec, ...]] = None
    bases: Tuple[str, ...] = ()
    methods: Mapping[str, Optional[Tuple[ParamSpec, ...]]] = field(default_factory=dict)
    attrs: FrozenSet[str] = frozenset()
    kwalias: Mapping[str, str] = field(default_factory=dict)
    opaque_bases: bool = False

    @classmethod
    def from_json(cls, name: str, raw: dict) -> "ApiSignature":
        return cls(
            name=name,
            kind=raw["kind"],
            params=_params_tuple(raw.get("params")),
            bases=tuple(raw.get("bases", ())),
            methods={m: _params_tuple(p) for m, p in raw.get("methods", {}).items()},
            attrs=frozenset(raw.get("attrs", ())),
            kwalias=dict(raw.get("kwalias", {})),
            opaque_bases=bool(raw.get("opaque_bases", False)),
        )

    def param_list(self) -> Optional[List[List[str]]]:
        """Parameters in the table's `args_list` format (fresh lists), or None when unknown."""
        return None if self.params is None else [list(p) for p in self.params]

    def accepts_keyword(self, keyword: str) -> bool:
        if keyword in self.kwalias:
            return True
        return self.params is not None and _params_accept(self.params, keyword)


@dataclass
class SignatureIndex:
    """The names and signatures of one Paddle release."""

    version: str
    apis: Mapping[str, ApiSignature]
    modules: Mapping[str, Tuple[str, ...]]
    aliases: Mapping[str, str]
    dynamic: FrozenSet[str] = frozenset()
    wheel: str = ""

    @classmethod
    def from_json(cls, raw: dict) -> "SignatureIndex":
        if raw.get("format") != FORMAT:
            raise ValueError(f"signature index format {raw.get('format')!r}, expected {FORMAT}")
        return cls(
            version=raw["version"],
            apis={name: ApiSignature.from_json(name, entry) for name, entry in raw["apis"].items()},
            modules={name: tuple(members) for name, members in raw["modules"].items()},
            aliases=dict(raw["aliases"]),
            dynamic=frozenset(raw.get("dynamic", ())),
            wheel=raw.get("wheel", ""),
        )

    def resolve(self, dotted: str) -> Optional[str]:
        """The defining path of `dotted` (itself for a defining or module path), or None.

        Also resolves through module aliases and to methods/attributes of classes, which resolve to
        the class that defines them (`...AdamOptimizer.minimize` -> `...Optimizer.minimize`).
        """
        return self._resolve(dotted, 0)

    def _resolve(self, dotted: str, depth: int) -> Optional[str]:
        if depth > 32:
            return None
        if dotted in self.apis or (dotted in self.modules and dotted not in self.aliases):
            return dotted
        if dotted in self.aliases:
            return self.aliases[dotted]
        if "." not in dotted:
            return None
        prefix, attr = dotted.rsplit(".", 1)
        owner = self._resolve(prefix, depth + 1)
        if owner is None:
            return None
        sig = self.apis.get(owner)
        if sig is not None and sig.kind == "class":
            defining = self._class_member(owner, attr)
            return None if defining is None else f"{defining}.{attr}"
        if owner != prefix and owner in self.modules:
            return self._resolve(f"{owner}.{attr}", depth + 1)
        return None

    def _class_member(self, cls: str, attr: str) -> Optional[str]:
        """The class, among `cls` and its bases (depth first), that defines method/attribute `attr`."""
        stack: List[str] = [cls]
        seen: Set[str] = set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            sig = self.apis.get(current)
            if sig is None or sig.kind != "class":
                continue
            if attr in sig.methods or attr in sig.attrs:
                return current
            stack.extend(reversed(sig.bases))
        return None

    def get(self, dotted: str) -> Optional[ApiSignature]:
        """The signature `dotted` resolves to: an API, a module, or a class's method/attribute."""
        target = self.resolve(dotted)
        if target is None:
            return None
        if target in self.apis:
            return self.apis[target]
        if target in self.modules:
            return ApiSignature(name=target, kind="module")
        cls, attr = target.rsplit(".", 1)
        owner = self.apis.get(cls)
        if owner is None:  # re-exported from a module the index does not hold (compiled, or a stub)
            return ApiSignature(name=target, kind="unknown")
        if attr in owner.methods:
            return ApiSignature(name=target, kind="method", params=owner.methods[attr])
        return ApiSignature(name=target, kind="attribute")

    def params(self, dotted: str) -> Optional[List[List[str]]]:
        """Parameters of a function, method or class constructor as `[name]`/`[name, default]` lists."""
        sig = self.get(dotted)
        return None if sig is None else sig.param_list()

    def accepts_keyword(self, dotted: str, keyword: str) -> bool:
        """True if the callable has a parameter `keyword` (or a keyword alias of it), or takes **kwargs."""
        sig = self.get(dotted)
        return sig is not None and sig.accepts_keyword(keyword)

    def module_members(self, module: str) -> List[str]:
        """What `from <module> import *` binds (its `__all__`, else its public Paddle names)."""
        if module in self.modules:
            # `from m import *` reads the module itself, even where the package attribute `m` was
            # rebound to something else (1.8's `paddle.fluid.data` is also a function).
            return list(self.modules[module])
        target = self.resolve(module)
        return list(self.modules.get(target, ())) if target is not None else []

    def exists(self, dotted: str) -> bool:
        """True for APIs, their aliases, modules, and methods/attributes of classes."""
        return self.resolve(dotted) is not None

    def is_dynamic(self, module: str) -> bool:
        """True when names of `module` are made at runtime, so a missing name is merely unknown."""
        target = self.resolve(module)
        return target in self.dynamic if target is not None else False

    def names(self) -> List[str]:
        """Every dotted path the index lists: defining paths, aliases and modules, sorted."""
        return sorted(set(self.apis) | set(self.aliases) | set(self.modules))


def index_file(version: str) -> Path:
    return INDEX_DIR / f"paddle-{version}.json.gz"


def available_versions() -> List[str]:
    """Versions with a committed index, oldest first."""
    found = [p.name[len("paddle-"):-len(".json.gz")] for p in INDEX_DIR.glob("paddle-*.json.gz")]
    return sorted(found, key=lambda v: tuple(int(x) if x.isdigit() else x for x in v.split(".")))


@lru_cache(maxsize=None)
def load_index(version: str) -> SignatureIndex:
    """The committed index of Paddle `version` (cached)."""
    path = index_file(version)
    if not path.is_file():
        raise FileNotFoundError(
            f"no signature index for Paddle {version} (have {', '.join(available_versions()) or 'none'}); "
            "build it with `python -m tools.signature_index`"
        )
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        raw: Dict = json.load(fh)
    return SignatureIndex.from_json(raw)
