"""Legacy-API warnings: once per API per process, visible, silenceable, strict; no-equivalent errors."""
from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from runtime_shim import messages
from runtime_shim.messages import LegacyApiError, LegacyApiWarning, NoEquivalentError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.delenv(messages.ENV_VAR, raising=False)
    messages.reset()
    messages.set_policy(None)
    yield
    messages.reset()
    messages.set_policy(None)


def test_each_api_warns_once_naming_its_replacement():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            messages.legacy_api_used("paddle.fluid.layers.fc", "paddle.static.nn.fc")
        messages.legacy_api_used("paddle.fluid.layers.relu", "paddle.nn.functional.relu")
    texts = [str(w.message) for w in caught if issubclass(w.category, LegacyApiWarning)]
    assert len(texts) == 2
    assert "paddle.fluid.layers.fc" in texts[0] and "paddle.static.nn.fc" in texts[0]
    assert "paddle.nn.functional.relu" in texts[1]


def test_the_category_is_a_deprecation_warning_made_visible():
    assert issubclass(LegacyApiWarning, DeprecationWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("ignore", DeprecationWarning)  # Python's default outside __main__
        messages.make_visible()
        messages.legacy_api_used("paddle.fluid.layers.fc", "paddle.static.nn.fc")
    assert [w.category for w in caught] == [LegacyApiWarning]


def test_the_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages.legacy_api_used("paddle.fluid.layers.fc", "paddle.static.nn.fc")
    assert caught[0].filename == __file__


@pytest.mark.parametrize("value", ["off", "0", "ignore"])
def test_the_environment_variable_silences(monkeypatch, value):
    monkeypatch.setenv(messages.ENV_VAR, value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages.legacy_api_used("paddle.fluid.layers.fc", "paddle.static.nn.fc")
    assert caught == []


def test_strict_mode_raises_on_every_use(monkeypatch):
    monkeypatch.setenv(messages.ENV_VAR, "error")
    for _ in range(2):
        with pytest.raises(LegacyApiError, match="paddle.static.nn.fc"):
            messages.legacy_api_used("paddle.fluid.layers.fc", "paddle.static.nn.fc")


def test_install_argument_overrides_the_environment(monkeypatch):
    monkeypatch.setenv(messages.ENV_VAR, "off")
    messages.set_policy("error")
    with pytest.raises(LegacyApiError):
        messages.legacy_api_used("paddle.fluid.layers.fc", "paddle.static.nn.fc")
    with pytest.raises(ValueError):
        messages.set_policy("loud")


def test_no_equivalent_error_says_so_and_what_to_use():
    error = messages.no_equivalent("paddle.fluid.layers.lod_reset", "LoD tensors are gone in 2.x",
                                        "padded tensors with explicit lengths")
    assert isinstance(error, NoEquivalentError)
    assert "no Paddle 2.x equivalent" in str(error)
    assert "padded tensors with explicit lengths" in str(error)


SCRIPT = """
import warnings, runtime_shim
runtime_shim.install()
import paddle.fluid as fluid
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("default")
    for _ in range(3):
        fluid.layers.data(name="x%d" % _, shape=[3])
legacy = [w for w in caught if issubclass(w.category, runtime_shim.LegacyApiWarning)]
print("count:", len(legacy))
print("names:", " ".join(sorted({str(w.message).split()[0] for w in legacy})))
"""


@pytest.mark.paddle
def test_served_api_warns_once_in_a_real_process(tmp_path):
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=str(tmp_path),
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "count: 1" in result.stdout
    assert "names: paddle.fluid.layers.data" in result.stdout


@pytest.mark.paddle
def test_api_without_equivalent_raises_when_called():
    import runtime_shim
    from api_mapping import load_table

    removed = [e for e in load_table().entries.values()
               if e.no_equivalent is not None and e.kind == "function"]
    assert removed, "the table lists APIs without a 2.x equivalent"
    with runtime_shim.installed(warnings="off"):
        from runtime_shim import resolve

        for entry in removed:
            served = resolve.default_resolver().resolve(entry.name)
            if resolve.is_stand_in(served):
                with pytest.raises(NoEquivalentError, match=r"Use instead"):
                    served()
                return
    pytest.fail("no API without equivalent was served as an erroring stand-in")
