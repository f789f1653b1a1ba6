"""How much real 1.8 code runs under the runtime shim: module-level code of PaddlePaddle/models files.

    python benchmarks/shim_models.py [CORPUS] [--git GITDIR --rev REV] [--jobs 2] [--timeout 60]
                                     [--baseline-python PY] [--json OUT.json] [--list] [--strict]

Every `.py` file of CORPUS that imports `paddle.fluid` runs, unmodified, in a child forked from a parent
that imported Paddle and installed this working tree's shim once. Which files count, how each is run
(the way its project runs it), the outcomes, the causes outside our code and the two figures (a) and
(b) are those of `benchmarks/corpus_probe.py`, whose docstring has the rules;
`benchmarks/upgraded_models.py` applies the same rules to the upgraded files.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

if not __package__:  # run as a script: the shared module from this working tree (main() takes it off sys.path)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import corpus_probe as probe  # noqa: E402


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    probe.isolate_sys_path()
    args = probe.argument_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    with probe.corpus_tree(args) as (corpus, source, absent):
        probe.load_working_tree_shim(install=True)
        files = probe.selected_files(corpus, args.only)
        summary = probe.measure(corpus, files, args, source, absent)
        probe.report(summary, args, "files importing paddle.fluid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
