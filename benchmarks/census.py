"""What the upgrade leaves, on one or more 1.x code bases: the census that picks what to convert next.

    python -m benchmarks.census /work/models-1.8 /work/models-1.7 [--top 30] [--json OUT.json]

Each corpus is upgraded (`python -m upgrade_tool --outpath <tmp> --report-json`, nothing written to the
corpus), and the legacy API uses left are counted per API and reason, over all corpora together and per
corpus. Prints, for each corpus, the sites found / converted / left and the conversion rate as the tool
reports them, the open places (a finding not fixed is still on them: `open_sites`) and the strict rate
those give, then the top APIs left across all of them, each with its reason (the most frequent one)
and its count in each corpus.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent

Key = Tuple[str, str]  # (api, finding code)


def upgrade_report(corpus: Path, extra: Sequence[str] = ()) -> dict:
    """The `--report-json` of an upgrade of `corpus` into a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run([sys.executable, "-m", "upgrade_tool", "-i", str(corpus), "--outpath", str(Path(tmp) / "out"),
                        "--no-log-file", "-q", "--report-json", str(report), *extra],
                       cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
        return json.loads(report.read_text(encoding="utf-8"))


def left_sites(report: dict) -> Dict[Key, collections.Counter]:
    """(api, code) -> Counter of reasons, over the findings of the uses the upgrade left."""
    left: Dict[Key, collections.Counter] = collections.defaultdict(collections.Counter)
    for finding in report["findings"]:
        if finding["fixed"] or not finding["api"] or finding["code"] in ("skipped", "failed"):
            continue
        left[(finding["api"], finding["code"])][finding["message"]] += 1
    return left


def open_sites(report: dict) -> int:
    """Places (file, line, column) where a legacy use still carries a finding that is not fixed: the strict
    count of what is left. The summary's `left` counts sites not converted; a site converted with a TODO
    still on it (a schedule to step by hand) and a method of an object of unknown kind (a finding with no
    site) are open here. Dividing by `found` then slightly overstates what is left, never understates it."""
    return len({(f["file"], f["line"], f["col"]) for f in report["findings"]
                if not f["fixed"] and f["api"] and f["code"] not in ("skipped", "failed")})


def main(argv: Sequence[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--json", type=Path, help="write the figures and the census as JSON")
    parser.add_argument("--upgrade-args", default="", help="extra upgrade flags, e.g. '--no-shim'")
    args = parser.parse_args(argv)
    per_corpus: Dict[str, Dict[Key, collections.Counter]] = {}
    figures: Dict[str, dict] = {}
    for corpus in args.corpora:
        report = upgrade_report(corpus, args.upgrade_args.split())
        figures[str(corpus)] = dict(report["summary"], open=open_sites(report))
        per_corpus[str(corpus)] = left_sites(report)
    print(f"{'corpus':40} {'files':>6} {'found':>7} {'converted':>10} {'left':>6} {'rate':>7} {'open':>6} "
          f"{'strict':>7} {'legacy files':>13}")
    for corpus, summary in figures.items():
        sites, files, open_ = summary["sites"], summary["files"], summary["open"]
        strict = 1 - open_ / sites["found"] if sites["found"] else 0
        print(f"{corpus:40} {files['scanned']:>6} {sites['found']:>7} {sites['converted']:>10} {sites['left']:>6} "
              f"{sites['conversion_rate'] or 0:>7.1%} {open_:>6} {strict:>7.1%} {files.get('legacy', 0):>13}")
    total: Dict[Key, collections.Counter] = collections.defaultdict(collections.Counter)
    for left in per_corpus.values():
        for key, reasons in left.items():
            total[key].update(reasons)
    ranked = sorted(total.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))[:args.top]
    print(f"\ntop {args.top} legacy uses left (api, code, count per corpus, most frequent reason):")
    rows: List[dict] = []
    for (api, code), reasons in ranked:
        counts = [sum(per_corpus[c].get((api, code), collections.Counter()).values()) for c in per_corpus]
        reason = reasons.most_common(1)[0][0]
        rows.append({"api": api, "code": code, "count": sum(reasons.values()), "per_corpus": counts, "reason": reason})
        print(f"{sum(reasons.values()):5} {counts} {api} [{code}] {reason[:160]}")
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "census": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
