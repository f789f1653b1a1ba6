"""The committed signature indexes and the tool that derives them.

Reads only `api_mapping/signatures/*.json.gz` (no network, no paddle import); the builder is exercised
on a small synthetic wheel made here.
"""
from __future__ import annotations

import gzip
import json
import sys
import zipfile
from pathlib import Path

import pytest

from tools import signature_index
from tools.signature_index import wheels
from api_mapping.signatures import SignatureIndex, available_versions, load_index


@pytest.fixture(scope="module")
def v185() -> SignatureIndex:
    return load_index("1.8.5")


@pytest.fixture(scope="module")
def v202() -> SignatureIndex:
    return load_index("2.0.2")


@pytest.fixture(scope="module")
def v331() -> SignatureIndex:
    return load_index("3.3.1")


def test_committed_versions():
    assert available_versions() == ["1.8.5", "2.0.2", "3.3.1"]
    for version in available_versions():
        path = signature_index.index_path(version)
        assert path.stat().st_size < 3_000_000
        assert load_index(version).version == version


# ---- Paddle 1.8.5


def test_fc_resolves_to_its_definition(v185):
    assert v185.resolve("paddle.fluid.layers.fc") == "paddle.fluid.layers.nn.fc"
    assert v185.resolve("paddle.fluid.layers.nn.fc") == "paddle.fluid.layers.nn.fc"
    assert v185.params("paddle.fluid.layers.fc") == [
        ["input"], ["size"], ["num_flatten_dims", "1"], ["param_attr", "None"],
        ["bias_attr", "None"], ["act", "None"], ["name", "None"],
    ]
    assert v185.get("paddle.fluid.layers.fc").kind == "function"


def test_dygraph_linear_constructor(v185):
    assert v185.resolve("paddle.fluid.dygraph.Linear") == "paddle.fluid.dygraph.nn.Linear"
    sig = v185.get("paddle.fluid.dygraph.Linear")
    assert sig.kind == "class"
    assert v185.params("paddle.fluid.dygraph.Linear") == [
        ["input_dim"], ["output_dim"], ["param_attr", "None"], ["bias_attr", "None"],
        ["act", "None"], ["dtype", "'float32'"],
    ]
    assert v185.accepts_keyword("paddle.fluid.dygraph.Linear", "act")
    assert not v185.accepts_keyword("paddle.fluid.dygraph.Linear", "in_features")


@pytest.mark.parametrize(
    "alias, defining",
    [
        pytest.param("paddle.fluid.Executor", "paddle.fluid.executor.Executor", id="fluid-init-star"),
        pytest.param("paddle.fluid.layers.data", "paddle.fluid.layers.io.data", id="layers-star"),
        pytest.param("paddle.fluid.data", "paddle.fluid.data.data", id="function-over-module"),
        pytest.param("paddle.fluid.optimizer.Adam", "paddle.fluid.optimizer.AdamOptimizer", id="assigned"),
        pytest.param("paddle.fluid.dygraph.guard", "paddle.fluid.dygraph.base.guard", id="dygraph"),
    ],
)
def test_re_exports(v185, alias, defining):
    assert v185.resolve(alias) == defining


def test_generated_activations(v185):
    assert v185.exists("paddle.fluid.layers.relu")
    # `exp`, `sigmoid`, ... come from `generate_activation_fn(op)`, which returns `def func(x, name=None)`.
    for name in ("exp", "sigmoid", "tanh", "sqrt"):
        assert v185.resolve(f"paddle.fluid.layers.{name}") == f"paddle.fluid.layers.ops.{name}"
        sig = v185.get(f"paddle.fluid.layers.{name}")
        assert (sig.kind, v185.params(f"paddle.fluid.layers.{name}")) == ("function", [["x"], ["name", "None"]])


def test_layers_members(v185):
    members = v185.module_members("paddle.fluid.layers")
    assert {"fc", "data", "relu", "exp", "cross_entropy", "softmax_with_cross_entropy"} <= set(members)
    assert "nn" not in members  # the submodule is reachable, but not part of `import *`
    assert v185.exists("paddle.fluid.layers.nn")


def test_inherited_methods(v185):
    assert v185.resolve("paddle.fluid.optimizer.AdamOptimizer.minimize") == "paddle.fluid.optimizer.Optimizer.minimize"
    assert v185.get("paddle.fluid.optimizer.Adam.minimize").kind == "method"
    assert v185.params("paddle.fluid.optimizer.Adam.minimize")[0] == ["loss"]
    assert v185.resolve("paddle.fluid.dygraph.Linear.state_dict") == "paddle.fluid.dygraph.layers.Layer.state_dict"
    assert v185.accepts_keyword("paddle.fluid.dygraph.Linear.set_dict", "include_sublayers")
    assert not v185.exists("paddle.fluid.dygraph.Linear.no_such_method")


def test_compiled_names_exist_without_signature(v185):
    assert v185.exists("paddle.fluid.CPUPlace")
    assert v185.get("paddle.fluid.CPUPlace").kind == "unknown"
    assert v185.params("paddle.fluid.CPUPlace") is None
    assert v185.is_dynamic("paddle.fluid.core")


def test_missing_names(v185):
    for name in ("paddle.fluid.layers.no_such_api", "paddle.nn", "paddle.static.nn.fc", "paddle.fluid.layers.nn.np"):
        assert not v185.exists(name), name
        assert v185.get(name) is None
        assert not v185.accepts_keyword(name, "x")


# ---- Paddle 2.0.2


def test_v2_names(v202):
    assert v202.exists("paddle.static.nn.fc")
    assert v202.accepts_keyword("paddle.static.nn.fc", "weight_attr")
    assert v202.accepts_keyword("paddle.nn.functional.cross_entropy", "use_softmax")
    assert not v202.accepts_keyword("paddle.nn.functional.cross_entropy", "soft_max")
    assert v202.resolve("paddle.batch") == "paddle.batch.batch"  # `batch = batch.batch` in paddle/__init__.py
    assert v202.exists("paddle.fluid.layers.fc")  # paddle.fluid still ships with 2.0
    assert v202.get("paddle.fluid.layers.tanh").kind == "function"


def test_v2_layer_methods_and_assigned_method_alias(v202):
    # `set_dict = set_state_dict` in the class body of paddle.nn.Layer
    assert v202.params("paddle.nn.Layer.set_dict") == v202.params("paddle.nn.Layer.set_state_dict")
    assert v202.exists("paddle.nn.Linear.state_dict")


# ---- Paddle 3.3.1


def test_v3_dropout_mode(v331):
    assert v331.accepts_keyword("paddle.nn.functional.dropout", "mode")
    assert v331.accepts_keyword("paddle.nn.functional.dropout", "input")  # @param_one_alias(["x", "input"])
    assert not v331.accepts_keyword("paddle.nn.functional.dropout", "dropout_implementation")


def test_v3_has_no_fluid(v331):
    assert not v331.exists("paddle.fluid")
    assert not v331.exists("paddle.fluid.layers.fc")
    assert not any(name == "paddle.fluid" or name.startswith("paddle.fluid.") for name in v331.names())


def test_v3_compiled_functions(v331):
    # `paddle.tanh` is `paddle._C_ops.tanh`; its signature is declared in paddle/_paddle_docs.py.
    assert v331.exists("paddle.tanh")
    assert v331.params("paddle.tanh")[:2] == [["x"], ["name", "None"]]
    # In-place variants generated by `generate_inplace_fn` in paddle/tensor/ops.py.
    assert v331.params("paddle.tensor.exp_") == [["x"], ["name", "None"]]
    assert v331.exists("paddle.tanh_")


def test_v3_names(v331):
    assert v331.resolve("paddle.nn.Linear") == "paddle.nn.layer.common.Linear"
    assert v331.accepts_keyword("paddle.nn.Linear", "weight_attr")
    assert v331.exists("paddle.optimizer.Adam.minimize")
    assert "to_tensor" in v331.module_members("paddle")
    assert v331.exists("paddle.float32")


# ---- the builder, on a synthetic wheel

SYNTHETIC = {
    "paddle/__init__.py": "from . import fluid\n",
    "paddle/fluid/__init__.py": (
        "from . import layers\n"
        "from .layers import *\n"
        "from .executor import Executor\n"
        "from .core import CPUPlace\n"
        "Run = Executor\n"
        "__all__ = ['layers', 'Executor'] + layers.__all__\n"
    ),
    "paddle/fluid/core.py": "from .core_avx import *\n",
    "paddle/fluid/core_avx.so": "",
    "paddle/fluid/executor.py": (
        "class Base(object):\n"
        "    def __init__(self, place=None, *, scope=None):\n        pass\n"
        "    def close(self):\n        pass\n"
        "class Executor(Base):\n"
        "    def run(self, program=None, **kwargs):\n        pass\n"
        "    @property\n    def place(self):\n        return None\n"
    ),
    "paddle/fluid/layers/__init__.py": (
        "from . import nn\nfrom .nn import *\nfrom .ops import *\n"
        "__all__ = []\n__all__ += nn.__all__\n__all__.extend(ops.__all__)\n"
    ),
    "paddle/fluid/layers/nn.py": (
        "__all__ = ['fc']\n"
        "def fc(input, size, act=None, *args, name=None, **kwargs):\n    pass\n"
        "def helper(x, /, y):\n    pass\n"
        "_private = 1\nLIMIT = 3\n"
    ),
    "paddle/fluid/layers/generator.py": (
        "def generate_activation_fn(op_type):\n"
        "    def func(x, name=None):\n        return x\n"
        "    func.__name__ = op_type\n"
        "    return func\n"
    ),
    "paddle/fluid/layers/ops.py": (
        "from .generator import generate_activation_fn\n"
        "__activations__ = ['relu', 'exp']\n"
        "__all__ = []\n__all__ += __activations__\n"
        "for _OP in set(__activations__):\n"
        "    func = generate_activation_fn(_OP)\n"
        "    globals()[_OP] = func\n"
    ),
    "paddle/fluid/tests/test_layers.py": "def public_helper():\n    pass\n",
    "paddle/fluid/layers/nn_test.py": "def public_helper():\n    pass\n",
}


def _synthetic_wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in SYNTHETIC.items():
            zf.writestr(name, text)
    return path


needs_unparse = pytest.mark.skipif(sys.version_info < (3, 9), reason="the builder needs ast.unparse")


@needs_unparse
def test_builder_is_deterministic(tmp_path):
    wheel = _synthetic_wheel(tmp_path / "paddlepaddle-0.0.1-py3-none-any.whl")
    first = signature_index.index_bytes(signature_index.build_index(wheel, "0.0.1")[0])
    second = signature_index.index_bytes(signature_index.build_index(wheel, "0.0.1")[0])
    assert first == second
    assert first[4:8] == b"\0\0\0\0"  # gzip mtime field


@needs_unparse
def test_builder_reads_synthetic_wheel(tmp_path):
    wheel = _synthetic_wheel(tmp_path / "paddlepaddle-0.0.1-py3-none-any.whl")
    raw, issues = signature_index.build_index(wheel, "0.0.1")
    assert raw == json.loads(gzip.decompress(signature_index.index_bytes(raw)))
    index = SignatureIndex.from_json(raw)

    assert index.resolve("paddle.fluid.layers.fc") == "paddle.fluid.layers.nn.fc"
    assert index.resolve("paddle.fluid.fc") == "paddle.fluid.layers.nn.fc"
    assert index.params("paddle.fluid.layers.fc") == [
        ["input"], ["size"], ["act", "None"], ["*args"], ["name", "None"], ["**kwargs"],
    ]
    assert index.params("paddle.fluid.layers.nn.helper") == [["x"], ["/"], ["y"]]
    assert not index.accepts_keyword("paddle.fluid.layers.nn.helper", "x")
    assert index.accepts_keyword("paddle.fluid.layers.nn.helper", "y")
    assert index.get("paddle.fluid.layers.nn.LIMIT").kind == "constant"
    assert not index.exists("paddle.fluid.layers.nn._private")

    for op in ("relu", "exp"):
        assert index.resolve(f"paddle.fluid.layers.{op}") == f"paddle.fluid.layers.ops.{op}"
        assert index.params(f"paddle.fluid.layers.{op}") == [["x"], ["name", "None"]]
    assert index.module_members("paddle.fluid.layers") == ["fc", "relu", "exp"]
    assert index.module_members("paddle.fluid") == ["layers", "Executor", "fc", "relu", "exp"]

    # class constructor inherited from a base, methods through bases, properties as attributes
    assert index.params("paddle.fluid.Executor") == [["place", "None"], ["*"], ["scope", "None"]]
    assert index.resolve("paddle.fluid.Run") == "paddle.fluid.executor.Executor"
    assert index.resolve("paddle.fluid.Executor.close") == "paddle.fluid.executor.Base.close"
    assert index.accepts_keyword("paddle.fluid.Executor.run", "anything")
    assert index.get("paddle.fluid.Executor.place").kind == "attribute"

    # a name from a compiled module exists without a signature
    assert index.get("paddle.fluid.CPUPlace").kind == "unknown"
    assert index.is_dynamic("paddle.fluid.core")

    # test trees and *_test modules are skipped
    assert not any("public_helper" in name for name in index.names())
    assert issues == []


def test_obtain_wheel_uses_the_wheel_dir_then_pip(tmp_path, monkeypatch):
    calls = []

    def fake_run(cmd, check):
        calls.append(cmd)
        dest = Path(cmd[cmd.index("--dest") + 1])
        (dest / "paddlepaddle_gpu-2.0.2-cp38-cp38-manylinux1_x86_64.whl").write_bytes(b"")

    monkeypatch.setattr(wheels.subprocess, "run", fake_run)
    got = signature_index.obtain_wheel(signature_index.WHEELS["2.0.2"], tmp_path)
    assert got.name == "paddlepaddle_gpu-2.0.2-cp38-cp38-manylinux1_x86_64.whl"
    assert calls[0][-1] == "paddlepaddle-gpu==2.0.2"
    assert calls[0][3:] == [
        "download", "--no-deps", "--dest", str(tmp_path), "--python-version", "3.8",
        "--only-binary=:all:", "--platform", "manylinux1_x86_64", "paddlepaddle-gpu==2.0.2",
    ]
    assert signature_index.obtain_wheel(signature_index.WHEELS["2.0.2"], tmp_path) == got  # found, pip not run again
    assert len(calls) == 1


def test_a_name_re_exported_from_an_unindexed_module_is_unknown_not_an_error():
    from api_mapping.signatures import load_index

    sig = load_index("3.3.1").get("paddle.framework.core.op_proto_and_checker_maker")
    assert sig is not None and sig.kind == "unknown"
