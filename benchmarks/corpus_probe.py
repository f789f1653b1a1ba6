"""Run the module-level code of every `paddle.fluid` file of a 1.8 corpus on the installed Paddle.

The machinery `benchmarks/shim_models.py` (the files run under the runtime shim) and
`benchmarks/upgraded_models.py` (the files run after the upgrade) share: which files count, how each is
run, what its outcome is, which failures have a cause outside our code, and the two figures.

Which files count: the corpus's `.py` files that import `paddle.fluid` (before any upgrade). Each runs
in a child process with `run_name="corpus_probe"`: its module-level code runs, `if __name__ ==
"__main__":` blocks do not. Children are forked from a parent that imported Paddle once (the caller
prepares it), at most `--jobs` at a time; a child that exceeds `--timeout` seconds is killed and
counted as failed.

How a file is run: the way its project runs it.

1. As a script, `python file.py` from its own directory: that directory is the working directory and
   `sys.path[0]`. `--strict` stops here.
2. When that fails on the import layout (a relative import, a module of its own project that is not
   in its directory) or on a path relative to the working directory (a file, a custom-operator
   library), it runs again as its project imports it: under the dotted name the project's own files
   import it by (`import models.model_builder` in `rrpn/train.py` -> `models.model_builder`, rooted at
   `rrpn/`), else under its package name (directories with `__init__.py`). The directory the name is
   rooted at comes first on `sys.path`, as for `python -m name`; then the file's own directory (Python 2
   style sibling imports), then the directories between it and the corpus root. The working directory
   is where the project's scripts run: the root of the name the project imports it by (so that
   `load_op_library('models/ext_op/src/rrpn_lib.so')` in `rrpn/models/ext_op/rrpn_lib.py` finds
   `rrpn/models/...`), else the file's own directory.

Outcomes:
- ok: the module-level code ran to the end (or called `sys.exit(0)`);
- skipped: it stopped on a missing third-party module: not `paddle`, and not a module the corpus
  contains (`cv2`, `wget`, ...), or on a name such a module no longer has (`scipy.misc.imsave`);
- failed: anything else, grouped by reason (exception type and first line of the message).

Two figures, both always printed:
(a) ok / (ok + failed);
(b) the same, leaving out failures whose cause is outside our code, each cause counted. A failure is
    given a cause only by a rule that checks it (see `environment_cause`):
    - "needs a native build": a custom-operator library is missing and the repository has the C/C++/CUDA
      sources it is built from next to it (visible with `--git`; a `.py`-only copy has no sources);
    - "needs a GPU": this Paddle has no CUDA and the file asked for a GPU place (`fluid.CUDAPlace` fails
      "use wrong place"), or for the id of its GPU (`ParallelEnv().dev_id` fails on a CPU build),
      or its `check_cuda`-style guard exited because `use_gpu` defaults to true;
    - "needs the network": a download at import time failed to connect;
    - "newer third-party library": an API that the installed NumPy or PyYAML removed (NumPy 2 refuses
      `float()` of a size-1 array with ndim > 0; PyYAML 6 requires `yaml.load(f, Loader)`);
    - "fails the same on Paddle 1.8.5" (only with `--baseline-python PY`, a Python with the real
      `paddlepaddle==1.8.5` installed): the original 1.8 file, run the same way on 1.8.5, fails with the
      same exception type and message (on the `.py`-only copy that includes what the copy lacks).
The figure's files are listed with `--list`.

CORPUS defaults to /work/models-1.8 (PaddlePaddle/models, branch release/1.8). A copy holding only the
`.py` files lacks the repository's other files (configuration such as `conf/args.yaml`, the C++/CUDA
sources of its custom operators) and its symbolic links (`PointRCNN/ext_op -> ../PointNet++/ext_op`);
`--git GITDIR --rev release/1.8` runs on the complete tree of that revision instead, exported from a
git directory into a temporary directory (removed at the end).

A baseline Python (1.8.5 has wheels up to CPython 3.8):
    python3.8 -m venv /tmp/paddle185 && /tmp/paddle185/bin/pip install --no-deps paddlepaddle==1.8.5
    /tmp/paddle185/bin/pip install "numpy<1.20" "protobuf<3.21" six decorator gast==0.3.3 astor funcsigs
    /tmp/paddle185/bin/pip install requests pyyaml prettytable Pillow nltk scipy rarfile objgraph graphviz
    /tmp/paddle185/bin/pip install "opencv-python-headless<4.3"
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/models-1.8")
RUN_NAME = "corpus_probe"
FLUID_IMPORT = re.compile(
    r"^[ \t]*(?:import[ \t]+paddle\.fluid\b|from[ \t]+paddle\.fluid\b|from[ \t]+paddle[ \t]+import[ \t].*\bfluid\b)",
    re.MULTILINE,
)
IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?([^\n#]*)|import[ \t]+([^\n#;]*))",
    re.MULTILINE,
)
NATIVE_SOURCES = (".cc", ".cpp", ".cu", ".c", ".cxx")

Result = Dict[str, object]


def _python_files(corpus: Path) -> Iterable[Path]:
    for path in sorted(corpus.rglob("*.py")):
        if not any(part.startswith(".") for part in path.relative_to(corpus).parts) and path.is_file():
            yield path


def source_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def fluid_files(corpus: Path) -> List[Path]:
    """The corpus's `.py` files that import `paddle.fluid`, sorted."""
    return [path for path in _python_files(corpus) if FLUID_IMPORT.search(source_text(path))]


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
# How the project imports a file


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


def _imported_names(text: str) -> Iterable[str]:
    """Dotted module names an import statement may name (`from a.b import c` -> `a.b`, `a.b.c`)."""
    for match in IMPORT_STATEMENT.finditer(text):
        source, imported, plain = match.groups()
        if source:
            if source.startswith("."):
                continue
            yield source
            for item in (imported or "").split(","):
                name = item.strip().strip("()").split(" as ")[0].strip()
                if name.isidentifier():
                    yield f"{source}.{name}"
        else:
            for item in (plain or "").split(","):
                name = item.strip().split(" as ")[0].strip()
                if name and all(part.isidentifier() for part in name.split(".")):
                    yield name


def _module_file(root: Path, dotted: str) -> Optional[Path]:
    base = root.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def import_names(corpus: Path) -> Dict[Path, Tuple[str, Path]]:
    """For each file some corpus file imports by a dotted name: (that name, the directory it is rooted at).

    The name is looked up from the importing file's directory upwards, as its project's `sys.path`
    would find it; the most frequent (name, root) wins.
    """
    votes: Dict[Path, collections.Counter] = collections.defaultdict(collections.Counter)
    for importer in _python_files(corpus):
        for dotted in set(_imported_names(source_text(importer))):
            if "." not in dotted or dotted.split(".")[0] == "paddle":
                continue
            directory = importer.parent
            while True:
                found = _module_file(directory, dotted)
                if found is not None:
                    if found.name == "__init__.py":
                        break
                    votes[found.resolve()][(dotted, directory)] += 1
                    break
                if directory == corpus or corpus not in directory.parents:
                    break
                directory = directory.parent
    chosen = {}
    for target, counter in votes.items():
        (dotted, root), _ = sorted(counter.items(), key=lambda kv: (-kv[1], len(kv[0][0]), kv[0][0]))[0]
        chosen[target] = (dotted, root)
    return chosen


def ancestors(path: Path, corpus: Path) -> List[Path]:
    """The directories between the file's directory and the corpus root, nearest first."""
    found = []
    current = path.parent.parent
    while current != corpus and corpus in current.parents:
        found.append(current)
        current = current.parent
    return found


Layout = Dict[str, object]  # {"cwd": str, "path": [str], "module": Optional[str]}


def layout(path: Path, corpus: Path, strict: bool, imported_as: Dict[Path, Tuple[str, Path]]) -> Layout:
    """Working directory, leading `sys.path` entries and module name to run `path` with (module docstring)."""
    if strict:
        return {"cwd": str(path.parent), "path": [str(path.parent)], "module": None}
    module, root = imported_as.get(path.resolve(), (None, path.parent))
    # A module the project imports runs where the project's scripts run; any other file is a script.
    cwd = root if module else path.parent
    if module is None:
        module, root = package_name(path)
    entries = [str(root)] if module else []
    for directory in [path.parent] + ancestors(path, corpus):
        if str(directory) not in entries:
            entries.append(str(directory))
    return {"cwd": str(cwd), "path": entries, "module": module}


# --------------------------------------------------------------------------------------------------
# The child: run one file's module-level code


def run_file(path: Path, plan: Layout) -> None:
    """Run `path`'s module-level code as `plan` says (the caller handles exceptions)."""
    import runpy

    os.chdir(str(plan["cwd"]))
    sys.path[0:0] = list(plan["path"])  # type: ignore[arg-type]
    sys.argv = [str(path)]
    if plan["module"]:
        runpy.run_module(str(plan["module"]), run_name=RUN_NAME)
    else:
        runpy.run_path(str(path), run_name=RUN_NAME)


def outcome(exc: Optional[BaseException]) -> Result:
    """The JSON-able result of a run that raised `exc` (None: it ran to the end)."""
    if exc is None:
        return {"status": "ok"}
    if isinstance(exc, SystemExit):
        if exc.code in (None, 0):
            return {"status": "ok"}
        result: Result = {"status": "error", "type": "SystemExit", "message": str(exc.code)}
    elif isinstance(exc, ModuleNotFoundError):
        result = {"status": "missing", "module": exc.name or "", "message": str(exc)}
    elif isinstance(exc, ImportError):
        # `from scipy.misc import imsave`: a name the installed third-party module no longer has.
        result = {"status": "missing_name", "module": exc.name or "", "message": str(exc)[:500]}
    else:
        result = {"status": "error", "type": type(exc).__name__, "message": str(exc)[:2000]}
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        result.update(where=f"{last.filename}:{last.lineno}", function=last.name, line=(last.line or "").strip())
    result["mro"] = [f"{c.__module__}.{c.__qualname__}" for c in type(exc).__mro__]
    filename = getattr(exc, "filename", None)
    if isinstance(filename, str) and filename:
        result["filename"] = filename
        result["filename_abs"] = os.path.abspath(filename)
    return result


def _probe(path: Path, result_file: str, plan: Layout) -> None:
    """Runs in the forked child; writes a JSON result and exits without returning."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    error: Optional[BaseException] = None
    try:
        run_file(path, plan)
    except BaseException as exc:  # noqa: B902 - every failure of user code is a data point
        error = exc
    status = outcome(error)
    status["layout"] = plan
    status["stand_ins"] = _stand_ins_touched()
    status["cuda"] = _compiled_with_cuda()
    with open(result_file, "w") as fh:
        json.dump(status, fh)
    os._exit(0)


def _stand_ins_touched() -> List[str]:
    """1.8 names the file looked up that the shim serves only as an erroring stand-in."""
    resolve = sys.modules.get("runtime_shim.resolve")
    return resolve.default_resolver().stand_ins_served() if resolve is not None else []


def _compiled_with_cuda() -> bool:
    import paddle

    return bool(paddle.is_compiled_with_cuda())


def _reason(result: Result, corpus: Path) -> str:
    """A short, groupable failure reason (the corpus's own path written `<corpus>`)."""
    if result["status"] == "timeout":
        return "timeout"
    if result["status"] == "missing":
        return f"ModuleNotFoundError: {result['module']}"
    if result["status"] == "missing_name":
        message = str(result.get("message", "")).replace(str(corpus), "<corpus>")
        return f"ImportError: {message.splitlines()[0][:160]}"
    first = _first_line(result)
    first = re.sub(r"0x[0-9a-f]+", "0x..", first)
    first = re.sub(r"'/[^']*'", "'...'", first)
    first = re.sub(r"\(/[^()\s]*\)", "(...)", first)
    return f"{result['type']}: {first.replace(str(corpus), '<corpus>')[:160]}"


def _first_line(result: Result) -> str:
    message = str(result.get("message", "")).strip().splitlines()
    return message[0].strip() if message else ""


# --------------------------------------------------------------------------------------------------
# Causes outside our code (figure b)

NATIVE_BUILD = "needs a native build"
GPU = "needs a GPU"
NETWORK = "needs the network"
THIRD_PARTY = "newer third-party library"
SAME_ON_18 = "fails the same on Paddle 1.8.5"

NETWORK_ERRORS = {
    "requests.exceptions.ConnectionError", "requests.exceptions.Timeout", "urllib.error.URLError",
    "socket.gaierror", "socket.timeout", "builtins.ConnectionError", "builtins.TimeoutError",
}


def _native_sources_near(library: Path, corpus: Path) -> bool:
    """True when the library's directory, or a directory above it inside the corpus, holds C/C++/CUDA
    sources (`ext_op/src/x.so` next to `ext_op/src/*.cc`): the repository builds it itself."""
    directory = library.parent
    for _ in range(3):
        if directory == corpus.parent or corpus not in (directory, *directory.parents):
            return False
        if directory.is_dir() and any(p.suffix in NATIVE_SOURCES for p in directory.rglob("*") if p.is_file()):
            return True
        directory = directory.parent
    return False


def environment_cause(result: Result, corpus: Path) -> Optional[str]:
    """The verified cause of a failure that neither the shim nor the upgrader can fix, or None."""
    if result["status"] != "error":
        return None
    kind = str(result.get("type", ""))
    mro = set(result.get("mro", ()))  # type: ignore[arg-type]
    message = str(result.get("message", ""))
    line = str(result.get("line", ""))
    library = result.get("filename_abs")
    if ("paddle.fluid.core.EnforceNotMet" in mro and library
            and "cannot open shared object file: No such file or directory" in message
            and not Path(str(library)).exists()
            and _native_sources_near(Path(str(library)), corpus)):
        return NATIVE_BUILD
    if result.get("cuda") is False:
        if kind == "ValueError" and "use wrong place" in message and "CUDAPlace" in line:
            return GPU
        if kind == "AttributeError" and message.startswith("'ParallelEnv' object has no attribute '_device_id'"):
            return GPU  # `ParallelEnv().dev_id`, a GPU's id: a CPU build's ParallelEnv has none
        if kind == "SystemExit" and re.fullmatch(r"check_(cuda|gpu)", str(result.get("function", ""))):
            return GPU
    if mro & NETWORK_ERRORS:
        return NETWORK
    if kind == "TypeError":
        if message.startswith("only 0-dimensional arrays can be converted to Python scalars"):
            return THIRD_PARTY  # NumPy 2; 1.8-era NumPy converted any size-1 array
        if message == "load() missing 1 required positional argument: 'Loader'" and "yaml" in line:
            return THIRD_PARTY  # PyYAML 6; 1.8-era PyYAML defaulted the Loader
    return None


# --------------------------------------------------------------------------------------------------
# The parent


Task = Tuple[Path, bool]  # (file, strict)


def load_working_tree_shim(install: bool) -> None:
    """Import `runtime_shim` from this working tree, not from an installed copy; `install` it or not.

    Not installed, it is what an upgraded file finds when it imports the shim itself (as an installed
    copy would be found): nothing is served until the file asks. The working tree is on `sys.path` only
    while its packages are imported: left there it could shadow a corpus module of the same name.
    """
    sys.path.insert(0, str(ROOT))
    try:
        import api_mapping  # noqa: F401 - imported now, from ROOT
        import runtime_shim
        from runtime_shim import adapters, resolve

        adapters.all_adapters()  # loads every adapter module from ROOT now
        resolve.default_resolver()
    finally:
        sys.path.remove(str(ROOT))
    if install:
        runtime_shim.install(warnings="off")
    else:
        import paddle  # noqa: F401 - once, in the parent, as the installed shim does


def run(tasks: List[Task], corpus: Path, jobs: int, timeout: float,
        imported_as: Dict[Path, Tuple[str, Path]]) -> Dict[Task, Result]:
    """Probe every (file, mode) in forked children, at most `jobs` at a time."""
    results: Dict[Task, Result] = {}
    pending = list(tasks)
    running: Dict[int, Tuple[Task, str, float]] = {}
    tmpdir = tempfile.mkdtemp(prefix="corpus_probe_")
    counter = 0
    try:
        while pending or running:
            while pending and len(running) < jobs:
                task = pending.pop(0)
                counter += 1
                result_file = os.path.join(tmpdir, f"{counter}.json")
                plan = layout(task[0], corpus, task[1], imported_as)
                pid = os.fork()
                if pid == 0:
                    try:
                        os.setpgid(0, 0)
                        _probe(task[0], result_file, plan)
                    finally:
                        os._exit(1)
                running[pid] = (task, result_file, time.monotonic())
            time.sleep(0.05)
            for pid, (task, result_file, started) in list(running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done == 0 and time.monotonic() - started > timeout:
                    _kill_group(pid)
                    os.waitpid(pid, 0)
                    results[task] = {"status": "timeout", "layout": layout(task[0], corpus, task[1], imported_as)}
                elif done == 0:
                    continue
                else:
                    results[task] = _read_result(result_file, status)
                running.pop(pid)
                _kill_group(pid)  # threads or children the file left behind
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return results


def _structural(result: Result, local: Set[str]) -> bool:
    """A failure of the file's import layout (relative import, project module not on the path)."""
    if result["status"] in ("missing", "missing_name"):
        return not _third_party(str(result["module"]), local)
    return False


def _relative_path_missing(result: Result) -> bool:
    """It stopped on a file named relative to the working directory that is not there."""
    name = result.get("filename")
    return (result["status"] == "error" and isinstance(name, str) and not os.path.isabs(name)
            and not os.path.exists(str(result.get("filename_abs", ""))))


def probe_all(files: List[Path], corpus: Path, jobs: int, timeout: float, strict: bool
              ) -> Tuple[Dict[Path, Result], Dict[Path, Result]]:
    """(final results, strict-only results): files that fail as scripts are retried as their project imports them."""
    local = corpus_module_names(corpus)
    imported_as = {} if strict else import_names(corpus)
    first = run([(f, True) for f in files], corpus, jobs, timeout, imported_as)
    strict_results = {path: result for (path, _), result in first.items()}
    if strict:
        return strict_results, strict_results
    retry = [path for path, result in strict_results.items()
             if result["status"] != "ok" and not (result["status"] in ("missing", "missing_name")
                                                  and _third_party(str(result["module"]), local))]
    second = run([(f, False) for f in retry], corpus, jobs, timeout, imported_as)
    final = dict(strict_results)
    for (path, _), result in second.items():
        first_failure = strict_results[path]
        if result["status"] == "ok" or _structural(first_failure, local) or _relative_path_missing(first_failure):
            final[path] = result
    return final, strict_results


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_result(result_file: str, wait_status: int) -> Result:
    try:
        with open(result_file) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        signum = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else None
        return {"status": "error", "type": "Crash",
                "message": f"child died (signal {signum})" if signum else "child exited without a result"}


# --------------------------------------------------------------------------------------------------
# Paddle 1.8.5 baseline (optional): the original file run the same way, in another Python


def baseline_probe(path: str, plan_json: str) -> int:
    """`python corpus_probe.py FILE PLAN`: run one file as planned, under whatever Paddle this Python has;
    print the JSON outcome."""
    error: Optional[BaseException] = None
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        run_file(Path(path), json.loads(plan_json))
    except BaseException as exc:  # noqa: B902 - every failure of user code is a data point
        error = exc
    os.dup2(saved, 1)
    os.write(1, (json.dumps(outcome(error)) + "\n").encode())
    os._exit(0)


def run_baseline(python: str, path: Path, plan: Layout, timeout: float) -> Result:
    """The file and layout under `python` (a Python with `paddlepaddle==1.8.5`), without the shim."""
    command = [python, str(Path(__file__).resolve()), str(path), json.dumps(plan)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, cwd=str(plan["cwd"]),
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"status": "error", "type": "Exit", "message": f"exit status {done.returncode}"}


def rebase(plan: Layout, root: Path, onto: Path) -> Layout:
    """The same layout for the file's copy under `onto` (the directories under `root` moved there)."""
    def moved(directory: str) -> str:
        relative = os.path.relpath(directory, str(root))
        return directory if relative.startswith("..") else os.path.normpath(os.path.join(str(onto), relative))

    return {"cwd": moved(str(plan["cwd"])), "path": [moved(d) for d in plan["path"]],  # type: ignore[union-attr]
            "module": plan["module"]}


def same_failure(result: Result, baseline: Result) -> bool:
    """The same exception type and the same first message line."""
    if result["status"] != baseline["status"] or result["status"] == "ok":
        return False
    if result["status"] in ("missing", "missing_name"):
        return result.get("module") == baseline.get("module")
    return result.get("type") == baseline.get("type") and _first_line(result) == _first_line(baseline)


# --------------------------------------------------------------------------------------------------
# Summary


def summarise(corpus: Path, results: Dict[Path, Result],
              baseline: Optional[Dict[Path, Result]] = None) -> Dict[str, object]:
    local = corpus_module_names(corpus)
    ok, skipped, failed = [], [], []
    causes: Dict[str, str] = {}
    for path, result in sorted(results.items()):
        rel = str(path.relative_to(corpus))
        if result["status"] == "ok":
            ok.append(rel)
        elif result["status"] in ("missing", "missing_name") and _third_party(str(result["module"]), local):
            skipped.append((rel, str(result["module"])))
        else:
            failed.append((rel, _reason(result, corpus)))
            cause = environment_cause(result, corpus)
            if cause is None and baseline is not None and path in baseline and same_failure(result, baseline[path]):
                cause = SAME_ON_18
            if cause is not None:
                causes[rel] = cause
    counted = len(ok) + len(failed)
    reasons = collections.Counter(reason for _, reason in failed)
    ours = counted - len(causes)
    stand_in_files = [str(p.relative_to(corpus)) for p, r in results.items()
                      if r["status"] == "ok" and r.get("stand_ins")]
    stand_in_names = collections.Counter(n for r in results.values() if r["status"] == "ok"
                                         for n in r.get("stand_ins", ()))  # type: ignore[union-attr]
    return {
        "files": len(results),
        "ok": len(ok),
        "failed": len(failed),
        "skipped_third_party": len(skipped),
        "share_ok": (len(ok) / counted) if counted else 0.0,
        "environment_failed": len(causes),
        "environment_causes": collections.Counter(causes.values()).most_common(),
        "share_ok_excluding_environment": (len(ok) / ours) if ours else 0.0,
        "top_failure_reasons": reasons.most_common(20),
        "skipped_modules": collections.Counter(m.split(".")[0] for _, m in skipped).most_common(),
        "failures": [(rel, reason, causes.get(rel)) for rel, reason in failed],
        "ok_files_with_stand_ins": len(stand_in_files),
        "stand_in_names": stand_in_names.most_common(),
    }


def _third_party(module: str, local: Set[str]) -> bool:
    """A missing module that is not Paddle and that the corpus does not contain either."""
    top = module.split(".")[0]
    return bool(top) and top != "paddle" and module not in local


def export_tree(git_dir: Path, rev: str, into: Path) -> Tuple[str, List[str]]:
    """Write the tree of `rev` (files and symbolic links) under `into`: (commit id, paths whose blob the
    git directory lacks, e.g. large images left out of a partial mirror)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True,
                              text=True).stdout

    commit = git("rev-parse", "--verify", f"{rev}^{{commit}}").strip()
    entries = []  # (mode, blob, path)
    for line in git("ls-tree", "-r", "-z", "--full-tree", commit).split("\0"):
        if line:
            meta, path = line.split("\t", 1)
            mode, kind, blob = meta.split()
            if kind == "blob":
                entries.append((mode, blob, path))
    absent: List[str] = []
    batch = subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert batch.stdin is not None and batch.stdout is not None
    for mode, blob, path in entries:
        batch.stdin.write(blob.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if header[-1:] == [b"missing"]:
            absent.append(path)
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after the contents
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            os.symlink(data.decode(), target)
        else:
            target.write_bytes(data)
            if mode == "100755":
                target.chmod(0o755)
    batch.stdin.close()
    batch.wait()
    batch.stdout.close()
    return commit, absent


# --------------------------------------------------------------------------------------------------
# The command line both benchmarks share


def isolate_sys_path() -> None:
    """Take `benchmarks/` and this working tree off `sys.path`: they must not shadow the corpus's modules
    (`tools`, `benchmarks`, ...). What the probe needs of the tree is imported while it is there."""
    ours = {str(Path(__file__).resolve().parent), str(ROOT)}
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") not in ours]


def argument_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--git", type=Path, help="a git directory of PaddlePaddle/models: run on --rev's full tree")
    parser.add_argument("--rev", default="release/1.8", help="the revision for --git (default release/1.8)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel children (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per file (default 60)")
    parser.add_argument("--baseline-python", help="a Python with paddlepaddle==1.8.5: re-run unexplained failures "
                                                  "there, on the original files")
    parser.add_argument("--json", type=Path, help="write the full summary here")
    parser.add_argument("--list", action="store_true", help="print every failing file with its reason")
    parser.add_argument("--only", nargs="*", help="probe only these files (paths relative to the corpus)")
    parser.add_argument("--strict", action="store_true",
                        help="run every file by path from its own directory only (no package imports, "
                             "no project directories on sys.path)")
    return parser


@contextlib.contextmanager
def corpus_tree(args: argparse.Namespace) -> Iterator[Tuple[Path, str, List[str]]]:
    """(corpus root, how to name it, files absent from the git directory): the CORPUS argument, or with
    `--git` the tree of `--rev` exported into a temporary directory, removed afterwards."""
    if not args.git:
        yield args.corpus.resolve(), str(args.corpus), []
        return
    exported = tempfile.mkdtemp(prefix="corpus_probe_tree_")
    try:
        commit, absent = export_tree(args.git, args.rev, Path(exported))
        source = f"{args.git} {args.rev} ({commit}; {len(absent)} files absent from the git directory)"
        yield Path(exported).resolve(), source, absent
    finally:
        shutil.rmtree(exported, ignore_errors=True)


def selected_files(corpus: Path, only: Optional[List[str]]) -> List[Path]:
    """The files that count (they import `paddle.fluid`), narrowed to `--only` when given."""
    files = fluid_files(corpus)
    if only:
        wanted = {str(corpus / f) for f in only}
        files = [f for f in files if str(f) in wanted]
    return files


def measure(corpus: Path, files: List[Path], args: argparse.Namespace, source: str, absent: List[str],
            originals: Optional[Path] = None) -> Dict[str, object]:
    """Probe `files` of `corpus` and summarise. `originals`: the corpus holding the 1.8 file each probed
    file came from, at the same relative path (default `corpus` itself), for `--baseline-python`."""
    started = time.monotonic()
    results, strict_results = probe_all(files, corpus, args.jobs, args.timeout, args.strict)
    baseline: Optional[Dict[Path, Result]] = None
    if args.baseline_python:
        local = corpus_module_names(corpus)
        originals = originals or corpus
        baseline = {}
        for path, result in results.items():
            unexplained = result["status"] == "error" or _structural(result, local)
            if unexplained and environment_cause(result, corpus) is None and "layout" in result:
                plan = rebase(result["layout"], corpus, originals)  # type: ignore[arg-type]
                baseline[path] = run_baseline(args.baseline_python, originals / path.relative_to(corpus), plan,
                                              args.timeout)
    summary = summarise(corpus, results, baseline)
    strict_summary = summarise(corpus, strict_results)
    summary["source"] = source
    summary["files_absent_from_git_dir"] = absent
    summary["strict_share_ok"] = strict_summary["share_ok"]
    summary["strict_ok"] = strict_summary["ok"]
    summary["strict_failed"] = strict_summary["failed"]
    summary["seconds"] = round(time.monotonic() - started, 1)
    return summary


def report(summary: Dict[str, object], args: argparse.Namespace, counted: str) -> None:
    """Print both figures (`counted` names the files counted) and write the JSON summary if asked."""
    ok, failed, env = summary["ok"], summary["failed"], summary["environment_failed"]
    print(f"corpus:                       {summary['source']}")
    print(f"{counted + ':':<29} {summary['files']}")
    print(f"module-level code ran:        {ok}")
    print(f"failed:                       {failed}")
    print(f"skipped (missing third-party): {summary['skipped_third_party']} {dict(summary['skipped_modules'])}")
    print(f"(a) share that runs:          {100 * summary['share_ok']:.1f}%  ({ok} / {ok + failed})")
    print(f"(b) leaving out {env} failures with a verified cause outside our code: "
          f"{100 * summary['share_ok_excluding_environment']:.1f}%  ({ok} / {ok + failed - env})")
    for cause, count in summary["environment_causes"]:
        print(f"  {count:4d}  {cause}")
    print(f"ok files that looked up an API served only as an erroring stand-in: "
          f"{summary['ok_files_with_stand_ins']} {dict(summary['stand_in_names'][:10])}")
    print(f"strict mode alone (by path, own directory only): {100 * summary['strict_share_ok']:.1f}%  "
          f"({summary['strict_ok']} / {summary['strict_ok'] + summary['strict_failed']})")
    print("top failure reasons:")
    for reason, count in summary["top_failure_reasons"]:
        print(f"  {count:4d}  {reason}")
    if args.list:
        for rel, reason, cause in summary["failures"]:
            print(f"FAIL {rel}: {reason}" + (f"  [{cause}]" if cause else ""))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":  # the baseline child, under Paddle 1.8.5: `python corpus_probe.py FILE PLAN_JSON`
    isolate_sys_path()
    sys.exit(baseline_probe(sys.argv[1], sys.argv[2]))
