"""The other Paddle 1.8.5 paths of the table's APIs.

1.8.5's modules import each other's names (`paddle.fluid.layers.nn` imports `concat` from
`layers.tensor`, `paddle.fluid.optimizer` imports `LearningRateDecay`), and 1.x code sometimes calls
an API through such a path. The 1.8.5 signature index (`api_mapping/signatures`) knows which paths
denote the same object; each `paddle.fluid` path the table does not list is an alias of the entry of
that object, when exactly one entry has it. The result is committed (`legacy_paths.json`, rewritten
by `python -m tools.legacy_paths`) so that loading the table does not read the index.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, Set

PATH = Path(__file__).with_name("legacy_paths.json")


def derive(table: Any, index: Any) -> Dict[str, str]:
    """{1.8.5 path the table lacks: main name of the entry of the same object}."""
    names = table.all_names()
    owners: Dict[str, Set[str]] = defaultdict(set)
    for name, main in names.items():
        target = index.resolve(name)
        if target is not None:
            owners[target].add(main)
    found = {}
    for path in sorted(set(index.aliases) | set(index.apis)):
        if path in names or not path.startswith("paddle.fluid."):
            continue
        mains = owners.get(index.resolve(path) or "", set())
        if len(mains) == 1:
            found[path] = next(iter(mains))
    return found


def load() -> Dict[str, str]:
    with PATH.open(encoding="utf-8") as fh:
        return json.load(fh)


def dump(paths: Dict[str, str]) -> str:
    return json.dumps(paths, indent=1, sort_keys=True) + "\n"
