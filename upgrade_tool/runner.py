"""The per-file job and the loop that runs it, in this process or in a pool of worker processes.

`process` never writes anything and never raises for a bad file: it turns every problem into a
FileResult with a one-line reason. `run` yields results in input order whatever `--parallel` is, so
diffs and reports are identical for any number of workers. A worker that dies (a crash in native
code, an OOM kill) costs only the file it was on: the files that were in flight are re-run one by
one in fresh workers, and the one that kills its worker again is reported as failed.
"""
from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import signal
import site
import sys
import threading
import time
import traceback
from collections import deque
from contextlib import contextmanager
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Tuple

from refactors import findings as F
from refactors import tree_index
from refactors.findings import Finding
from upgrade_tool import diff as diffs
from upgrade_tool import cache, notebook, source_io
from upgrade_tool.discovery import NOTEBOOK, Item, Job, Notice
from upgrade_tool.pipeline import FileFailure, SiteInfo, syntax_error, upgrade_text
from upgrade_tool.shim_mode import insert_shim_activation
from upgrade_tool.writer import sha256

CHANGED, UNCHANGED, FAILED, SKIPPED = "changed", "unchanged", "failed", "skipped"
RERUN = "worker-rerun"  # finding code: the file was upgraded again after a worker process died
SHIM = "shim-activation"  # finding code: --mode shim inserted the runtime shim's activation

DEFAULT_MAX_MB = 5.0


@dataclass(frozen=True)
class Options:
    """What a worker needs to know (picklable)."""

    names: Optional[Tuple[str, ...]] = None  # refactors to run; None = all, in pipeline order
    mode: str = "upgrade"  # "upgrade" (the refactors) or "shim" (only insert the runtime shim's activation)
    max_bytes: int = int(DEFAULT_MAX_MB * 1024 * 1024)
    debug: bool = False  # keep tracebacks of internal errors in the finding
    cache_dir: Optional[str] = None  # --cache-dir: reuse results of files whose bytes were seen before
    shim: bool = True  # legacy uses left run through runtime_shim (coexistence); --no-shim: pure 2.x text


@dataclass
class FileResult:
    display: str
    status: str
    findings: List[Finding] = field(default_factory=list)
    sites: List[SiteInfo] = field(default_factory=list)
    job: Optional[Job] = None
    new_data: Optional[bytes] = None  # set when status is CHANGED
    old_sha256: str = ""
    diff: str = ""
    diff_encoding: str = "utf-8"  # the patch's bytes must be the file's bytes
    reason: str = ""  # for FAILED and SKIPPED: the one-line reason
    seconds: float = 0.0
    python2_fixers: Optional[Tuple[str, ...]] = None
    detail: str = ""  # a traceback, shown at --log-level DEBUG
    reads: Dict[str, str] = field(default_factory=dict)  # other modules the result depends on -> SHA-256

    @property
    def converted(self) -> int:
        return sum(1 for s in self.sites if s.converted)

    @property
    def legacy_left(self) -> bool:
        """The upgraded file still uses a legacy API (with the shim, it runs through runtime_shim)."""
        return any(not s.converted for s in self.sites)


def _failed(job: Job, reason: str, code: str = F.FAILED, status: str = FAILED,
            severity: str = "error", line: int = 1) -> FileResult:
    finding = Finding(job.display, line, 1, code, severity, reason, False)
    return FileResult(job.display, status, [finding], job=job, reason=reason)


def from_notice(notice: Notice) -> FileResult:
    finding = Finding(notice.display, 1, 1, notice.code, notice.severity, notice.message, False)
    return FileResult(notice.display, notice.status, [finding], reason=notice.message)


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def process(job: Job, options: Options = Options()) -> FileResult:
    """Upgrade one file in memory. Every problem becomes a FileResult; nothing is written."""
    started = time.perf_counter()
    try:
        result = _process(job, options)
    except Exception as exc:  # last line of defence: one bad file never stops the run
        result = _failed(job, f"internal error: {type(exc).__name__}: {exc}")
        result.detail = traceback.format_exc()
    result.seconds = time.perf_counter() - started
    return result


def _process(job: Job, options: Options) -> FileResult:
    try:
        size = os.path.getsize(job.path)
        if size > options.max_bytes:
            mb = size / 1024 / 1024
            limit = options.max_bytes / 1024 / 1024
            return _failed(job, f"file is {mb:.1f} MB, above the {limit:g} MB limit; skipped "
                                "(raise it with --max-file-size)", F.SKIPPED, SKIPPED, "warning")
        data = read_bytes(job.path)
    except OSError as exc:
        return _failed(job, f"cannot read: {exc.strerror or exc}")
    if not data.strip():
        reason = "empty file; nothing to upgrade" if not data else "blank file; nothing to upgrade"
        finding = Finding(job.display, 1, 1, F.SKIPPED, "info", reason, False)
        return FileResult(job.display, UNCHANGED, [finding], job=job, old_sha256=sha256(data), reason=reason)
    if options.cache_dir is None:
        return _upgrade(job, data, options)
    name = cache.key(options, job.kind, data)
    entry = cache.load(options.cache_dir, name)
    if entry is not None and _unchanged_reads(entry, job):
        return _from_entry(entry, job, data)
    result = _upgrade(job, data, options)
    cache.store(options.cache_dir, name, _to_entry(result))
    return result


def _upgrade(job: Job, data: bytes, options: Options) -> FileResult:
    try:
        if options.mode == "shim":
            return _shim(job, data)
        if job.kind == NOTEBOOK:
            return _notebook(job, data, options)
        return _python(job, data, options)
    except source_io.BinaryContent as exc:
        return _failed(job, str(exc), F.SKIPPED, SKIPPED, "warning")
    except notebook.NotANotebook as exc:
        return _failed(job, str(exc), F.SKIPPED, SKIPPED, "warning")
    except (source_io.SourceError, FileFailure) as exc:
        result = _failed(job, str(exc), line=getattr(exc, "line", 1))
        if options.debug and exc.__cause__ is not None:
            cause = exc.__cause__
            result.detail = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
        return result


def _unchanged_reads(entry: Dict[str, Any], job: Job) -> bool:
    """The other modules a cached result read (relative to the file's directory) are as they were, and
    so is the whole tree where the result consulted it (a module added there may change it)."""
    if entry.get("tree") and entry["tree"] != tree_index.tree_digest(job.path):
        return False
    here = os.path.dirname(job.path)
    for relative, digest in entry.get("reads", {}).items():
        try:
            if sha256(read_bytes(os.path.join(here, relative))) != digest:
                return False
        except OSError:
            return False
    return True


def _to_entry(result: FileResult) -> Dict[str, Any]:
    """What a result says about a file's bytes, without the path it was computed for."""
    return {
        "status": result.status, "reason": result.reason, "detail": result.detail,
        "findings": [asdict(f.at("")) for f in result.findings],
        "sites": [asdict(s) for s in result.sites],
        "new_data": cache.encode_bytes(result.new_data),
        "diff": result.diff[len(diffs.header(result.display)):] if result.diff else "",
        "diff_encoding": result.diff_encoding,
        "python2_fixers": result.python2_fixers,
        "hashed": bool(result.old_sha256),  # failures carry no hash of the bytes
        "reads": {os.path.relpath(path, os.path.dirname(result.job.path)): digest
                  for path, digest in result.reads.items() if path != tree_index.TREE}
        if result.job is not None else {},
        "tree": tree_index.tree_digest(result.job.path)
        if result.job is not None and tree_index.TREE in result.reads else "",
    }


def _from_entry(entry: Dict[str, Any], job: Job, data: bytes) -> FileResult:
    fixers = entry["python2_fixers"]
    return FileResult(
        job.display, entry["status"],
        [Finding(**{**f, "file": job.display}) for f in entry["findings"]],
        [SiteInfo(**{**s, "refactors": tuple(s["refactors"])}) for s in entry["sites"]],
        job=job, new_data=cache.decode_bytes(entry["new_data"]), old_sha256=sha256(data) if entry["hashed"] else "",
        diff=diffs.header(job.display) + entry["diff"] if entry["diff"] else "",
        diff_encoding=entry["diff_encoding"], reason=entry["reason"],
        python2_fixers=tuple(fixers) if fixers is not None else None, detail=entry["detail"])


def _finish(job: Job, data: bytes, new_data: bytes, old_text: str, new_text: str, findings: List[Finding],
            sites: List[SiteInfo], encoding: str, fixers) -> FileResult:
    findings = [f.at(job.display) for f in findings]
    result = FileResult(job.display, CHANGED if new_data != data else UNCHANGED, findings, sites, job=job,
                        old_sha256=sha256(data), diff_encoding=encoding, python2_fixers=fixers)
    if new_data != data:
        result.new_data = new_data
        result.diff = diffs.unified(old_text, new_text, job.display)
    return result


def _python(job: Job, data: bytes, options: Options) -> FileResult:
    decoded = source_io.decode(data)
    outcome = upgrade_text(source_io.to_parser_text(decoded), options.names, options.shim, origin=job.path)
    new_text = source_io.from_parser_text(outcome.text, decoded)
    if new_text == decoded.text:
        new_data = data
    else:
        new_data = source_io.encode(new_text, decoded)
    bom = "\ufeff" if decoded.bom else ""
    result = _finish(job, data, new_data, bom + decoded.text, bom + new_text, outcome.findings, outcome.sites,
                     decoded.encoding, outcome.python2_fixers)
    result.reads = outcome.reads
    return _noted(result, outcome.fast_failure)


def _noted(result: FileResult, fast_failure: str) -> FileResult:
    """Record (at DEBUG level, with the traceback) that the fast way failed and the plain way upgraded
    the file (refactors.fast)."""
    if fast_failure:
        result.detail = "the fast way failed; upgraded the plain way:\n" + fast_failure
    return result


def _shim(job: Job, data: bytes) -> FileResult:
    """--mode shim: one activation line before the first paddle import; every other byte kept."""
    if job.kind == NOTEBOOK:
        reason = "--mode shim changes .py files only; notebooks are left as they are"
        finding = Finding(job.display, 1, 1, F.SKIPPED, "info", reason, False)
        return FileResult(job.display, UNCHANGED, [finding], job=job, old_sha256=sha256(data), reason=reason)
    decoded = source_io.decode(data)
    new_text = insert_shim_activation(decoded.text)
    findings: List[Finding] = []
    if new_text != decoded.text:
        if syntax_error(decoded.text) is None and syntax_error(new_text) is not None:
            raise FileFailure("inserting the shim activation would break the file; left untouched")
        line = next((n for n, (a, b) in enumerate(zip(decoded.text.splitlines(), new_text.splitlines()), 1)
                     if a != b), 1)
        findings.append(Finding("", line, 1, SHIM, "info",
                                "runtime shim activated before the first paddle import", True))
    new_data = data if new_text == decoded.text else source_io.encode(new_text, decoded)
    bom = "\ufeff" if decoded.bom else ""
    return _finish(job, data, new_data, bom + decoded.text, bom + new_text, findings, [], decoded.encoding, None)


def _notebook(job: Job, data: bytes, options: Options) -> FileResult:
    outcome = notebook.upgrade(data, options.names, options.shim)
    old_text = data.decode("utf-8")  # load() already proved it decodes; a BOM stays as U+FEFF
    new_text = outcome.data.decode("utf-8")
    return _noted(_finish(job, data, outcome.data, old_text, new_text, outcome.findings, outcome.sites, "utf-8", None),
                  outcome.fast_failure)


# -- running many ----------------------------------------------------------------------------------

# Collect young objects 50 times less often than CPython's default (every 700 allocations). A parsed
# file is ~10^5 libcst nodes without reference cycles; with the default the collector rescans those
# live trees thousands of times per file, about a tenth of the run's CPU. Cycles are still
# collected, in larger batches.
GC_THRESHOLD = (35_000, 20, 20)


@contextmanager
def fewer_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group; only the main process decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.set_threshold(*GC_THRESHOLD)  # a worker does nothing else
    _end_with_the_command()


def _end_with_the_command() -> None:
    """End this worker when the command's process is gone. Killed (kill -9, the OOM killer), the
    command cannot stop its pool, and its workers would wait forever on queues that nobody reads,
    keeping the process they were forked from alive too."""
    parent = multiprocessing.parent_process()
    sentinel = getattr(parent, "sentinel", None)  # ready when the command's end of a pipe closes
    if sentinel is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="end-with-the-command", daemon=True).start()


def _context():
    # forkserver: workers are forked from a clean server process, never from our threaded main
    # process (rich's refresh thread), and modules are imported once, in the server.
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["upgrade_tool.runner", "refactors.steps"])  # libcst and the steps, once
        return ctx
    return multiprocessing.get_context("spawn")


# The folder that holds upgrade_tool/ and refactors/: site-packages, or a checkout.
_HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _start_forkserver(ctx) -> None:
    """Start the process workers are forked from, if it is not running. CPython imports its preloaded
    modules with the interpreter's default sys.path, not ours (it ignores the one it is handed): a
    checkout put on sys.path at run time (pytest's `pythonpath`, a script's sys.path.insert) would
    have the workers run another installed copy of this code. So a checkout goes first on its
    PYTHONPATH (an installed copy is found there anyway)."""
    if ctx.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    before = os.environ.get("PYTHONPATH")
    if _HOME not in site.getsitepackages() + [site.getusersitepackages()]:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [_HOME, before]))
    try:
        forkserver.ensure_running()
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before


def start_workers_early(workers: int) -> None:
    """Start the process workers are forked from now: it imports libcst and the refactors (a fifth of
    a second) while this process finds the files."""
    if workers > 1:
        _start_forkserver(_context())


def _pool(workers: int) -> ProcessPoolExecutor:
    ctx = _context()
    _start_forkserver(ctx)
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)


def _shutdown(pool: ProcessPoolExecutor, wait: bool) -> None:
    try:
        pool.shutdown(wait=wait, cancel_futures=True)
    except TypeError:  # Python 3.8: no cancel_futures; queued jobs are short anyway
        pool.shutdown(wait=wait)


def _isolated(job: Job, options: Options) -> FileResult:
    """Run one job in a worker of its own; a crash there is this file's doing."""
    pool = _pool(1)
    try:
        return pool.submit(process, job, options).result()
    except BrokenProcessPool:
        return _failed(job, "the upgrade crashed its worker process; file left untouched")
    finally:
        _shutdown(pool, wait=True)


def run(items: Iterable[Item], options: Options = Options(), parallel: int = 1) -> Iterator[FileResult]:
    """Yield one FileResult per item, in the items' order."""
    if parallel <= 1:
        with fewer_collections():
            for item in items:
                yield from_notice(item) if isinstance(item, Notice) else process(item, options)
        return
    yield from _run_pool(items, options, parallel)


_BROKEN = object()  # stands for a submit refused because the pool had already broken


def _run_pool(items: Iterable[Item], options: Options, workers: int) -> Iterator[FileResult]:
    source = iter(items)
    pending: Deque[Tuple[Item, object]] = deque()
    window = workers * 32  # keeps workers busy while this process writes and prints; bounds memory
    pool = _pool(workers)
    broken = False
    try:
        while True:
            while not broken and len(pending) < window:
                item = next(source, None)
                if item is None:
                    break
                if isinstance(item, Notice):
                    pending.append((item, None))
                    continue
                try:
                    pending.append((item, pool.submit(process, item, options)))
                except BrokenProcessPool:  # a worker died since the last result was collected
                    pending.append((item, _BROKEN))
                    broken = True
            if not pending:
                return
            item, future = pending.popleft()
            if future is None:
                yield from_notice(item)  # type: ignore[arg-type]
                continue
            result: Optional[FileResult] = None
            if future is not _BROKEN:
                try:
                    result = future.result()  # type: ignore[attr-defined]
                except BrokenProcessPool:
                    pass
            if result is not None:
                yield result
                continue
            # A worker died. Any file in flight may be the cause: run each alone in a fresh worker.
            redo: List[Tuple[Item, object]] = [(item, None), *pending]
            pending.clear()
            _shutdown(pool, wait=True)
            for again, _ in redo:
                if isinstance(again, Notice):
                    yield from_notice(again)
                    continue
                rerun = _isolated(again, options)
                rerun.findings.insert(0, Finding(again.display, 1, 1, RERUN, "info",
                                                 "a worker process died while this file was in flight; "
                                                 "it was upgraded again in a fresh process", False))
                yield rerun
            pool = _pool(workers)
            broken = False
    finally:
        for _, future in pending:
            if isinstance(future, Future):
                future.cancel()  # the files not yet in a worker's hands
        # Python 3.8's shutdown(wait=False) can close the pipe its pool's management thread still reads:
        # the thread dies and the exit hangs joining the workers. There, wait for the files in hand.
        _shutdown(pool, wait=sys.version_info < (3, 9))


def workers(requested: int, jobs: int) -> int:
    """How many processes upgrade `jobs` files: `-p N` (by default 0: one per CPU, as black and libcst's
    codemod runner do; 1: this process, with no pool), never more than there are files, since a worker
    costs a start-up that no file repays: a single file is upgraded in this process."""
    wanted = requested or os.cpu_count() or 1
    return max(1, min(wanted, jobs))
