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

One :func:`negamax` serves every depth-limited Othello search, with the evaluation as a
parameter (``EVAL_*``): the ``alphabeta`` agent (masks or patterns), the exact solver's first
guess (patterns with multi-ProbCut) and its move-ordering probes (patterns, or
:func:`evaluate_mobility` on small boards and near the end). The unused weight arrays may be
empty. With the pattern evaluation it also prunes by multi-ProbCut (:func:`probcut_bounds`)
when given a calibration (``imago train probcut``) and a confidence ``cut_t > 0``. Move lists
live in a ``scratch`` array (:func:`imago.agents.othello._kernels.new_scratch`): the search
allocates nothing per node.

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
    SCRATCH_FLIPS,
    SCRATCH_SQUARE,
    U0,
    U1,
    board_squares,
    edge_stable,
    insert_move,
    potential_mobility,
)
from imago.games.othello.bitboard import final_score, flips, legal_moves, lowest_square, popcount

WIN = 1_000_000
DISC = 1000
INF = 10_000_000
EVAL_MASKS = 0
"""``evaluation`` of :func:`negamax`: seed 002's phase masks and feature weights (``weights``)."""
EVAL_PATTERNS = 1
"""The pattern evaluation (``table``, 8x8 only), with its move ordering and multi-ProbCut."""
EVAL_MOBILITY = 2
"""The weightless :func:`evaluate_mobility` (any board; the exact solver orders moves by it).
These searches are 1-4 plies deep and many: :func:`negamax` runs them light, with no table, no
null windows, and the :func:`frontier` loop one ply above the leaves (each costs more than it
saves there, measured on the FFO positions and the 6x6 solve)."""
NO_WEIGHTS = np.zeros((0, 70), dtype=np.int64)
"""The empty mask ``weights`` of a search with another evaluation."""
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
def evaluate(p: np.uint64, o: np.uint64, moves: np.uint64, weights: np.ndarray, size: int) -> int:
    """The static evaluation for the player ``p`` to move, whose legal ``moves`` on the board
    the caller has already found."""
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
    mobility = popcount(moves) - popcount(legal_moves(o, p) & mask)
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
def evaluate_mobility(p: np.uint64, o: np.uint64, moves: np.uint64, size: int) -> int:
    """A cheap evaluation for ordering moves on any board size: mobility, corners held and
    reachable, potential mobility (no weights; about 8 a move of mobility). ``moves`` are the
    legal moves of ``p`` on the board."""
    mask = GEOMETRY[size, G_MASK]
    corners = GEOMETRY[size, G_CORNERS]
    mp = moves
    mo = legal_moves(o, p) & mask
    score = 8 * (popcount(mp) - popcount(mo))
    score += 24 * (popcount(p & corners) - popcount(o & corners))
    score += 8 * (popcount(mp & corners) - popcount(mo & corners))
    score += potential_mobility(p, o, mask) - potential_mobility(o, p, mask)
    return score


@numba.njit(cache=True)
def order_moves(
    p: np.uint64,
    o: np.uint64,
    moves: np.uint64,
    first: int,
    weights: np.ndarray,
    size: int,
    scratch: np.ndarray,
    n: int,
) -> int:
    """Write ``moves`` to ``scratch`` row ``n`` best first (``first``, then a cheap static
    guess from the mask ``weights``); the count."""
    mask = GEOMETRY[size, G_MASK]
    w = weights[phase_of(weights, popcount(~(p | o) & mask))]
    count = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - U1
        f = flips(p, o, sq)
        if sq == first:
            key = -INF
        else:
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            key = w[W_MOBILITY] * popcount(legal_moves(no, np_) & mask) - w[sq]
            if (U1 << np.uint64(sq)) & GEOMETRY[size, G_CORNERS]:
                key -= w[W_CORNERS]
        insert_move(scratch, n, count, sq, key, f)
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


PRIORITY_CLASSES = 10
"""The values of ``_SQUARE_PRIORITY``, 0..9."""
PRIORITY_MASKS = np.array(
    [sum(1 << sq for sq in range(64) if _SQUARE_PRIORITY[sq] == 9 - c) for c in range(10)],
    dtype=np.uint64,
)
"""The squares of each priority, highest first (``PRIORITY_MASKS[c]``: priority ``9 - c``)."""


@numba.njit(cache=True)
def order_moves_patterns(
    p: np.uint64,
    o: np.uint64,
    moves: np.uint64,
    first: int,
    depth: int,
    table: np.ndarray,
    scratch: np.ndarray,
    n: int,
) -> int:
    """Write ``moves`` to ``scratch`` row ``n`` best first (``first``, then by ``depth``: the
    children's pattern evaluation, the opponent's mobility, or the square priority); the
    count. Flips are stored where the key needed them, else 0 (the search computes them)."""
    count = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - U1
        f = U0
        if sq == first:
            key = -INF
        elif depth >= EVAL_ORDER_DEPTH:
            f = flips(p, o, sq)
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            replies = legal_moves(no, np_)
            if replies == U0:
                key = popcount(no) - INF // 2
            else:
                key = pat.evaluate(no, np_, replies, table)
        elif depth >= MOBILITY_ORDER_DEPTH:
            f = flips(p, o, sq)
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            key = 16 * popcount(legal_moves(no, np_)) - _SQUARE_PRIORITY[sq]
        else:
            key = -_SQUARE_PRIORITY[sq]
        insert_move(scratch, n, count, sq, key, f)
        count += 1
    return count


REPLY_ORDER_DEPTH = 3
"""With the mobility evaluation, nodes with at least this depth left order by the opponent's
replies (below, counting them costs more than the order saves)."""


@numba.njit(cache=True)
def order_moves_mobility(
    p: np.uint64,
    o: np.uint64,
    moves: np.uint64,
    first: int,
    depth: int,
    size: int,
    scratch: np.ndarray,
    n: int,
) -> int:
    """Write ``moves`` to ``scratch`` row ``n`` best first for :data:`EVAL_MOBILITY` on any
    board (``first``, then corners, and from ``REPLY_ORDER_DEPTH`` up fewest replies
    first); the count. Flips as in :func:`order_moves_patterns`."""
    corners = GEOMETRY[size, G_CORNERS]
    mask = GEOMETRY[size, G_MASK]
    count = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - U1
        f = U0
        if sq == first:
            key = -INF
        else:
            key = -24 if (U1 << np.uint64(sq)) & corners else 0
            if depth >= REPLY_ORDER_DEPTH:
                f = flips(p, o, sq)
                np_ = p | f | (U1 << np.uint64(sq))
                key += 16 * popcount(legal_moves(o ^ f, np_) & mask)
        insert_move(scratch, n, count, sq, key, f)
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


@numba.njit(cache=True, inline="always")
def leaf_value(
    p: np.uint64,
    o: np.uint64,
    moves: np.uint64,
    evaluation: int,
    weights: np.ndarray,
    table: np.ndarray,
    size: int,
) -> int:
    """The static ``evaluation`` of a position where ``p`` has the legal ``moves`` (not 0)."""
    if evaluation == EVAL_PATTERNS:
        return pat.evaluate(p, o, moves, table)
    if evaluation == EVAL_MOBILITY:
        return evaluate_mobility(p, o, moves, size)
    return evaluate(p, o, moves, weights, size)


@numba.njit(cache=True)
def frontier(
    p: np.uint64,
    o: np.uint64,
    moves: np.uint64,
    alpha: int,
    beta: int,
    evaluation: int,
    table: np.ndarray,
    size: int,
    stats: np.ndarray,
) -> int:
    """The value of a node one ply above the leaves where ``p`` has the legal ``moves`` (not
    0), for :data:`EVAL_PATTERNS` or :data:`EVAL_MOBILITY`: every child evaluated here in a
    fixed square order (the pattern evaluation's square priority, or corners first), with no
    table and no move list. :func:`negamax` ends in it with the mobility evaluation, where a
    table and a sorted list cost more than they save; the exact solver's one-ply ordering
    probes call it directly. Every move is searched (no ``top_k``). A child that must pass is
    scored by what it leads to (the evaluation after the pass, or the final count); nodes are
    counted as :func:`negamax` counts them."""
    mask = GEOMETRY[size, G_MASK]
    corners = GEOMETRY[size, G_CORNERS]
    best = -INF
    for c in range(PRIORITY_CLASSES):
        if evaluation == EVAL_PATTERNS:
            bits = moves & PRIORITY_MASKS[c]
        elif c == 0:
            bits = moves & corners
        elif c == 1:
            bits = moves & ~corners
        else:
            break
        while bits:
            sq = lowest_square(bits)
            bits &= bits - U1
            f = flips(p, o, sq)
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            stats[0] += 1
            replies = legal_moves(no, np_) & mask
            if replies != U0:
                v = -leaf_value(no, np_, replies, evaluation, NO_WEIGHTS, table, size)
            else:
                again = legal_moves(np_, no) & mask
                if again == U0:
                    v = -terminal_value(no, np_, board_squares(size))
                else:
                    stats[0] += 1
                    v = leaf_value(np_, no, again, evaluation, NO_WEIGHTS, table, size)
            if v > best:
                best = v
                if v >= beta:
                    return best
    return best


@numba.njit(
    "int64(uint64, uint64, int64, int64, int64, int64, int64, int64, int64[:, ::1],"
    " int32[:, ::1], int64, int64[::1], uint64[:, ::1], int64[:, ::1], float64[:, :, ::1],"
    " float64, int64[:, ::1])",
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
    evaluation: int,
    weights: np.ndarray,
    table: np.ndarray,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    probcut: np.ndarray,
    cut_t: float,
    scratch: np.ndarray,
) -> int:
    """Alpha-beta (fail-soft; principal variation search with a transposition table, except
    with the mobility evaluation: see :data:`EVAL_MOBILITY`) to ``depth`` on a ``size`` board
    with the ``evaluation`` (``EVAL_*``): the mask ``weights``, the pattern ``table`` (8x8) or
    the weightless mobility evaluation; the unused arrays may be empty.
    Below the root (``ply >= 1``) only the ``top_k`` best-ordered moves are searched when
    ``top_k > 0`` (002's pruning). Move lists live in ``scratch``
    (:func:`imago.agents.othello._kernels.new_scratch`).

    With the pattern evaluation, ``cut_t > 0`` and a calibration ``probcut`` (see
    :func:`probcut_bounds`), nodes below the root first try multi-ProbCut's shallow tests."""
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
            o, p, depth, -beta, -alpha, ply + 1, top_k, evaluation, weights, table, size, stats,
            keys, data, probcut, cut_t, scratch,
        )  # fmt: skip
    if depth <= 0:
        return leaf_value(p, o, moves, evaluation, weights, table, size)
    light = evaluation == EVAL_MOBILITY  # see EVAL_MOBILITY
    if depth == 1 and light:
        return frontier(p, o, moves, alpha, beta, evaluation, table, size, stats)
    slot = slot_of(p, o, keys.shape[0] - 1)
    tt_move = -1
    if not light:
        tt_move, cut, value = probe(p, o, slot, depth, alpha, beta, keys, data)
        if cut:
            return value
    if evaluation == EVAL_PATTERNS and cut_t > 0.0 and ply >= 1 and depth >= PROBCUT_MIN_DEPTH:
        # Multi-ProbCut: a shallow search that lands far enough beyond a bound predicts the
        # deep one will too (with the calibration's confidence).
        shallow = probcut_depth(depth)
        high, low = probcut_bounds(p, o, depth, alpha, beta, probcut, cut_t)
        if high < WIN // 2:
            v = negamax(
                p, o, shallow, high - 1, high, ply, top_k, evaluation, weights, table, size,
                stats, keys, data, probcut, cut_t, scratch,
            )  # fmt: skip
            if stats[2]:
                return 0
            if v >= high:
                return beta
        if low > -WIN // 2:
            v = negamax(
                p, o, shallow, low, low + 1, ply, top_k, evaluation, weights, table, size,
                stats, keys, data, probcut, cut_t, scratch,
            )  # fmt: skip
            if stats[2]:
                return 0
            if v <= low:
                return alpha
    n = popcount(~(p | o) & mask)
    if evaluation == EVAL_PATTERNS:
        count = order_moves_patterns(p, o, moves, tt_move, depth, table, scratch, n)
    elif evaluation == EVAL_MOBILITY:
        count = order_moves_mobility(p, o, moves, tt_move, depth, size, scratch, n)
    else:
        count = order_moves(p, o, moves, tt_move, weights, size, scratch, n)
    if top_k > 0 and ply >= 1 and count > top_k:
        count = top_k
    alpha0 = alpha
    best = -INF
    best_sq = scratch[n, SCRATCH_SQUARE]
    for i in range(count):
        sq = scratch[n, SCRATCH_SQUARE + i]
        f = np.uint64(scratch[n, SCRATCH_FLIPS + i])
        if f == U0:
            f = flips(p, o, sq)
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        a = max(alpha, best)
        replies = U0
        if depth == 1 or (depth == 2 and light):
            replies = legal_moves(no, np_) & mask  # 0: a pass or the end, searched below
        if replies != U0 and depth == 1:
            # A leaf, evaluated here: a call per leaf costs more than the evaluation.
            stats[0] += 1
            v = -leaf_value(no, np_, replies, evaluation, weights, table, size)
        elif replies != U0:
            # A frontier node (:func:`frontier`), its loop run here for the same reason.
            stats[0] += 1
            v = -frontier(no, np_, replies, -beta, -a, evaluation, table, size, stats)
        elif i == 0 or light:  # light: plain alpha-beta
            v = -negamax(
                no, np_, depth - 1, -beta, -a, ply + 1, top_k, evaluation, weights, table, size,
                stats, keys, data, probcut, cut_t, scratch,
            )  # fmt: skip
        else:
            v = -negamax(
                no, np_, depth - 1, -a - 1, -a, ply + 1, top_k, evaluation, weights, table, size,
                stats, keys, data, probcut, cut_t, scratch,
            )  # fmt: skip
            if a < v < beta:
                v = -negamax(
                    no, np_, depth - 1, -beta, -v, ply + 1, top_k, evaluation, weights, table,
                    size, stats, keys, data, probcut, cut_t, scratch,
                )  # fmt: skip
        if stats[2]:
            return 0
        if v > best:
            best = v
            best_sq = sq
            if v >= beta:
                break
    if not light:
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
    evaluation: int,
    weights: np.ndarray,
    table: np.ndarray,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    probcut: np.ndarray,
    cut_t: float,
    scratch: np.ndarray,
) -> int:
    """The value for ``p`` of playing ``sq`` then searching ``depth - 1`` plies."""
    f = flips(p, o, sq)
    np_ = p | f | (U1 << np.uint64(sq))
    no = o ^ f
    return -negamax(
        no, np_, depth - 1, -beta, -alpha, 1, top_k, evaluation, weights, table, size, stats,
        keys, data, probcut, cut_t, scratch,
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
