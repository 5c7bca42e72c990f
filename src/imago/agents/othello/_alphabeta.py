# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the Othello alpha-beta search: evaluation and negamax.

``weights`` is an ``int64`` array ``(phases, 70)``: columns 0-63 the positional mask, then
mobility, potential mobility, corners, stable discs, discs, and the phase's ``min_empties``
(see ``data/othello_weights.json``). Values are from the side to move's point of view; a won
game is worth ``WIN`` plus the disc difference, far beyond any evaluation. The mask-evaluation
kernels take the board ``size``: 8, or 6 / 4 for a board in the top-left corner (moves and
empties masked to the board, its own corners and edges; see
:data:`imago.agents.othello._kernels.GEOMETRY`).

The ``*_patterns`` kernels (8x8 only) search with the pattern evaluation of
:mod:`.patterns` instead (``table`` ``int32[stages, TABLE_SIZE]``, hundredths of a
disc) and order moves by that evaluation of the children near the root, by the opponent's
mobility one level above the leaves' parents, and by a fixed square priority just above the
leaves.

One :func:`negamax` serves both evaluations: ``patterns`` picks the pattern table (and its
ordering) over the mask ``weights``; the unused one may be an empty array. With the pattern
evaluation it also prunes by multi-ProbCut (:func:`probcut_bounds`) when given a calibration
(``imago train probcut``) and a confidence ``cut_t > 0``.

``stats`` is ``int64[3]``: ``[nodes, node_limit (0 = none), aborted]``. The table is
:mod:`._table`'s, keyed by the two bitboards.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents._table import probe, slot_of, store, stored_move
from imago.agents.othello import patterns as pat
from imago.agents.othello._kernels import (
    G_CORNERS,
    G_MASK,
    GEOMETRY,
    U0,
    U1,
    board_squares,
    edge_stable,
    potential_mobility,
)
from imago.games.othello.bitboard import final_score, flips, legal_moves, lowest_square, popcount

WIN = 1_000_000
DISC = 1000
INF = 10_000_000
W_MOBILITY = 64
W_POTENTIAL = 65
W_CORNERS = 66
W_STABLE = 67
W_DISCS = 68
W_MIN_EMPTIES = 69


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


def value_discs(value: int) -> float:
    """A search value as a disc difference for the side to move: a won or lost game's exact
    count, else the evaluation's hundredths of a disc."""
    if abs(value) >= WIN // 2:
        return (value - WIN if value > 0 else value + WIN) / DISC
    return value / 100.0


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


# -- the pattern evaluation's move ordering ---------------------------------------------------

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


# -- multi-ProbCut (Buro 1997) -----------------------------------------------------------------

PROBCUT_MIN_DEPTH = 3
"""Nodes with at least this depth left try ProbCut's shallow tests."""
PC_A = 0
PC_B = 1
PC_SIGMA = 2
"""Columns of a calibration row: the deep value is about ``a * shallow + b``, give or take
``sigma`` (hundredths of a disc)."""
PROBCUT_BUCKET_EMPTIES = 10
"""Calibration rows are per depth and per ``empties // PROBCUT_BUCKET_EMPTIES``."""
NO_PROBCUT = np.zeros((0, 0, 3), dtype=np.float64)
"""The calibration that turns ProbCut off."""


@numba.njit(cache=True)
def probcut_depth(depth: int) -> int:
    """The shallow search that predicts a ``depth`` search: about half as deep, same parity
    (Othello evaluations swing with the side to move at the leaves)."""
    return 2 * (depth // 4) + (depth & 1)


@numba.njit(cache=True)
def probcut_bounds(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    alpha: int,
    beta: int,
    probcut: np.ndarray,
    cut_t: float,
) -> tuple[int, int]:
    """The shallow search's bounds ``(high, low)``: a value >= ``high`` predicts a deep value
    >= ``beta``, one <= ``low`` a deep value <= ``alpha``, each with ``cut_t`` standard
    deviations of the calibration ``probcut`` (``float64[depths, buckets, 3]``, rows past the
    last depth use the last); ``(WIN, -WIN)`` when it has no row for the position or a bound
    is a won or lost game."""
    if probcut.shape[0] == 0:
        return WIN, -WIN
    row = probcut[min(depth, probcut.shape[0] - 1)]
    bucket = min(popcount(~(p | o)) // PROBCUT_BUCKET_EMPTIES, row.shape[0] - 1)
    a = row[bucket, PC_A]
    b = row[bucket, PC_B]
    sigma = row[bucket, PC_SIGMA]
    if sigma <= 0.0 or a <= 0.0:
        return WIN, -WIN
    high = WIN
    low = -WIN
    if abs(beta) < WIN // 2:
        high = int(np.ceil((beta + cut_t * sigma - b) / a))
    if abs(alpha) < WIN // 2:
        low = int(np.floor((alpha - cut_t * sigma - b) / a))
    return high, low


@numba.njit(
    "int64(uint64, uint64, int64, int64, int64, int64, int64, boolean, int64[:, ::1],"
    " int32[:, ::1], int64, int64[::1], uint64[:, ::1], int64[:, ::1], float64[:, :, ::1],"
    " float64)",
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
    patterns: bool,
    weights: np.ndarray,
    table: np.ndarray,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    probcut: np.ndarray,
    cut_t: float,
) -> int:
    """Alpha-beta (fail-soft PVS) to ``depth`` with the pattern evaluation ``table`` (8x8) when
    ``patterns``, else the mask ``weights`` on a ``size`` board; below the root (``ply >= 1``)
    only the ``top_k`` best-ordered moves are searched when ``top_k > 0`` (002's pruning).

    With ``cut_t > 0`` and a calibration ``probcut`` (see :func:`probcut_test`), nodes below
    the root first try multi-ProbCut's shallow tests."""
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
            o, p, depth, -beta, -alpha, ply + 1, top_k, patterns, weights, table, size, stats,
            keys, data, probcut, cut_t,
        )  # fmt: skip
    if depth <= 0:
        if patterns:
            return pat.evaluate(p, o, moves, table)
        return evaluate(p, o, weights, size)
    slot = slot_of(p, o, keys.shape[0] - 1)
    tt_move, cut, value = probe(p, o, slot, depth, alpha, beta, keys, data)
    if cut:
        return value
    if patterns and cut_t > 0.0 and ply >= 1 and depth >= PROBCUT_MIN_DEPTH:
        # Multi-ProbCut: a shallow search that lands far enough beyond a bound predicts the
        # deep one will too (with the calibration's confidence).
        shallow = probcut_depth(depth)
        high, low = probcut_bounds(p, o, depth, alpha, beta, probcut, cut_t)
        if high < WIN // 2:
            v = negamax(
                p, o, shallow, high - 1, high, ply, top_k, patterns, weights, table, size,
                stats, keys, data, probcut, cut_t,
            )  # fmt: skip
            if stats[2]:
                return 0
            if v >= high:
                return beta
        if low > -WIN // 2:
            v = negamax(
                p, o, shallow, low, low + 1, ply, top_k, patterns, weights, table, size,
                stats, keys, data, probcut, cut_t,
            )  # fmt: skip
            if stats[2]:
                return 0
            if v <= low:
                return alpha
    squares = np.empty(64, dtype=np.int64)
    if patterns:
        count = order_moves_patterns(p, o, moves, tt_move, depth, table, squares)
    else:
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
                no, np_, depth - 1, -beta, -a, ply + 1, top_k, patterns, weights, table, size,
                stats, keys, data, probcut, cut_t,
            )  # fmt: skip
        else:
            v = -negamax(
                no, np_, depth - 1, -a - 1, -a, ply + 1, top_k, patterns, weights, table, size,
                stats, keys, data, probcut, cut_t,
            )  # fmt: skip
            if a < v < beta:
                v = -negamax(
                    no, np_, depth - 1, -beta, -v, ply + 1, top_k, patterns, weights, table,
                    size, stats, keys, data, probcut, cut_t,
                )  # fmt: skip
        if stats[2]:
            return 0
        if v > best:
            best = v
            best_sq = sq
            if v >= beta:
                break
    store(p, o, slot, depth, best, best_sq, alpha0, beta, keys, data)
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
    patterns: bool,
    weights: np.ndarray,
    table: np.ndarray,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    probcut: np.ndarray,
    cut_t: float,
) -> int:
    """The value for ``p`` of playing ``sq`` then searching ``depth - 1`` plies."""
    f = flips(p, o, sq)
    np_ = p | f | (U1 << np.uint64(sq))
    no = o ^ f
    return -negamax(
        no, np_, depth - 1, -beta, -alpha, 1, top_k, patterns, weights, table, size, stats,
        keys, data, probcut, cut_t,
    )  # fmt: skip


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
        sq = stored_move(p, o, slot_of(p, o, mask), keys, data)
        if sq < 0 or not (moves >> np.uint64(sq)) & U1:
            break
        out[n] = sq
        n += 1
        f = flips(p, o, sq)
        p, o = o ^ f, p | f | (U1 << np.uint64(sq))
    return n
