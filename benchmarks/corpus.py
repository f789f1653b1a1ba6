"""A corpus on disk: its Python files, their text, which of them use paddle, and fresh copies of it."""
from __future__ import annotations

import ast
import io
import os
import re
import shutil
import tokenize
import warnings
from pathlib import Path
from typing import List

# For files CPython cannot parse (Python 2): an import statement whose module is paddle or under it.
_PADDLE_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+paddle(?:\.|[ \t])|import[ \t]+paddle\b)", re.MULTILINE)


def python_files(root: Path) -> List[str]:
    """Paths (relative, '/'-separated, sorted) of the `.py` files under root, hidden folders skipped."""
    found: List[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        rel_dir = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            if name.endswith(".py") and not name.startswith("."):
                found.append(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
    return found


def decode_source(data: bytes) -> str:
    """Source bytes as text the way CPython reads them (BOM, PEP 263 cookie); undecodable bytes replaced."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        return data.decode(encoding, "replace")
    except LookupError:
        return data.decode("utf-8", "replace")


def parse(text: str) -> ast.Module:
    """`ast.parse` without the warnings (invalid escapes) that old code is full of; raises SyntaxError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, pathological nesting
            raise SyntaxError(str(exc)) from None


def uses_paddle(text: str) -> bool:
    """True when the file imports paddle or a module under it (anywhere, not only at the top)."""
    try:
        tree = parse(text)
    except SyntaxError:
        return _PADDLE_IMPORT.search(text) is not None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "paddle" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "paddle":
            return True
    return False


def fresh_copy(src: Path, dst: Path, normalise_crlf: bool = False) -> List[str]:
    """Copy the tree src to dst (replacing dst). With normalise_crlf, CRLF becomes LF in the copy's
    `.py` files (the reference tool aborts on them). Returns the files that were normalised."""
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    normalised: List[str] = []
    if normalise_crlf:
        for rel in python_files(dst):
            path = dst / rel
            if path.is_symlink():
                continue
            data = path.read_bytes()
            if b"\r\n" in data:
                path.write_bytes(data.replace(b"\r\n", b"\n"))
                normalised.append(rel)
    return normalised
