"""Every 2.x name the upgrader emits builds and runs on Paddle 3.x's legacy IR under `runtime_shim.enable_static()`.

The names: the `update_to` targets of the mapping table, the `paddle.*` names the refactors' transformers
write (string literals in `refactors/transformers/`, and the schedulers `lr_decay` composes), and the
common 2.x names converted 1.8 code calls directly (`tests/static_2x_cases.py`: Tensor methods and
operators, `paddle.nn` layers, `F.*`, optimizers' `minimize`, ...). Each is either built by a case there
(legacy Variables in, numbers checked against dygraph or known values) or listed below with the reason
no legacy-IR program is involved.
"""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path
from typing import Dict, Set

import pytest

from api_mapping import load_table
from legacy_programs import SERIAL_EXECUTOR

pytestmark = pytest.mark.paddle

ROOT = Path(__file__).resolve().parent.parent
CASES_SCRIPT = ROOT / "tests" / "static_2x_cases.py"
TRANSFORMERS = ROOT / "refactors" / "transformers"

_DEVICE = "a device or place query: no program is built"
_DYGRAPH = "dygraph only: Paddle 2.x itself refuses it while building a static program"
_MODE = "switches or reads the graph mode itself"
_DATA = "a Python data pipeline (readers, samplers, datasets): no program is built"
_DISTRIBUTED = "distributed-training environment (roles, file systems, file datasets): not a graph API"
_CORE = "a class or exception of the C++ core, used by isinstance/except, not called on Variables"
_INFERENCE = "the inference engine runs saved models (saved by the legacy IR in the save_inference_model case)"
_NUMPY = "a NumPy metric: `update()` takes NumPy arrays fetched from the program"
_PYTHON = "a pure Python helper (nested structures, names, versions): no operator"
_FLAGS = "process-wide flags, set and read outside any program"

NOT_IN_A_PROGRAM: Dict[str, str] = {
    "paddle.CPUPlace": _DEVICE, "paddle.CUDAPinnedPlace": _DEVICE, "paddle.CUDAPlace": _DEVICE,
    "paddle.device.cuda.device_count": _DEVICE, "paddle.is_compiled_with_cuda": _DEVICE,
    "paddle.static.cpu_places": _DEVICE, "paddle.static.cuda_places": _DEVICE,
    "paddle.DataParallel": _DYGRAPH, "paddle.grad": _DYGRAPH,
    "paddle.jit.to_static": "turns dygraph functions into programs (PIR in 3.x), not legacy static code",
    "paddle.enable_static": _MODE, "paddle.disable_static": _MODE, "paddle.in_dynamic_mode": _MODE,
    "paddle.batch": _DATA, "paddle.io.BatchSampler": _DATA, "paddle.io.Dataset": _DATA,
    "paddle.reader.ComposeNotAligned": _DATA, "paddle.reader.buffered": _DATA, "paddle.reader.cache": _DATA,
    "paddle.reader.chain": _DATA, "paddle.reader.compose": _DATA, "paddle.reader.firstn": _DATA,
    "paddle.reader.map_readers": _DATA, "paddle.reader.multiprocess_reader": _DATA,
    "paddle.reader.shuffle": _DATA, "paddle.reader.xmap_readers": _DATA,
    "paddle.distributed.fleet.MultiSlotDataGenerator": _DATA,
    "paddle.distributed.fleet.MultiSlotStringDataGenerator": _DATA,
    "paddle.distributed.InMemoryDataset": _DISTRIBUTED, "paddle.distributed.QueueDataset": _DISTRIBUTED,
    "paddle.distributed.ParallelEnv": _DISTRIBUTED, "paddle.distributed.init_parallel_env": _DISTRIBUTED,
    "paddle.distributed.fleet.PaddleCloudRoleMaker": _DISTRIBUTED, "paddle.distributed.fleet.Role": _DISTRIBUTED,
    "paddle.distributed.fleet.UserDefinedRoleMaker": _DISTRIBUTED,
    "paddle.distributed.fleet.utils.HDFSClient": _DISTRIBUTED,
    "paddle.framework.core.EOFException": _CORE, "paddle.framework.core.EnforceNotMet": _CORE,
    "paddle.framework.core.LoDTensor": _CORE, "paddle.framework.core.Place": _CORE,
    "paddle.framework.core.VarDesc": _CORE, "paddle.framework.core.op_proto_and_checker_maker": _CORE,
    "paddle.framework.core.PaddleTensor": _INFERENCE, "paddle.framework.core.create_paddle_predictor": _INFERENCE,
    "paddle.inference.Config": _INFERENCE,
    "paddle.metric.Auc": _NUMPY, "paddle.metric.Precision": _NUMPY, "paddle.metric.Recall": _NUMPY,
    "paddle.utils.convert_to_list": _PYTHON, "paddle.utils.flatten": _PYTHON, "paddle.utils.map_structure": _PYTHON,
    "paddle.utils.pack_sequence_as": _PYTHON, "paddle.utils.layers_utils.is_sequence": _PYTHON,
    "paddle.set_flags": _FLAGS, "paddle.get_flags": _FLAGS,
    "paddle.utils.require_version": _PYTHON, "paddle.utils.unique_name.generate": _PYTHON,
    "paddle.utils.unique_name.guard": _PYTHON, "paddle.utils.unique_name.switch": _PYTHON,
}


def table_targets() -> Set[str]:
    return {entry.update_to for entry in load_table().entries.values() if entry.update_to}


def transformer_names() -> Set[str]:
    """The `paddle.*` names written in the transformers' source, and the schedulers `lr_decay` composes
    (`LR + target`, the target returned by a builder or given to `_per_step`)."""
    found: Set[str] = set()
    for path in TRANSFORMERS.glob("*.py"):
        found |= set(re.findall(r"""["'](paddle(?:\.\w+)+)["']""", path.read_text(encoding="utf-8")))
    from refactors.transformers import lr_decay

    source = (TRANSFORMERS / "lr_decay.py").read_text(encoding="utf-8")
    for scheduler in set(re.findall(r"""(?:return|_per_step\()\s*["'](\w+)["']""", source)):
        found.add(lr_decay.LR + scheduler)
    return found


def emitted_names() -> Set[str]:
    return table_targets() | transformer_names()


def case_names() -> Set[str]:
    sys.path.insert(0, str(CASES_SCRIPT.parent))
    try:
        import static_2x_cases
    finally:
        sys.path.remove(str(CASES_SCRIPT.parent))
    return set(static_2x_cases.CASES)


def test_every_emitted_name_has_a_case_or_a_reason() -> None:
    built = {name.split("#")[0] for name in case_names()}
    emitted = emitted_names()
    missing = sorted(emitted - built - set(NOT_IN_A_PROGRAM))
    assert not missing, f"emitted 2.x names with no legacy-IR case and no reason: {missing}"
    both = sorted(built & set(NOT_IN_A_PROGRAM))
    assert not both, f"listed as not in a program but built by a case: {both}"
    stale = sorted(set(NOT_IN_A_PROGRAM) - emitted)
    assert not stale, f"no longer emitted, remove from NOT_IN_A_PROGRAM: {stale}"


def test_the_lr_schedulers_the_upgrader_composes_are_enumerated() -> None:
    names = transformer_names()
    assert {"paddle.optimizer.lr.ExponentialDecay", "paddle.optimizer.lr.StepDecay",
            "paddle.optimizer.lr.NoamDecay", "paddle.optimizer.lr.LinearWarmup"} <= names


def _limit_memory() -> None:
    # A served function that builds a wrong loop condition runs forever and takes all memory.
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, str]:
    out = tmp_path_factory.mktemp("static_2x") / "results.json"
    env = dict(os.environ, **SERIAL_EXECUTOR)  # the cases run Paddle's profiler (legacy_programs.SERIAL_EXECUTOR)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("FLAGS_enable_pir_api", None)  # enable_static() chooses the IR
    done = subprocess.run([sys.executable, str(CASES_SCRIPT), str(out)], cwd=str(out.parent), env=env,
                          capture_output=True, text=True, timeout=900, preexec_fn=_limit_memory)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(case_names()))
def test_builds_on_the_legacy_ir_with_the_2x_meaning(name: str, results: Dict[str, str]) -> None:
    assert results[name] == "ok", f"{name}: {results[name]}"
