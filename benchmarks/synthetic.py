"""A synthetic 1.x corpus, made without network: dygraph models, static programs, training loops and
plain helper modules, in the proportions and with the API mix of PaddlePaddle/models release/1.8.

    python -m benchmarks.synthetic --out DIR --files 1000 [--seed 0]

APIs are drawn from `api_mapping/usage/models-release-1.8.json` weighted by how often the real
corpus uses them; their arguments follow the 1.8.5 signatures in `api_mapping/signatures` (required
parameters, plus some optional ones with their literal defaults). Import styles vary per file
(`import paddle.fluid as fluid`, `from paddle.fluid import layers`, `import paddle.fluid.layers as L`,
`from paddle.fluid.dygraph.nn import Conv2D`, a star import). As in the real corpus, about 40% of
the files do not use paddle, 7% have CRLF newlines and a few are Python 2. File `i` depends only on
(seed, i), so the 1k corpus is the first tenth of the 10k one.
"""
from __future__ import annotations

import argparse
import ast
import json
import random
import shutil
import sys
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from api_mapping.signatures import load_index

USAGE = Path(__file__).resolve().parent.parent / "api_mapping" / "usage" / "models-release-1.8.json"
STAMP = ".synthetic.json"
FORMAT = 1

# Share of each kind of file (the rest of the real corpus: readers, utilities, scripts).
KINDS = (("dygraph_model", 0.25), ("static_program", 0.2), ("train_loop", 0.15), ("plain", 0.4))
CRLF_SHARE, PYTHON2_SHARE = 0.07, 0.004
_GUARDS = ("guard", "name_scope", "no_grad", "scope_guard", "program_guard")

_INT_PARAMS = {"size", "num_filters", "num_channels", "filter_size", "pool_size", "hidden_size", "depth",
               "output_dim", "input_dim", "k", "batch_size", "num_classes", "new_dim", "beam_size", "seg_num",
               "groups", "end_id", "max_len", "num_layers", "proj_size", "i", "n", "decay_steps", "warmup_steps",
               "d_model", "buf_size", "capacity", "num_or_sections", "blank", "step_each_epoch", "epochs"}
_LIST_PARAMS = {"shape": "[-1, 3, 32, 32]", "perm": "[0, 2, 1]", "axes": "[1]", "starts": "[0]", "ends": "[2]",
                "expand_times": "[1, 2]", "boundaries": "[100, 200]", "values": "[0.1, 0.01, 0.001]",
                "normalized_shape": "[64]", "min_sizes": "[32.0]", "shapes": "[[-1, 8]]", "dtypes": "['float32']"}
_SCALAR_PARAMS = {"dtype": "'float32'", "name": "'{name}'", "learning_rate": "0.001", "dropout_prob": "0.5",
                  "momentum": "0.9", "decay_rate": "0.5", "model_path": "'checkpoints/model'",
                  "dirname": "'output'", "pool_type": "'max'", "min": "-1.0", "max": "1.0", "clip_norm": "5.0",
                  "min_version": "'1.8.0'", "key": "'tmp'", "axis": "1", "state": "'All'", "start_lr": "0.0",
                  "end_lr": "0.001", "pad_value": "t0", "place": "place", "executor": "exe", "exe": "exe",
                  "program": "main_prog", "main_program": "main_prog", "program_or_graph": "main_prog",
                  "state_dict": "model.state_dict()", "use_cuda": "False", "reader": "reader",
                  "batch_reader": "reader", "start": "0", "end": "10", "step": "1", "score_threshold": "0.01",
                  "nms_top_k": "400", "keep_top_k": "200", "average_window_rate": "0.15", "func": "len"}


@lru_cache(maxsize=None)
def _pools() -> Dict[str, Tuple[List[str], List[int]]]:
    """APIs of the real corpus with their use counts, callable with known 1.8.5 parameters:
    "functions", "layers" (dygraph layer classes) and "objects" (other classes)."""
    index = load_index("1.8.5")
    names = json.loads(USAGE.read_text("utf-8"))["names"]
    pools: Dict[str, Tuple[List[str], List[int]]] = {"functions": ([], []), "layers": ([], []), "objects": ([], [])}
    for name, count in names.items():
        sig = index.get(name)
        if sig is None or sig.params is None or name.rsplit(".", 1)[-1].endswith(_GUARDS) or name.endswith(".Layer"):
            continue
        if sig.kind in ("function", "method"):
            pool = pools["functions"]
        elif sig.kind == "class":
            pool = pools["layers" if ".dygraph." in name else "objects"]
        else:
            continue
        pool[0].append(name)
        pool[1].append(count)
    return pools


class _File:
    """One generated module: its imports, and how an API name is spelled under them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.bindings: Dict[str, str] = {"fluid": "paddle.fluid"}  # local name -> qualified prefix
        self.imports = ["import paddle.fluid as fluid"]
        self.from_imports: Dict[str, List[str]] = {}  # module -> names imported from it
        self.bare: Dict[str, str] = {}  # bare name -> qualified name
        self.star: Optional[str] = None
        style = rng.random()
        if style < 0.25:
            self.imports.append("from paddle.fluid import layers")
            self.bindings["layers"] = "paddle.fluid.layers"
        elif style < 0.4:
            self.imports.append("import paddle.fluid.layers as L")
            self.bindings["L"] = "paddle.fluid.layers"
        elif style < 0.45:
            self.star = "paddle.fluid.layers"
        if rng.random() < 0.3:
            self.from_imports["paddle.fluid.dygraph.nn"] = []
        if rng.random() < 0.2:
            self.from_imports["paddle.fluid.param_attr"] = []
        if rng.random() < 0.3:
            self.imports.insert(0, "import paddle")
        self.counter = 0

    def spell(self, name: str) -> str:
        module, attr = name.rsplit(".", 1)
        star_bound = self.star is not None and attr in _star_members(self.star)
        if module in self.from_imports and self.bare.get(attr, name) == name and not star_bound:
            if attr not in self.bare:
                self.from_imports[module].append(attr)
                self.bare[attr] = name
            return attr
        if self.star == module and star_bound and self.bare.get(attr, name) == name:
            self.bare[attr] = name
            return attr
        best = max((q for q in self.bindings.values() if name.startswith(q + ".")), key=len)
        local = next(k for k, v in self.bindings.items() if v == best)
        return local + name[len(best):]

    def fresh(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def call(self, name: str, tensors: Sequence[str]) -> str:
        """`spelled(args)` following the 1.8.5 signature of name."""
        params = load_index("1.8.5").params(name) or []
        args: List[str] = []
        positional = self.rng.random() < 0.5
        for spec in params:
            pname = spec[0]
            if pname.startswith("*") or pname in ("/", "self"):
                if pname == "*":
                    positional = False
                continue
            if len(spec) == 1:
                value = self._value(pname, tensors)
            elif self.rng.random() < 0.25 and _literal(spec[1]):
                value = self._optional(pname, spec[1])
            else:
                positional = False  # skipping a parameter ends the positional run
                continue
            args.append(value if positional else f"{pname}={value}")
            positional = positional and self.rng.random() < 0.7
        return f"{self.spell(name)}({', '.join(args)})"

    def _value(self, pname: str, tensors: Sequence[str]) -> str:
        if pname in _INT_PARAMS:
            return str(self.rng.choice((1, 2, 3, 8, 16, 32, 64, 128)))
        if pname in _LIST_PARAMS:
            return _LIST_PARAMS[pname]
        if pname in _SCALAR_PARAMS:
            return _SCALAR_PARAMS[pname].format(name=self.fresh("var_"))
        return self.rng.choice(tensors) if tensors else "t0"

    def _optional(self, pname: str, default: str) -> str:
        if pname == "act":
            return self.rng.choice(("'relu'", "'sigmoid'", "'tanh'", "None"))
        if pname in ("param_attr", "bias_attr") and self.rng.random() < 0.5:
            return f"{self.spell('paddle.fluid.ParamAttr')}(name='{self.fresh('w_')}')"
        return default

    def header(self) -> str:
        lines = list(self.imports)
        for module, names in self.from_imports.items():
            if names:
                lines.append(f"from {module} import {', '.join(names)}")
        if self.star:
            lines.append(f"from {self.star} import *")
        return "\n".join(lines)


@lru_cache(maxsize=None)
def _star_members(module: str) -> frozenset:
    return frozenset(load_index("1.8.5").module_members(module))


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
        return True
    except (ValueError, SyntaxError):
        return False


LICENSE = '''#   Copyright (c) 2020 PaddlePaddle Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
'''


def _pick(rng: random.Random, pool: Tuple[List[str], List[int]], k: int) -> List[str]:
    return rng.choices(pool[0], weights=pool[1], k=k)


def _ops(f: _File, count: int, indent: str, first: str) -> Tuple[List[str], str]:
    """A chain of functional calls, each on earlier results."""
    pools = _pools()
    lines, tensors = [], [first]
    for _ in range(count):
        if f.rng.random() < 0.15:  # a helper object (initializer, regularizer, executor, ...)
            name = _pick(f.rng, pools["objects"], 1)[0]
            lines.append(f"{indent}{f.fresh('obj')} = {f.call(name, tensors[-3:])}")
            continue
        name = _pick(f.rng, pools["functions"], 1)[0]
        out = f.fresh()
        lines.append(f"{indent}{out} = {f.call(name, tensors[-3:])}")
        tensors.append(out)
    return lines, tensors[-1]


def _dygraph_model(f: _File, i: int) -> List[str]:
    rng = f.rng
    body = [f"class Net{i}({f.spell('paddle.fluid.dygraph.Layer')}):",
            f'    """Model {i}: {rng.randint(2, 9)} sub-layers."""', "",
            "    def __init__(self, num_classes=10):",
            f"        super(Net{i}, self).__init__()"]
    layers = []
    for name in _pick(rng, _pools()["layers"], rng.randint(2, 8)):
        attr = f.fresh("_layer")
        body.append(f"        self.{attr} = {f.call(name, ['num_classes'])}")
        layers.append(attr)
    body += ["", "    def forward(self, inputs, label=None):"]
    ops, last = _ops(f, rng.randint(4, 24), "        ", "inputs")
    body += ops
    for attr in layers[: rng.randint(0, 2)]:
        body.append(f"        {last} = self.{attr}({last})")
    body += ["        if label is not None:", f"            return {last}, label", f"        return {last}", ""]
    return body


def _static_program(f: _File, i: int) -> List[str]:
    rng = f.rng
    body = [f"def build_program_{i}(is_train=True):",
            f"    main_prog = {f.spell('paddle.fluid.Program')}()",
            f"    startup_prog = {f.spell('paddle.fluid.Program')}()",
            f"    with {f.spell('paddle.fluid.program_guard')}(main_prog, startup_prog):",
            f"        t0 = {f.spell('paddle.fluid.data')}(name='image', shape=[-1, 3, 32, 32], dtype='float32')",
            f"        label = {f.spell('paddle.fluid.data')}(name='label', shape=[-1, 1], dtype='int64')"]
    ops, last = _ops(f, rng.randint(6, 30), "        ", "t0")
    body += ops
    body += [f"        loss = {f.spell('paddle.fluid.layers.mean')}({last})",
             "        if is_train:",
             f"            opt = {f.spell('paddle.fluid.optimizer.Adam')}(learning_rate=0.001)",
             "            opt.minimize(loss)",
             "    return main_prog, startup_prog, loss", "", "",
             f"def run_{i}(use_cuda=False):",
             f"    place = {f.spell('paddle.fluid.CUDAPlace')}(0) if use_cuda else {f.spell('paddle.fluid.CPUPlace')}()",
             f"    exe = {f.spell('paddle.fluid.Executor')}(place)",
             f"    main_prog, startup_prog, loss = build_program_{i}()",
             "    exe.run(startup_prog)",
             "    for step in range(10):",
             "        out = exe.run(main_prog, feed={'image': np.zeros([4, 3, 32, 32], 'float32'),",
             "                                       'label': np.zeros([4, 1], 'int64')}, fetch_list=[loss])",
             "        print('step %d loss %f' % (step, out[0]))", ""]
    return body


def _train_loop(f: _File, i: int) -> List[str]:
    rng = f.rng
    body = [f"def train_{i}(model, reader, epochs={rng.randint(1, 30)}):",
            f"    place = {f.spell('paddle.fluid.CPUPlace')}()",
            f"    with {f.spell('paddle.fluid.dygraph.guard')}(place):",
            f"        opt = {f.spell('paddle.fluid.optimizer.Adam')}(learning_rate=0.001, "
            "parameter_list=model.parameters())",
            "        for epoch in range(epochs):",
            "            for batch_id, (img, lbl) in enumerate(reader()):",
            f"                img = {f.spell('paddle.fluid.dygraph.to_variable')}(img)",
            f"                lbl = {f.spell('paddle.fluid.dygraph.to_variable')}(lbl)",
            "                t0 = model(img)"]
    ops, last = _ops(f, rng.randint(2, 8), "                ", "t0")
    body += ops
    body += [f"                loss = {f.spell('paddle.fluid.layers.mean')}({last})",
             "                loss.backward()",
             "                opt.minimize(loss)",
             "                model.clear_gradients()",
             "                if batch_id % 100 == 0:",
             "                    print('epoch %d batch %d loss %s' % (epoch, batch_id, loss.numpy()))",
             f"        {f.spell('paddle.fluid.save_dygraph')}(model.state_dict(), 'checkpoints/model_{i}')", ""]
    return body


def _plain(rng: random.Random, i: int) -> List[str]:
    lines = ["import os", "import random", "import numpy as np", "", ""]
    for k in range(rng.randint(2, 10)):
        lines += [f"def reader_{i}_{k}(path, batch_size={rng.choice((16, 32, 64))}, shuffle=True):",
                  f'    """Yield batches of samples read from {{path}} (generated helper {k})."""',
                  "    files = sorted(os.listdir(path))",
                  "    if shuffle:", "        random.shuffle(files)",
                  "    batch = []", "    for name in files:",
                  f"        sample = np.random.rand({rng.randint(1, 64)}).astype('float32')",
                  "        batch.append((sample, len(name) % 10))",
                  "        if len(batch) == batch_size:", "            yield batch", "            batch = []",
                  "    if batch:", "        yield batch", "", ""]
    return lines


def render(i: int, seed: int) -> Tuple[str, str]:
    """(relative path, text) of file i of the corpus with this seed."""
    rng = random.Random(seed * 1_000_003 + i)
    kind = rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS])[0]
    rel = f"pkg{i // 100:03d}/{kind}_{i:05d}.py"
    if kind == "plain":
        text = LICENSE + "\n".join(_plain(rng, i))
    else:
        f = _File(rng)
        parts: List[str] = []
        for j in range(rng.randint(1, 6)):
            if kind == "dygraph_model":
                parts += _dygraph_model(f, i * 10 + j)
            elif kind == "static_program":
                parts += _static_program(f, i * 10 + j)
            else:
                parts += _train_loop(f, i * 10 + j)
            parts.append("")
        main = ["if __name__ == '__main__':", f"    print('{kind} {i}')"]
        future = ["from __future__ import print_function", ""]
        if rng.random() < PYTHON2_SHARE:  # Python 2, as a few files of the real corpus are
            main.append(f"    print '{kind} {i} done'")
            future = []
        text = "\n".join([LICENSE, *future, "import numpy as np", f.header(), "", "", *parts, *main]) + "\n"
    if rng.random() < CRLF_SHARE:
        text = text.replace("\n", "\r\n")
    return rel, text


def generate(out: Path, files: int, seed: int = 0) -> Path:
    """Write the corpus into out (replaced); returns out."""
    tmp = out.with_name(out.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    for i in range(files):
        rel, text = render(i, seed)
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    (tmp / STAMP).write_text(json.dumps({"format": FORMAT, "files": files, "seed": seed}), "utf-8")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out


def ensure(out: Path, files: int, seed: int = 0) -> Path:
    """The corpus at out, generated unless it is already there with the same parameters."""
    try:
        stamp = json.loads((out / STAMP).read_text("utf-8"))
        if stamp == {"format": FORMAT, "files": files, "seed": seed}:
            return out
    except (OSError, ValueError):
        pass
    print(f"generating {files} synthetic files into {out}", file=sys.stderr, flush=True)
    return generate(out, files, seed)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.synthetic", description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    generate(args.out, args.files, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
