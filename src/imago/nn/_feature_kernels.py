"""Numba kernels behind :mod:`imago.nn.features`: one pass over a batch, writing planes in place.

Each writes planes ``first ...`` of the feature set's whole output, flattened to
``(batch, planes, size * size)``. The feature set makes that array C-contiguous, so every plane
a kernel writes is one run of memory, which numba vectorises (a plane-slice view of it, as the
kernels took before, has unknown strides and is written a point at a time: 2.5x slower for the
stone planes at 1,024 9x9 boards).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.games.go import fastpath as gf


@njit(cache=True)
def fill_stone_history(
    boards: np.ndarray,
    newest: np.ndarray,
    to_play: np.ndarray,
    out: np.ndarray,
    first: int,
    depth: int,
) -> None:
    """``out[b, first + 2k]`` / ``out[b, first + 2k + 1]`` for ``k < depth``: where the board
    ``k`` moves ago, ``boards[b, (newest[b] + k) % history]`` (``boards`` is ``(batch, history,
    points)``; ``newest`` empty: ``boards[b, k]``, newest first), holds the stones of the player
    to move in ``b`` / of the opponent."""
    n = out.shape[0]
    history = boards.shape[1]
    points = boards.shape[2]
    ring = newest.shape[0] > 0
    for b in range(n):
        own = to_play[b]
        opponent = 3 - own
        for k in range(depth):
            board = boards[b, (newest[b] + k) % history if ring else k]
            mine = out[b, first + 2 * k]
            theirs = out[b, first + 2 * k + 1]
            for p in range(points):
                value = board[p]
                mine[p] = value == own
                theirs[p] = value == opponent


@njit(cache=True)
def fill_legal(legal: np.ndarray, out: np.ndarray, first: int) -> None:
    """``out[b, first]``: the legal points of ``legal[b]`` (a mask with pass last) as a
    board."""
    n, _, points = out.shape
    for b in range(n):
        plane = out[b, first]
        mask = legal[b]
        for p in range(points):
            plane[p] = mask[p]


@njit(cache=True)
def fill_colour(to_play: np.ndarray, colour: int, out: np.ndarray, first: int, count: int) -> None:
    """``out[b, first : first + count]``: every point 1 where ``to_play[b] == colour``, else 0
    (compared here: numpy compares an array with an ``IntEnum`` member through a slow path,
    5 us where the whole observation takes 25)."""
    n, _, points = out.shape
    for b in range(n):
        value = to_play[b] == colour
        for k in range(first, first + count):
            plane = out[b, k]
            for p in range(points):
                plane[p] = value


@njit(cache=True)
def fill_liberties(
    boards: np.ndarray, newest: np.ndarray, size: int, out: np.ndarray, first: int
) -> None:
    """``out[b, first + k]`` for ``k < 3``: the stones of either colour on the current board of
    ``b`` (``boards`` and ``newest`` as for :func:`fill_stone_history`) whose group has exactly
    ``k + 1`` liberties, as the Go rules count them (:func:`imago.games.go.fastpath.liberties`)."""
    n = out.shape[0]
    history = boards.shape[1]
    points = size * size
    ring = newest.shape[0] > 0
    counts = np.empty(points, dtype=np.int64)
    for b in range(n):
        gf.liberties(boards[b, newest[b] % history if ring else 0], size, counts)
        for k in range(3):
            plane = out[b, first + k]
            for p in range(points):
                plane[p] = counts[p] == k + 1
