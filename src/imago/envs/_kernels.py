"""Numba kernels of the vector environment."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def pick_true(mask: np.ndarray, uniform: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: the ``floor(uniform[i] * k)``-th ``True`` column of row ``i`` of ``mask``
    (``k`` its number of ``True`` columns; 0 for a row with none)."""
    rows, cols = mask.shape
    for i in range(rows):
        count = 0
        for j in range(cols):
            count += mask[i, j]
        out[i] = 0
        if count == 0:
            continue
        pick = min(int(uniform[i] * count), count - 1)
        for j in range(cols):
            if mask[i, j]:
                if pick == 0:
                    out[i] = j
                    break
                pick -= 1
