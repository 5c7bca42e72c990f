# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the exact Othello endgame solver.

Negamax with alpha-beta over bitboards (see :mod:`imago.agents._othello_kernels`), in layers:

* ``solve_root``: the root by a sequence of null-window probes (MTD(f) over even scores),
  starting from a first guess (``estimate``: a shallow search with the pattern evaluation of
  :mod:`imago.agents._othello_patterns`, rounded to an even disc difference).
* ``solve_deep`` (more than ``SHALLOW`` empties): transposition table (bounds and best move),
  enhanced transposition cutoff from ``ETC_EMPTIES`` empties up (a child already stored with a
  good enough bound cuts before any search); moves ordered by the table move, then by a
  shallow probe plus the opponent's mobility: from ``PATTERN_EMPTIES`` up a search with the
  pattern evaluation (``PATTERN_DEPTHS``), from ``PROBE_EMPTIES`` up one with a cheap
  mobility / corner evaluation (``PROBE_DEPTHS``), below it fastest-first (fewest replies
  for the opponent, corners first); principal variation search with null windows, and a
  stability cutoff.
* ``solve_shallow`` (``SMALL`` < empties <= ``SHALLOW``): no table, fastest-first order.
* ``solve_small`` (<= ``SMALL`` empties): iterates over the empty squares in parity order
  (odd quadrants first; corners first and X / C squares last within a parity), no move
  generation; ``solve_3``, ``solve_2`` and ``solve_1`` take the empty squares as arguments,
  and ``solve_1`` counts the last move's flips without playing it.

Move lists live in a preallocated ``scratch`` array (one row per number of empties, see
:func:`new_scratch`), so the search allocates nothing per node.

Scores are final disc differences for the player to move, empties to the winner. ``table``
is the pattern evaluation's ``int32[stages, table]`` weights (hundredths of a disc); it
affects only the order of the search and the first guess, never the score.
``stats`` is an ``int64`` array: ``[nodes, node_limit (0 = none), aborted flag]``; when the node
limit is passed the search unwinds with meaningless values and sets ``stats[2]``.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents._othello_kernels import (
    C_SQUARES,
    CORNERS,
    QUADRANT,
    QUADRANT_MASK,
    U0,
    U1,
    X_SQUARES,
    final_score,
    flips,
    legal_moves,
    lowest_square,
    popcount,
    potential_mobility,
)
from imago.agents._othello_patterns import evaluate

SMALL = 6
SHALLOW = 9
INF = 127
PROBE_EMPTIES = 12
PROBE_DEPTHS = np.array([0] * 12 + [1] * 4 + [2] * 2 + [3] * 4 + [4] * 43, dtype=np.int64)
"""Depth of the cheap ordering probe by number of empties (``PROBE_EMPTIES`` up to
``PATTERN_EMPTIES - 1``; above, the pattern probe takes over)."""
PATTERN_EMPTIES = 18
"""From this many empties up the ordering probe is a pattern-evaluation search."""
PATTERN_DEPTHS = np.array([0] * 18 + [1] * 4 + [2] * 2 + [3] * 41, dtype=np.int64)
"""Depth of the pattern-evaluation probe by number of empties (from ``PATTERN_EMPTIES`` up)."""
GUESS_DEPTHS = np.array([6] * 22 + [8] * 43, dtype=np.int64)
"""Depth of the pattern-evaluation search that gives the root's first guess, by empties."""
ETC_EMPTIES = 10
MOBILITY_WEIGHT = 8
PATTERN_MOBILITY_WEIGHT = 100
"""Weight of the opponent's mobility beside the pattern probe (hundredths of a disc)."""
_NO_MOVE = -1

# Transposition table columns (int8 data beside two uint64 key words).
TT_LOWER = 0
TT_UPPER = 1
TT_MOVE = 2
TT_EMPTIES = 3
_HASH1 = np.uint64(0x9E3779B97F4A7C15)
_HASH2 = np.uint64(0xC2B2AE3D27D4EB4F)
_S29 = np.uint64(29)

# Square classes for the static order of the small solver: corners, then the rest, then the
# squares next to corners (X and C squares).
SQUARE_CLASS = np.array(
    [CORNERS, ~(CORNERS | X_SQUARES | C_SQUARES), X_SQUARES | C_SQUARES], dtype=np.uint64
)


def new_scratch() -> np.ndarray:
    """Per-depth move-ordering buffers (row = empties) so the search allocates nothing."""
    return np.zeros((65, 128), dtype=np.int64)


def new_table(bits: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of ``2**bits`` entries: ``(keys uint64[n, 2], data int8[n, 4])``."""
    n = 1 << bits
    keys = np.zeros((n, 2), dtype=np.uint64)
    data = np.zeros((n, 4), dtype=np.int8)
    data[:, TT_EMPTIES] = -1
    return keys, data


@numba.njit(cache=True, inline="always")
def _slot(p: np.uint64, o: np.uint64, mask: int) -> int:
    h = p * _HASH1 ^ o * _HASH2
    h ^= h >> _S29
    return np.int64(h & np.uint64(mask))


@numba.njit(cache=True)
def solve_1(p: np.uint64, o: np.uint64, sq: int, stats: np.ndarray) -> int:
    """The exact score with one empty square ``sq``."""
    stats[0] += 1
    np_ = popcount(p)
    f = flips(p, o, sq)
    if f:
        return 2 * np_ - 62 + 2 * popcount(f)
    f = flips(o, p, sq)
    if f:
        return 2 * np_ - 64 - 2 * popcount(f)
    diff = 2 * np_ - 63
    return diff + 1 if diff > 0 else diff - 1


@numba.njit(cache=True)
def _parity_odd(empty: np.uint64) -> np.uint64:
    odd = U0
    for q in range(4):
        if popcount(empty & QUADRANT_MASK[q]) & 1:
            odd |= QUADRANT_MASK[q]
    return odd


@numba.njit("int64(uint64, uint64, int64, int64, int64, int64, int64[::1])", cache=True)
def solve_2(
    p: np.uint64, o: np.uint64, alpha: int, beta: int, x1: int, x2: int, stats: np.ndarray
) -> int:
    """The exact score with the two empty squares ``x1``, ``x2`` (fail-soft)."""
    stats[0] += 1
    best = -INF
    f = flips(p, o, x1)
    if f:
        best = -solve_1(o ^ f, p | f | (U1 << np.uint64(x1)), x2, stats)
        if best >= beta:
            return best
    f = flips(p, o, x2)
    if f:
        v = -solve_1(o ^ f, p | f | (U1 << np.uint64(x2)), x1, stats)
        return v if v > best else best
    if best != -INF:
        return best
    # The player passes: the opponent's best reply is the player's worst score.
    stats[0] += 1
    worst = INF
    f = flips(o, p, x1)
    if f:
        worst = solve_1(p ^ f, o | f | (U1 << np.uint64(x1)), x2, stats)
        if worst <= alpha:
            return worst
    f = flips(o, p, x2)
    if f:
        v = solve_1(p ^ f, o | f | (U1 << np.uint64(x2)), x1, stats)
        return v if v < worst else worst
    if worst != INF:
        return worst
    return final_score(p, o)


@numba.njit("int64(uint64, uint64, int64, int64, int64, int64, int64, int64[::1])", cache=True)
def solve_3(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    x1: int,
    x2: int,
    x3: int,
    stats: np.ndarray,
) -> int:
    """The exact score with three empty squares, the one alone in its quadrant first."""
    stats[0] += 1
    # Parity order: a square sharing its quadrant with another one goes after the lone one.
    if QUADRANT[x1] == QUADRANT[x2]:
        x1, x3 = x3, x1
    elif QUADRANT[x1] == QUADRANT[x3]:
        x1, x2 = x2, x1
    best = -INF
    f = flips(p, o, x1)
    if f:
        best = -solve_2(o ^ f, p | f | (U1 << np.uint64(x1)), -beta, -alpha, x2, x3, stats)
        if best >= beta:
            return best
    f = flips(p, o, x2)
    if f:
        v = -solve_2(o ^ f, p | f | (U1 << np.uint64(x2)), -beta, -max(alpha, best), x1, x3, stats)
        if v > best:
            best = v
            if v >= beta:
                return best
    f = flips(p, o, x3)
    if f:
        v = -solve_2(o ^ f, p | f | (U1 << np.uint64(x3)), -beta, -max(alpha, best), x1, x2, stats)
        if v > best:
            best = v
    if best != -INF:
        return best
    # The player passes: the opponent's best reply is the player's worst score.
    stats[0] += 1
    worst = INF
    f = flips(o, p, x1)
    if f:
        worst = solve_2(p ^ f, o | f | (U1 << np.uint64(x1)), alpha, beta, x2, x3, stats)
        if worst <= alpha:
            return worst
    f = flips(o, p, x2)
    if f:
        v = solve_2(p ^ f, o | f | (U1 << np.uint64(x2)), alpha, min(beta, worst), x1, x3, stats)
        if v < worst:
            worst = v
            if v <= alpha:
                return v
    f = flips(o, p, x3)
    if f:
        v = solve_2(p ^ f, o | f | (U1 << np.uint64(x3)), alpha, min(beta, worst), x1, x2, stats)
        if v < worst:
            worst = v
    if worst != INF:
        return worst
    return final_score(p, o)


@numba.njit("int64(uint64, uint64, int64, int64, int64[::1])", cache=True)
def solve_small(p: np.uint64, o: np.uint64, alpha: int, beta: int, stats: np.ndarray) -> int:
    """Exact search with few empties, iterating over the empty squares in parity order (odd
    quadrants first), and within it corners first and X / C squares last."""
    empty = ~(p | o)
    n = popcount(empty)
    if n <= 3:
        if n == 3:
            x1 = lowest_square(empty)
            empty &= empty - U1
            x2 = lowest_square(empty)
            empty &= empty - U1
            return solve_3(p, o, alpha, beta, x1, x2, lowest_square(empty), stats)
        if n == 2:
            x1 = lowest_square(empty)
            empty &= empty - U1
            return solve_2(p, o, alpha, beta, x1, lowest_square(empty), stats)
        if n == 1:
            return solve_1(p, o, lowest_square(empty), stats)
        stats[0] += 1
        return final_score(p, o)
    stats[0] += 1
    best = -INF
    odd = _parity_odd(empty)
    for phase in range(6):
        bits = empty & odd if phase < 3 else empty & ~odd
        bits &= SQUARE_CLASS[phase % 3]
        while bits:
            sq = lowest_square(bits)
            bits &= bits - U1
            f = flips(p, o, sq)
            if f == U0:
                continue
            np_ = p | f | (U1 << np.uint64(sq))
            no = o ^ f
            v = -solve_small(no, np_, -beta, -max(alpha, best), stats)
            if v > best:
                best = v
                if v >= beta:
                    return v
    if best == -INF:
        if legal_moves(o, p) == U0:
            return final_score(p, o)
        return -solve_small(o, p, -beta, -alpha, stats)
    return best


@numba.njit(cache=True)
def _order_key(p: np.uint64, o: np.uint64, sq: int, f: np.uint64, odd: np.uint64) -> int:
    """Fastest-first: fewer opponent replies is better; corners and odd quadrants help."""
    np_ = p | f | (U1 << np.uint64(sq))
    no = o ^ f
    replies = legal_moves(no, np_)
    key = popcount(replies) * 16 + popcount(replies & CORNERS) * 16
    key += potential_mobility(no, np_) * 2
    bit = U1 << np.uint64(sq)
    if bit & CORNERS:
        key -= 24
    if bit & odd:
        key -= 4
    return key


@numba.njit(cache=True)
def _quick_eval(p: np.uint64, o: np.uint64) -> int:
    """A cheap midgame guess for move ordering: mobility, corners, potential mobility."""
    mp = legal_moves(p, o)
    mo = legal_moves(o, p)
    score = 8 * (popcount(mp) - popcount(mo))
    score += 24 * (popcount(p & CORNERS) - popcount(o & CORNERS))
    score += 8 * (popcount(mp & CORNERS) - popcount(mo & CORNERS))
    score += potential_mobility(p, o) - potential_mobility(o, p)
    return score


@numba.njit("int64(uint64, uint64, int64, int64, int64)", cache=True)
def _probe(p: np.uint64, o: np.uint64, depth: int, alpha: int, beta: int) -> int:
    """A shallow alpha-beta search with :func:`_quick_eval` at the leaves (ordering only)."""
    if depth == 0:
        return _quick_eval(p, o)
    moves = legal_moves(p, o)
    if moves == U0:
        if legal_moves(o, p) == U0:
            return final_score(p, o) * 64
        return -_probe(o, p, depth, -beta, -alpha)
    best = -100000
    while moves:
        sq = lowest_square(moves)
        moves &= moves - U1
        f = flips(p, o, sq)
        v = -_probe(o ^ f, p | f | (U1 << np.uint64(sq)), depth - 1, -beta, -max(alpha, best))
        if v > best:
            best = v
            if v >= beta:
                break
    return best


@numba.njit("int64(uint64, uint64, int64, int64, int64, int32[:, ::1])", cache=True)
def _probe_patterns(
    p: np.uint64, o: np.uint64, depth: int, alpha: int, beta: int, table: np.ndarray
) -> int:
    """A shallow alpha-beta search with the pattern evaluation (``table``, hundredths of a
    disc) at the leaves: for move ordering far from the end and the root's first guess."""
    moves = legal_moves(p, o)
    if depth == 0:
        return evaluate(p, o, moves, table)
    if moves == U0:
        if legal_moves(o, p) == U0:
            return final_score(p, o) * 100
        return -_probe_patterns(o, p, depth, -beta, -alpha, table)
    best = -100000
    while moves:
        sq = lowest_square(moves)
        moves &= moves - U1
        f = flips(p, o, sq)
        np_ = p | f | (U1 << np.uint64(sq))
        v = -_probe_patterns(o ^ f, np_, depth - 1, -beta, -max(alpha, best), table)
        if v > best:
            best = v
            if v >= beta:
                break
    return best


@numba.njit(cache=True)
def estimate(p: np.uint64, o: np.uint64, table: np.ndarray) -> int:
    """An estimate of the final disc difference for ``p`` (even, within -64..64): a
    pattern-evaluation search (``GUESS_DEPTHS`` plies), rounded."""
    depth = GUESS_DEPTHS[popcount(~(p | o))]
    v = _probe_patterns(p, o, depth, -100000, 100000, table)
    g = 2 * int(np.round(v / 200.0))
    return min(max(g, -64), 64)


@numba.njit("int64(uint64, uint64, int64, int64, int64[::1], int64[:, ::1])", cache=True)
def solve_shallow(
    p: np.uint64, o: np.uint64, alpha: int, beta: int, stats: np.ndarray, scratch: np.ndarray
) -> int:
    """Exact search for a moderate number of empties: no table, parity / fastest-first order."""
    empty = ~(p | o)
    n = popcount(empty)
    if n <= SMALL:
        return solve_small(p, o, alpha, beta, stats)
    stats[0] += 1
    moves = legal_moves(p, o)
    if moves == U0:
        if legal_moves(o, p) == U0:
            return final_score(p, o)
        return -solve_shallow(o, p, -beta, -alpha, stats, scratch)
    odd = _parity_odd(empty)
    squares = scratch[n, :64]
    keys = scratch[n, 64:]
    count = 0
    bits = moves
    while bits:
        sq = lowest_square(bits)
        bits &= bits - U1
        if n > 6:
            key = _order_key(p, o, sq, flips(p, o, sq), odd)
        else:
            key = 0 if (U1 << np.uint64(sq)) & odd else 1
        # Insertion sort, stable for ties.
        i = count
        while i > 0 and keys[i - 1] > key:
            keys[i] = keys[i - 1]
            squares[i] = squares[i - 1]
            i -= 1
        keys[i] = key
        squares[i] = sq
        count += 1
    best = -INF
    for i in range(count):
        sq = squares[i]
        f = flips(p, o, sq)
        np_ = p | f | (U1 << np.uint64(sq))
        no = o ^ f
        a = max(alpha, best)
        if i == 0:
            v = -solve_shallow(no, np_, -beta, -a, stats, scratch)
        else:
            v = -solve_shallow(no, np_, -a - 1, -a, stats, scratch)
            if a < v < beta:
                v = -solve_shallow(no, np_, -beta, -v, stats, scratch)
        if v > best:
            best = v
            if v >= beta:
                return v
    return best


@numba.njit(cache=True)
def _stable_lower(p: np.uint64, o: np.uint64) -> int:
    """How many of ``o``'s discs are surely stable: full edges and corner-anchored edge runs."""
    return popcount(_stable_bits(o, p))


@numba.njit(cache=True)
def _stable_bits(p: np.uint64, o: np.uint64) -> np.uint64:
    """Discs of ``p`` that can never flip: edge runs from corners, grown through full lines."""
    occupied = p | o
    # Full lines in each of the four directions.
    full_h = U0
    for r in range(8):
        row = np.uint64(0xFF) << np.uint64(8 * r)
        if occupied & row == row:
            full_h |= row
    full_v = U0
    for c in range(8):
        col = np.uint64(0x0101010101010101) << np.uint64(c)
        if occupied & col == col:
            full_v |= col
    full_d1 = U0
    full_d2 = U0
    for sq in range(64):
        bit = U1 << np.uint64(sq)
        if not occupied & bit:
            continue
        r, c = sq // 8, sq % 8
        ok = True
        rr, cc = r - min(r, c), c - min(r, c)
        while rr < 8 and cc < 8:
            if not (occupied >> np.uint64(rr * 8 + cc)) & U1:
                ok = False
                break
            rr += 1
            cc += 1
        if ok:
            full_d1 |= bit
        ok = True
        k = min(r, 7 - c)
        rr, cc = r - k, c + k
        while rr < 8 and cc >= 0:
            if not (occupied >> np.uint64(rr * 8 + cc)) & U1:
                ok = False
                break
            rr += 1
            cc -= 1
        if ok:
            full_d2 |= bit
    stable = p & CORNERS
    if stable == U0:
        return stable
    # Grow: a disc is stable if in each of the four line directions it is on a full line, on
    # the edge beyond, or next to a stable own disc.
    candidates = p & ~stable
    changed = True
    while changed:
        changed = False
        bits = candidates
        while bits:
            sq = lowest_square(bits)
            bits &= bits - U1
            r, c = sq // 8, sq % 8
            bit = U1 << np.uint64(sq)
            ok = True
            for d in range(4):
                if d == 0:
                    full = full_h
                    dr, dc = 0, 1
                elif d == 1:
                    full = full_v
                    dr, dc = 1, 0
                elif d == 2:
                    full = full_d1
                    dr, dc = 1, 1
                else:
                    full = full_d2
                    dr, dc = 1, -1
                if full & bit:
                    continue
                good = False
                for sgn in (1, -1):
                    rr, cc = r + sgn * dr, c + sgn * dc
                    if rr < 0 or rr > 7 or cc < 0 or cc > 7:
                        good = True
                        break
                    if (stable >> np.uint64(rr * 8 + cc)) & U1:
                        good = True
                        break
                if not good:
                    ok = False
                    break
            if ok:
                stable |= bit
                candidates &= ~bit
                changed = True
    return stable


@numba.njit(
    "int64(uint64, uint64, int64, int64, int64[::1], uint64[:, ::1], int8[:, ::1], int64[:, ::1],"
    " int32[:, ::1])",
    cache=True,
)
def solve_deep(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
) -> int:
    """Exact search with a transposition table, fastest-first order, PVS, stability cutoff."""
    empty = ~(p | o)
    n = popcount(empty)
    if n <= SHALLOW:
        return solve_shallow(p, o, alpha, beta, stats, scratch)
    stats[0] += 1
    if stats[1] > 0 and stats[0] > stats[1]:
        stats[2] = 1
        return 0
    # Stability cutoff: the opponent's stable discs bound the player's best score (only worth
    # computing when the opponent has few enough discs for it to matter).
    if 64 - 2 * popcount(o) <= alpha:
        top = 64 - 2 * _stable_lower(p, o)
        if top <= alpha:
            return top
        if top < beta:
            beta = top
    mask = keys.shape[0] - 1
    slot = _slot(p, o, mask)
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
    moves = legal_moves(p, o)
    if moves == U0:
        if legal_moves(o, p) == U0:
            return final_score(p, o)
        return -solve_deep(o, p, -beta, -alpha, stats, keys, data, scratch, table)
    odd = _parity_odd(empty)
    squares = scratch[n, :64]
    order = scratch[n, 64:]
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
            cs = _slot(no, np_, mask)
            for _ in range(2):
                if keys[cs, 0] == no and keys[cs, 1] == np_ and data[cs, TT_EMPTIES] == n - 1:
                    v = -int(data[cs, TT_UPPER])
                    if v >= beta:
                        return v
                cs ^= np.int64(1)
        if sq == tt_move:
            key = -1000000
        elif n >= PATTERN_EMPTIES:
            key = _probe_patterns(no, np_, PATTERN_DEPTHS[n], -100000, 100000, table)
            key += PATTERN_MOBILITY_WEIGHT * popcount(legal_moves(no, np_))
        elif n >= PROBE_EMPTIES:
            key = _probe(no, np_, PROBE_DEPTHS[n], -100000, 100000)
            key += MOBILITY_WEIGHT * popcount(legal_moves(no, np_))
        else:
            key = _order_key(p, o, sq, f, odd)
        i = count
        while i > 0 and order[i - 1] > key:
            order[i] = order[i - 1]
            squares[i] = squares[i - 1]
            i -= 1
        order[i] = key
        squares[i] = sq
        count += 1
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
            v = -solve_deep(no, np_, -beta, -a, stats, keys, data, scratch, table)
        else:
            v = -solve_deep(no, np_, -a - 1, -a, stats, keys, data, scratch, table)
            if a < v < beta:
                v = -solve_deep(no, np_, -beta, -v, stats, keys, data, scratch, table)
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
def solve(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
) -> int:
    """The exact score within ``(alpha, beta)`` (fail-soft bounds outside it)."""
    return solve_deep(p, o, alpha, beta, stats, keys, data, scratch, table)


@numba.njit(cache=True)
def solve_moves(
    p: np.uint64,
    o: np.uint64,
    squares: np.ndarray,
    scores: np.ndarray,
    exact_all: bool,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
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
            v = -solve_deep(no, np_, -64, 64, stats, keys, data, scratch, table)
        else:
            v = -solve_deep(no, np_, -best - 1, -best, stats, keys, data, scratch, table)
            if v > best:
                v = -solve_deep(no, np_, -64, -v, stats, keys, data, scratch, table)
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
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
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
            v = -solve_deep(no, np_, -beta, -a, stats, keys, data, scratch, table)
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
