"""Speed and quality of the upgrader, measured against the reference tool on a real or synthetic corpus.

Entry point: `python -m benchmarks.run` (see `benchmarks/run.py`). Results go to `benchmarks/out/`.
"""
