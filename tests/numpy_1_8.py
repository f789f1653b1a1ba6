"""NumPy readings of 1.8 operators, shared by the upgrader's target tests and the shim's adapter tests."""
from __future__ import annotations

from typing import Tuple

import numpy as np


def adaptive_pool2d(x: np.ndarray, out_h: int, out_w: int, kind: str) -> Tuple[np.ndarray, np.ndarray]:
    """1.8's adaptive 2-D pooling (layers/nn.py:3651): bin i spans [floor(i * H / out), ceil((i + 1) * H / out));
    the mask is the flat index h * W + w of the maximum in its input plane."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, out_h, out_w), x.dtype)
    mask = np.zeros((n, c, out_h, out_w), "int32")
    for i in range(out_h):
        h0, h1 = (i * h) // out_h, -((-(i + 1) * h) // out_h)
        for j in range(out_w):
            w0, w1 = (j * w) // out_w, -((-(j + 1) * w) // out_w)
            window = x[:, :, h0:h1, w0:w1].reshape(n, c, -1)
            out[:, :, i, j] = window.max(-1) if kind == "max" else window.mean(-1)
            flat = window.argmax(-1)
            mask[:, :, i, j] = (h0 + flat // (w1 - w0)) * w + w0 + flat % (w1 - w0)
    return out, mask
