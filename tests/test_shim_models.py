"""`benchmarks/corpus_probe.py` and `benchmarks/shim_models.py`: how corpus files are run, and which
failures get a cause outside our code.

The layout and cause rules are checked on tiny corpora and hand-made results, each with a near miss
that must not match; one end-to-end run probes a four-file corpus in a fresh interpreter.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import corpus_probe as probe
from file_trees import SMALL_CORPUS, write_tree

ROOT = Path(__file__).resolve().parent.parent


# -- how a file is run ------------------------------------------------------------------------------

@pytest.fixture
def rrpn_like(tmp_path):
    """A project run from its directory, whose package module loads a library relative to it."""
    corpus = tmp_path / "corpus"
    return write_tree(corpus, {
        "PaddleCV/rrpn/__init__.py": "",
        "PaddleCV/rrpn/train.py": "import models.model_builder as model_builder\nfrom config import cfg\n",
        "PaddleCV/rrpn/config.py": "cfg = {}\n",
        "PaddleCV/rrpn/models/__init__.py": "",
        "PaddleCV/rrpn/models/model_builder.py": "from config import cfg\nfrom models.ext_op.rrpn_lib import *\n",
        "PaddleCV/rrpn/models/ext_op/rrpn_lib.py": "open('models/ext_op/src/rrpn_lib.so')\n",
        "PaddleCV/rrpn/models/ext_op/src/rrpn_op.cc": "// the operator's C++ source\n",
        "PaddleCV/other/models/util.py": "x = 1\n",
    })


def test_import_names_follow_the_projects_own_imports(rrpn_like):
    names = probe.import_names(rrpn_like)
    project = rrpn_like / "PaddleCV/rrpn"
    assert names[(project / "models/model_builder.py").resolve()] == ("models.model_builder", project)
    assert names[(project / "models/ext_op/rrpn_lib.py").resolve()] == ("models.ext_op.rrpn_lib", project)
    # Nothing imports `other/models/util.py` as `models.util`: no name is made up for it.
    assert (rrpn_like / "PaddleCV/other/models/util.py").resolve() not in names


def test_layout_runs_a_script_from_its_directory_and_a_module_from_its_project(rrpn_like):
    names = probe.import_names(rrpn_like)
    project = rrpn_like / "PaddleCV/rrpn"
    library = project / "models/ext_op/rrpn_lib.py"
    strict = probe.layout(library, rrpn_like, True, names)
    assert strict == {"cwd": str(library.parent), "path": [str(library.parent)], "module": None}
    plan = probe.layout(library, rrpn_like, False, names)
    assert plan["module"] == "models.ext_op.rrpn_lib"
    assert plan["cwd"] == str(project)
    assert plan["path"][:2] == [str(project), str(library.parent)]
    assert str(project / "models") in plan["path"]
    script = probe.layout(project / "train.py", rrpn_like, False, names)
    # A script that nothing imports: its package name (rrpn has an __init__.py) for its imports, but it
    # runs from its own directory, as `python train.py` does.
    assert script["module"] == "rrpn.train" and script["cwd"] == str(project)
    assert script["path"][:2] == [str(rrpn_like / "PaddleCV"), str(project)]


def test_package_name_needs_init_files(rrpn_like):
    module, top = probe.package_name(rrpn_like / "PaddleCV/rrpn/models/model_builder.py")
    assert (module, top) == ("rrpn.models.model_builder", rrpn_like / "PaddleCV")
    assert probe.package_name(rrpn_like / "PaddleCV/other/models/util.py") == (None, rrpn_like / "PaddleCV/other/models")


def test_imported_names_reads_the_forms_of_import():
    text = ("import a.b.c as abc, d\nfrom e.f import (g, h as i)\nfrom . import j\nfrom .k import l\n"
            "    import m.n  # indented\n")
    assert set(probe._imported_names(text)) == {"a.b.c", "d", "e.f", "e.f.g", "e.f.h", "m.n"}


# -- causes outside any shim ------------------------------------------------------------------------

def error(kind: str, message: str, **extra) -> dict:
    result = {"status": "error", "type": kind, "message": message, "mro": [f"builtins.{kind}"], "cuda": False}
    result.update(extra)
    return result


def library_error(corpus: Path, relative: str) -> dict:
    path = corpus / relative
    return error("EnforceNotMet",
                 f"(PreconditionNotMet) The third-party dynamic library ({path}) that Paddle depends on is not "
                 f"configured correctly. (error code is {path}: cannot open shared object file: No such file "
                 "or directory)",
                 mro=["paddle.fluid.core.EnforceNotMet", "builtins.RuntimeError"],
                 filename=str(path), filename_abs=str(path))


def test_missing_library_built_from_the_repositorys_sources_needs_a_native_build(rrpn_like):
    result = library_error(rrpn_like, "PaddleCV/rrpn/models/ext_op/src/rrpn_lib.so")
    assert probe.environment_cause(result, rrpn_like) == probe.NATIVE_BUILD


def test_missing_library_without_sources_has_no_cause(rrpn_like):
    # A .py-only copy: the library is missing, but nothing shows the repository builds it.
    shutil.rmtree(rrpn_like / "PaddleCV/rrpn/models/ext_op/src")
    result = library_error(rrpn_like, "PaddleCV/rrpn/models/ext_op/src/rrpn_lib.so")
    assert probe.environment_cause(result, rrpn_like) is None


def test_gpu_place_on_a_cpu_build_needs_a_gpu(tmp_path):
    result = error("ValueError", "(InvalidArgument) use wrong place, Please check.",
                   line="place = fluid.CUDAPlace(int(os.getenv('FLAGS_selected_gpus', '0')))")
    assert probe.environment_cause(result, tmp_path) == probe.GPU
    assert probe.environment_cause(dict(result, cuda=True), tmp_path) is None  # a GPU build: not the cause
    assert probe.environment_cause(dict(result, line="x = fluid.CPUPlace()"), tmp_path) is None


def test_gpu_id_on_a_cpu_build_needs_a_gpu(tmp_path):
    result = error("AttributeError", "'ParallelEnv' object has no attribute '_device_id'",
                   line="return self._device_id")  # the last frame is Paddle's (ParallelEnv.dev_id)
    assert probe.environment_cause(result, tmp_path) == probe.GPU
    assert probe.environment_cause(dict(result, cuda=True), tmp_path) is None
    other = error("AttributeError", "'ParallelEnv' object has no attribute 'nranks_'", line="return self.nranks_")
    assert probe.environment_cause(other, tmp_path) is None


def test_check_cuda_exit_needs_a_gpu(tmp_path):
    result = error("SystemExit", "1", function="check_cuda", line="sys.exit(1)")
    assert probe.environment_cause(result, tmp_path) == probe.GPU
    assert probe.environment_cause(dict(result, function="main"), tmp_path) is None


def test_connection_failures_need_the_network(tmp_path):
    result = error("ConnectionError", "HTTPSConnectionPool(host='example.org', port=443): Max retries exceeded",
                   mro=["requests.exceptions.ConnectionError", "requests.exceptions.RequestException",
                        "builtins.OSError"])
    assert probe.environment_cause(result, tmp_path) == probe.NETWORK
    assert probe.environment_cause(dict(result, mro=["builtins.OSError"]), tmp_path) is None


def test_removed_numpy_and_pyyaml_behaviour_is_a_newer_third_party_library(tmp_path):
    numpy2 = error("TypeError", "only 0-dimensional arrays can be converted to Python scalars")
    assert probe.environment_cause(numpy2, tmp_path) == probe.THIRD_PARTY
    pyyaml6 = error("TypeError", "load() missing 1 required positional argument: 'Loader'", line="args = yaml.load(f)")
    assert probe.environment_cause(pyyaml6, tmp_path) == probe.THIRD_PARTY
    other = error("TypeError", "load() missing 1 required positional argument: 'Loader'", line="x = pickle.load(f)")
    assert probe.environment_cause(other, tmp_path) is None


def test_same_failure_compares_type_and_first_line():
    shim = {"status": "missing", "module": "models.fast_imagenet"}
    assert probe.same_failure(shim, {"status": "missing", "module": "models.fast_imagenet"})
    assert not probe.same_failure(shim, {"status": "missing", "module": "models"})
    assert not probe.same_failure({"status": "ok"}, {"status": "ok"})
    assert probe.same_failure(error("KeyError", "'x'\nmore"), error("KeyError", "'x'"))
    assert not probe.same_failure(error("KeyError", "'x'"), error("ValueError", "'x'"))


def test_summary_reports_both_figures(tmp_path):
    corpus = write_tree(tmp_path, {"a.py": "", "b.py": "", "c.py": "", "d.py": "", "e.py": ""})
    results = {
        corpus / "a.py": {"status": "ok"},
        corpus / "b.py": {"status": "ok"},
        corpus / "c.py": {"status": "missing", "module": "cv2"},
        corpus / "d.py": error("SystemExit", "1", function="check_cuda"),
        corpus / "e.py": error("KeyError", "'x'"),
    }
    summary = probe.summarise(corpus, results)
    assert (summary["ok"], summary["failed"], summary["skipped_third_party"]) == (2, 2, 1)
    assert summary["share_ok"] == pytest.approx(2 / 4)
    assert summary["environment_causes"] == [(probe.GPU, 1)]
    assert summary["share_ok_excluding_environment"] == pytest.approx(2 / 3)


# -- the repository's full tree ---------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_export_tree_writes_files_and_symbolic_links(tmp_path):
    repo = tmp_path / "repo"
    write_tree(repo, {"PointNet++/ext_op/lib.py": "x = 1\n", "conf/args.yaml": "a: 1\n"})
    (repo / "PointRCNN").mkdir()
    os.symlink("../PointNet++/ext_op", repo / "PointRCNN/ext_op")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q", "-b", "main"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "tree"], check=True)
    out = tmp_path / "out"
    out.mkdir()
    commit, absent = probe.export_tree(repo / ".git", "main", out)
    assert len(commit) == 40 and absent == []
    assert (out / "PointRCNN/ext_op").is_symlink()
    assert (out / "PointRCNN/ext_op/lib.py").read_text() == "x = 1\n"
    assert (out / "conf/args.yaml").read_text() == "a: 1\n"


# -- end to end -------------------------------------------------------------------------------------

@pytest.mark.paddle
@pytest.mark.slow
def test_probe_a_small_corpus(tmp_path):
    pytest.importorskip("paddle")
    corpus = write_tree(tmp_path / "corpus", SMALL_CORPUS)
    out = tmp_path / "summary.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/shim_models.py"), str(corpus), "--jobs", "2",
                           "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    # models/net.py reads conf/ relative to proj/: it runs when run as `models.net` from proj/.
    assert summary["ok"] == 2, summary["failures"]
    assert summary["skipped_third_party"] == 1
    assert [f[0] for f in summary["failures"]] == ["gpu/main.py"]
    assert summary["environment_causes"] == [[probe.GPU, 1]]
    assert "(a) share that runs:          66.7%  (2 / 3)" in done.stdout
    assert "100.0%  (2 / 2)" in done.stdout


def test_rebase_moves_a_layout_to_the_original_files(tmp_path):
    upgraded, original = tmp_path / "upgraded", tmp_path / "corpus"
    plan = {"cwd": str(upgraded / "proj"), "path": [str(upgraded / "proj"), str(upgraded / "proj/models"), "/usr/lib"],
            "module": "models.net"}
    assert probe.rebase(plan, upgraded, original) == {
        "cwd": str(original / "proj"), "path": [str(original / "proj"), str(original / "proj/models"), "/usr/lib"],
        "module": "models.net"}


def test_selected_files_are_the_fluid_importers_narrowed_by_only(tmp_path):
    corpus = write_tree(tmp_path, {"a.py": "import paddle.fluid as fluid\n", "b.py": "from paddle import fluid\n",
                                   "c.py": "import paddle\n", ".hidden/d.py": "import paddle.fluid\n"})
    assert probe.selected_files(corpus, None) == [corpus / "a.py", corpus / "b.py"]
    assert probe.selected_files(corpus, ["b.py"]) == [corpus / "b.py"]
