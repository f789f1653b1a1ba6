"""Speed and quality of `paddle-upgrade` beside the reference tool and the libcst floor, in one command.

    python -m benchmarks.run --corpus DIR [--repeat 3] [--parallel 2]
    python -m benchmarks.run --synthetic 1000,10000 [--seed 0] [--repeat 3] [--parallel 2]

With --corpus, each repetition runs, one after the other on the same machine: ours
(`paddle-upgrade --write --no-confirm -p N` on a fresh copy), the reference tool
(`paddle_upgrade_tool` 0.0.27, installed from PyPI into `benchmarks/out/reference-venv` on first use,
`--write --no-confirm -p N` on a fresh copy with CRLF normalised, see `benchmarks/reference_tool.py`),
and the libcst floor (parse + code generation of the files that mention paddle, `benchmarks/floor.py`)
in one process and with N processes. Interleaving the tools spreads any other load on the machine
over all of them. Each run is a fresh subprocess; wall time, CPU time and peak memory of its whole
process tree are measured (`benchmarks/measure.py`). Then the quality of each upgrader's output is
judged (`benchmarks/quality.py`) on one more, untimed run with its failure report on (ours:
`--report-json`), and a re-run on that output for idempotence.

With --synthetic, the corpora of those sizes are generated (`benchmarks/synthetic.py`, cached under
`benchmarks/out/synthetic/`) and benchmarked the same way (by default ours and the floor only:
--tools ours,reference,floor to add the reference), followed by a table of how time and memory grow.

Prints tables; writes everything (every run, every figure, the environment) as JSON to
`benchmarks/out/<corpus>-<time>.json`. Nothing here asserts a duration.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from benchmarks import synthetic
from benchmarks.corpus import python_files
from benchmarks.floor import FloorRun
from benchmarks.measure import ToolRun
from benchmarks.our_tool import OurTool
from benchmarks.quality import measure_tree
from benchmarks.reference_tool import ReferenceTool

OUT = Path(__file__).resolve().parent / "out"
UPGRADERS = ("ours", "reference")


@contextlib.contextmanager
def exclusive(work: Path) -> Iterator[None]:
    """One run at a time in `work`: two copy their corpora into the same folders, and one then times or
    judges a copy the other is rewriting (runs crashed, or judged idempotent outputs not to be)."""
    work.mkdir(parents=True, exist_ok=True)
    with open(work / ".lock", "w") as handle:
        try:
            import fcntl
        except ImportError:  # (not POSIX: no lock)
            yield
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit(f"benchmarks: another run is using {work}; wait for it to end, or run from "
                             f"another checkout") from None
        yield


def _upgrader(name: str) -> bool:
    """`ours`, `ours@CHECKOUT` or `reference` (the floor only parses and generates)."""
    return name in UPGRADERS or name.startswith("ours@")


def floor_workers(parallel: int) -> int:
    """The floor's processes beside upgraders run with `-p parallel` (0: their default, one per CPU)."""
    return parallel or os.cpu_count() or 1


def make_tools(names: Sequence[str], work: Path, parallel: int) -> List:
    tools: List = []
    for name in names:
        if name == "ours":
            tools.append(OurTool(work, parallel))
        elif name.startswith("ours@"):
            tools.append(OurTool(work, parallel, Path(name[len("ours@"):])))
        elif name == "reference":
            tools.append(ReferenceTool(OUT, parallel))
        elif name == "floor":
            tools.append(FloorRun(1))
            if floor_workers(parallel) > 1:
                tools.append(FloorRun(floor_workers(parallel)))
        else:
            raise SystemExit(f"unknown tool {name!r} (ours, ours@CHECKOUT, reference, floor)")
    return tools


def _clean(run: ToolRun, keep_tree: bool) -> None:
    """Remove an upgrader's copy (unless kept) and its backup; the floor's tree is the corpus itself."""
    if not _upgrader(run.tool):
        return
    backup = run.tree.parent / f"{run.tree.name}-backup"
    if backup.exists():
        shutil.rmtree(backup)
    if not keep_tree and run.tree.exists():
        shutil.rmtree(run.tree)


def timing(all_runs: List[ToolRun], files: int) -> Dict[str, object]:
    """Figures over the valid runs (a run that broke, e.g. an environment being reinstalled, is left out)."""
    runs = [r for r in all_runs if r.valid]
    figures: Dict[str, object] = {"runs": len(runs), "invalid_runs": len(all_runs) - len(runs),
                                  "load_1min": [round(r.measured.load_before, 2) for r in all_runs]}
    if not runs:
        return {**figures, "wall_min_s": None, "wall_median_s": None, "files_per_s": None, "cpu_median_s": None,
                "peak_tree_rss_mb": None, "peak_process_rss_mb": None, "exit_codes": []}
    walls = [r.measured.wall_s for r in runs]
    trees = [r.measured.tree_rss_mb for r in runs if r.measured.tree_rss_mb is not None]
    median = statistics.median(walls)
    return {
        **figures, "wall_min_s": min(walls), "wall_median_s": median,
        "files_per_s": files / median if median else None,
        "cpu_median_s": statistics.median(r.measured.cpu_s for r in runs),
        "peak_tree_rss_mb": max(trees) if trees else None,
        "peak_process_rss_mb": max(r.measured.max_rss_mb for r in runs),
        "exit_codes": sorted({r.measured.returncode for r in runs}),
    }


def _reported_run(tool, source: Path, dest: Path, tag: str) -> ToolRun:
    """An untimed run with the tool's failure reporting on (once more if the run itself broke)."""
    for attempt in range(2):
        run = tool.run(source, dest, f"{tag}{attempt}", report=True)
        _clean(run, keep_tree=True)
        if run.valid:
            break
    return run


def bench(corpus: Path, tools: List, repeat: int, work: Path, quality: bool,
          save: Callable[[Dict[str, object]], None] = lambda result: None) -> Dict[str, object]:
    """Time every tool `repeat` times (interleaved), then judge the upgraders' outputs.

    The timed runs are the plain commands. Quality is judged on one more, untimed run of each
    upgrader with its failure report on (ours: --report-json, which keeps every finding in memory
    for the report), and a re-run on that output for idempotence. `save` is called with the result
    so far after the timings and at the end."""
    files = python_files(corpus)
    inputs = {t.name: t.prepare(corpus) for t in tools}
    runs: Dict[str, List[ToolRun]] = {t.name: [] for t in tools}
    for i in range(repeat):
        for tool in tools:
            run = tool.run(inputs[tool.name], work / tool.name / f"run{i}", f"run{i}")
            runs[tool.name].append(run)
            _clean(run, keep_tree=False)
            m = run.measured
            print(f"  {tool.name:<10} run {i + 1}/{repeat}: {m.wall_s:6.2f} s wall, {m.cpu_s:6.2f} s CPU, "
                  f"{(m.tree_rss_mb or 0):6.0f} MB tree RSS, exit {m.returncode}, load {m.load_before:.2f}"
                  f"{'' if run.valid else '  (INVALID: ' + '; '.join(run.notes) + ')'}", file=sys.stderr, flush=True)
    result: Dict[str, object] = {
        "corpus": str(corpus), "files": len(files), "repeat": repeat,
        "timing": {name: timing(rs, len(files)) for name, rs in runs.items()},
        "notes": {t.name: [*getattr(t, "prepare_notes", []), *sorted({n for r in runs[t.name] for n in r.notes})]
                  for t in tools},
        "runs": {name: [r.measured.to_dict() for r in rs] for name, rs in runs.items()},
    }
    save(result)
    if quality:
        result["quality"], result["quality_details"], result["judged_runs"] = {}, {}, {}
        for tool in tools:
            if not _upgrader(tool.name):
                continue
            print(f"  judging {tool.name}: one reported run, and a re-run on its output", file=sys.stderr, flush=True)
            judged = _reported_run(tool, inputs[tool.name], work / tool.name / "judged", "judged")
            result["judged_runs"][tool.name] = judged.measured.to_dict()
            if not judged.valid:
                result["notes"][tool.name].append("no valid reported run: quality not judged")
                continue

            def rerun(tree: Path, tool=tool) -> Tuple[Path, Set[str]]:
                again = _reported_run(tool, tree, work / tool.name / "rerun", "rerun")
                return again.tree, again.failed

            q = measure_tree(inputs[tool.name], judged.tree, judged.failed, rerun, paths=files)
            result["quality"][tool.name] = q.summary()
            result["quality_details"][tool.name] = q.details()
    save(result)
    return result


# -- rendering ------------------------------------------------------------------------------------

def _num(value: Optional[float], fmt: str = "{:.2f}") -> str:
    return "-" if value is None else fmt.format(value)


def _table(rows: List[List[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return a / b if a is not None and b else None


def speed_table(result: Dict) -> str:
    """Wall time of the valid runs; ratios are of medians (ours/reference, tool/floor at the same -p)."""
    t = result["timing"]
    ref = t.get("reference", {}).get("wall_median_s")
    floor_p = result.get("floor_parallel") or result.get("parallel", 1)
    floor = t.get(f"floor-p{floor_p}", {}).get("wall_median_s")
    rows = [["tool", "runs", "wall min s", "wall med s", "files/s", "CPU s", "tree RSS MB", "proc RSS MB",
             "/reference", "/floor"]]
    for name, v in t.items():
        median = v["wall_median_s"]
        rows.append([name, f"{v['runs']}" + (f"+{v['invalid_runs']} bad" if v["invalid_runs"] else ""),
                     _num(v["wall_min_s"]), _num(median), _num(v["files_per_s"], "{:.0f}"),
                     _num(v["cpu_median_s"]), _num(v["peak_tree_rss_mb"], "{:.0f}"),
                     _num(v["peak_process_rss_mb"], "{:.0f}"),
                     _num(_ratio(median, ref) if name != "reference" else None, "{:.3f}x"),
                     _num(_ratio(median, floor) if _upgrader(name) else None, "{:.2f}x")])
    return _table(rows)


QUALITY_ROWS = [
    ("files using paddle", lambda q: str(q["files_using_paddle"])),
    ("refused / crashed", lambda q: str(q["failed"])),
    ("outputs that parse", lambda q: f"{q['parsed']}/{q['parse_judged']}"),
    ("idempotent", lambda q: f"{q['idempotent']}/{q['idempotence_judged']}"),
    ("fluid sites converted", lambda q: f"{q['sites_converted']}/{q['sites_in']} "
                                        f"({_num(q['conversion_rate'] and 100 * q['conversion_rate'], '{:.1f}')}%)"),
    ("untouched files with fluid sites", lambda q: str(q["untouched_with_fluid_sites"])),
    ("emitted names missing in 3.3.1", lambda q: f"{q['missing_names']} ({q['missing_names_distinct']} distinct)"),
    ("emitted paddle.fluid.* paths", lambda q: str(q["missing_legacy_names"])),
    ("emitted keywords 3.3.1 rejects", lambda q: f"{q['bad_keywords']} ({q['bad_keywords_distinct']} distinct)"),
    ("args dropped w/o TODO (proxy)", lambda q: str(q["dropped_args"])),
    ("arg losses explained by a TODO", lambda q: str(q["explained_drops"])),
]


def quality_table(result: Dict) -> str:
    quality = result.get("quality") or {}
    names = list(quality)  # the upgraders, in the order they ran
    rows = [["quality", *names]]
    for label, show in QUALITY_ROWS:
        rows.append([label, *(show(quality[n]) for n in names)])
    return _table(rows)


def scaling_table(results: List[Dict]) -> str:
    rows = [["files", "tool", "wall med s", "files/s", "CPU s", "tree RSS MB", "proc RSS MB"]]
    for result in results:
        for name, v in result["timing"].items():
            rows.append([str(result["files"]), name, _num(v["wall_median_s"]), _num(v["files_per_s"], "{:.0f}"),
                         _num(v["cpu_median_s"]), _num(v["peak_tree_rss_mb"], "{:.0f}"),
                         _num(v["peak_process_rss_mb"], "{:.0f}")])
    return _table(rows)


# -- command --------------------------------------------------------------------------------------

def environment() -> Dict[str, object]:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=OUT.parent, capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = ""
    try:
        from importlib.metadata import version
        libcst_version = version("libcst")
    except Exception:
        libcst_version = ""
    return {"when": dt.datetime.now().isoformat(timespec="seconds"), "cpus": os.cpu_count(),
            "python": platform.python_version(), "platform": platform.platform(), "libcst": libcst_version,
            "commit": commit, "load_avg_start": os.getloadavg()}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", type=Path, help="a directory of 1.x code (not modified)")
    source.add_argument("--synthetic", help="comma-separated corpus sizes, e.g. 1000,10000")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic corpora")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per tool (min and median reported)")
    parser.add_argument("--parallel", type=int, default=2,
                        help="worker processes for every tool; 0: the upgraders' default (no -p; one per CPU "
                             "for both), and one per CPU for the floor")
    parser.add_argument("--tools", help="comma-separated: ours,reference,floor; ours@DIR runs the checkout DIR "
                                        "(python -m upgrade_tool there: two versions in one run) "
                                        "(default: all three; with --synthetic: ours,floor)")
    parser.add_argument("--no-quality", action="store_true", help="timings only")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    names = (args.tools or ("ours,reference,floor" if args.corpus else "ours,floor")).split(",")
    work = OUT / "work"
    tools = make_tools(names, work, args.parallel)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    env = environment()

    if args.corpus:
        corpora = [(args.corpus.resolve(), args.corpus.resolve().name)]
    else:
        sizes = [int(s) for s in args.synthetic.split(",") if s.strip()]
        corpora = [(synthetic.ensure(OUT / "synthetic" / f"n{n}-seed{args.seed}", n, args.seed), f"synthetic-{n}")
                   for n in sizes]

    OUT.mkdir(parents=True, exist_ok=True)
    name = corpora[0][1] if len(corpora) == 1 else "synthetic"
    out = OUT / f"{name}-{stamp}.json"
    results: List[Dict[str, object]] = []

    def save(partial: Dict[str, object]) -> None:
        done = [r for r in results if r is not partial]
        out.write_text(json.dumps({"environment": env, "results": [*done, partial]}, indent=1, default=str) + "\n",
                       "utf-8")

    p_label = f"-p {args.parallel}" if args.parallel else "each tool's default -p"
    with exclusive(work):
        for corpus, label in corpora:
            print(f"{label}: {len(python_files(corpus))} files, {args.repeat} runs per tool, {p_label}",
                  file=sys.stderr, flush=True)
            result = bench(corpus, tools, args.repeat, work / label, quality=not args.no_quality, save=save)
            result.update(label=label, parallel=args.parallel, floor_parallel=floor_workers(args.parallel),
                          environment=env)
            results.append(result)
            save(result)
            print(f"\n== {label}: {result['files']} .py files, {p_label}, {args.repeat} runs each ==")
            print(speed_table(result))
            if result.get("quality"):
                print()
                print(quality_table(result))
            for tool_name, notes in result["notes"].items():
                for note in notes:
                    print(f"note ({tool_name}): {note}")
            print(flush=True)
    if len(results) > 1:
        print("== scaling ==")
        print(scaling_table(results))
    print(f"results: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
