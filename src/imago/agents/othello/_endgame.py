# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the exact Othello endgame solver.

Negamax with alpha-beta over bitboards (see :mod:`imago.games.othello.bitboard`), in layers:

* ``solve_root``: the root by a sequence of null-window probes (MTD(f) over even scores),
  starting from a first guess (the midgame search's value: see
  :meth:`imago.agents.othello.endgame.EndgameSolver.first_guess`).
* ``solve_deep`` (more than ``SHALLOW`` empties): transposition table (both bounds and best
  move per entry, two-way buckets; the keys and slots of :mod:`imago.agents._table`),
  enhanced transposition cutoff from ``ETC_EMPTIES`` empties up (a child already stored with a
  good enough bound cuts before any search); moves ordered by the table move, then by a
  shallow probe plus the opponent's mobility, the midgame search
  (:func:`imago.agents.othello._alphabeta.negamax`): from ``PATTERN_EMPTIES`` up with the
  pattern evaluation (``PATTERN_DEPTHS``; a small table of its own), from ``PROBE_EMPTIES`` up
  with the weightless mobility evaluation (``PROBE_DEPTHS``; no table), below it
  fastest-first (fewest replies for the opponent, corners first); principal variation search
  with null windows, and a stability cutoff (:func:`_stability_bound`: the opponent's stable
  discs bound the score).
* ``solve_shallow`` (``SMALL`` < empties <= ``SHALLOW``): no table, fastest-first order, the
  stability cutoff.
* ``solve_small`` (<= ``SMALL`` empties) packs the empty squares into one word, corners first
  and X / C squares last, for ``solve_list``: no move ordering, the legal squares of the
  quadrants with an odd number of empties first (parity kept as four bits, updated per move),
  and the stability cutoff from 5 empties up;
  ``solve_3``, ``solve_2`` and ``solve_1`` take the empty squares as arguments, and
  ``solve_1`` counts the last move's flips without playing it. These leaf solvers return
  ``(score, nodes)`` instead of taking ``stats``: an array argument costs two atomic
  reference-count updates per call, a fifth of their time.

Move lists live in a preallocated ``scratch`` array (one row per number of empties, see
:func:`imago.agents.othello._kernels.new_scratch`), shared with the ordering probes (they
write only the rows below the node that calls them), so the search allocates nothing per
node.

Every kernel takes the board ``size``: 8, or 6 / 4 for a board in the top-left corner of the
bitboards (moves and empty squares masked to the board, its own corners, parity quadrants and
number of squares, read from :data:`imago.agents.othello._kernels.GEOMETRY`). The pattern
evaluation is 8x8 only: on smaller boards the mobility probe orders moves at every depth and the
root's first guess is 0.

Scores are final disc differences for the player to move, empties to the winner. ``table``
is the pattern evaluation's ``int32[stages, table]`` weights (hundredths of a disc); it
affects only the order of the search and the first guess, never the score.
``stats`` is an ``int64`` array: ``[nodes, node_limit (0 = none), aborted flag]`` (the nodes of
the ordering probes included); when the node limit is passed the search unwinds with
meaningless values and sets ``stats[2]``.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents._table import slot_of
from imago.agents.othello import _alphabeta as mid
from imago.agents.othello._kernels import (
    G_CORNERS,
    G_MASK,
    G_NEXT_TO_CORNERS,
    G_QUADRANTS,
    GEOMETRY,
    QUADRANT,
    SCRATCH_FLIPS,
    SCRATCH_SQUARE,
    U0,
    U1,
    board_squares,
    insert_move,
    potential_mobility,
    stable_discs,
)
from imago.games.othello.bitboard import final_score, flips, legal_moves, lowest_square, popcount

SMALL = 7
"""Up to this many empties: :func:`solve_small` (parity order, no move ordering)."""
SHALLOW = 9
"""Up to this many empties: no transposition table (:func:`solve_shallow`)."""
INF = 127
PROBE_EMPTIES = 12
PROBE_DEPTHS = np.array([0] * 12 + [1] * 4 + [2] * 2 + [3] * 4 + [4] * 43, dtype=np.int64)
"""Depth of the cheap ordering probe by number of empties (``PROBE_EMPTIES`` up to
``PATTERN_EMPTIES - 1``; above, the pattern probe takes over)."""
PATTERN_EMPTIES = 18
"""From this many empties up the ordering probe is a pattern-evaluation search."""
PATTERN_DEPTHS = np.array([0] * 18 + [1] * 4 + [2] * 2 + [3] * 41, dtype=np.int64)
"""Depth of the pattern-evaluation probe by number of empties (from ``PATTERN_EMPTIES`` up)."""
ETC_EMPTIES = 12
"""Enhanced transposition cutoffs from this many empties up (below, the extra table probes
cost more than the searches they save)."""
MOBILITY_WEIGHT = 8
PATTERN_MOBILITY_WEIGHT = 100
"""Weight of the opponent's mobility beside the pattern probe (hundredths of a disc)."""
_NO_MOVE = -1

# Transposition table columns (int8 data beside two uint64 key words).
TT_LOWER = 0
TT_UPPER = 1
TT_MOVE = 2
TT_EMPTIES = 3


def new_table(bits: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of ``2**bits`` entries: ``(keys uint64[n, 2], data int8[n, 4])``."""
    n = 1 << bits
    keys = np.zeros((n, 2), dtype=np.uint64)
    data = np.zeros((n, 4), dtype=np.int8)
    data[:, TT_EMPTIES] = -1
    return keys, data


@numba.njit("int64(uint64, uint64, int64, int64)", cache=True)
def solve_1(p: np.uint64, o: np.uint64, sq: int, squares: int) -> int:
    """The exact score with one empty square ``sq`` on a board of ``squares`` squares (one
    node; the caller counts it)."""
    np_ = popcount(p)
    f = flips(p, o, sq)
    if f:
        return 2 * np_ - squares + 2 + 2 * popcount(f)
    f = flips(o, p, sq)
    if f:
        return 2 * np_ - squares - 2 * popcount(f)
    diff = 2 * np_ - squares + 1
    return diff + 1 if diff > 0 else diff - 1


@numba.njit(cache=True)
def _parity_odd(empty: np.uint64, size: int) -> np.uint64:
    """The quadrants of the ``size`` board with an odd number of ``empty`` squares."""
    odd = U0
    for q in range(4):
        quadrant = GEOMETRY[size, G_QUADRANTS + q]
        if popcount(empty & quadrant) & 1:
            odd |= quadrant
    return odd


@numba.njit(cache=True, inline="always")
def _stability_bound(p: np.uint64, o: np.uint64, alpha: int, size: int) -> int:
    """An upper bound of the score of ``p`` from the opponent's stable discs, or ``INF`` when
    the opponent has too many discs for it to reach ``alpha`` (then it is not computed)."""
    squares = board_squares(size)
    if squares - 2 * popcount(o) > alpha:
        return INF
    return squares - 2 * popcount(stable_discs(o, p, size))


@numba.njit("UniTuple(int64, 2)(uint64, uint64, int64, int64, int64, int64, int64)", cache=True)
def solve_2(
    p: np.uint64, o: np.uint64, alpha: int, beta: int, x1: int, x2: int, squares: int
) -> tuple[int, int]:
    """``(exact score, nodes)`` with the two empty squares ``x1``, ``x2`` (fail-soft) on a
    board of ``squares`` squares.

    The leaf solvers return their node counts instead of adding them to ``stats``: an array
    argument costs two atomic reference-count updates per call."""
    best = -INF
    nodes = 1
    f = flips(p, o, x1)
    if f:
        nodes += 1
        best = -solve_1(o ^ f, p | f | (U1 << np.uint64(x1)), x2, squares)
        if best >= beta:
            return best, nodes
    f = flips(p, o, x2)
    if f:
        nodes += 1
        v = -solve_1(o ^ f, p | f | (U1 << np.uint64(x2)), x1, squares)
        return (v if v > best else best), nodes
    if best != -INF:
        return best, nodes
    # The player passes: the opponent's best reply is the player's worst score.
    nodes += 1
    worst = INF
    f = flips(o, p, x1)
    if f:
        nodes += 1
        worst = solve_1(p ^ f, o | f | (U1 << np.uint64(x1)), x2, squares)
        if worst <= alpha:
            return worst, nodes
    f = flips(o, p, x2)
    if f:
        nodes += 1
        v = solve_1(p ^ f, o | f | (U1 << np.uint64(x2)), x1, squares)
        return (v if v < worst else worst), nodes
    if worst != INF:
        return worst, nodes
    return final_score(p, o, squares), nodes


@numba.njit(
    "UniTuple(int64, 2)(uint64, uint64, int64, int64, int64, int64, int64, int64)", cache=True
)
def solve_3(
    p: np.uint64, o: np.uint64, alpha: int, beta: int, x1: int, x2: int, x3: int, size: int
) -> tuple[int, int]:
    """``(exact score, nodes)`` with three empty squares, the one alone in its quadrant
    first."""
    nodes = 1
    squares = board_squares(size)
    # Parity order: a square sharing its quadrant with another one goes after the lone one.
    if QUADRANT[size, x1] == QUADRANT[size, x2]:
        x1, x3 = x3, x1
    elif QUADRANT[size, x1] == QUADRANT[size, x3]:
        x1, x2 = x2, x1
    best = -INF
    f = flips(p, o, x1)
    if f:
        v, k = solve_2(o ^ f, p | f | (U1 << np.uint64(x1)), -beta, -alpha, x2, x3, squares)
        nodes += k
        best = -v
        if best >= beta:
            return best, nodes
    f = flips(p, o, x2)
    if f:
        np_ = p | f | (U1 << np.uint64(x2))
        v, k = solve_2(o ^ f, np_, -beta, -max(alpha, best), x1, x3, squares)
        nodes += k
        if -v > best:
            best = -v
            if best >= beta:
                return best, nodes
    f = flips(p, o, x3)
    if f:
        np_ = p | f | (U1 << np.uint64(x3))
        v, k = solve_2(o ^ f, np_, -beta, -max(alpha, best), x1, x2, squares)
        nodes += k
        if -v > best:
            best = -v
    if best != -INF:
        return best, nodes
    # The player passes: the opponent's best reply is the player's worst score.
    nodes += 1
    worst = INF
    f = flips(o, p, x1)
    if f:
        worst, k = solve_2(p ^ f, o | f | (U1 << np.uint64(x1)), alpha, beta, x2, x3, squares)
        nodes += k
        if worst <= alpha:
            return worst, nodes
    f = flips(o, p, x2)
    if f:
        no = o | f | (U1 << np.uint64(x2))
        v, k = solve_2(p ^ f, no, alpha, min(beta, worst), x1, x3, squares)
        nodes += k
        if v < worst:
            worst = v
            if v <= alpha:
                return v, nodes
    f = flips(o, p, x3)
    if f:
        no = o | f | (U1 << np.uint64(x3))
        v, k = solve_2(p ^ f, no, alpha, min(beta, worst), x1, x2, squares)
        nodes += k
        if v < worst:
            worst = v
    if worst != INF:
        return worst, nodes
    return final_score(p, o, squares), nodes


@numba.njit(cache=True, inline="always")
def _square_class(size: int, k: int) -> np.uint64:
    """Square classes of the small solver's static order: corners, then the squares not next
    to a corner, then the X and C squares."""
    if k == 0:
        return GEOMETRY[size, G_CORNERS]
    if k == 1:
        return ~(GEOMETRY[size, G_CORNERS] | GEOMETRY[size, G_NEXT_TO_CORNERS])
    return GEOMETRY[size, G_NEXT_TO_CORNERS]


_SQUARE_BITS = np.uint64(6)
_SQUARE_FIELD = np.uint64(63)


@numba.njit(cache=True, inline="always")
def _nth(empties: np.uint64, i: int) -> int:
    """The ``i``-th square of a packed list of empty squares (6 bits each, first lowest)."""
    return np.int64((empties >> np.uint64(6 * i)) & _SQUARE_FIELD)


@numba.njit(cache=True, inline="always")
def _without(empties: np.uint64, i: int) -> np.uint64:
    """The packed list with its ``i``-th square removed, the others kept in order."""
    low_bits = np.uint64(6 * i)
    low = empties & ((U1 << low_bits) - U1)
    return low | ((empties >> (low_bits + _SQUARE_BITS)) << low_bits)


@numba.njit(
    "UniTuple(int64, 2)(uint64, uint64, int64, int64, uint64, int64, int64, int64)", cache=True
)
def solve_list(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    empties: np.uint64,
    n: int,
    parity: int,
    size: int,
) -> tuple[int, int]:
    """``(exact score, nodes)`` over the ``n`` (>= 3) empty squares packed in ``empties``
    (6 bits each, in the static order of :func:`solve_small`), without move ordering: the legal
    squares of the quadrants with an odd number of empties (bit ``q`` of ``parity``) first, in
    the list's order, then the others; the stability cutoff from 5 empties up."""
    if n == 3:
        return solve_3(
            p, o, alpha, beta, _nth(empties, 0), _nth(empties, 1), _nth(empties, 2), size
        )
    nodes = 1
    board = GEOMETRY[size, G_MASK]
    if n >= 5:
        top = _stability_bound(p, o, alpha, size)
        if top <= alpha:
            return top, nodes
    moves = legal_moves(p, o) & board
    if moves == U0:
        if legal_moves(o, p) & board == U0:
            return final_score(p, o, board_squares(size)), nodes
        v, k = solve_list(o, p, -beta, -alpha, empties, n, parity, size)
        return -v, nodes + k
    best = -INF
    for odd in (1, 0):
        for i in range(n):
            sq = _nth(empties, i)
            q = QUADRANT[size, sq]
            if (parity >> q) & 1 != odd or not (moves >> np.uint64(sq)) & U1:
                continue
            f = flips(p, o, sq)
            v, k = solve_list(
                o ^ f,
                p | f | (U1 << np.uint64(sq)),
                -beta,
                -max(alpha, best),
                _without(empties, i),
                n - 1,
                parity ^ (1 << q),
                size,
            )
            nodes += k
            if -v > best:
                best = -v
                if best >= beta:
                    return best, nodes
    return best, nodes


@numba.njit("int64(uint64, uint64, int64, int64, int64, int64[::1])", cache=True)
def solve_small(
    p: np.uint64, o: np.uint64, alpha: int, beta: int, size: int, stats: np.ndarray
) -> int:
    """Exact search with few empties, no move generation: the empty squares in parity order
    (odd quadrants first), and within it corners first and X / C squares last."""
    empty = ~(p | o) & GEOMETRY[size, G_MASK]
    n = popcount(empty)
    squares = board_squares(size)
    if n < 3:
        if n == 2:
            x1 = lowest_square(empty)
            empty &= empty - U1
            v, k = solve_2(p, o, alpha, beta, x1, lowest_square(empty), squares)
            stats[0] += k
            return v
        stats[0] += 1
        if n == 1:
            return solve_1(p, o, lowest_square(empty), squares)
        return final_score(p, o, squares)
    empties = U0
    k = 0
    for c in range(3):
        bits = empty & _square_class(size, c)
        while bits:
            empties |= np.uint64(lowest_square(bits)) << np.uint64(6 * k)
            k += 1
            bits &= bits - U1
    parity = 0
    for q in range(4):
        parity |= (popcount(empty & GEOMETRY[size, G_QUADRANTS + q]) & 1) << q
    v, k = solve_list(p, o, alpha, beta, empties, n, parity, size)
    stats[0] += k
    return v


@numba.njit(cache=True)
def _order_key(p: np.uint64, o: np.uint64, sq: int, f: np.uint64, odd: np.uint64, size: int) -> int:
    """Fastest-first: fewer opponent replies is better; corners and odd quadrants help."""
    np_ = p | f | (U1 << np.uint64(sq))
    no = o ^ f
    mask = GEOMETRY[size, G_MASK]
    corners = GEOMETRY[size, G_CORNERS]
    replies = legal_moves(no, np_) & mask
    key = popcount(replies) * 16 + popcount(replies & corners) * 16
    key += potential_mobility(no, np_, mask) * 2
    bit = U1 << np.uint64(sq)
    if bit & corners:
        key -= 24
    if bit & odd:
        key -= 4
    return key


@numba.njit(cache=True, inline="always")
def _order_probe(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    evaluation: int,
    size: int,
    stats: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
    probe_keys: np.ndarray,
    probe_data: np.ndarray,
    no_weights: np.ndarray,
    no_probcut: np.ndarray,
) -> int:
    """The midgame search's value of ``(p, o)`` at ``depth`` with the ``evaluation``: the
    exact search's ordering probe. One ply deep it goes straight to the search's frontier
    loop (a call with the search's seventeen arguments would cost a fifth of the probe)."""
    if depth == 1:
        moves = legal_moves(p, o) & GEOMETRY[size, G_MASK]
        if moves != U0:
            stats[0] += 1
            return mid.frontier(p, o, moves, -mid.INF, mid.INF, evaluation, table, size, stats)
    return mid.negamax(
        p, o, depth, -mid.INF, mid.INF, 0, 0, evaluation, no_weights, table, size, stats,
        probe_keys, probe_data, no_probcut, 0.0, scratch,
    )  # fmt: skip


@numba.njit("int64(uint64, uint64, int64, int64, int64, int64[::1], int64[:, ::1])", cache=True)
def solve_shallow(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    size: int,
    stats: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """Exact search for a moderate number of empties: no table, parity / fastest-first order."""
    mask = GEOMETRY[size, G_MASK]
    empty = ~(p | o) & mask
    n = popcount(empty)
    if n <= SMALL:
        return solve_small(p, o, alpha, beta, size, stats)
    stats[0] += 1
    top = _stability_bound(p, o, alpha, size)
    if top <= alpha:
        return top
    moves = legal_moves(p, o) & mask
    if moves == U0:
        if legal_moves(o, p) & mask == U0:
            return final_score(p, o, board_squares(size))
        return -solve_shallow(o, p, -beta, -alpha, size, stats, scratch)
    odd = _parity_odd(empty, size)
    count = 0
    bits = moves
    while bits:
        sq = lowest_square(bits)
        bits &= bits - U1
        f = flips(p, o, sq)
        insert_move(scratch, n, count, sq, _order_key(p, o, sq, f, odd, size), f)
        count += 1
    best = -INF
    for i in range(count):
        sq = scratch[n, SCRATCH_SQUARE + i]
        f = np.uint64(scratch[n, SCRATCH_FLIPS + i])
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        a = max(alpha, best)
        if i == 0:
            v = -solve_shallow(no, np_, -beta, -a, size, stats, scratch)
        else:
            v = -solve_shallow(no, np_, -a - 1, -a, size, stats, scratch)
            if a < v < beta:
                v = -solve_shallow(no, np_, -beta, -v, size, stats, scratch)
        if v > best:
            best = v
            if v >= beta:
                return v
    return best


@numba.njit(
    "int64(uint64, uint64, int64, int64, int64, int64[::1], uint64[:, ::1], int8[:, ::1],"
    " int64[:, ::1], int32[:, ::1], uint64[:, ::1], int64[:, ::1], int64[:, ::1],"
    " float64[:, :, ::1])",
    cache=True,
)
def solve_deep(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
    probe_keys: np.ndarray,
    probe_data: np.ndarray,
    no_weights: np.ndarray,
    no_probcut: np.ndarray,
) -> int:
    """Exact search with a transposition table, PVS, the stability cutoff; moves ordered by
    the table, then by the midgame search (:func:`imago.agents.othello._alphabeta.negamax`
    with its own table ``probe_keys`` / ``probe_data``, the move lists in rows of ``scratch``
    below this node's; ``no_weights`` and ``no_probcut`` are its unused arguments) or
    fastest-first."""
    board = GEOMETRY[size, G_MASK]
    empty = ~(p | o) & board
    n = popcount(empty)
    if n <= SHALLOW:
        return solve_shallow(p, o, alpha, beta, size, stats, scratch)
    stats[0] += 1
    if stats[1] > 0 and stats[0] > stats[1]:
        stats[2] = 1
        return 0
    # Stability cutoff: the opponent's stable discs bound the player's best score.
    top = _stability_bound(p, o, alpha, size)
    if top <= alpha:
        return top
    beta = min(beta, top)
    squares_on_board = board_squares(size)
    mask = keys.shape[0] - 1
    slot = slot_of(p, o, mask)
    if not (keys[slot, 0] == p and keys[slot, 1] == o and data[slot, TT_EMPTIES] == n):
        other = slot ^ np.int64(1)
        if keys[other, 0] == p and keys[other, 1] == o and data[other, TT_EMPTIES] == n:
            slot = other
        elif data[other, TT_EMPTIES] < data[slot, TT_EMPTIES]:
            slot = other  # the entry to replace: the shallower of the two
    tt_move = _NO_MOVE
    if keys[slot, 0] == p and keys[slot, 1] == o and data[slot, TT_EMPTIES] == n:
        lower = int(data[slot, TT_LOWER])
        upper = int(data[slot, TT_UPPER])
        if lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        if lower == upper:
            return lower
        alpha = max(alpha, lower)
        beta = min(beta, upper)
        tt_move = int(data[slot, TT_MOVE])
    moves = legal_moves(p, o) & board
    if moves == U0:
        if legal_moves(o, p) & board == U0:
            return final_score(p, o, squares_on_board)
        return -solve_deep(
            o, p, -beta, -alpha, size, stats, keys, data, scratch, table, probe_keys, probe_data,
            no_weights, no_probcut,
        )  # fmt: skip
    odd = _parity_odd(empty, size)
    count = 0
    bits = moves
    while bits:
        sq = lowest_square(bits)
        bits &= bits - U1
        f = flips(p, o, sq)
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        if n >= ETC_EMPTIES:
            # Enhanced transposition cutoff: a child already proved good enough for us.
            cs = slot_of(no, np_, mask)
            for _ in range(2):
                if keys[cs, 0] == no and keys[cs, 1] == np_ and data[cs, TT_EMPTIES] == n - 1:
                    v = -int(data[cs, TT_UPPER])
                    if v >= beta:
                        return v
                cs ^= np.int64(1)
        if sq == tt_move:
            key = -2 * mid.INF
        elif n >= PATTERN_EMPTIES and size == 8:
            key = _order_probe(
                no, np_, PATTERN_DEPTHS[n], mid.EVAL_PATTERNS, size, stats, scratch, table,
                probe_keys, probe_data, no_weights, no_probcut,
            )  # fmt: skip
            key += PATTERN_MOBILITY_WEIGHT * popcount(legal_moves(no, np_))
        elif n >= PROBE_EMPTIES:
            key = _order_probe(
                no, np_, PROBE_DEPTHS[n], mid.EVAL_MOBILITY, size, stats, scratch, table,
                probe_keys, probe_data, no_weights, no_probcut,
            )  # fmt: skip
            key += MOBILITY_WEIGHT * popcount(legal_moves(no, np_) & board)
        else:
            key = _order_key(p, o, sq, f, odd, size)
        insert_move(scratch, n, count, sq, key, f)
        count += 1
    alpha0 = alpha
    best = -INF
    best_sq = scratch[n, SCRATCH_SQUARE]
    for i in range(count):
        sq = scratch[n, SCRATCH_SQUARE + i]
        f = np.uint64(scratch[n, SCRATCH_FLIPS + i])
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        a = max(alpha, best)
        if i == 0:
            v = -solve_deep(
                no, np_, -beta, -a, size, stats, keys, data, scratch, table, probe_keys, probe_data,
                no_weights, no_probcut,
            )  # fmt: skip
        else:
            v = -solve_deep(
                no, np_, -a - 1, -a, size, stats, keys, data, scratch, table, probe_keys,
                probe_data, no_weights, no_probcut,
            )  # fmt: skip
            if a < v < beta:
                v = -solve_deep(
                    no, np_, -beta, -v, size, stats, keys, data, scratch, table, probe_keys,
                    probe_data, no_weights, no_probcut,
                )  # fmt: skip
        if stats[2]:
            return 0
        if v > best:
            best = v
            best_sq = sq
            if v >= beta:
                break
    # Store the bound this search proved.
    keys[slot, 0] = p
    keys[slot, 1] = o
    data[slot, TT_EMPTIES] = n
    data[slot, TT_MOVE] = best_sq
    if best >= beta:
        data[slot, TT_LOWER] = best
        data[slot, TT_UPPER] = 64
    elif best <= alpha0:
        data[slot, TT_LOWER] = -64
        data[slot, TT_UPPER] = best
    else:
        data[slot, TT_LOWER] = best
        data[slot, TT_UPPER] = best
    return best


@numba.njit(cache=True)
def solve_moves(
    p: np.uint64,
    o: np.uint64,
    squares: np.ndarray,
    scores: np.ndarray,
    exact_all: bool,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
    probe_keys: np.ndarray,
    probe_data: np.ndarray,
    no_weights: np.ndarray,
    no_probcut: np.ndarray,
) -> int:
    """Score the root moves ``squares``; the index of the best. Exact for every move when
    ``exact_all``; otherwise exact for the best and an upper bound for the others."""
    best = -INF
    best_i = 0
    for i in range(squares.shape[0]):
        sq = squares[i]
        f = flips(p, o, sq)
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        if exact_all or i == 0:
            v = -solve_deep(
                no, np_, -64, 64, size, stats, keys, data, scratch, table, probe_keys, probe_data,
                no_weights, no_probcut,
            )  # fmt: skip
        else:
            v = -solve_deep(
                no, np_, -best - 1, -best, size, stats, keys, data, scratch, table, probe_keys,
                probe_data, no_weights, no_probcut,
            )  # fmt: skip
            if v > best:
                v = -solve_deep(
                    no, np_, -64, -v, size, stats, keys, data, scratch, table, probe_keys,
                    probe_data, no_weights, no_probcut,
                )  # fmt: skip
        if stats[2]:
            return -1
        scores[i] = v
        if v > best:
            best = v
            best_i = i
    return best_i


@numba.njit(cache=True)
def solve_root(
    p: np.uint64,
    o: np.uint64,
    squares: np.ndarray,
    bounds: np.ndarray,
    guess: int,
    size: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
    probe_keys: np.ndarray,
    probe_data: np.ndarray,
    no_weights: np.ndarray,
    no_probcut: np.ndarray,
) -> int:
    """The exact score of the root by a sequence of null-window probes (MTD(f) on even scores).

    Each probe tests one even value ``g`` with the window ``(g - 1, g + 1)``: it fails high (the
    score is at least the returned bound), fails low (at most) or returns ``g`` exactly; the
    next probe starts from the fail-soft bound, and the transposition table carries what earlier
    probes proved. ``squares`` (root moves) is reordered in place, best first; ``bounds[i]``
    receives an upper bound of move ``squares[i]`` (exact for the best, ``squares[0]``)."""
    count = squares.shape[0]
    for i in range(count):
        bounds[i] = 64
    lower = -64
    upper = 64
    g = guess
    best_i = 0
    while lower < upper:
        g = min(max(g, lower), upper)
        if g & 1:
            g -= 1
        alpha = g - 1
        beta = g + 1
        best = -INF
        probe_i = 0
        for i in range(count):
            sq = squares[i]
            f = flips(p, o, sq)
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            a = max(alpha, best)
            v = -solve_deep(
                no, np_, -beta, -a, size, stats, keys, data, scratch, table, probe_keys, probe_data,
                no_weights, no_probcut,
            )  # fmt: skip
            if stats[2]:
                return 0
            if v < beta:
                bounds[i] = min(bounds[i], v)
            if v > best:
                best = v
                probe_i = i
                if v >= beta:
                    break
        if best >= beta:
            lower = best
            best_i = probe_i
            g = best
        elif best <= alpha:
            upper = best
            g = best
        else:
            lower = best
            upper = best
            best_i = probe_i
        # The best move so far goes first for the next probe.
        if best_i != 0:
            sq = squares[best_i]
            b = bounds[best_i]
            for j in range(best_i, 0, -1):
                squares[j] = squares[j - 1]
                bounds[j] = bounds[j - 1]
            squares[0] = sq
            bounds[0] = b
            best_i = 0
    for i in range(count):
        bounds[i] = min(bounds[i], lower)
    bounds[0] = lower
    return lower
