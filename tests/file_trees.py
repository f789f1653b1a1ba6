"""Small file trees for tests of code that walks folders (benchmarks, fixture discovery)."""
from __future__ import annotations

from pathlib import Path
from typing import Dict


def write_tree(root: Path, files: Dict[str, str]) -> Path:
    """Create each `relative path: text` under `root` (folders included); return `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


# A 1.8 project as the corpus benchmarks see one: a script that imports a module of its project, that
# module reading a file relative to the project, a file asking for a GPU, one missing a third-party module.
SMALL_CORPUS = {
    "proj/train.py": ("import paddle.fluid as fluid\nimport models.net as net\n"
                      "x = fluid.layers.fill_constant([1], 'float32', 1.0)\n"),
    "proj/models/net.py": "import paddle.fluid as fluid\nwith open('conf/args.txt') as f:\n    ARGS = f.read()\n",
    "proj/conf/args.txt": "lr=0.1\n",
    "gpu/main.py": "import paddle.fluid as fluid\nplace = fluid.CUDAPlace(0)\n",
    "viz/plot.py": "import paddle.fluid as fluid\nimport some_missing_plotting_module\n",
}
