"""Rewrite `api_mapping/legacy_paths.json`: the other Paddle 1.8.5 paths of the table's APIs.

    python -m tools.legacy_paths [--check]

Run after adding an entry or an alias; `--check` exits 1 when the committed file is stale.
"""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from api_mapping import legacy_paths
from api_mapping.loader import build_listed
from api_mapping.signatures import load_index


def render() -> str:
    return legacy_paths.dump(legacy_paths.derive(build_listed(), load_index("1.8.5")))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        stale = not legacy_paths.PATH.exists() or legacy_paths.PATH.read_text(encoding="utf-8") != text
        if stale:
            print(f"{legacy_paths.PATH} is stale: run python -m tools.legacy_paths", file=sys.stderr)
        return int(stale)
    legacy_paths.PATH.write_text(text, encoding="utf-8")
    print(f"{legacy_paths.PATH}: {text.count(chr(10)) - 2} paths")
    return 0


if __name__ == "__main__":
    sys.exit(main())
