# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the Othello alpha-beta search: evaluation and negamax.

``weights`` is an ``int64`` array ``(phases, 70)``: columns 0-63 the positional mask, then
mobility, potential mobility, corners, stable discs, discs, and the phase's ``min_empties``
(see ``data/othello_weights.json``). Values are from the side to move's point of view; a won
game is worth ``WIN`` plus the disc difference, far beyond any evaluation. The mask-evaluation
kernels take the board ``size``: 8, or 6 / 4 for a board in the top-left corner (moves and
empties masked to the board, its own corners and edges; see
:data:`imago.agents._othello_kernels.GEOMETRY`).

The ``*_patterns`` kernels (8x8 only) search with the pattern evaluation of
:mod:`._othello_patterns` instead (``table`` ``int32[stages, TABLE_SIZE]``, hundredths of a
disc) and order moves by that evaluation of the children near the root, by the opponent's
mobility one level above the leaves' parents, and by a fixed square priority just above the
leaves.

``stats`` is ``int64[3]``: ``[nodes, node_limit (0 = none), aborted]``. The table is
``keys uint64[n, 2]`` (the two bitboards) and ``data int64[n, 4]``: depth, bound, value, move.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents import _othello_patterns as pat
from imago.agents._othello_kernels import (
    G_CORNERS,
    G_MASK,
    GEOMETRY,
    U0,
    U1,
    board_squares,
    edge_stable,
    final_score,
    flips,
    legal_moves,
    lowest_square,
    popcount,
    potential_mobility,
)

WIN = 1_000_000
DISC = 1000
INF = 10_000_000
W_MOBILITY = 64
W_POTENTIAL = 65
W_CORNERS = 66
W_STABLE = 67
W_DISCS = 68
W_MIN_EMPTIES = 69
BOUND_EXACT = 0
BOUND_LOWER = 1
BOUND_UPPER = 2
_HASH1 = np.uint64(0x9E3779B97F4A7C15)
_HASH2 = np.uint64(0xC2B2AE3D27D4EB4F)


def new_table(bits: int = 18) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of ``2**bits`` entries."""
    n = 1 << bits
    data = np.zeros((n, 4), dtype=np.int64)
    data[:, 0] = -1
    return np.zeros((n, 2), dtype=np.uint64), data


@numba.njit(cache=True)
def phase_of(weights: np.ndarray, empties: int) -> int:
    """The row of ``weights`` that applies with ``empties`` empty squares."""
    for k in range(weights.shape[0]):
        if empties >= weights[k, W_MIN_EMPTIES]:
            return k
    return weights.shape[0] - 1


@numba.njit(cache=True)
def evaluate(p: np.uint64, o: np.uint64, weights: np.ndarray, size: int) -> int:
    """The static evaluation for the player ``p`` to move."""
    mask = GEOMETRY[size, G_MASK]
    corners = GEOMETRY[size, G_CORNERS]
    empties = popcount(~(p | o) & mask)
    w = weights[phase_of(weights, empties)]
    score = 0
    bits = p
    while bits:
        score += w[lowest_square(bits)]
        bits &= bits - U1
    bits = o
    while bits:
        score -= w[lowest_square(bits)]
        bits &= bits - U1
    mobility = popcount(legal_moves(p, o) & mask) - popcount(legal_moves(o, p) & mask)
    score += w[W_MOBILITY] * mobility
    score += w[W_POTENTIAL] * (potential_mobility(p, o, mask) - potential_mobility(o, p, mask))
    score += w[W_CORNERS] * (popcount(p & corners) - popcount(o & corners))
    if w[W_STABLE] != 0:
        stable = popcount(edge_stable(p, o, size)) - popcount(edge_stable(o, p, size))
        score += w[W_STABLE] * stable
    score += w[W_DISCS] * (popcount(p) - popcount(o))
    return score


@numba.njit(cache=True)
def terminal_value(p: np.uint64, o: np.uint64, squares: int = 64) -> int:
    """The value of a finished game on a board of ``squares`` squares: a win or loss dwarfs
    any evaluation."""
    diff = final_score(p, o, squares)
    if diff > 0:
        return WIN + diff * DISC
    if diff < 0:
        return -WIN + diff * DISC
    return 0


@numba.njit(cache=True, inline="always")
def _slot(p: np.uint64, o: np.uint64, mask: int) -> int:
    h = p * _HASH1 ^ o * _HASH2
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(mask))


@numba.njit(cache=True, inline="always")
def _tt_probe(
    p: np.uint64,
    o: np.uint64,
    slot: int,
    depth: int,
    alpha: int,
    beta: int,
    keys: np.ndarray,
    data: np.ndarray,
) -> tuple[int, bool, int]:
    """(best move stored for this position or -1, whether the stored bound ends the search
    here, its value)."""
    if keys[slot, 0] != p or keys[slot, 1] != o or data[slot, 0] < 0:
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
def _tt_store(
    p: np.uint64,
    o: np.uint64,
    slot: int,
    depth: int,
    best: int,
    best_sq: int,
    alpha0: int,
    beta: int,
    keys: np.ndarray,
    data: np.ndarray,
) -> None:
    """Store ``best`` searched to ``depth`` in the window (``alpha0``, ``beta``) at ``slot``."""
    keys[slot, 0] = p
    keys[slot, 1] = o
    data[slot, 0] = depth
    data[slot, 2] = best
    data[slot, 3] = best_sq
    if best >= beta:
        data[slot, 1] = BOUND_LOWER
    elif best <= alpha0:
        data[slot, 1] = BOUND_UPPER
    else:
        data[slot, 1] = BOUND_EXACT


@numba.njit(cache=True)
def order_moves(
    p: np.uint64,
    o: np.uint64,
    moves: np.uint64,
    first: int,
    weights: np.ndarray,
    size: int,
    out: np.ndarray,
) -> int:
    """Write ``moves`` to ``out`` best first (``first``, then a cheap static guess); the count."""
    keys = np.empty(64, dtype=np.int64)
    mask = GEOMETRY[size, G_MASK]
    w = weights[phase_of(weights, popcount(~(p | o) & mask))]
    count = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - U1
        if sq == first:
            key = INF
        else:
            f = flips(p, o, sq)
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            key = w[sq] - w[W_MOBILITY] * popcount(legal_moves(no, np_) & mask)
            if (U1 << np.uint64(sq)) & GEOMETRY[size, G_CORNERS]:
                key += w[W_CORNERS]
        i = count
        while i > 0 and keys[i - 1] < key:
            keys[i] = keys[i - 1]
            out[i] = out[i - 1]
            i -= 1
        keys[i] = key
        out[i] = sq
        count += 1
    return count


@numba.njit(
    "int64(uint64, uint64, int64, int64, int64, int64, int64, int64[:, ::1], "
    "int64, int64[::1], uint64[:, ::1], int64[:, ::1])",
    cache=True,
)
def negamax(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    top_k: int,
    weights: np.ndarray,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
) -> int:
    """Alpha-beta (fail-soft PVS) to ``depth``; below the root (``ply >= 1``) only the
    ``top_k`` best-ordered moves are searched when ``top_k > 0`` (002's pruning)."""
    stats[0] += 1
    if stats[1] > 0 and stats[0] > stats[1]:
        stats[2] = 1
        return 0
    mask = GEOMETRY[size, G_MASK]
    moves = legal_moves(p, o) & mask
    if moves == U0:
        if legal_moves(o, p) & mask == U0:
            return terminal_value(p, o, board_squares(size))
        return -negamax(
            o, p, depth, -beta, -alpha, ply + 1, top_k, weights, size, stats, keys, data
        )
    if depth <= 0:
        return evaluate(p, o, weights, size)
    slot = _slot(p, o, keys.shape[0] - 1)
    tt_move, cut, value = _tt_probe(p, o, slot, depth, alpha, beta, keys, data)
    if cut:
        return value
    squares = np.empty(64, dtype=np.int64)
    count = order_moves(p, o, moves, tt_move, weights, size, squares)
    if top_k > 0 and ply >= 1 and count > top_k:
        count = top_k
    alpha0 = alpha
    best = -INF
    best_sq = squares[0]
    for i in range(count):
        sq = squares[i]
        f = flips(p, o, sq)
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        a = max(alpha, best)
        if i == 0:
            v = -negamax(
                no, np_, depth - 1, -beta, -a, ply + 1, top_k, weights, size, stats, keys, data
            )
        else:
            v = -negamax(
                no, np_, depth - 1, -a - 1, -a, ply + 1, top_k, weights, size, stats, keys, data
            )
            if a < v < beta:
                v = -negamax(
                    no, np_, depth - 1, -beta, -v, ply + 1, top_k, weights, size, stats, keys, data
                )
        if stats[2]:
            return 0
        if v > best:
            best = v
            best_sq = sq
            if v >= beta:
                break
    _tt_store(p, o, slot, depth, best, best_sq, alpha0, beta, keys, data)
    return best


@numba.njit(cache=True)
def search_child(
    p: np.uint64,
    o: np.uint64,
    sq: int,
    depth: int,
    alpha: int,
    beta: int,
    top_k: int,
    weights: np.ndarray,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
) -> int:
    """The value for ``p`` of playing ``sq`` then searching ``depth - 1`` plies."""
    f = flips(p, o, sq)
    np_ = p | f | (U1 << np.uint64(sq))
    no = o ^ f
    return -negamax(no, np_, depth - 1, -beta, -alpha, 1, top_k, weights, size, stats, keys, data)


@numba.njit(cache=True)
def principal_variation(
    p: np.uint64,
    o: np.uint64,
    board: np.uint64,
    keys: np.ndarray,
    data: np.ndarray,
    out: np.ndarray,
) -> int:
    """Follow the table's best moves from ``(p, o)`` on the ``board`` mask; squares (64 =
    pass) into ``out``."""
    n = 0
    mask = keys.shape[0] - 1
    while n < out.shape[0]:
        moves = legal_moves(p, o) & board
        if moves == U0:
            if legal_moves(o, p) & board == U0:
                break
            out[n] = 64
            n += 1
            p, o = o, p
            continue
        slot = _slot(p, o, mask)
        if not (keys[slot, 0] == p and keys[slot, 1] == o and data[slot, 0] >= 0):
            break
        sq = data[slot, 3]
        if not (moves >> np.uint64(sq)) & U1:
            break
        out[n] = sq
        n += 1
        f = flips(p, o, sq)
        p, o = o ^ f, p | f | (U1 << np.uint64(sq))
    return n


# -- the pattern-evaluation search -------------------------------------------------------------

EVAL_ORDER_DEPTH = 3
"""Nodes with at least this depth left order their moves by the children's evaluation."""
MOBILITY_ORDER_DEPTH = 2
"""Nodes with this depth left order by the opponent's mobility after the move."""

# Fixed square priority (corners first, then edges and the centre, X-squares last).
_SQUARE_PRIORITY = np.array(
    [
        9, 2, 7, 6, 6, 7, 2, 9,
        2, 0, 3, 4, 4, 3, 0, 2,
        7, 3, 5, 5, 5, 5, 3, 7,
        6, 4, 5, 0, 0, 5, 4, 6,
        6, 4, 5, 0, 0, 5, 4, 6,
        7, 3, 5, 5, 5, 5, 3, 7,
        2, 0, 3, 4, 4, 3, 0, 2,
        9, 2, 7, 6, 6, 7, 2, 9,
    ],
    dtype=np.int64,
)  # fmt: skip


@numba.njit(cache=True)
def order_moves_patterns(
    p: np.uint64,
    o: np.uint64,
    moves: np.uint64,
    first: int,
    depth: int,
    table: np.ndarray,
    out: np.ndarray,
) -> int:
    """Write ``moves`` to ``out`` best first (``first``, then by ``depth``: the children's
    evaluation, the opponent's mobility, or the square priority); the count."""
    keys = np.empty(64, dtype=np.int64)
    count = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - U1
        if sq == first:
            key = INF
        elif depth >= EVAL_ORDER_DEPTH:
            f = flips(p, o, sq)
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            replies = legal_moves(no, np_)
            if replies == U0:
                key = INF // 2 - popcount(no)
            else:
                key = -pat.evaluate(no, np_, replies, table)
        elif depth >= MOBILITY_ORDER_DEPTH:
            f = flips(p, o, sq)
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            key = _SQUARE_PRIORITY[sq] - 16 * popcount(legal_moves(no, np_))
        else:
            key = _SQUARE_PRIORITY[sq]
        i = count
        while i > 0 and keys[i - 1] < key:
            keys[i] = keys[i - 1]
            out[i] = out[i - 1]
            i -= 1
        keys[i] = key
        out[i] = sq
        count += 1
    return count


@numba.njit(
    "int64(uint64, uint64, int64, int64, int64, int64, int64, int32[:, ::1], int64[::1],"
    " uint64[:, ::1], int64[:, ::1])",
    cache=True,
)
def negamax_patterns(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    top_k: int,
    table: np.ndarray,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
) -> int:
    """:func:`negamax` with the pattern evaluation ``table`` and its move ordering."""
    stats[0] += 1
    if stats[1] > 0 and stats[0] > stats[1]:
        stats[2] = 1
        return 0
    moves = legal_moves(p, o)
    if moves == U0:
        if legal_moves(o, p) == U0:
            return terminal_value(p, o)
        return -negamax_patterns(
            o, p, depth, -beta, -alpha, ply + 1, top_k, table, stats, keys, data
        )
    if depth <= 0:
        return pat.evaluate(p, o, moves, table)
    slot = _slot(p, o, keys.shape[0] - 1)
    tt_move, cut, value = _tt_probe(p, o, slot, depth, alpha, beta, keys, data)
    if cut:
        return value
    squares = np.empty(64, dtype=np.int64)
    count = order_moves_patterns(p, o, moves, tt_move, depth, table, squares)
    if top_k > 0 and ply >= 1 and count > top_k:
        count = top_k
    alpha0 = alpha
    best = -INF
    best_sq = squares[0]
    for i in range(count):
        sq = squares[i]
        f = flips(p, o, sq)
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        a = max(alpha, best)
        if i == 0:
            v = -negamax_patterns(
                no, np_, depth - 1, -beta, -a, ply + 1, top_k, table, stats, keys, data
            )
        else:
            v = -negamax_patterns(
                no, np_, depth - 1, -a - 1, -a, ply + 1, top_k, table, stats, keys, data
            )
            if a < v < beta:
                v = -negamax_patterns(
                    no, np_, depth - 1, -beta, -v, ply + 1, top_k, table, stats, keys, data
                )
        if stats[2]:
            return 0
        if v > best:
            best = v
            best_sq = sq
            if v >= beta:
                break
    _tt_store(p, o, slot, depth, best, best_sq, alpha0, beta, keys, data)
    return best


@numba.njit(cache=True)
def search_child_patterns(
    p: np.uint64,
    o: np.uint64,
    sq: int,
    depth: int,
    alpha: int,
    beta: int,
    top_k: int,
    table: np.ndarray,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
) -> int:
    """:func:`search_child` with the pattern evaluation."""
    f = flips(p, o, sq)
    np_ = p | f | (U1 << np.uint64(sq))
    no = o ^ f
    return -negamax_patterns(no, np_, depth - 1, -beta, -alpha, 1, top_k, table, stats, keys, data)
