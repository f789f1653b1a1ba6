"""The mapping table is valid against the real sources: 1.8.5 signatures, 2.0.2 and 3.3.1 targets.

An entry whose `since` says its target came after 2.0 is checked against 3.3.1 only, and must name the
release truthfully enough that 2.0.2 indeed lacks the target.

Every check that walks the table collects all failing entries and reports them in one assertion
message, so that each engineer sees every entry of theirs that needs fixing in a single run.
"""
from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

import pytest

from api_mapping import ApiEntry, Table, TableError
from api_mapping.loader import build_table
from api_mapping.schema import version_tuple
from api_mapping.signatures import SignatureIndex, load_index

OLD = "1.8.5"
TARGETS = ("2.0.2", "3.3.1")
_PADDLE_NAME = re.compile(r"\bpaddle(?:\.[A-Za-z_]\w*)+")


# -- helpers shared with test_paddle_targets ----------------------------------------------------------

def param_list(entry: ApiEntry) -> Optional[List[List[str]]]:
    """The entry's `args_list` back in the data format: `[name]`, `[name, default]`, `["*args"]`."""
    if entry.args_list is None:
        return None
    return [[p.star + p.name] if p.default is None else [p.star + p.name, p.default] for p in entry.args_list]


def normalised(params: Optional[List[List[str]]]) -> Optional[List[List[str]]]:
    """Parameters with default sources in one spelling (`"a"` vs `'a'`, `1e-8` vs `1e-08`).

    The index stores defaults as `ast.unparse` writes them; the upgrader only ever compares them as
    literals, so two spellings of the same expression are the same default.
    """
    if params is None:
        return None
    out = []
    for p in params:
        if len(p) == 2:
            try:
                p = [p[0], ast.unparse(ast.parse(p[1], mode="eval"))]
            except SyntaxError:
                pass
        out.append(list(p))
    return out


def emitted_keywords(entry: ApiEntry) -> Set[str]:
    """Keywords the upgrader can pass to `entry.update_to`.

    Renamed and added arguments always; the 1.8 names it keeps (neither renamed nor dropped) too,
    unless a transformer runs first: a transformer may consume arguments, so only what the table
    itself writes is known to reach the target.
    """
    renamed = {c.arg: c.to for c in entry.args_change if c.op == "rename"}
    dropped = {c.arg for c in entry.args_change if c.op == "drop"}
    words = {c.to for c in entry.args_change if c.op == "rename"}
    words |= {c.arg for c in entry.args_change if c.op == "add"}
    if entry.transformer is None:
        for p in entry.args_list or ():
            if not p.star and p.name not in dropped:
                words.add(renamed.get(p.name, p.name))
    return {w for w in words if w}


def emitted_names(entry: ApiEntry) -> Set[str]:
    """2.x names the table makes the upgrader write: the target, names inside added values, guard exits."""
    names = {entry.update_to} if entry.update_to else set()
    for change in entry.args_change:
        if change.op == "add" and change.value:
            names.update(_PADDLE_NAME.findall(change.value))
    if entry.guard_exit:
        names.add(entry.guard_exit)
    return names


def _dynamic_member(index: SignatureIndex, dotted: str) -> bool:
    """True when `dotted` lies in a module filled at runtime (a compiled core): unknown, not absent."""
    parts = dotted.split(".")
    return any(index.is_dynamic(".".join(parts[:i])) for i in range(2, len(parts)))


def _private(dotted: str) -> bool:
    """The indexes list public names only: a private 1.8 name is unknown to them, not absent."""
    return any(part.startswith("_") for part in dotted.split("."))


def _report(title: str, failures: List[str]) -> str:
    return f"{len(failures)} {title}:\n  " + "\n  ".join(failures)


# -- fixtures -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def table() -> Table:
    from refactors import table as registered_table

    return registered_table()


@pytest.fixture(scope="module")
def old() -> SignatureIndex:
    return load_index(OLD)


@pytest.fixture(scope="module")
def targets() -> Dict[str, SignatureIndex]:
    return {v: load_index(v) for v in TARGETS}


def _entries(table: Table) -> Iterator[Tuple[str, ApiEntry]]:
    return iter(sorted(table.entries.items()))


# -- (a) the table loads with the registered transformers ------------------------------------------------

def test_table_loads_with_registered_transformers(table):
    from refactors.transformers import REGISTRY

    assert len(table) > 0
    unknown = [f"{n}: {e.transformer}" for n, e in _entries(table)
               if e.transformer is not None and e.transformer not in REGISTRY]
    assert not unknown, _report("entries name an unregistered transformer", unknown)


# -- (b) 1.8 parameter lists and aliases equal the real 1.8.5 ones ---------------------------------------

def args_list_failures(table: Table, old: SignatureIndex) -> List[str]:
    failures = []
    for name, entry in _entries(table):
        if not old.exists(name):
            if not _dynamic_member(old, name) and not _private(name):
                failures.append(f"{name}: not a 1.8.5 name")
            continue
        real = normalised(old.params(name))
        ours = normalised(param_list(entry))
        rewritten = entry.update_to is not None or entry.transformer is not None
        if ours is None:
            if real is not None and rewritten and entry.kind in ("function", "class"):
                failures.append(f"{name}: args_list missing; 1.8.5 has {real}")
        elif real is None:
            failures.append(f"{name}: args_list {ours}, but 1.8.5's signature is unknown")
        elif ours != real:
            failures.append(f"{name}: args_list {ours} != 1.8.5 {real}")
    return failures


def alias_failures(table: Table, old: SignatureIndex) -> List[str]:
    failures = []
    for name, entry in _entries(table):
        main = old.resolve(name)
        for alias in entry.alias:
            target = old.resolve(alias)
            if target is None:
                if not _dynamic_member(old, alias) and not _private(alias):
                    failures.append(f"{name}: alias {alias} is not a 1.8.5 name")
            elif main is not None and target != main:
                failures.append(f"{name}: alias {alias} is {target}, not {main}")
    return failures


def test_args_list_equals_1_8_5_signature(table, old):
    failures = args_list_failures(table, old)
    assert not failures, _report("entries whose args_list differs from 1.8.5", failures)


def test_aliases_are_the_same_1_8_5_object(table, old):
    failures = alias_failures(table, old)
    assert not failures, _report("aliases that are not the main name's object", failures)


# -- (c) every emitted 2.x name exists in 2.0.2 and 3.3.1 (3.3.1 only for an entry with `since`) ------------

def target_failures(table: Table, targets: Dict[str, SignatureIndex]) -> List[str]:
    failures = []
    for name, entry in _entries(table):
        for emitted in sorted(emitted_names(entry)):
            for version, index in targets.items():
                if not entry.targets_exist_in(version):
                    continue
                if not index.exists(emitted) and not _dynamic_member(index, emitted):
                    failures.append(f"{name}: {emitted} does not exist in {version}")
    return failures


def test_targets_exist_in_2_0_2_and_3_3_1(table, targets):
    failures = target_failures(table, targets)
    assert not failures, _report("emitted names missing from a target version", failures)


def since_failures(table: Table, targets: Dict[str, SignatureIndex]) -> List[str]:
    """An entry says `since` only when 2.0.2 lacks its target (else the note would be false), and names a
    release no later than the newest indexed one."""
    newest = max(targets, key=version_tuple)
    failures = []
    for name, entry in _entries(table):
        if not entry.since:
            continue
        if not entry.targets_exist_in(newest):
            failures.append(f"{name}: since {entry.since} is later than {newest}")
        old = targets[TARGETS[0]]
        present = [n for n in sorted(emitted_names(entry)) if old.exists(n)]
        if present and len(present) == len(emitted_names(entry)):
            failures.append(f"{name}: says since {entry.since}, but {TARGETS[0]} has {', '.join(present)}")
    return failures


def test_since_is_only_set_for_targets_newer_than_2_0(table, targets):
    failures = since_failures(table, targets)
    assert not failures, _report("entries whose `since` is wrong", failures)


# -- (d) every emitted keyword is accepted by the target in both versions (3.3.1 only with `since`) -----------

def keyword_failures(table: Table, targets: Dict[str, SignatureIndex]) -> List[str]:
    failures = []
    for name, entry in _entries(table):
        words = emitted_keywords(entry)
        if entry.update_to is None or not words:
            continue
        for version, index in targets.items():
            if not entry.targets_exist_in(version):
                continue
            if not index.exists(entry.update_to):
                continue  # reported by target_failures
            sig = index.get(entry.update_to)
            if sig is None or sig.params is None:
                if not _dynamic_member(index, entry.update_to):
                    failures.append(f"{name}: {entry.update_to} has no known signature in {version} "
                                    f"to accept {sorted(words)}")
                continue
            for word in sorted(words):
                if not sig.accepts_keyword(word):
                    failures.append(f"{name}: {entry.update_to}({word}=...) is rejected by {version}")
    return failures


def test_emitted_keywords_accepted_in_both(table, targets):
    failures = keyword_failures(table, targets)
    assert not failures, _report("emitted keywords a target does not accept", failures)


# -- the checks themselves catch bad entries --------------------------------------------------------------------

_BAD = {
    # wrong default and a missing parameter
    "paddle.fluid.layers.fc": {"args_list": [["input"], ["size"], ["num_flatten_dims", "2"]],
                               "update_to": "paddle.static.nn.fc",
                               "args_change": [{"op": "rename", "arg": "input", "to": "x"}]},
    # an alias of another object, and a target that 2.0.2 lacks
    "paddle.fluid.layers.relu": {"alias": ["paddle.fluid.layers.sigmoid"], "args_list": [["x"], ["name", "None"]],
                                 "update_to": "paddle.nn.functional.relu6_does_not_exist"},
    # a keyword the target rejects: paddle.sum has no keep_dim
    "paddle.fluid.layers.reduce_sum": {
        "args_list": [["input"], ["dim", "None"], ["keep_dim", "False"], ["name", "None"]],
        "update_to": "paddle.sum", "args_change": [{"op": "rename", "arg": "input", "to": "x"},
                                                   {"op": "rename", "arg": "dim", "to": "axis"}]},
}


_BAD_SINCE = {
    # `since` exempts 2.0.2, never 3.3.1
    "paddle.fluid.layers.sequence_mask": {"args_list": [["x"], ["maxlen", "None"], ["dtype", "'int64'"],
                                                        ["name", "None"]],
                                          "update_to": "paddle.nn.functional.sequence_mask_does_not_exist",
                                          "since": "2.1"},
    # a keyword 3.3.1 rejects is caught for a `since` entry too
    "paddle.fluid.core.get_cuda_device_count": {"args_list": [], "update_to": "paddle.device.cuda.device_count",
                                                "since": "2.2", "args_change": [{"op": "add", "arg": "gpu",
                                                                                 "value": "True"}]},
    # 2.0.2 already has paddle.abs: `since` would be a false claim
    "paddle.fluid.layers.abs": {"args_list": [["x"], ["name", "None"]], "update_to": "paddle.abs", "since": "2.3"},
    # a release newer than any indexed one
    "paddle.fluid.layers.utils.flatten": {"args_list": [["nest"]], "update_to": "paddle.utils.flatten",
                                          "since": "9.0"},
}


def test_the_checks_catch_bad_since_entries(targets):
    bad = build_table([("bad.json", _BAD_SINCE)])
    assert target_failures(bad, targets) == [
        "paddle.fluid.layers.sequence_mask: paddle.nn.functional.sequence_mask_does_not_exist does not exist in 3.3.1"]
    assert keyword_failures(bad, targets) == [
        "paddle.fluid.core.get_cuda_device_count: paddle.device.cuda.device_count(gpu=...) is rejected by 3.3.1"]
    assert since_failures(bad, targets) == [
        "paddle.fluid.layers.abs: says since 2.3, but 2.0.2 has paddle.abs",
        "paddle.fluid.layers.utils.flatten: since 9.0 is later than 3.3.1"]


def test_since_decides_which_releases_must_have_the_target():
    entries = build_table([("t.json", {"paddle.fluid.a": {"update_to": "paddle.a", "since": "2.5"},
                                       "paddle.fluid.b": {"update_to": "paddle.b"}})]).entries
    assert [entries["paddle.fluid.a"].targets_exist_in(v) for v in ("2.0.2", "2.4.0", "2.5.0", "3.3.1")] == \
        [False, False, True, True]
    assert [entries["paddle.fluid.b"].targets_exist_in(v) for v in ("2.0.2", "3.3.1")] == [True, True]


def test_the_checks_catch_bad_entries(old, targets):
    bad = build_table([("bad.json", _BAD)])
    args = "\n".join(args_list_failures(bad, old))
    assert "paddle.fluid.layers.fc: args_list" in args and "relu" not in args and "reduce_sum" not in args
    assert alias_failures(bad, old) == [
        "paddle.fluid.layers.relu: alias paddle.fluid.layers.sigmoid is "
        f"{old.resolve('paddle.fluid.layers.sigmoid')}, not {old.resolve('paddle.fluid.layers.relu')}"]
    assert target_failures(bad, targets) == [
        f"paddle.fluid.layers.relu: paddle.nn.functional.relu6_does_not_exist does not exist in {v}"
        for v in TARGETS]
    assert keyword_failures(bad, targets) == [
        f"paddle.fluid.layers.reduce_sum: paddle.sum(keep_dim=...) is rejected by {v}" for v in TARGETS]


def test_emitted_keywords_are_renamed_added_and_kept_names():
    raw = {"paddle.fluid.a": {"args_list": [["x"], ["dim", "None"], ["act", "None"], ["*args"]],
                              "update_to": "paddle.a",
                              "args_change": [{"op": "rename", "arg": "dim", "to": "axis"},
                                              {"op": "drop", "arg": "act"},
                                              {"op": "add", "arg": "mode", "value": "'x'"}]}}
    entry = build_table([("t.json", raw)]).entries["paddle.fluid.a"]
    assert emitted_keywords(entry) == {"x", "axis", "mode"}
    with_transformer = build_table([("t.json", {"paddle.fluid.a": dict(raw["paddle.fluid.a"], transformer="t")})],
                                   known_transformers={"t"}).entries["paddle.fluid.a"]
    assert emitted_keywords(with_transformer) == {"axis", "mode"}


def test_defaults_compare_by_value_not_spelling():
    assert normalised([["a", '"x"'], ["b", "1e-8"]]) == normalised([["a", "'x'"], ["b", "1e-08"]])
    assert normalised([["a", "'x'"]]) != normalised([["a", "'y'"]])
    assert normalised([["a", "True"]]) != normalised([["a", "False"]])


# -- (e) the api_mapping/SEMANTICS.md traps carry their faithful rewrite ---------------------------------------

def _has_change(entry: ApiEntry, op: str, arg: str, to: Optional[str] = None, value: Optional[str] = None) -> bool:
    for c in entry.args_change:
        if c.op == op and c.arg == arg and (to is None or c.to == to) \
                and (value is None or (c.value or "").replace(" ", "") == value.replace(" ", "")):
            return True
    return False


def _transformer(name):
    return lambda e: e.transformer == name, f"transformer {name!r}"


def _keeps_act():
    """An act transformer, or a target that takes the activation itself (then test (d) checks the keyword)."""
    return (lambda e: e.transformer in ("act_to_call", "layer_act")
            or (e.update_to is not None and e.param("act") is not None
                and not any(c.op == "drop" and c.arg == "act" for c in e.args_change)),
            "an act transformer, or a target that takes act/activation")


def _no_equivalent_or(check, what):
    return lambda e: e.no_equivalent is not None or check(e), f"no_equivalent or {what}"


# (api_mapping/SEMANTICS.md entry, 1.8 name, check, what the check requires)
_F = "paddle.fluid."
_L = "paddle.fluid.layers."
TRAPS = [
    (1, _L + "cross_entropy",
     lambda e: e.transformer == "cross_entropy_probs"
     or (e.update_to == "paddle.nn.functional.cross_entropy" and _has_change(e, "add", "reduction", value="'none'")
         and _has_change(e, "add", "use_softmax", value="False")),
     "transformer 'cross_entropy_probs', or F.cross_entropy with reduction='none' and use_softmax=False"),
    (2, _L + "softmax_with_cross_entropy",
     lambda e: e.transformer == "softmax_cross_entropy"
     or e.update_to == "paddle.nn.functional.softmax_with_cross_entropy"
     or _has_change(e, "add", "reduction", value="'none'"),
     "transformer 'softmax_cross_entropy', F.softmax_with_cross_entropy, or reduction='none'"),
    (5, _L + "data", *_transformer("data_batch_dim")),
    (6, _L + "embedding", *_transformer("embedding_squeeze")),
    (7, _L + "one_hot", *_transformer("one_hot_squeeze")),
    (8, _L + "mean", *_transformer("full_reduce_shape1")),
    (8, _L + "reduce_sum", *_transformer("full_reduce_shape1")),
    (8, _L + "reduce_mean", *_transformer("full_reduce_shape1")),
    (9, _L + "split", lambda e: _has_change(e, "rename", "dim", "axis") and _has_change(e, "add", "axis", value="-1"),
     "rename dim->axis and add axis=-1"),
    (10, _L + "argmax", lambda e: _has_change(e, "add", "axis", value="0"), "add axis=0"),
    (11, _L + "argsort", *_transformer("argsort_pair")),
    (12, _L + "where", lambda e: e.update_to == "paddle.nonzero", "update_to paddle.nonzero"),
    (14, _L + "fill_constant",
     lambda e: e.update_to == "paddle.full" and _has_change(e, "rename", "value", "fill_value"),
     "paddle.full with value->fill_value"),
    (16, _L + "elementwise_add", *_transformer("elementwise_axis")),
    (16, _L + "elementwise_mul", *_transformer("elementwise_axis")),
    (17, _L + "fc", *_keeps_act()),
    (17, _L + "conv2d", *_keeps_act()),
    (17, _F + "dygraph.Linear", lambda e: e.transformer == "layer_act", "transformer 'layer_act'"),
    (17, _F + "dygraph.Conv2D", lambda e: e.transformer == "layer_act", "transformer 'layer_act'"),
    (18, _L + "matmul", *_transformer("matmul_alpha")),
    (21, _L + "pool2d", *_transformer("pool2d")),
    (21, _F + "dygraph.Pool2D", *_transformer("pool2d_layer")),
    (22, _L + "dropout", *_transformer("dropout_mode")),
    (22, _F + "dygraph.Dropout", *_transformer("dropout_layer")),
    (26, _F + "dygraph.GRUUnit",
     lambda e: e.no_equivalent is not None or (e.transformer is not None and e.update_to != "paddle.nn.GRUCell"),
     "no_equivalent or a transformer (not a rename to paddle.nn.GRUCell)"),
    (27, _F + "regularizer.L2Decay", lambda e: _has_change(e, "rename", "regularization_coeff", "coeff"),
     "rename regularization_coeff->coeff"),
    (27, _F + "optimizer.Adam",
     lambda e: _has_change(e, "rename", "parameter_list", "parameters")
     and _has_change(e, "rename", "regularization", "weight_decay"),
     "rename parameter_list->parameters and regularization->weight_decay"),
    (28, _F + "dygraph.PiecewiseDecay", *_transformer("lr_decay_dygraph")),
    (29, _L + "exponential_decay", *_transformer("lr_decay_static")),
    (30, _F + "clip.GradientClipByGlobalNorm",
     lambda e: e.update_to == "paddle.nn.ClipGradByGlobalNorm"
     and any(c.op == "drop" and c.arg == "need_clip" and c.alters_result for c in e.args_change),
     "paddle.nn.ClipGradByGlobalNorm with need_clip dropped as result-changing"),
    (32, _F + "dygraph.save_dygraph", *_transformer("save_dygraph")),
    (32, _F + "dygraph.load_dygraph", *_transformer("load_dygraph")),
    (34, _F + "io.save_persistables",
     *_no_equivalent_or(lambda e: _has_change(e, "add", "predicate"), "an explicit persistable predicate")),
    (34, _F + "io.load_persistables",
     *_no_equivalent_or(lambda e: _has_change(e, "add", "predicate"), "an explicit persistable predicate")),
    (34, _F + "io.save_inference_model", *_no_equivalent_or(lambda e: e.transformer is not None, "a transformer")),
    (34, _F + "io.load_inference_model", *_no_equivalent_or(lambda e: e.transformer is not None, "a transformer")),
    (35, _F + "dygraph.guard", lambda e: e.with_guard == "unwrap" and e.guard_exit == "paddle.enable_static",
     "with_guard 'unwrap' with guard_exit paddle.enable_static"),
    (36, _F + "dygraph.to_variable",
     lambda e: e.update_to == "paddle.to_tensor" and _has_change(e, "rename", "value", "data"),
     "paddle.to_tensor with value->data"),
    (39, _F + "DataFeeder", lambda e: e.no_equivalent is not None, "no_equivalent"),
    (40, _L + "expand",
     lambda e: e.update_to == "paddle.tile" and _has_change(e, "rename", "expand_times", "repeat_times"),
     "paddle.tile with expand_times->repeat_times"),
    (49, _L + "resize_nearest", *_transformer("nearest_align_corners")),
    (50, _L + "shape", *_transformer("shape_items")),
    (51, _L + "topk", *_transformer("int_division")),
    (53, _L + "resize_bilinear", *_transformer("resize_out_shape_first")),
    (53, _L + "resize_trilinear", *_transformer("resize_out_shape_first")),
    (53, _L + "image_resize", *_transformer("resize_out_shape_first")),
]


def test_semantic_traps_carry_their_faithful_rewrite(table):
    failures = []
    for number, name, check, what in TRAPS:
        entry = table.lookup(name)
        if entry is None:
            failures.append(f"SEMANTICS {number}: {name} has no entry (needs {what})")
        elif not check(entry):
            changes = [c.op + ":" + c.arg for c in entry.args_change]
            failures.append(f"SEMANTICS {number}: {name} needs {what}; has update_to={entry.update_to!r}, "
                            f"transformer={entry.transformer!r}, args_change={changes}")
    assert not failures, _report("api_mapping/SEMANTICS.md entries without their faithful rewrite", failures)


def test_dropped_result_changing_arguments_give_a_reason(table):
    failures = [f"{n}: drop of {c.arg!r}" for n, e in _entries(table)
                for c in e.args_change if c.op == "drop" and c.alters_result and not c.reason]
    assert not failures, _report("result-changing drops without a reason", failures)


# -- (f) the loader rejects bad data ---------------------------------------------------------------------------

_OK = {"paddle.fluid.a": {"args_list": [["x"]], "update_to": "paddle.a"}}


def _load(*data, known=("t",)):
    return build_table([(f"f{i}.json", d) for i, d in enumerate(data)], known_transformers=known)


def test_loader_accepts_a_valid_table():
    table = _load(_OK, {"paddle.fluid.b": {"alias": ["paddle.fluid.c.b"], "transformer": "t"}})
    assert table.main_name("paddle.fluid.c.b") == "paddle.fluid.b"
    assert table.lookup("paddle.fluid.a").update_to == "paddle.a"


@pytest.mark.parametrize("data, message", [
    ({"paddle.fluid.a": {"update_to": "paddle.a", "colour": "red"}}, "unknown fields"),
    ({"paddle.fluid.a": {"args_list": [["x"]], "update_to": "paddle.a",
                         "args_change": [{"op": "rename", "arg": "x", "to": "y", "why": "?"}]}},
     "unknown args_change fields"),
    ({"paddle.fluid.a": {"transformer": "not_registered"}}, "not registered"),
    ({"paddle.fluid.a": {"update_to": "paddle.a", "alias": ["paddle.fluid.b"]},
      "paddle.fluid.b": {"update_to": "paddle.b"}}, "is also a main name"),
    ({"paddle.fluid.a": {"update_to": "paddle.a", "alias": ["paddle.fluid.x"]},
      "paddle.fluid.b": {"update_to": "paddle.b", "alias": ["paddle.fluid.x"]}}, "also listed by"),
    ({"paddle.fluid.a": {"args_list": [["x"]], "update_to": "paddle.a",
                         "args_change": [{"op": "drop", "arg": "y"}]}}, "not a 1.8 parameter"),
    ({"paddle.fluid.a": {"kind": "function"}}, "needs update_to"),
    ({"paddle.fluid.a": {"update_to": "paddle.a", "since": "2.0"}}, "release after 2.0"),
    ({"paddle.fluid.a": {"update_to": "paddle.a", "since": "1.9"}}, "release after 2.0"),
    ({"paddle.fluid.a": {"update_to": "paddle.a", "since": "2.2.1"}}, "major.minor"),
    ({"paddle.fluid.a": {"update_to": "paddle.a", "since": 2.2}}, "version string"),
    ({"paddle.fluid.a": {"update_to": "paddle.a", "since": "soon"}}, "version string"),
    ({"paddle.fluid.a": {"no_equivalent": {"reason": "r", "suggest": "s"}, "since": "2.2"}},
     "only to an entry with update_to"),
])
def test_loader_rejects_bad_data(data, message):
    with pytest.raises(TableError, match=message):
        _load(data)


def test_loader_rejects_a_main_name_in_two_files():
    with pytest.raises(TableError, match="duplicate main name"):
        _load(_OK, _OK)


# -- the generated view ----------------------------------------------------------------------------------------

def test_rendered_table_is_deterministic_and_lists_every_entry(table):
    from tools.render_table import render

    text = render(table)
    assert text == render(table)
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == len(table)
    assert [r.split("`")[1] for r in rows] == sorted(table.entries)


def test_the_committed_table_view_is_the_rendering_of_the_data(table: Table) -> None:
    from tools.render_table import DEFAULT_OUT, render

    assert DEFAULT_OUT.read_text(encoding="utf-8") == render(table), \
        "api_mapping/TABLE.md is out of date: run python -m tools.render_table"


def test_the_other_legacy_paths_are_derived_from_the_data_and_the_1_8_5_index(table: Table) -> None:
    from api_mapping import legacy_paths
    from tools.legacy_paths import render

    assert legacy_paths.PATH.read_text(encoding="utf-8") == render(), \
        "api_mapping/legacy_paths.json is out of date: run python -m tools.legacy_paths"
    # a re-export of another module's API resolves to that API's entry
    assert table.main_name("paddle.fluid.layers.nn.concat") == "paddle.fluid.layers.concat"
    assert all(table.main_name(path) == main for path, main in legacy_paths.load().items())
