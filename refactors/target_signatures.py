"""Parameter names of 2.x targets, read from the committed 3.3.1 signature index."""
from __future__ import annotations

from functools import lru_cache
from typing import List, Optional, Tuple

TARGET_VERSION = "3.3.1"


@lru_cache(maxsize=None)
def _params(dotted: str) -> Optional[Tuple[str, ...]]:
    try:
        from api_mapping.signatures import load_index
    except ImportError:  # index tooling not present: keep every argument a keyword
        return None
    params = load_index(TARGET_VERSION).params(dotted)
    if params is None:
        return None
    names: List[str] = []
    for p in params:
        if p[0].startswith("*"):
            break
        names.append(p[0])
    return tuple(names)


def target_params(dotted: str) -> Optional[Tuple[str, ...]]:
    """Positional-or-keyword parameter names of a 2.x callable, in order; None when unknown."""
    return _params(dotted)


@lru_cache(maxsize=None)
def target_signature(dotted: str) -> Optional[Tuple[Tuple[str, Optional[str]], ...]]:
    """Every parameter of a 2.x callable as (name with its `*`/`**`, default source or None), in order;
    None when unknown."""
    try:
        from api_mapping.signatures import load_index
    except ImportError:
        return None
    params = load_index(TARGET_VERSION).params(dotted)
    if params is None:
        return None
    return tuple((p[0], p[1] if len(p) > 1 else None) for p in params)
