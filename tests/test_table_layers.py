"""The `paddle.fluid.layers` entries (`api_mapping/data/layers.json`): derived from 1.8.5, complete, and
converting the tricky APIs to 2.x code that computes what 1.8 computed.

The names reserved for the semantic transformers (`fc`, `conv2d`, `elementwise_*`, `reduce_*`, the static
`*_decay` functions, ...) live in `semantic.json` and are tested with their transformers.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List

import pytest

from tools import entry_fields
from api_mapping.signatures import load_index
from refactors import upgrade_code

ROOT = Path(__file__).resolve().parents[1]
LAYERS_JSON = ROOT / "api_mapping" / "data" / "layers.json"
USAGE_JSON = ROOT / "api_mapping" / "usage" / "models-release-1.8.json"
FIXTURES = ROOT / "fixtures" / "api_rename"
L = "paddle.fluid.layers."

# Public `paddle.fluid.layers` names whose entries need a semantic transformer (semantic.json).
RESERVED = {
    "fc", "conv2d", "batch_norm", "matmul", "pool2d", "data", "cross_entropy", "softmax_with_cross_entropy",
    "dropout", "argsort", "one_hot", "embedding", "mean", "split", "argmax", "argmin", "expand", "where",
    "fill_constant", "softmax", "exponential_decay", "natural_exp_decay", "inverse_time_decay",
    "polynomial_decay", "piecewise_decay", "noam_decay", "cosine_decay",
}


def reserved(short: str) -> bool:
    return short in RESERVED or short.startswith(("elementwise_", "reduce_"))


@pytest.fixture(scope="module")
def layers() -> Dict[str, dict]:
    return json.loads(LAYERS_JSON.read_text(encoding="utf-8"))


# -- the data file ------------------------------------------------------------------------------------------

def test_derived_fields_equal_1_8_5_and_targets_accept_the_keywords(layers):
    """kind/alias/args_list are what `tools.entry_fields` derives; targets and keywords exist in 2.0.2 and 3.3.1."""
    legacy = load_index(entry_fields.LEGACY)
    targets = {v: load_index(v) for v in entry_fields.TARGETS}
    deriver = entry_fields.Deriver(legacy)
    stale = [name for name, raw in layers.items() if entry_fields.refresh(name, raw, deriver) != raw]
    assert not stale, f"run `python -m tools.entry_fields {LAYERS_JSON.name} --write`: {stale}"
    found = [f"{n}: {p}" for n, raw in layers.items() for p in entry_fields.problems(n, raw, legacy, targets)]
    assert not found, "\n".join(found)


def test_every_public_layers_name_has_an_entry(layers):
    legacy = load_index("1.8.5")
    missing = [n for n in legacy.module_members("paddle.fluid.layers") if not reserved(n) and L + n not in layers]
    assert not missing
    leaked = [n for n in layers if reserved(n[len(L):])]
    assert not leaked, f"reserved for semantic.json: {leaked}"


def test_every_layers_name_used_twice_in_the_corpus_is_covered(layers):
    known = set(layers) | {a for e in layers.values() for a in e.get("alias", ())}
    uses = json.loads(USAGE_JSON.read_text(encoding="utf-8"))["names"]
    uncovered = []
    for name, count in uses.items():
        parts = name.split(".")
        if not name.startswith(L) or count < 2 or any(reserved(p) for p in parts[3:]):
            continue
        if not any(".".join(parts[:end]) in known for end in range(len(parts), 3, -1)):
            uncovered.append(f"{name} ({count})")
    assert not uncovered


def test_entry_fields_derives_aliases_from_the_exports():
    deriver = entry_fields.Deriver(load_index("1.8.5"))
    assert deriver.aliases(L + "reshape") == [L + "nn.reshape"]
    assert deriver.aliases(L + "sequence_mask") == [L + "sequence_lod.sequence_mask"]
    assert deriver.aliases(L + "utils.flatten") == []  # rnn.py imports it, but does not export it
    assert deriver.kind(L + "While") == "class"
    assert entry_fields.alias_root(L + "nn.fc") == "paddle.fluid.layers"


def test_emitted_keywords_follow_renames_drops_and_adds(layers):
    entry = layers[L + "leaky_relu"]
    assert entry_fields.emitted_keywords(entry) == ["x", "negative_slope", "name"]
    assert "axis" not in entry_fields.emitted_keywords(layers[L + "flatten"])


# -- conversions through the upgrader ---------------------------------------------------------------------------

HEADER = "import paddle.fluid as fluid\n"

CASES = [
    pytest.param("y = fluid.layers.cumsum(x)\n", "y = paddle.cumsum(x, axis=-1)\n",
                 id="cumsum: 1.8 default axis -1, 2.x flattens"),
    pytest.param("y = fluid.layers.uniform_random([2, 3])\n", "y = paddle.uniform([2, 3], min=-1.0)\n",
                 id="uniform_random: 3.x changed min to 0"),
    pytest.param("y = fluid.layers.arange(0, 10, 2)\n", "y = paddle.arange(0, 10, 2, dtype='float32')\n",
                 id="arange: 1.8 float32, 2.x int64 for ints"),
    pytest.param("y = fluid.layers.leaky_relu(x, alpha=0.1)\n",
                 "y = paddle.nn.functional.leaky_relu(x, negative_slope=0.1)\n", id="leaky_relu: rename"),
    pytest.param("y = fluid.layers.leaky_relu(x)\n",
                 "y = paddle.nn.functional.leaky_relu(x, negative_slope=0.02)\n", id="leaky_relu: 1.8 default 0.02"),
    pytest.param("y = fluid.layers.hard_sigmoid(x)\n", "y = paddle.nn.functional.hardsigmoid(x, slope=0.2)\n",
                 id="hard_sigmoid: 1.8 slope 0.2, 2.x 1/6"),
    pytest.param("y = fluid.layers.flatten(x)\n", "y = paddle.flatten(x, start_axis=1)\n",
                 id="flatten: 2-D result for the default axis"),
    pytest.param("y = fluid.layers.flatten(x=x, axis=1)\n", "y = paddle.flatten(x=x, start_axis=1)\n",
                 id="flatten: axis=1 literal"),
    pytest.param("y = fluid.layers.sigmoid_cross_entropy_with_logits(x, label)\n",
                 "y = paddle.nn.functional.binary_cross_entropy_with_logits(x, label, reduction='none')\n",
                 id="sigmoid_cross_entropy_with_logits: logits, element-wise"),
    pytest.param("y = fluid.layers.margin_rank_loss(label, left, right)\n",
                 "y = paddle.nn.functional.margin_ranking_loss(label=label, input=left, other=right, margin=0.1, "
                 "reduction='none')\n", id="margin_rank_loss: reordered, 1.8 margin, element-wise"),
    pytest.param("y = fluid.layers.accuracy(input=x, label=label)\n",
                 "y = paddle.metric.accuracy(input=x, label=label)\n",
                 id="accuracy: 0-D, the 2.x idiom"),
    pytest.param("y = fluid.layers.size(x)\n", "y = paddle.numel(x)\n",
                 id="size: numel, 0-D"),
    pytest.param("y = fluid.layers.resize_bilinear(x, out_shape=[8, 8])\n",
                 "y = paddle.nn.functional.interpolate(x, size=[8, 8], mode='bilinear', align_corners=True, "
                 "align_mode=1)\n", id="resize_bilinear: 1.8 corner alignment"),
    pytest.param("y = fluid.layers.resize_nearest(x, scale=2.0, align_corners=False)\n",
                 "y = paddle.nn.functional.interpolate(x, scale_factor=2.0, align_corners=False, mode='nearest')\n",
                 id="resize_nearest: align_corners=False is exact"),
    pytest.param("y = fluid.layers.pool3d(x, pool_size=2)\n",
                 "y = paddle.nn.functional.max_pool3d(x, kernel_size=2, stride=1)\n",
                 id="pool3d: 1.8 stride 1, 2.x kernel size"),
    pytest.param("y = fluid.layers.huber_loss(x, label, 2.0)\n",
                 "y = paddle.nn.functional.smooth_l1_loss(x, label, delta=2.0, reduction='none')\n",
                 id="huber_loss: same op, not reduced"),
    pytest.param("y = fluid.layers.brelu(x)\n", "y = paddle.clip(x, min=0.0, max=24.0)\n",
                 id="brelu: clip with the 1.8 bounds"),
    pytest.param("y = fluid.layers.nn.squeeze(input=x, axes=[1])\n", "y = paddle.squeeze(x=x, axis=[1])\n",
                 id="alias path nn.squeeze"),
    pytest.param("y = fluid.layers.sums([a, b])\n", "y = paddle.add_n([a, b])\n", id="sums: add_n"),
    pytest.param("y = fluid.layers.reshape(x, [-1, 4], inplace=True)\n", "y = paddle.reshape(x, [-1, 4])\n",
                 id="reshape: inplace only shared memory"),
    pytest.param("y = fluid.layers.reshape(x, [2, 3], act='relu')\n",
                 "y = paddle.nn.functional.relu(paddle.reshape(x, [2, 3]))\n", id="reshape: act applied to the output"),
]


@pytest.mark.parametrize("legacy, upgraded", CASES)
def test_conversion(legacy, upgraded):
    result = upgrade_code(HEADER + legacy)
    assert result.code == "import paddle\n" + upgraded
    assert upgrade_code(result.code).code == result.code


REVIEW = [
    pytest.param("y = fluid.layers.flatten(x, axis=2)\n", "`axis=2`", id="flatten: other axes are not 2-D in 2.x"),
    pytest.param("y = fluid.layers.pool3d(x, pool_size=2, pool_type=kind)\n", "`pool_type=kind`",
                 id="pool3d: the kind chooses the function"),
    pytest.param("y = fluid.layers.sigmoid_cross_entropy_with_logits(x, label, normalize=True)\n",
                 "`normalize=True`", id="sigmoid CE: normalize"),
    pytest.param("y = fluid.layers.reshape(x, [2, 3], actual_shape=s)\n", "`actual_shape=s`",
                 id="reshape: actual_shape took priority"),
    pytest.param("y = fluid.layers.less_than(x, y, cond=c)\n", "`cond=c`", id="less_than: output variable"),
    pytest.param("y = fluid.layers.gaussian_random([2], seed=7)\n", "`seed=7`", id="gaussian_random: seed"),
]


@pytest.mark.parametrize("legacy, why", REVIEW)
def test_result_changing_arguments_are_left_for_review(legacy, why):
    result = upgrade_code(HEADER + legacy, shim=False)
    line = result.code.splitlines()[1]
    assert line.startswith(legacy.rstrip("\n") + "  # TODO(paddle-upgrade): " + why)
    assert [f.code for f in result.findings] == ["needs-review"]


NO_EQUIVALENT = [
    pytest.param("crf_decoding", "y = fluid.layers.crf_decoding(x, param_attr=p)\n", "paddle.text.ViterbiDecoder",
                 id="crf_decoding removed by 3.x"),
    pytest.param("lrn", "y = fluid.layers.lrn(x)\n", "alpha=alpha * n", id="lrn alpha per channel"),
    pytest.param("unique", "y = fluid.layers.unique(x)\n", "return_inverse=True", id="unique order"),
    pytest.param("sequence_unpad", "y = fluid.layers.sequence_unpad(x, length)\n", "length mask", id="LoD"),
]


@pytest.mark.parametrize("short, legacy, suggestion", NO_EQUIVALENT)
def test_no_equivalent_is_left_and_reported(short, legacy, suggestion):
    result = upgrade_code(HEADER + legacy)
    assert legacy.rstrip("\n") + f"  # TODO(paddle-upgrade): fluid.layers.{short}: no 2.x equivalent, runs through " \
        "runtime_shim\n" in result.code
    [finding] = [f for f in result.findings if f.code == "no-equivalent"]
    assert finding.api == L + short and suggestion in finding.message


def test_added_default_is_not_written_twice_for_a_positional_argument():
    result = upgrade_code(HEADER + "y = fluid.layers.cumsum(x, 1)\nz = fluid.layers.leaky_relu(x, 0.1)\n")
    assert result.code == ("import paddle\ny = paddle.cumsum(x, 1)\n"
                           "z = paddle.nn.functional.leaky_relu(x, 0.1)\n")


# -- fixture pairs ----------------------------------------------------------------------------------------------

def _pairs() -> List[Path]:
    return sorted(FIXTURES.glob("layers_*.in.py"))


@pytest.mark.parametrize("source", _pairs(), ids=lambda p: p.name)
def test_fixture_pair(source):
    expected = source.with_name(source.name.replace(".in.py", ".out.py")).read_text(encoding="utf-8")
    result = upgrade_code(source.read_text(encoding="utf-8"))
    assert result.code == expected
    assert upgrade_code(expected).code == expected


# -- the converted code computes the 1.8 result (real Paddle 3.3.1, NumPy reference of the 1.8 formula) ---------

def _run(legacy: str, **inputs):
    """Upgrade `y = ...` written against 1.8, run it on Paddle 3.3.1 (dynamic mode), return y as NumPy."""
    import paddle

    code = upgrade_code(HEADER + legacy).code
    assert "fluid" not in code, code
    namespace = {k: paddle.to_tensor(v) for k, v in inputs.items()}
    exec(compile(code, "<upgraded>", "exec"), namespace)
    return namespace["y"].numpy()


@pytest.mark.paddle
def test_numbers_match_the_1_8_formulas():
    import numpy as np

    x = np.linspace(-3, 3, 24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_allclose(_run("y = fluid.layers.hard_sigmoid(x)\n", x=x),
                               np.clip(0.2 * x + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(_run("y = fluid.layers.leaky_relu(x)\n", x=x), np.where(x > 0, x, 0.02 * x),
                               rtol=1e-6)
    np.testing.assert_allclose(_run("y = fluid.layers.cumsum(x)\n", x=x), np.cumsum(x, axis=-1), rtol=1e-5)
    assert _run("y = fluid.layers.flatten(x)\n", x=x).shape == (2, 12)
    np.testing.assert_allclose(_run("y = fluid.layers.brelu(x * 10)\n", x=x), np.clip(x * 10, 0, 24), rtol=1e-6)
    steps = _run("y = fluid.layers.arange(0, 10, 2)\n")
    assert steps.dtype == np.float32 and steps.tolist() == [0, 2, 4, 6, 8]
    noise = _run("y = fluid.layers.uniform_random([4000])\n")
    assert noise.min() >= -1.0 and noise.max() < 1.0 and (noise < -0.5).any()

    logits = np.array([[-2.0], [0.5], [3.0]], dtype="float32")
    label = np.array([[0.0], [1.0], [1.0]], dtype="float32")
    bce = np.maximum(logits, 0) - logits * label + np.log1p(np.exp(-np.abs(logits)))
    np.testing.assert_allclose(_run("y = fluid.layers.sigmoid_cross_entropy_with_logits(x, label)\n",
                                    x=logits, label=label), bce, rtol=1e-5)
    sign = np.array([[1.0], [-1.0], [1.0]], dtype="float32")
    np.testing.assert_allclose(_run("y = fluid.layers.margin_rank_loss(label, left, right)\n",
                                    label=sign, left=logits, right=label),
                               np.maximum(0, -sign * (logits - label) + 0.1), rtol=1e-6)
    r = logits - label
    huber = np.where(np.abs(r) <= 1.0, 0.5 * r * r, np.abs(r) - 0.5)
    np.testing.assert_allclose(_run("y = fluid.layers.huber_loss(x, label, 1.0)\n", x=logits, label=label),
                               huber, rtol=1e-6)

    image = np.array([[[[0.0, 1.0], [2.0, 3.0]]]], dtype="float32")  # corners kept with align_corners=True
    np.testing.assert_allclose(_run("y = fluid.layers.resize_bilinear(x, out_shape=[3, 3])\n", x=image)[0, 0],
                               [[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]], rtol=1e-6)
    scores = np.array([[0.1, 0.9], [0.8, 0.2]], dtype="float32")
    ids = np.array([[1], [1]], dtype="int64")
    acc = _run("y = fluid.layers.accuracy(input=x, label=label)\n", x=scores, label=ids)
    assert acc.shape == () and acc.item() == pytest.approx(0.5)  # 0-D in 2.x (1.8: shape [1]; refactors.zero_d)
