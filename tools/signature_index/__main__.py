"""`python -m tools.signature_index`: derive the signature indexes from the real Paddle wheels."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional, Sequence

from api_mapping.signatures import INDEX_DIR
from tools.signature_index import __doc__ as DOC
from tools.signature_index.index import build_index, index_bytes, index_path
from tools.signature_index.wheels import DEFAULT_WHEEL_DIR, WHEELS, obtain_wheel

def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.signature_index", description=DOC.split("\n\n")[0])
    parser.add_argument("--wheel-dir", type=Path, default=DEFAULT_WHEEL_DIR,
                        help=f"where wheels are looked for and downloaded to (default: {DEFAULT_WHEEL_DIR})")
    parser.add_argument("--versions", nargs="+", default=list(WHEELS), choices=list(WHEELS))
    parser.add_argument("--out-dir", type=Path, default=INDEX_DIR)
    parser.add_argument("--report", action="store_true", help="list every name that could not be resolved")
    args = parser.parse_args(argv)

    for version in args.versions:
        wheel = obtain_wheel(WHEELS[version], args.wheel_dir)
        index, issues = build_index(wheel, version)
        data = index_bytes(index)
        out = index_path(version, args.out_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        print(f"paddle {version}: {len(index['apis'])} APIs, {len(index['modules'])} modules, "
              f"{len(index['aliases'])} aliases, {len(index['dynamic'])} dynamic modules, "
              f"{len(issues)} unresolved; {out} ({len(data):,} bytes)")
        if args.report:
            for issue in issues:
                print(f"  {issue}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
