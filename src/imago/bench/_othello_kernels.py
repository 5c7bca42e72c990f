"""Timing loops of ``othello.kernels``: the move generator's kernels called from numba, as the
searches call them (a call from Python would time the dispatch, not the kernel)."""

from __future__ import annotations

import numba
import numpy as np

from imago.games.othello._kernels import flips, legal


@numba.njit(cache=True)
def time_legal(movers: np.ndarray, others: np.ndarray, rounds: int) -> np.uint64:
    """The legal moves of every position, ``rounds`` times (their XOR, so none is skipped)."""
    seen = np.uint64(0)
    for _ in range(rounds):
        for i in range(movers.shape[0]):
            seen ^= legal(movers[i], others[i])
    return seen


@numba.njit(cache=True)
def time_flips(
    movers: np.ndarray, others: np.ndarray, index: np.ndarray, squares: np.ndarray, rounds: int
) -> np.uint64:
    """The flips of every legal move (``squares[k]`` in position ``index[k]``), ``rounds``
    times."""
    seen = np.uint64(0)
    for _ in range(rounds):
        for k in range(squares.shape[0]):
            i = index[k]
            seen ^= flips(movers[i], others[i], squares[k])
    return seen
