"""Record the golden output of runnable 1.8 programs on the real Paddle 1.8.5.

    python -m tools.record_goldens --python /path/to/py38/bin/python fixtures/legacy [more dirs or programs]

Each program (a `.py` file, or a directory whose `main.py` imports its other modules; see
`tools/fixture_programs.py`) prints lines `key: v1 v2 ...` (see `fixtures/legacy/README.md`). It runs,
in a copy of its directory in a temporary folder, under the given Python, which must have
`paddlepaddle==1.8.5` installed (`api_mapping/SEMANTICS.md` 43 gives the recipe). Its numbers are
written to `<dir>/golden/<name>.json` with the SHA-256 of the program's text, so that the tests can
tell a program edited since its golden was recorded. CI never runs this: it has no Paddle 1.8.5.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

from tools.fixture_programs import GOLDEN_DIR, entry_script, golden_path, programs, source_hash
from tools.program_output import parse_output


def run_on(python: str, program: Path, timeout: float) -> str:
    """The program's stdout, run from a copy of its script's directory (what it writes stays there)."""
    script = entry_script(program)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        shutil.copytree(script.parent, work, ignore=shutil.ignore_patterns(GOLDEN_DIR, "__pycache__"))
        run = subprocess.run([python, script.name], cwd=work, capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0:
        raise RuntimeError(f"{program} failed on the baseline Python:\n{run.stderr[-3000:]}")
    return run.stdout


def version_of(python: str) -> Dict[str, str]:
    out = subprocess.run([python, "-c", "import sys, paddle; print(paddle.__version__); print(sys.version.split()[0])"],
                         capture_output=True, text=True, check=True).stdout.split()
    return {"paddle": out[0], "python": out[1]}


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="program files or folders of programs")
    parser.add_argument("--python", required=True, help="a Python with paddlepaddle==1.8.5")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    versions = version_of(args.python)
    if versions["paddle"] != "1.8.5":
        print(f"error: {args.python} has paddle {versions['paddle']}, not 1.8.5", file=sys.stderr)
        return 2
    failed = 0
    for program in programs(args.paths):
        try:
            values = parse_output(run_on(args.python, program, args.timeout))
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        if not values:
            print(f"error: {program} printed no `key: values` line", file=sys.stderr)
            failed += 1
            continue
        target = golden_path(program)
        target.parent.mkdir(exist_ok=True)
        script = entry_script(program).relative_to(program.parent).as_posix()
        record = {"program": script, "source_sha256": source_hash(program), **versions, "values": values}
        target.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"{target}: {len(values)} keys")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
