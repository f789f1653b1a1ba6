"""The function that computes 1.8's `contrib.memory_usage` (api_mapping/kernels.py MEMORY_USAGE) over
the programs Paddle 3.3.1 builds, in both of its static IRs (api_mapping/SEMANTICS.md 55).

fixtures/legacy/memory_usage_static.py checks it against 1.8.5 in the legacy IR the upgrade selects (and under
the shim); here the same 2.x programs are built in a PIR run (`paddle.enable_static()`, what `--no-shim`
output does) and a legacy-IR run (`runtime_shim.enable_static()`), and the estimates are compared with the bytes 1.8's rule counts
for their operators, worked out by hand from the shapes.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

pytestmark = pytest.mark.paddle

ROOT = Path(__file__).resolve().parent.parent
BATCHES = (1, 64, 8192)

PROGRAMS = r'''
import json, sys
import numpy
import paddle
from api_mapping.kernels import MEMORY_USAGE, compiled

if sys.argv[2] == "legacy":  # as an upgraded file selects it: 2.x functions served on the legacy IR
    import runtime_shim
    runtime_shim.enable_static()
else:
    paddle.enable_static()
memory_usage = compiled(MEMORY_USAGE, "memory_usage", paddle, numpy)


def built(build):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        build()
    return main


def classifier(train):
    words = paddle.static.data(name="words", shape=[-1, 300], dtype="float32")
    label = paddle.static.data(name="label", shape=[-1, 1], dtype="float32")
    hidden = paddle.nn.functional.relu(paddle.static.nn.fc(words, size=128))
    hidden = paddle.tanh(paddle.static.nn.fc(hidden, size=64))
    score = paddle.nn.functional.sigmoid(paddle.static.nn.fc(hidden, size=1))
    loss = paddle.mean(paddle.nn.functional.square_error_cost(score, label))
    if train:
        paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)


def in_place():
    x = paddle.static.data(name="x", shape=[-1, 3], dtype="float32")
    y = paddle.exp(x)
    z = paddle.tanh(x)
    paddle.assign(y, output=z)  # writes z again
    counter = paddle.zeros([1], dtype="int64")
    paddle.increment(counter)  # writes counter again
    paddle.nn.functional.relu(y)


def two_negative_dims():
    paddle.nn.functional.relu(paddle.static.data(name="z", shape=[-1, -1, 3], dtype="float32"))


def raised(call):
    try:
        call()
    except (TypeError, ValueError) as error:
        return type(error).__name__
    return None


programs = {"forward": built(lambda: classifier(False)), "train": built(lambda: classifier(True)),
            "in_place": built(in_place)}
out = {"pir": isinstance(programs["forward"], paddle.pir.Program)}
out.update({key: [memory_usage(program, batch) for batch in (1, 64, 8192)] for key, program in programs.items()})
out["errors"] = [raised(lambda: memory_usage(object(), 4)), raised(lambda: memory_usage(programs["forward"], 0)),
                 raised(lambda: memory_usage(built(two_negative_dims), 4))]
json.dump(out, open(sys.argv[1], "w"))
'''


def run(tmp_path: Path, pir: bool) -> Dict[str, object]:
    script, out = tmp_path / "programs.py", tmp_path / f"out_{pir}.json"
    script.write_text(PROGRAMS, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("FLAGS_enable_pir_api", None)
    done = subprocess.run([sys.executable, str(script), str(out), "pir" if pir else "legacy"], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def estimates(tmp_path_factory: pytest.TempPathFactory) -> Dict[bool, Dict[str, object]]:
    tmp = tmp_path_factory.mktemp("memory_usage")
    return {pir: run(tmp, pir) for pir in (True, False)}


def rule(total: float) -> List[object]:
    """1.8's range and unit of a total in bytes."""
    unit = "B"
    for bigger in ("KB", "MB"):
        if total > 1024:
            total, unit = total / 1024, bigger
    return [total * 1.05, total * 1.1, unit]


def close(got: object, want: List[object]) -> bool:
    return got[2] == want[2] and got[:2] == pytest.approx(want[:2], rel=1e-12)  # type: ignore[index]


@pytest.mark.parametrize("pir", [True, False], ids=["pir", "legacy-ir"])
def test_each_ir_counts_the_tensors_1_8_counted(estimates: Dict[bool, Dict[str, object]], pir: bool) -> None:
    got = estimates[pir]
    assert got["pir"] is pir
    # matmul, add and activation of each fc ([b, 128], [b, 64], [b, 1]), subtract and square [b, 1]: float32;
    # the mean, one float32 (PIR's empty axis list, shape [0], is no byte). Data and parameters: no operator.
    forward = [rule((3 * 128 + 3 * 64 + 3 * 1 + 2) * 4 * b + 4) for b in BATCHES]
    assert all(close(g, w) for g, w in zip(got["forward"], forward)), got["forward"]
    # exp, tanh and relu [b, 3] float32, the counter one int64; assign and increment write them again.
    in_place = [rule(3 * 3 * 4 * b + 8) for b in BATCHES]
    assert all(close(g, w) for g, w in zip(got["in_place"], in_place)), got["in_place"]
    assert got["errors"] == ["TypeError", "ValueError", "ValueError"]


def test_a_pir_training_program_counts_the_gradient_seed_twice(estimates: Dict[bool, Dict[str, object]]) -> None:
    """The legacy IR seeds the loss's gradient with one fill_constant [1] (what 1.8.5 counted, checked by
    fixtures/legacy/memory_usage_static.py); PIR with `full` [1] and `full_like` [] (4 more bytes)."""
    legacy, pir = estimates[False]["train"], estimates[True]["train"]
    for b, low_legacy, low_pir in zip(BATCHES, legacy, pir):
        scale = {"B": 1, "KB": 1024, "MB": 1024 * 1024}
        assert low_pir[0] * scale[low_pir[2]] / 1.05 == pytest.approx(low_legacy[0] * scale[low_legacy[2]] / 1.05 + 4,
                                                                      rel=1e-12), b
