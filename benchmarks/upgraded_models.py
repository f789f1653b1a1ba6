"""How much real 1.8 code runs after the upgrade: module-level code of upgraded PaddlePaddle/models files.

    python benchmarks/upgraded_models.py [CORPUS] [--git GITDIR --rev REV] [--jobs 2] [--timeout 60]
                                         [--baseline-python PY] [--json OUT.json] [--list] [--strict]
                                         [--keep-upgraded DIR] [--install-shim] [UPGRADE FLAGS ...]

The corpus (CORPUS, or `--rev`'s full tree with `--git`) is copied whole, then upgraded by this working
tree's `python -m upgrade_tool -i CORPUS --outpath COPY --no-log-file [UPGRADE FLAGS]`, so that the
upgraded tree keeps the files the upgrader does not write (configuration, C++ sources, symbolic links).
Any argument this script does not know is an upgrade flag (e.g. `--no-shim`); the upgrader checks it.

The files that count are those of the corpus that import `paddle.fluid` before the upgrade, the same
denominator as `benchmarks/shim_models.py`. Each upgraded file runs in a child forked from a parent
that imported Paddle, and in which this working tree's `runtime_shim` is importable but NOT installed:
an upgraded file runs only with what it brings itself (an `import runtime_shim...` line it carries is
served from this tree, as an installed copy would be). `--install-shim` installs the shim in the parent
first instead, the way `shim_models.py` runs the original files. How each file is run, the outcomes, the
causes outside our code, figures (a) and (b) and `--baseline-python` (which runs the original 1.8 file)
are those of `benchmarks/corpus_probe.py`, whose docstring has the rules.

Also printed: how many counted files, once upgraded, still import `paddle.fluid` or import `runtime_shim`.
"""
from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator, List, Optional

if not __package__:  # run as a script: the shared module from this working tree (main() takes it off sys.path)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import corpus_probe as probe  # noqa: E402

SHIM_IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+runtime_shim\b|from[ \t]+runtime_shim\b)", re.MULTILINE)


def upgrade(corpus: Path, out: Path, flags: List[str]) -> None:
    """Copy `corpus` to `out` whole (symbolic links as links), then write the upgraded `.py` files over it."""
    shutil.copytree(corpus, out, symlinks=True)
    command = [sys.executable, "-m", "upgrade_tool", "-i", str(corpus), "--outpath", str(out), "--no-log-file",
               *flags]
    done = subprocess.run(command, cwd=str(probe.ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if done.returncode not in (0, 1):  # 1: some file failed to parse or be read, reported, copied as it was
        raise SystemExit(f"upgrade failed (exit {done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")


@contextlib.contextmanager
def upgraded_tree(corpus: Path, keep: Optional[Path], flags: List[str]) -> Iterator[Path]:
    """The upgraded copy of `corpus`: in `keep` (kept), else in a temporary directory (removed)."""
    if keep is not None:
        if keep.exists():
            raise SystemExit(f"--keep-upgraded {keep}: already exists")
        upgrade(corpus, keep, flags)
        yield keep.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="upgraded_models_") as tmp:
        out = Path(tmp) / "upgraded"
        upgrade(corpus, out, flags)
        yield out.resolve()


def count_imports(files: List[Path]) -> dict:
    """How many upgraded files still import `paddle.fluid`, and how many import `runtime_shim`."""
    texts = [probe.source_text(f) for f in files]
    return {"upgraded_importing_fluid": sum(bool(probe.FLUID_IMPORT.search(t)) for t in texts),
            "upgraded_importing_runtime_shim": sum(bool(SHIM_IMPORT.search(t)) for t in texts)}


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    probe.isolate_sys_path()
    parser = probe.argument_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--keep-upgraded", type=Path, metavar="DIR",
                        help="upgrade into DIR (which must not exist) and keep it")
    parser.add_argument("--install-shim", action="store_true",
                        help="install the runtime shim in the parent before the files run")
    args, upgrade_flags = parser.parse_known_args(argv)
    with probe.corpus_tree(args) as (corpus, source, absent):
        originals = probe.selected_files(corpus, args.only)
        with upgraded_tree(corpus, args.keep_upgraded, upgrade_flags) as out:
            probe.load_working_tree_shim(install=args.install_shim)
            files = [out / f.relative_to(corpus) for f in originals]
            summary = probe.measure(out, files, args, source, absent, originals=corpus)
            summary.update(count_imports(files), upgrade_flags=upgrade_flags, shim_installed=args.install_shim)
            summary["source"] = f"{source}, upgraded{' ' + ' '.join(upgrade_flags) if upgrade_flags else ''}" + \
                (", shim installed first" if args.install_shim else "")
            probe.report(summary, args, "files importing paddle.fluid before the upgrade")
            print(f"of these, once upgraded: {summary['upgraded_importing_fluid']} import paddle.fluid, "
                  f"{summary['upgraded_importing_runtime_shim']} import runtime_shim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
