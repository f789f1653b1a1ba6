"""The Paddle wheels the indexes are read from: which release comes from where, getting it with pip,
and parsing its Python sources (never importing them)."""
from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence, Set, Tuple

DEFAULT_WHEEL_DIR = Path("build") / "wheels"

_PIP_LEGACY = ("--python-version", "3.8", "--only-binary=:all:", "--platform", "manylinux1_x86_64")


@dataclass(frozen=True)
class WheelSpec:
    """Where one Paddle version comes from: a PyPI project and extra `pip download` arguments."""

    version: str
    project: str
    pip_args: Tuple[str, ...] = ()

    @property
    def requirement(self) -> str:
        return f"{self.project}=={self.version}"

    @property
    def file_prefix(self) -> str:
        # Wheel file names spell the project with underscores (PEP 427).
        return f"{self.project.replace('-', '_')}-{self.version}-"


WHEELS: Dict[str, WheelSpec] = {
    "1.8.5": WheelSpec("1.8.5", "paddlepaddle", _PIP_LEGACY),
    # The CPU wheel paddlepaddle==2.0.2 has been deleted from PyPI; the GPU build of the same release
    # is still there and ships byte-for-byte the same Python sources (only the compiled core differs),
    # which is all this tool reads.
    "2.0.2": WheelSpec("2.0.2", "paddlepaddle-gpu", _PIP_LEGACY),
    # The current release is read for the running Python, as `pip install` would pick it.
    "3.3.1": WheelSpec("3.3.1", "paddlepaddle"),
}

# Reference kinds inside a namespace: an API defined in the wheel, a module of the wheel, a name taken
# from a compiled module (exists, nothing else known), something outside Paddle.
API, MOD, OPAQUE, EXT = "a", "m", "o", "x"

_TEST_DIRS = {"tests", "test", "unittests"}


@dataclass
class SourceModule:
    """One module of the wheel: its `.py` tree and/or its `.pyi` stub tree."""

    name: str
    is_package: bool
    tree: Optional[ast.Module] = None
    stub: Optional[ast.Module] = None

    @property
    def stub_only(self) -> bool:
        return self.tree is None


def _is_test_path(parts: Sequence[str]) -> bool:
    stem = parts[-1].split(".", 1)[0]
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    return stem == "test" or stem.startswith("test_") or "_test" in stem


def _zip_member_path(name: str) -> Optional[str]:
    """The in-package path of a zip member (`paddle/...`), also for `*.data/purelib/` layouts."""
    parts = name.split("/")
    if len(parts) > 2 and parts[0].endswith(".data") and parts[1] in ("purelib", "platlib"):
        parts = parts[2:]
    if not parts or parts[0] != "paddle":
        return None
    return "/".join(parts)


def read_wheel(path: Path) -> Tuple[Dict[str, SourceModule], Set[str]]:
    """Parse the wheel's Python sources; also return the dotted names of its compiled modules."""
    modules: Dict[str, SourceModule] = {}
    compiled: Set[str] = set()
    with zipfile.ZipFile(path) as zf:
        for member in sorted(zf.namelist()):
            rel = _zip_member_path(member)
            if rel is None:
                continue
            parts = rel.split("/")
            if rel.endswith((".so", ".pyd")):
                compiled.add(".".join(parts[:-1] + [parts[-1].split(".", 1)[0]]))
                continue
            if not rel.endswith((".py", ".pyi")) or _is_test_path(parts):
                continue
            stem, ext = parts[-1].rsplit(".", 1)
            is_package = stem == "__init__"
            dotted = ".".join(parts[:-1] if is_package else parts[:-1] + [stem])
            if not all(p.isidentifier() for p in dotted.split(".")):
                continue
            tree = ast.parse(zf.read(member), filename=member)
            mod = modules.setdefault(dotted, SourceModule(dotted, is_package))
            mod.is_package = mod.is_package or is_package
            if ext == "py":
                mod.tree = tree
            else:
                mod.stub = tree
    return modules, compiled


def find_wheel(spec: WheelSpec, wheel_dir: Path) -> Optional[Path]:
    candidates = sorted(p for p in wheel_dir.glob(f"{spec.file_prefix}*.whl"))
    return candidates[0] if candidates else None


def obtain_wheel(spec: WheelSpec, wheel_dir: Path) -> Path:
    """The wheel from `wheel_dir`, downloaded there with pip first if missing."""
    found = find_wheel(spec, wheel_dir)
    if found is not None:
        return found
    wheel_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(wheel_dir),
           *spec.pip_args, spec.requirement]
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)
    found = find_wheel(spec, wheel_dir)
    if found is None:
        raise SystemExit(f"pip did not leave a {spec.requirement} wheel in {wheel_dir}")
    return found
