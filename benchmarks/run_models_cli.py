"""Run `paddle-upgrade --write --no-confirm` over a whole 1.8 corpus and report the numbers.

The corpus (by default the PaddlePaddle/models `release/1.8` checkout at /work/models-1.8) is copied
to a temporary folder for each `--parallel` value, so the original is never touched. For each run
this prints and saves (benchmarks/out/models_cli.json):

- files scanned / changed / unchanged / failed / skipped, legacy API uses found / converted / left;
- crashes: a run crashed if it exited with anything but 0 or 1, or a file failed with an internal error;
- every failed or skipped file with its reason, and the files that needed the Python 2 pre-pass;
- wall time;
- checks: every written file parses, the backup restores the copy byte for byte, and the upgraded
  trees of all `--parallel` values are identical.

Usage: python benchmarks/run_models_cli.py [--corpus DIR] [--parallel 1 2]
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
COMMAND = [sys.executable, "-m", "upgrade_tool"]
# run the working tree's code, installed or not
ENV = {**os.environ, "PYTHONPATH": str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def tree_hashes(root: Path) -> Dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def run_once(corpus: Path, parallel: int, scratch: Path) -> Dict:
    copy = scratch / f"models-p{parallel}"
    shutil.copytree(corpus, copy, symlinks=True)
    original = tree_hashes(copy)
    report_json = scratch / f"report-p{parallel}.json"
    cmd = COMMAND + ["-i", str(copy), "--write", "--no-confirm", "--backup", str(scratch / f"backup-p{parallel}"),
                     "-p", str(parallel), "--report-json", str(report_json),
                     "--log-filepath", str(scratch / f"report-p{parallel}.log")]
    started = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=scratch, env=ENV)
    wall = time.monotonic() - started
    data = json.loads(report_json.read_text()) if report_json.exists() else {}
    files = data.get("files", [])
    internal = [f for f in data.get("findings", []) if "internal error" in f["message"]]
    upgraded = tree_hashes(copy)
    changed = [path for path, digest in upgraded.items() if original.get(path) != digest]
    unparseable = []
    for path in changed:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ast.parse((copy / path).read_bytes())
            except SyntaxError as exc:
                unparseable.append(f"{path}: {exc}")
    runs = sorted((scratch / f"backup-p{parallel}").glob("run-*"))
    restore = subprocess.run(COMMAND + ["--restore", str(runs[-1])], capture_output=True, text=True,
                             env=ENV) if runs else None
    restored_exact = restore is not None and restore.returncode == 0 and tree_hashes(copy) == original
    return {
        "parallel": parallel,
        "exit_code": done.returncode,
        "crashed": done.returncode not in (0, 1) or bool(internal),
        "wall_seconds": round(wall, 1),
        "summary": data.get("summary"),
        "failed": [(f["path"], f["reason"]) for f in files if f["status"] == "failed"],
        "skipped": [(f["path"], f["reason"]) for f in files if f["status"] == "skipped"],
        "python2": [(f["path"], f["status"], f["python2_fixers"]) for f in files if f["python2_fixers"]],
        "files_written": len(changed),
        "written_but_unparseable": unparseable,
        "backup_restores_exactly": restored_exact,
        "upgraded_tree": upgraded,
        "stderr_tail": done.stderr.decode("utf-8", "replace").splitlines()[-3:],
    }


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="/work/models-1.8", type=Path)
    parser.add_argument("--parallel", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--out", default=HERE / "out" / "models_cli.json", type=Path)
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="paddle-upgrade-models-") as scratch:
        for n in args.parallel:
            result = run_once(args.corpus, n, Path(scratch))
            results.append(result)
            summary = result["summary"] or {}
            print(f"-p {n}: exit {result['exit_code']}, {result['wall_seconds']}s, "
                  f"files {json.dumps(summary.get('files'))}, sites {json.dumps(summary.get('sites'))}, "
                  f"crashed={result['crashed']}, restore exact={result['backup_restores_exactly']}, "
                  f"unparseable written={len(result['written_but_unparseable'])}")
            for path, reason in result["failed"]:
                print(f"   failed: {path}: {reason}")
            for path, status, fixers in result["python2"]:
                print(f"   python2: {path}: {status} (fixers: {', '.join(fixers)})")
    identical = all(r["upgraded_tree"] == results[0]["upgraded_tree"] for r in results)
    print(f"upgraded trees identical across --parallel {args.parallel}: {identical}")
    for r in results:
        del r["upgraded_tree"]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"corpus": str(args.corpus), "runs": results,
                                    "identical_across_parallel": identical}, indent=2) + "\n")
    print(f"saved {args.out}")
    bad = any(r["crashed"] or r["written_but_unparseable"] or not r["backup_restores_exactly"] for r in results)
    return 1 if bad or not identical else 0


if __name__ == "__main__":
    sys.exit(main())
