"""Numba kernels behind :mod:`imago.nn.features`: one pass over a batch, writing planes in place.

Both take 4-d arrays of any strides (a slice of a bigger plane array is written through, never
copied).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def fill_stone_history(boards: np.ndarray, to_play: np.ndarray, out: np.ndarray) -> None:
    """``out[b, 2k]`` / ``out[b, 2k + 1]``: where ``boards[b, k]`` holds the stones of the
    player to move in ``b`` / of the opponent (``out`` has ``2 * depth`` planes)."""
    n, planes, rows, cols = out.shape
    for b in range(n):
        own = to_play[b]
        opponent = 3 - own
        for k in range(planes // 2):
            for r in range(rows):
                for c in range(cols):
                    value = boards[b, k, r, c]
                    out[b, 2 * k, r, c] = value == own
                    out[b, 2 * k + 1, r, c] = value == opponent


@njit(cache=True)
def fill_legal(legal: np.ndarray, out: np.ndarray) -> None:
    """``out[b, 0]``: the legal points of ``legal[b]`` (a mask with pass last) as a board."""
    n, _, rows, cols = out.shape
    for b in range(n):
        for r in range(rows):
            for c in range(cols):
                out[b, 0, r, c] = legal[b, r * cols + c]


@njit(cache=True)
def fill_planes(values: np.ndarray, out: np.ndarray) -> None:
    """``out[b, :]``: every point of game ``b``'s planes set to ``values[b]``."""
    n, planes, rows, cols = out.shape
    for b in range(n):
        value = values[b]
        for k in range(planes):
            for r in range(rows):
                for c in range(cols):
                    out[b, k, r, c] = value
