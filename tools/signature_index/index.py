"""One release's signature index: what the wheel's modules export, described, in the layout
`api_mapping/signatures.py` reads, written reproducibly."""
from __future__ import annotations

import ast
import gzip
import hashlib
import io
import json
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from api_mapping.signatures import INDEX_DIR
from tools.signature_index.describe import Describer
from tools.signature_index.namespaces import Namespaces
from tools.signature_index.state import EXT, MOD, ModuleState
from tools.signature_index.syntax import decorator_name, dedupe, is_public, param_list, public_path
from tools.signature_index.wheels import SourceModule, read_wheel

FORMAT = 1


def _docs_signatures(modules: Dict[str, SourceModule]) -> Dict[str, list]:
    """Signatures Paddle 3 gives C++ functions: `add_doc_and_signature(name, doc, "def ...")`."""
    out: Dict[str, list] = {}
    for name in sorted(modules):
        tree = modules[name].tree
        if tree is None:
            continue
        for stmt in tree.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and decorator_name(call.func) == "add_doc_and_signature"
                    and len(call.args) == 3):
                continue
            fname, source = call.args[0], call.args[2]
            if not (isinstance(fname, ast.Constant) and isinstance(source, ast.Constant)
                    and isinstance(fname.value, str) and isinstance(source.value, str)):
                continue
            try:
                parsed = ast.parse(source.value.strip() + ":\n    ...\n")
            except SyntaxError:
                continue
            fn = parsed.body[0] if parsed.body else None
            if isinstance(fn, ast.FunctionDef):
                out.setdefault(fname.value, param_list(fn.args, drop_first=False))
    return out


def _is_generic(params: Optional[list]) -> bool:
    return params is None or all(p[0].startswith("*") for p in params)


def build_index(wheel: Path, version: str) -> Tuple[dict, List[str]]:
    """The index of one wheel, and the list of what could not be resolved statically."""
    modules, compiled = read_wheel(wheel)
    analyzer = Namespaces(modules, compiled)
    analyzer.run()
    describer = Describer(analyzer)
    issues = sorted(analyzer.issues)
    if not analyzer.converged:
        issues.insert(0, "namespaces did not reach a fixpoint; results may be incomplete")

    extensions = {name for name in compiled if name.rsplit(".", 1)[0] in modules}
    real = sorted({name for name, src in modules.items() if not src.stub_only} | extensions)
    module_members: Dict[str, List[str]] = {}
    aliases: Dict[str, str] = {}
    wanted: List[str] = []
    for name in real:
        st = analyzer.state.get(name) or ModuleState(dynamic=True)
        if st.all is not None:
            members = dedupe(st.all)
        else:
            members = sorted(n for n, ref in st.ns.items() if is_public(n) and ref[0] != EXT)
        module_members[name] = members
        if not public_path(name):
            continue
        for member in members if st.all is not None else ():
            if member not in st.ns and f"{name}.{member}" not in modules and not st.dynamic:
                issues.append(f"{name}: '{member}' is in __all__ but not defined there")
        declared = set(st.all or ())
        for member, ref in sorted(st.ns.items()):
            if not (is_public(member) or member in declared) or ref[0] == EXT:
                continue
            path = f"{name}.{member}"
            if ref[1] == path:
                wanted.append(path)  # defined here (or the submodule itself)
            else:
                aliases[path] = ref[1]
                if ref[0] != MOD:
                    wanted.append(ref[1])

    apis: Dict[str, dict] = {}
    done: Set[str] = set()
    while wanted:
        path = wanted.pop()
        if path in done or path in modules:
            continue
        done.add(path)
        entry, refs = describer.describe(path)
        apis[path] = entry
        wanted.extend(refs)

    dynamic = sorted(name for name in real if name in compiled or analyzer.state[name].dynamic)
    # Paddle 3 declares the Python signature of C++ functions such as `paddle.tanh` in
    # `paddle/_paddle_docs.py`; that declaration beats the generated stubs of the compiled module.
    for fname, params in sorted(_docs_signatures(modules).items()):
        target = aliases.get(f"paddle.{fname}", f"paddle.{fname}")
        entry = apis.get(target)
        if entry is None or entry["kind"] not in ("function", "unknown"):
            continue
        if target.rsplit(".", 1)[0] in dynamic or _is_generic(entry.get("params")):
            entry["kind"] = "function"
            entry["params"] = params

    # Aliases whose target is a module path that exists are module aliases; drop chains to nowhere.
    aliases = {k: v for k, v in aliases.items() if v in apis or v in modules}
    issues = sorted(set(issues))
    index = {
        "format": FORMAT,
        "version": version,
        "wheel": wheel.name,
        "sha256": _sha256(wheel),
        "apis": apis,
        "modules": {name: module_members[name] for name in real},
        "aliases": aliases,
        "dynamic": dynamic,
    }
    return index, issues


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def index_bytes(index: dict) -> bytes:
    """Deterministic gzip of the index: sorted keys, compact separators, mtime 0, no file name."""
    raw = json.dumps(index, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    return buf.getvalue()


def index_path(version: str, out_dir: Path = INDEX_DIR) -> Path:
    return out_dir / f"paddle-{version}.json.gz"
