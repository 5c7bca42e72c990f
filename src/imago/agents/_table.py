# mypy: disable-error-code="no-any-return,return-value"
"""Private numba kernels: the transposition table of the alpha-beta searches.

A table of ``2**bits`` entries is ``keys uint64[n, 2]``, the position (Othello's two bitboards;
Go's Zobrist key and 0), beside ``data int64[n, 4]``: the depth searched (-1: an empty entry),
the bound (:data:`BOUND_EXACT`, :data:`BOUND_LOWER`, :data:`BOUND_UPPER`), the value and the
best move. One entry per slot, always replaced; the caller picks the slot (:func:`slot_of`
hashes two words; Go masks its Zobrist key).

The exact endgame solver keeps its own table (two bounds and the number of empties per entry,
in ``int8``, two-way buckets: see :mod:`imago.agents.othello._endgame`) on the same keys and the
same :func:`slot_of`.
"""

from __future__ import annotations

import numba
import numpy as np

BOUND_EXACT = 0
BOUND_LOWER = 1
BOUND_UPPER = 2
_HASH1 = np.uint64(0x9E3779B97F4A7C15)
_HASH2 = np.uint64(0xC2B2AE3D27D4EB4F)
_S29 = np.uint64(29)


def new_table(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of ``2**bits`` entries: ``(keys uint64[n, 2], data int64[n, 4])``."""
    n = 1 << bits
    keys = np.empty((n, 2), dtype=np.uint64)
    data = np.empty((n, 4), dtype=np.int64)
    clear_table(keys, data)
    return keys, data


def clear_table(keys: np.ndarray, data: np.ndarray) -> None:
    """Empty a table of :func:`new_table` in place."""
    keys[:] = 0
    data[:] = 0
    data[:, 0] = -1


@numba.njit(cache=True, inline="always")
def slot_of(k0: np.uint64, k1: np.uint64, mask: int) -> int:
    """The slot of the position ``(k0, k1)`` in a table of ``mask + 1`` entries."""
    h = k0 * _HASH1 ^ k1 * _HASH2
    h ^= h >> _S29
    return np.int64(h & np.uint64(mask))


@numba.njit(cache=True, inline="always")
def probe(
    k0: np.uint64,
    k1: np.uint64,
    slot: int,
    depth: int,
    alpha: int,
    beta: int,
    keys: np.ndarray,
    data: np.ndarray,
) -> tuple[int, bool, int]:
    """``(best move stored for the position or -1, whether the stored bound ends the search
    here, its value)``."""
    if keys[slot, 0] != k0 or keys[slot, 1] != k1 or data[slot, 0] < 0:
        return -1, False, 0
    value = data[slot, 2]
    if data[slot, 0] >= depth:
        bound = data[slot, 1]
        if (
            bound == BOUND_EXACT
            or (bound == BOUND_LOWER and value >= beta)
            or (bound == BOUND_UPPER and value <= alpha)
        ):
            return data[slot, 3], True, value
    return data[slot, 3], False, value


@numba.njit(cache=True, inline="always")
def store(
    k0: np.uint64,
    k1: np.uint64,
    slot: int,
    depth: int,
    best: int,
    best_move: int,
    alpha0: int,
    beta: int,
    keys: np.ndarray,
    data: np.ndarray,
) -> None:
    """Store ``best`` searched to ``depth`` in the window (``alpha0``, ``beta``) at ``slot``."""
    keys[slot, 0] = k0
    keys[slot, 1] = k1
    data[slot, 0] = depth
    data[slot, 2] = best
    data[slot, 3] = best_move
    if best >= beta:
        data[slot, 1] = BOUND_LOWER
    elif best <= alpha0:
        data[slot, 1] = BOUND_UPPER
    else:
        data[slot, 1] = BOUND_EXACT


@numba.njit(cache=True, inline="always")
def stored_move(k0: np.uint64, k1: np.uint64, slot: int, keys: np.ndarray, data: np.ndarray) -> int:
    """The best move stored for the position at ``slot``; -1 when the slot holds another."""
    if keys[slot, 0] == k0 and keys[slot, 1] == k1 and data[slot, 0] >= 0:
        return data[slot, 3]
    return -1
