"""How much real 1.8 code runs under the runtime shim: module-level code of PaddlePaddle/models files.

    python benchmarks/shim_models.py [CORPUS] [--jobs 2] [--timeout 60] [--json OUT.json] [--list] [--strict]

CORPUS defaults to /work/models-1.8 (PaddlePaddle/models, branch release/1.8). For every `.py` file that
imports `paddle.fluid`, a child process changes to the file's directory, puts that directory first on
`sys.path`, and runs the file with `runpy.run_path(path, run_name="shim_probe")`: the module-level code
runs, `if __name__ == "__main__":` blocks do not. Children are forked from a parent that imported Paddle
and installed the shim once (a fork per file instead of a Paddle import), at most `--jobs` at a time, and
a child that exceeds `--timeout` seconds is killed and counted as failed.

A file that fails this way on its import layout (a relative import, or a module of its own project that
is not in its directory) is run a second time the way its project's scripts import it: as
`package.module` when it sits in a package (relative imports work), with the directories between it and
the corpus root after its own directory on `sys.path`. `--strict` skips that second run; the strict
figure is printed either way.

Outcomes:
- ok: the module-level code ran to the end (or called `sys.exit(0)`);
- skipped: it stopped on a missing third-party module: not `paddle`, and not a module the corpus
  contains (`cv2`, `wget`, ...), or on a name such a module no longer has (`scipy.misc.imsave`);
- failed: anything else, grouped by reason (exception type and first line of the message).

The figure is ok / (ok + failed). `--list` prints every failing file with its reason.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/models-1.8")
FLUID_IMPORT = re.compile(
    r"^[ \t]*(?:import[ \t]+paddle\.fluid\b|from[ \t]+paddle\.fluid\b|from[ \t]+paddle[ \t]+import[ \t].*\bfluid\b)",
    re.MULTILINE,
)


def fluid_files(corpus: Path) -> List[Path]:
    """The corpus's `.py` files that import `paddle.fluid`, sorted."""
    found = []
    for path in sorted(corpus.rglob("*.py")):
        if any(part.startswith(".") for part in path.relative_to(corpus).parts):
            continue
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if FLUID_IMPORT.search(text):
            found.append(path)
    return found


def corpus_module_names(corpus: Path) -> Set[str]:
    """Every dotted name some directory of the corpus could import: `a.b` for `.../a/b.py` or `.../a/b/`."""
    names: Set[str] = set()
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = Path(dirpath).relative_to(corpus).parts
        stems = list(dirnames) + [f[:-3] for f in filenames if f.endswith(".py")]
        for stem in stems:
            parts = list(rel) + [stem]
            for start in range(len(parts)):
                names.add(".".join(parts[start:]))
    return names


# --------------------------------------------------------------------------------------------------
# The child: run one file's module-level code


def package_name(path: Path) -> Tuple[Optional[str], Path]:
    """`(dotted module name, directory to import it from)` when the file sits in a package."""
    parts = [path.stem]
    top = path.parent
    while (top / "__init__.py").exists():
        parts.insert(0, top.name)
        top = top.parent
    if len(parts) == 1 or not all(p.isidentifier() for p in parts):
        return None, path.parent
    return ".".join(parts), top


def ancestors(path: Path, corpus: Path) -> List[Path]:
    """The directories between the file's directory and the corpus root, nearest first."""
    found = []
    current = path.parent.parent
    while current != corpus and corpus in current.parents:
        found.append(current)
        current = current.parent
    return found


def _probe(path: Path, result_file: str, corpus: Path, strict: bool) -> None:
    """Runs in the forked child; writes a JSON result and exits without returning.

    Strict: the file's directory is the cwd and `sys.path[0]`, and the file runs by path. Otherwise,
    as the projects' own run scripts arrange it, also: a file inside a package is imported as
    `package.module` (so its relative imports work), and the directories between it and the corpus
    root come after its own directory on `sys.path` (so `import utils` finds the project's `utils`).
    """
    import runpy

    status: Dict[str, object]
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        os.chdir(path.parent)
        sys.path.insert(0, str(path.parent))
        sys.argv = [str(path)]
        module, top = (None, path.parent) if strict else package_name(path)
        if module:
            # As `python -m package.module` from the project: the package's parent comes first, so
            # that a sibling file named like the package (transformer/transformer.py) cannot shadow it.
            sys.path.insert(0, str(top))
        if not strict:
            known = set(sys.path[:2])
            sys.path[2 if module else 1:2 if module else 1] = [
                str(d) for d in ancestors(path, corpus) if str(d) not in known]
        if module:
            runpy.run_module(module, run_name="shim_probe")
        else:
            runpy.run_path(str(path), run_name="shim_probe")
        status = {"status": "ok"}
    except SystemExit as exc:
        code = exc.code
        status = {"status": "ok"} if code in (None, 0) else {
            "status": "error", "type": "SystemExit", "message": str(code)}
    except ModuleNotFoundError as exc:
        status = {"status": "missing", "module": exc.name or "", "message": str(exc),
                  "where": _where(exc)}
    except ImportError as exc:
        # `from scipy.misc import imsave`: a name the installed third-party module no longer has.
        status = {"status": "missing_name", "module": exc.name or "", "message": str(exc)[:500],
                  "where": _where(exc)}
    except BaseException as exc:  # noqa: B902 - every failure of user code is a data point
        status = {"status": "error", "type": type(exc).__name__, "message": str(exc)[:500],
                  "where": _where(exc)}
    status["stand_ins"] = _stand_ins_touched()
    with open(result_file, "w") as fh:
        json.dump(status, fh)
    os._exit(0)


def _stand_ins_touched() -> List[str]:
    """1.8 names the file looked up that the shim serves only as an erroring stand-in."""
    from runtime_shim import resolve

    return resolve.default_resolver().stand_ins_served()


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def _reason(result: Dict[str, object]) -> str:
    """A short, groupable failure reason."""
    if result["status"] == "timeout":
        return "timeout"
    if result["status"] == "missing":
        return f"ModuleNotFoundError: {result['module']}"
    if result["status"] == "missing_name":
        return f"ImportError: {str(result.get('message', '')).splitlines()[0][:160]}"
    message = str(result.get("message", "")).strip().splitlines()
    first = message[0] if message else ""
    first = re.sub(r"0x[0-9a-f]+", "0x..", first)
    first = re.sub(r"'/[^']*'", "'...'", first)
    return f"{result['type']}: {first[:160]}"


# --------------------------------------------------------------------------------------------------
# The parent


Task = Tuple[Path, bool]  # (file, strict)


def run(tasks: List[Task], corpus: Path, jobs: int, timeout: float) -> Dict[Task, Dict[str, object]]:
    """Probe every (file, mode) in forked children, at most `jobs` at a time."""
    sys.path.append(str(ROOT))  # last, so that it never shadows a module of the corpus
    import runtime_shim

    runtime_shim.install(warnings="off")
    results: Dict[Task, Dict[str, object]] = {}
    pending = list(tasks)
    running: Dict[int, Tuple[Task, str, float]] = {}
    tmpdir = tempfile.mkdtemp(prefix="shim_models_")
    counter = 0
    while pending or running:
        while pending and len(running) < jobs:
            task = pending.pop(0)
            counter += 1
            result_file = os.path.join(tmpdir, f"{counter}.json")
            pid = os.fork()
            if pid == 0:
                try:
                    os.setpgid(0, 0)
                    _probe(task[0], result_file, corpus, task[1])
                finally:
                    os._exit(1)
            running[pid] = (task, result_file, time.monotonic())
        time.sleep(0.05)
        for pid, (task, result_file, started) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0 and time.monotonic() - started > timeout:
                _kill_group(pid)
                os.waitpid(pid, 0)
                results[task] = {"status": "timeout"}
            elif done == 0:
                continue
            else:
                results[task] = _read_result(result_file, status)
            running.pop(pid)
            _kill_group(pid)  # threads or children the file left behind
    return results


def _structural(result: Dict[str, object], local: Set[str]) -> bool:
    """A failure of the file's import layout (relative import, project module not on the path)."""
    if result["status"] in ("missing", "missing_name"):
        return not _third_party(str(result["module"]), local)
    return False


def probe_all(files: List[Path], corpus: Path, jobs: int, timeout: float, strict: bool
              ) -> Tuple[Dict[Path, Dict[str, object]], Dict[Path, Dict[str, object]]]:
    """(final results, strict-only results): files that fail by path are retried with project imports."""
    local = corpus_module_names(corpus)
    first = run([(f, True) for f in files], corpus, jobs, timeout)
    strict_results = {path: result for (path, _), result in first.items()}
    if strict:
        return strict_results, strict_results
    retry = [path for path, result in strict_results.items()
             if result["status"] != "ok" and not (result["status"] in ("missing", "missing_name")
                                                  and _third_party(str(result["module"]), local))]
    second = run([(f, False) for f in retry], corpus, jobs, timeout)
    final = dict(strict_results)
    for (path, _), result in second.items():
        if result["status"] == "ok" or _structural(strict_results[path], local):
            final[path] = result
    return final, strict_results


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_result(result_file: str, wait_status: int) -> Dict[str, object]:
    try:
        with open(result_file) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        signum = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else None
        return {"status": "error", "type": "Crash",
                "message": f"child died (signal {signum})" if signum else "child exited without a result"}


def summarise(corpus: Path, results: Dict[Path, Dict[str, object]]) -> Dict[str, object]:
    local = corpus_module_names(corpus)
    ok, skipped, failed = [], [], []
    for path, result in sorted(results.items()):
        rel = str(path.relative_to(corpus))
        if result["status"] == "ok":
            ok.append(rel)
        elif result["status"] in ("missing", "missing_name") and _third_party(str(result["module"]), local):
            skipped.append((rel, str(result["module"])))
        else:
            failed.append((rel, _reason(result)))
    counted = len(ok) + len(failed)
    reasons = collections.Counter(reason for _, reason in failed)
    stand_in_files = [str(p.relative_to(corpus)) for p, r in results.items()
                      if r["status"] == "ok" and r.get("stand_ins")]
    stand_in_names = collections.Counter(n for r in results.values() if r["status"] == "ok"
                                         for n in r.get("stand_ins", ()))
    return {
        "files": len(results),
        "ok": len(ok),
        "failed": len(failed),
        "skipped_third_party": len(skipped),
        "share_ok": (len(ok) / counted) if counted else 0.0,
        "top_failure_reasons": reasons.most_common(20),
        "skipped_modules": collections.Counter(m.split(".")[0] for _, m in skipped).most_common(),
        "failures": failed,
        "ok_files_with_stand_ins": len(stand_in_files),
        "stand_in_names": stand_in_names.most_common(),
    }


def _third_party(module: str, local: Set[str]) -> bool:
    """A missing module that is not Paddle and that the corpus does not contain either."""
    top = module.split(".")[0]
    return bool(top) and top != "paddle" and module not in local


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--jobs", type=int, default=2, help="parallel children (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per file (default 60)")
    parser.add_argument("--json", type=Path, help="write the full summary here")
    parser.add_argument("--list", action="store_true", help="print every failing file with its reason")
    parser.add_argument("--only", nargs="*", help="probe only these files (paths relative to the corpus)")
    parser.add_argument("--strict", action="store_true",
                        help="run every file by path from its own directory only (no package imports, "
                             "no project directories on sys.path)")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    files = fluid_files(corpus)
    if args.only:
        wanted = {str(corpus / f) for f in args.only}
        files = [f for f in files if str(f) in wanted]
    started = time.monotonic()
    results, strict_results = probe_all(files, corpus, args.jobs, args.timeout, args.strict)
    summary = summarise(corpus, results)
    strict_summary = summarise(corpus, strict_results)
    summary["strict_share_ok"] = strict_summary["share_ok"]
    summary["strict_ok"] = strict_summary["ok"]
    summary["strict_failed"] = strict_summary["failed"]
    summary["seconds"] = round(time.monotonic() - started, 1)
    print(f"files importing paddle.fluid: {summary['files']}")
    print(f"module-level code ran:        {summary['ok']}")
    print(f"failed:                       {summary['failed']}")
    print(f"skipped (missing third-party): {summary['skipped_third_party']} "
          f"{dict(summary['skipped_modules'])}")
    print(f"share that runs:              {100 * summary['share_ok']:.1f}%  "
          f"({summary['ok']} / {summary['ok'] + summary['failed']})")
    print(f"ok files that looked up an API served only as an erroring stand-in: "
          f"{summary['ok_files_with_stand_ins']} {dict(summary['stand_in_names'][:10])}")
    print(f"strict mode alone (by path, own directory only): {100 * summary['strict_share_ok']:.1f}%  "
          f"({summary['strict_ok']} / {summary['strict_ok'] + summary['strict_failed']})")
    print("top failure reasons:")
    for reason, count in summary["top_failure_reasons"]:
        print(f"  {count:4d}  {reason}")
    if args.list:
        for rel, reason in summary["failures"]:
            print(f"FAIL {rel}: {reason}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
