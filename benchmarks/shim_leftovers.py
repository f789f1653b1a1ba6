"""Whether the runtime shim serves every legacy use the upgrade leaves (issue 14, "both halves").

    python -m benchmarks.shim_leftovers REPORT.json [REPORT.json ...] [--legacy-python /work/venvs/p18/bin/python]

REPORT is an upgrade's `--report-json` (`python -m benchmarks.census --json` does not keep the per-site
findings; `paddle-upgrade -i CORPUS --outpath OUT --report-json REPORT` does). Each API left there
(benchmarks.census.left_sites) is resolved, attribute by attribute, in a child Python with the shim
installed (`runtime_shim.coexist`, as an upgraded file imports it). With --legacy-python, the names the
shim does not serve are resolved again by that interpreter without the shim (the real 1.8.5), which
tells a hole of the shim from a name 1.8.5 did not have either (a 1.6 API, a private helper that moved).
Prints the counts and each name not served, with its number of sites.
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from benchmarks.census import left_sites

ROOT = Path(__file__).resolve().parent.parent

# Reads dotted names on stdin, prints those it cannot reach: the longest importable module, then attributes.
_RESOLVE = """
import importlib, sys
{setup}
for line in sys.stdin:
    name = line.strip()
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except Exception:
            print(name)
        break
    else:
        print(name)
"""


def unreachable(names: Sequence[str], python: str, setup: str) -> List[str]:
    """The names `python` cannot resolve after running `setup`."""
    done = subprocess.run([python, "-c", _RESOLVE.format(setup=setup)], input="\n".join(names), cwd=str(ROOT),
                          capture_output=True, text=True, check=True)
    return done.stdout.split()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--legacy-python", help="an interpreter with the real Paddle 1.8.5")
    args = parser.parse_args(argv)
    sites: Dict[str, int] = collections.Counter()
    for report in args.reports:
        for (api, _), reasons in left_sites(json.loads(report.read_text(encoding="utf-8"))).items():
            sites[api] += sum(reasons.values())
    missing = unreachable(sorted(sites), sys.executable, "import runtime_shim.coexist")
    print(f"APIs left: {len(sites)} ({sum(sites.values())} sites); not served by the shim: {len(missing)} "
          f"({sum(sites[name] for name in missing)} sites)")
    absent = set(unreachable(missing, args.legacy_python, "import paddle.fluid")) if args.legacy_python else None
    for name in sorted(missing, key=lambda n: (-sites[n], n)):
        where = "" if absent is None else ("  (not in 1.8.5 either)" if name in absent else "  (a 1.8.5 name: a hole)")
        print(f"{sites[name]:5} {name}{where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
