"""The `paddle-upgrade` command.

stdout carries only the unified diff (so `paddle-upgrade -i x > fix.patch && git apply fix.patch`
works); everything else (progress, findings, prompts, the summary) goes to stderr.

Exit codes: 0 done; 1 `--check` found files to change, or some file failed; 2 usage error (bad
flag, missing path, `--write` that would have to ask but cannot); 130/143 interrupted by
Ctrl-C/SIGTERM (every file is then original or fully upgraded, and the backup is complete).
"""
from __future__ import annotations

import os
import signal
import sys
import time
from typing import List, Optional, Sequence, Tuple

import click
from rich.markup import escape

import refactors
from refactors import findings as F
from refactors.findings import Finding
from upgrade_tool import __version__, backup, diff, report, runner
from upgrade_tool.discovery import Job, discover, run_base
from upgrade_tool.interrupt import Interrupted, SignalGuard
from upgrade_tool.writer import WriteRefused, atomic_write, check_writable

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
UNBOUNDED_WIDTH = 10_000  # stderr's width when it is not a terminal

_NON_INTERACTIVE = (
    "--write asks before writing each file, but standard input is not a terminal, so nobody can "
    "answer. Rerun with --write --no-confirm to write every file without asking (each file is "
    "backed up first), or without --write to only see the diff."
)


def _is_terminal(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def _stdin_is_terminal() -> bool:
    """Whether someone can answer the per-file confirm (a function so tests can stand in for a tty)."""
    return _is_terminal(sys.stdin)


class Session:
    """One run of the command: the consoles, the options, and what has been done so far."""

    def __init__(self, *, write: bool, confirm: bool, check: bool, outpath: Optional[str], print_match: bool,
                 log_level: str, color: Optional[bool], verbosity: int = report.NORMAL) -> None:
        from rich.console import Console

        # Not on a terminal, nothing limits the width: a table is as wide as its cells (rich's 80
        # columns would cut long API names in a log or a pipe).
        self.err = Console(stderr=True, highlight=False, force_terminal=color, no_color=color is False,
                           soft_wrap=True, width=None if _is_terminal(sys.stderr) else UNBOUNDED_WIDTH)
        self.out_color = _is_terminal(sys.stdout) if color is None else color
        self.out = Console(highlight=False, force_terminal=color, no_color=color is False, soft_wrap=True) \
            if self.out_color else None
        self.write = write
        self.confirm = confirm
        self.check = check
        self.outpath = outpath
        self.print_match = print_match
        self.log_level = log_level  # the log file's; the console's is `verbosity`
        self.verbosity = verbosity
        self.api_warnings = report.ApiWarnings()  # counted for the closing lines, unless -v shows each
        self.written = 0
        self.declined = 0
        self.write_all = False
        self.quit = False

    # -- output ------------------------------------------------------------------------------
    def show_diff(self, result: runner.FileResult) -> None:
        if not result.diff:
            return
        if self.out is not None:
            self.out.print(diff.colored(result.diff), end="")
            return
        header, _, body = result.diff.partition("\n")
        header2, _, body = body.partition("\n")
        sys.stdout.flush()
        stream = sys.stdout.buffer  # the patch's bytes must be the file's bytes: the body in the file's own encoding
        stream.write((header + "\n" + header2 + "\n").encode("utf-8", "surrogateescape"))
        stream.write(body.encode(result.diff_encoding, "surrogateescape"))
        stream.flush()

    def ask(self, display: str) -> str:
        """The per-file confirm: y(es), n(o), a(ll remaining), q(uit)."""
        try:
            return click.prompt(f"Write {display}? [y]es, [n]o, [a]ll remaining, [q]uit",
                                type=click.Choice(["y", "n", "a", "q"], case_sensitive=False),
                                default="n", show_choices=False, err=True).lower()
        except click.Abort:  # end of input
            return "q"


def _write_one(session: Session, result: runner.FileResult, run: backup.BackupRun, guard: SignalGuard) -> None:
    """Back up, then atomically replace one file. A signal arriving meanwhile waits for the end."""
    job = result.job
    assert job is not None and result.new_data is not None
    with guard.critical():
        try:
            mode, current = check_writable(job.path, result.old_sha256)
            run.save(job.path, job.rel, current, mode, result.new_data)
            atomic_write(job.path, result.new_data, mode)
        except (WriteRefused, backup.BackupError, OSError) as exc:
            reason = str(exc) if not isinstance(exc, OSError) else f"cannot write: {exc.strerror or exc}"
            result.status = runner.FAILED
            result.reason = reason
            result.findings.append(Finding(result.display, 1, 1, F.FAILED, "error", reason, False))
            return
        session.written += 1


def _copy_out(session: Session, result: runner.FileResult) -> None:
    """--outpath: the upgraded file, or the original bytes for a file that did not change."""
    job = result.job
    if job is None or session.outpath is None:
        return
    dest = os.path.join(session.outpath, job.rel)
    try:
        data = result.new_data if result.new_data is not None else runner.read_bytes(job.path)
        mode = os.stat(job.path).st_mode & 0o7777
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        atomic_write(dest, data, mode)
    except OSError as exc:
        if result.status != runner.FAILED:  # a file that could not be read is already reported
            reason = f"cannot write to --outpath: {exc.strerror or exc}"
            result.status = runner.FAILED
            result.reason = reason
            result.findings.append(Finding(result.display, 1, 1, F.FAILED, "error", reason, False))


def _handle(session: Session, result: runner.FileResult, run: Optional[backup.BackupRun],
            guard: SignalGuard) -> None:
    if session.print_match and result.sites:
        report.print_matches(session.err, result)
    report.print_findings(session.err, result.findings, session.verbosity)
    if session.verbosity == report.NORMAL:
        session.api_warnings.add(result.findings)
    shown = len(result.findings)
    if result.status == runner.CHANGED:
        if session.write and run is not None:
            if session.quit:
                session.declined += 1
            elif session.confirm and not session.write_all:
                session.show_diff(result)
                answer = session.ask(result.display)
                if answer == "a":
                    session.write_all = True
                if answer in ("y", "a"):
                    _write_one(session, result, run, guard)
                else:
                    session.declined += 1
                    session.quit = answer == "q"
            else:
                session.show_diff(result)
                _write_one(session, result, run, guard)
        else:
            session.show_diff(result)
    if session.outpath is not None:
        _copy_out(session, result)
    report.print_findings(session.err, result.findings[shown:], session.verbosity)  # write failures


def _inputs_or_fail(inputs: Sequence[str]) -> List[str]:
    if not inputs:
        raise click.UsageError("no input: pass -i/--inpath PATH (a file or a folder), or --restore BACKUP_DIR")
    for path in inputs:
        if not os.path.lexists(path):
            raise click.BadParameter(f"{path}: no such file or directory", param_hint="'-i' / '--inpath'")
    return list(inputs)


def _restore(session: Session, restore_dir: str) -> int:
    run_dir = restore_dir
    if not os.path.isfile(os.path.join(run_dir, backup.MANIFEST)):
        found = backup.runs(run_dir)
        if found:
            raise click.BadParameter(
                f"{restore_dir} holds {len(found)} backup run(s), not one; pass one of them, "
                f"e.g. the latest: {found[-1]}", param_hint="'--restore'")
        raise click.BadParameter(f"{restore_dir} has no {backup.MANIFEST}: not a paddle-upgrade backup run",
                                 param_hint="'--restore'")
    try:
        header, _, complete = backup.read_manifest(run_dir)
        outcomes = backup.restore(run_dir)
    except backup.BackupError as exc:
        session.err.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_FINDINGS
    counts = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
        style = {"restored": "green", "unchanged": "dim", "skipped": "yellow", "failed": "red"}[outcome.status]
        detail = f" ({escape(outcome.message)})" if outcome.message else ""
        session.err.print(f"{escape(outcome.path)}: [{style}]{outcome.status}[/]{detail}")
    if not complete:
        session.err.print("note: the backed-up run did not finish (it was interrupted); every file it "
                          "changed is listed in its manifest and was handled above")
    session.err.print(", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing to restore")
    return EXIT_FINDINGS if counts.get("skipped") or counts.get("failed") else EXIT_OK


def _progress(session: Session, total: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("upgrading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("{task.fields[current]}", style="dim"), console=session.err, transient=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("paths", nargs=-1, type=click.Path(), metavar="[PATH]...")
@click.option("-i", "--inpath", multiple=True, type=click.Path(),
              help="File or folder to upgrade (repeatable). Plain PATH arguments work too.")
@click.option("-w", "--write", is_flag=True, help="Write the upgraded files in place (backup first).")
@click.option("-b", "--backup", "backup_dir", is_flag=False, flag_value="", default=None, metavar="[DIR]",
              help="Backup folder for --write; default ~/.paddle_upgrade_tool/. Each run gets its own "
                   "timestamped folder mirroring the input's paths, with a manifest.")
@click.option("--no-confirm", is_flag=True, help="With --write: do not ask before each file.")
@click.option("-p", "--parallel", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="Upgrade with N worker processes (0: one per CPU; 1: in this process). Output is the same "
                   "for any N.")
@click.option("-q", "--quiet", is_flag=True, help="Show only errors on stderr (no warnings, no summary).")
@click.option("-v", "--verbose", count=True,
              help="-v: each warning with its file:line instead of one line per API; -vv: every finding.")
@click.option("--log-level", type=click.Choice(report.LEVELS, case_sensitive=False), default="INFO",
              show_default=True, help="Lowest level written to the log file (not the console); DEBUG adds "
                                      "per-file timings and tracebacks of internal errors.")
@click.option("--no-log-file", is_flag=True, help="Do not write the log file.")
@click.option("--log-filepath", type=click.Path(dir_okay=False), default="report.log", show_default=True,
              help="Where to write the log file (one `file:line LEVEL message` line per finding).")
@click.option("-r", "--refactor", "refactor_names", multiple=True, type=click.Choice(refactors.NAMES),
              help="Run only this refactor (repeatable; always in pipeline order).")
@click.option("--print-match", is_flag=True,
              help="Print each legacy API use: file:line, the refactors acting on it, and its outcome.")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 if any file would change or still uses a legacy API (CI, pre-commit).")
@click.option("--no-shim", is_flag=True,
              help="Pure 2.x output: legacy uses the upgrade leaves are only marked TODO, instead of running "
                   "through the runtime shim (`import runtime_shim.coexist`), and static-graph files call "
                   "paddle.enable_static() instead of runtime_shim.enable_static().")
@click.option("--outpath", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write the upgraded tree into DIR instead; the input is not touched.")
@click.option("--report-json", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Also write every finding and the summary as JSON.")
@click.option("--restore", "restore_dir", type=click.Path(exists=True, file_okay=False), default=None,
              metavar="BACKUP_DIR", help="Put back every file of one backup run (a run-* folder).")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Skip paths matching GLOB (relative to the input, or a file/folder name; repeatable).")
@click.option("--max-file-size", type=click.FloatRange(min=0, min_open=True), default=runner.DEFAULT_MAX_MB,
              show_default=True, metavar="MB", help="Skip larger files, with a message.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Keep each file's result under DIR, keyed by its bytes, the options and the tool version; "
                   "an unchanged file is then not upgraded again.")
@click.option("--mode", type=click.Choice(["upgrade", "shim"]), default="upgrade", show_default=True,
              help="upgrade: rewrite to the 2.x API. shim: only insert `import runtime_shim; "
                   "runtime_shim.install()` before the first paddle import, so the file runs as it is.")
@click.option("--color/--no-color", default=None, help="Force colors on or off (default: on a terminal).")
@click.version_option(__version__, "--version", prog_name="paddle-upgrade")
def main(paths: Tuple[str, ...], inpath: Tuple[str, ...], write: bool, backup_dir: Optional[str], no_confirm: bool,
         parallel: int, quiet: bool, verbose: int, log_level: str, no_log_file: bool, log_filepath: str,
         refactor_names: Tuple[str, ...], print_match: bool, check: bool, outpath: Optional[str],
         report_json: Optional[str], restore_dir: Optional[str], exclude: Tuple[str, ...],
         max_file_size: float, cache_dir: Optional[str], mode: str, color: Optional[bool], no_shim: bool) -> None:
    """Upgrade PaddlePaddle 1.8 (paddle.fluid) code to the Paddle 2.x API.

    Without --write it only shows the diff. Examples:

    \b
      paddle-upgrade -i model.py                  # preview (unified diff)
      paddle-upgrade -i project/ > fix.patch      # a patch for `git apply`
      paddle-upgrade -i project/ --write          # ask per file, back up, write
      paddle-upgrade -i project/ --check          # exit 1 if anything would change or is left
    """
    log_level = log_level.upper()
    if quiet and verbose:
        raise click.UsageError("-q/--quiet and -v/--verbose contradict each other")
    verbosity = report.QUIET if quiet else min(verbose, report.VERY_VERBOSE)
    session = Session(write=write, confirm=not no_confirm, check=check, outpath=outpath,
                      print_match=print_match, log_level=log_level, color=color, verbosity=verbosity)
    inputs = list(inpath) + list(paths)
    if restore_dir is not None:
        if inputs or write or check or outpath:
            raise click.UsageError("--restore takes only a backup run folder; it cannot be combined with "
                                   "inputs, --write, --check or --outpath")
        sys.exit(_restore(session, restore_dir))
    inputs = _inputs_or_fail(inputs)
    if write and check:
        raise click.UsageError("--check writes nothing; it cannot be combined with --write")
    if write and outpath:
        raise click.UsageError("--outpath writes elsewhere; it cannot be combined with --write (in place)")
    if check and outpath:
        raise click.UsageError("--check writes nothing; it cannot be combined with --outpath")
    if mode == "shim" and refactor_names:
        raise click.UsageError("-r/--refactor selects refactors of --mode upgrade; --mode shim runs none")
    if outpath is not None:
        out_real = os.path.realpath(outpath)
        for path in inputs:
            if os.path.realpath(path) == out_real:
                raise click.BadParameter(f"{outpath} is an input; --outpath must be another folder",
                                         param_hint="'--outpath'")
    if write and session.confirm and not _stdin_is_terminal():
        session.err.print(f"[bold red]paddle-upgrade:[/] {_NON_INTERACTIVE}")
        sys.exit(EXIT_USAGE)
    sys.exit(_run(session, inputs, backup_dir, parallel, no_log_file, log_filepath, refactor_names,
                  report_json, exclude, max_file_size, mode, cache_dir, not no_shim))


def _run(session: Session, inputs: List[str], backup_dir: Optional[str], parallel: int,
         no_log_file: bool, log_filepath: str, refactor_names: Tuple[str, ...], report_json: Optional[str],
         exclude: Tuple[str, ...], max_file_size: float, mode: str, cache_dir: Optional[str] = None,
         shim: bool = True) -> int:
    started = time.monotonic()
    backup_root = os.path.abspath(os.path.expanduser(backup_dir)) if backup_dir else backup.default_root()
    prune = [p for p in (session.outpath, backup_root if session.write else None) if p]
    many = len(inputs) > 1 or any(os.path.isdir(path) for path in inputs)  # the files are not counted yet
    runner.start_workers_early(runner.workers(parallel, 2 if many else 1))
    items = discover(inputs, exclude, prune)
    jobs = sum(1 for item in items if isinstance(item, Job))
    options = runner.Options(names=tuple(refactor_names) or None, max_bytes=int(max_file_size * 1024 * 1024),
                             debug=session.log_level == "DEBUG", mode=mode,
                             cache_dir=os.path.abspath(cache_dir) if cache_dir else None, shim=shim)
    run = backup.BackupRun(backup_root, run_base(inputs)) if session.write else None
    try:
        log = None if no_log_file else report.LogFile(log_filepath, session.log_level)
    except OSError as exc:
        raise click.BadParameter(f"cannot write {log_filepath}: {exc.strerror}", param_hint="'--log-filepath'")
    tally = report.Tally()
    json_out = report.JsonReport(report_json, sys.argv[1:]) if report_json else None
    interrupted: Optional[Interrupted] = None
    show_bar = session.err.is_terminal and jobs > 1 and not (session.write and session.confirm)
    guard = SignalGuard()
    with guard:
        stream = runner.run(items, options, runner.workers(parallel, jobs))
        try:
            if show_bar:
                with _progress(session, len(items)) as bar:
                    task = bar.add_task("upgrade", total=len(items), current="")
                    for result in stream:
                        _handle(session, result, run, guard)
                        _keep(tally, json_out, result, log)
                        bar.update(task, advance=1, current=result.display)
            else:
                for result in stream:
                    _handle(session, result, run, guard)
                    _keep(tally, json_out, result, log)
            guard.check()
        except Interrupted as exc:
            interrupted = exc
        except BrokenPipeError:  # the diff's reader went away (`| head`): stop, as Unix tools do on SIGPIPE
            _detach_stdout()
            interrupted = Interrupted(signal.SIGPIPE)
        finally:
            stream.close()  # stops the worker pool now, not whenever the generator is collected
            if run is not None:
                run.close(complete=interrupted is None)
    summary = tally.finish(session.written, session.declined, interrupted is not None)
    if log is not None:
        log.close(summary)
    if json_out is not None:
        json_out.close(summary)
    _epilogue(session, summary, run, interrupted, len(items), time.monotonic() - started, log)
    if interrupted is not None:
        return interrupted.exit_code
    if summary.failed or (session.check and (summary.changed or summary.legacy_files)):
        return EXIT_FINDINGS
    return EXIT_OK


def _detach_stdout() -> None:
    """Point stdout at /dev/null, so that nothing later (a flush at exit) writes to the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _keep(tally: report.Tally, json_out: Optional[report.JsonReport], result: runner.FileResult, log) -> None:
    """Fold a finished file into the log, the JSON report and the summary; nothing of it is kept, so
    memory does not grow with the size of the tree."""
    if log is not None:
        log.add(result)
    if json_out is not None:
        json_out.add(result)
    tally.add(result)


def _epilogue(session: Session, summary: report.Summary, run: Optional[backup.BackupRun],
              interrupted: Optional[Interrupted], total: int, seconds: float, log) -> None:
    err = session.err
    if interrupted is not None:
        err.print(f"[bold red]interrupted ({interrupted}) after {summary.scanned} of {total} files[/]; "
                  "every file is either original or fully upgraded")
    if session.verbosity == report.QUIET:
        return
    if total == 0:
        err.print("[yellow]no Python files or notebooks found in the given paths[/]")
    if session.api_warnings:
        session.api_warnings.print(err, log.path if log is not None else None)
    err.print(report.summary_table(summary))
    if summary.top_left:
        err.print(report.left_table(summary))
    if run is not None and run.path:
        err.print(f"backup of the {run.count} written file(s): {escape(run.path)}  "
                  f"(undo with: paddle-upgrade --restore {escape(run.path)})")
    if log is not None:
        err.print(f"log: {escape(log.path)}")
    if interrupted is None and session.check:
        left = f"; {summary.legacy_files} file(s) still use legacy APIs (marked TODO)" if summary.legacy_files else ""
        err.print((f"{summary.changed} file(s) would be changed" if summary.changed else "nothing to change") + left)
    elif interrupted is None and not session.write and session.outpath is None and summary.changed:
        err.print("[bold]preview only: no upgraded file was written.[/] Add --write to upgrade in place "
                  "(each file is backed up first), or --outpath DIR to write the upgraded tree elsewhere.")
    elif interrupted is None and session.outpath is not None:
        err.print(f"upgraded tree written to {escape(session.outpath)}")
    err.print(f"[dim]done in {seconds:.1f}s[/]")
