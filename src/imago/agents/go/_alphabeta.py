# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the Go alpha-beta search over :mod:`imago.games.go.fastpath` arrays.

The evaluation is 001's small-board heuristic: a score estimate (stones plus empty points next
to one colour only, komi included; the exact area count at the end of the game),
plus liberties (groups short of liberties are penalised; the rules count them,
:func:`imago.games.go.fastpath.liberties`) and, in the early game, position (the third and
fourth lines preferred to the edge). Values are from the side to move's point of
view, 100 to a point; a finished game (two passes) is worth ``WIN`` plus the score.

``stats`` is ``int64[3]``: ``[nodes, node_limit (0 = none), aborted]``; the table is
:mod:`imago.agents._table`'s, keyed by the position's Zobrist key (and 0), its slot the key's
low bits.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents._table import probe, store
from imago.games.go import fastpath as gf

WIN = 1_000_000
POINT = 100
INF = 10_000_000
EARLY_MOVES = 20
U0 = np.uint64(0)


@numba.njit(cache=True)
def _liberty_penalty(board: np.ndarray, size: int) -> int:
    """Black's penalty for groups short of liberties less White's: 4 a stone of a group with
    one liberty, 1 a stone of a group with two."""
    counts = np.empty(size * size, dtype=np.int64)
    gf.liberties(board, size, counts)
    penalty = 0
    for q in range(size * size):
        weight = 4 if counts[q] == 1 else (1 if counts[q] == 2 else 0)
        if board[q] == 1:
            penalty += weight
        elif board[q] == 2:
            penalty -= weight
    return penalty


@numba.njit(cache=True)
def _line_bonus(board: np.ndarray, size: int, color: int) -> int:
    """Stones on the third and fourth lines score, on the first line lose (early game)."""
    bonus = 0
    for q in range(size * size):
        if board[q] != color:
            continue
        r, c = q // size, q % size
        line = min(r, c, size - 1 - r, size - 1 - c)
        if line == 0:
            bonus -= 2
        elif line == 2 or line == 3:
            bonus += 1
    return bonus


@numba.njit(cache=True)
def estimate_score(board: np.ndarray, size: int) -> int:
    """Stones, plus empty points whose neighbours hold stones of one colour only (Black minus
    White). Unlike the area count it does not give a lone stone the whole empty board."""
    score = 0
    for q in range(size * size):
        v = board[q]
        if v == 1:
            score += 1
        elif v == 2:
            score -= 1
        else:
            seen = 0
            r, c = q // size, q % size
            if r > 0:
                seen |= 1 << board[q - size]
            if r < size - 1:
                seen |= 1 << board[q + size]
            if c > 0:
                seen |= 1 << board[q - 1]
            if c < size - 1:
                seen |= 1 << board[q + 1]
            seen &= 6
            if seen == 2:
                score += 1
            elif seen == 4:
                score -= 1
    return score


@numba.njit(cache=True)
def evaluate(s: np.ndarray, size: int, komi: float) -> int:
    """The static evaluation for the side to move."""
    h = 10 * size * size
    color = s[h + gf.F_TO_PLAY]
    score = int((estimate_score(s[: size * size], size) - komi) * POINT)
    board = s[: size * size]
    if s[h + gf.F_MOVES] < EARLY_MOVES:
        score -= 30 * _liberty_penalty(board, size)
        score += 20 * (_line_bonus(board, size, 1) - _line_bonus(board, size, 2))
    else:
        score -= 60 * _liberty_penalty(board, size)
    return score if color == 1 else -score


@numba.njit(cache=True)
def terminal_value(s: np.ndarray, size: int, komi: float) -> int:
    """The value of a game ended by two passes, for the side to move."""
    h = 10 * size * size
    b, w = gf.area_score(s, size)
    score = b - w - komi
    value = (
        WIN + int(score * POINT) if score > 0 else (-WIN + int(score * POINT) if score < 0 else 0)
    )
    return value if s[h + gf.F_TO_PLAY] == 1 else -value


@numba.njit(cache=True)
def _position_key(s: np.ndarray, size: int) -> int:
    h = 10 * size * size
    return s[h + gf.F_HASH] ^ (gf.ZOBRIST_WHITE_TO_PLAY if s[h + gf.F_TO_PLAY] == 2 else 0)


@numba.njit(cache=True)
def _order(
    s: np.ndarray, size: int, actions: np.ndarray, n: int, first: int, out: np.ndarray
) -> None:
    """Order ``actions[:n]`` into ``out``: ``first``, then by line (centre first), pass last."""
    keys = np.empty(n, dtype=np.int64)
    nn = size * size
    for i in range(n):
        a = actions[i]
        if a == first:
            key = 1000
        elif a == nn:
            key = -1000
        else:
            r, c = a // size, a % size
            line = min(r, c, size - 1 - r, size - 1 - c)
            key = min(line, 3) * 10 - (30 if line == 0 else 0)
        j = i
        while j > 0 and keys[j - 1] < key:
            keys[j] = keys[j - 1]
            out[j] = out[j - 1]
            j -= 1
        keys[j] = key
        out[j] = a


@numba.njit(
    "int64(int64[::1], int64, float64, boolean, int64, int64[::1], int64, int64, int64, int64,"
    " int64, int64[::1], uint64[:, ::1], int64[:, ::1])",
    cache=True,
)
def negamax(
    s: np.ndarray,
    size: int,
    komi: float,
    suicide: bool,
    ko_mode: int,
    history: np.ndarray,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    top_k: int,
    stats: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
) -> int:
    """Alpha-beta (fail-soft PVS) to ``depth`` over sensible moves (no own-eye filling) and pass;
    below the root only the ``top_k`` best-ordered moves when ``top_k > 0``."""
    stats[0] += 1
    if stats[1] > 0 and stats[0] > stats[1]:
        stats[2] = 1
        return 0
    h = 10 * size * size
    if s[h + gf.F_PASSES] >= 2:
        return terminal_value(s, size, komi)
    if depth <= 0:
        return evaluate(s, size, komi)
    key = _position_key(s, size)
    slot = key & (keys.shape[0] - 1)
    ukey = np.uint64(key)
    tt_move, cut, value = probe(ukey, U0, slot, depth, alpha, beta, keys, data)
    if cut:
        return value
    nn = size * size
    color = s[h + gf.F_TO_PLAY]
    actions = np.empty(nn + 1, dtype=np.int64)
    n = gf.sensible_actions(s, size, color, suicide, ko_mode, history, actions)
    if n == 0 or actions[n - 1] != nn:
        actions[n] = nn
        n += 1
    ordered = np.empty(n, dtype=np.int64)
    _order(s, size, actions, n, tt_move, ordered)
    count = n
    if top_k > 0 and ply >= 1 and count > top_k:
        count = top_k
    alpha0 = alpha
    best = -INF
    best_a = ordered[0]
    child = np.empty_like(s)
    for i in range(count):
        a = ordered[i]
        child[:] = s
        if gf.play(child, size, a, color, suicide) != gf.OK:
            continue
        lo = max(alpha, best)
        if i == 0:
            v = -negamax(
                child,
                size,
                komi,
                suicide,
                ko_mode,
                history,
                depth - 1,
                -beta,
                -lo,
                ply + 1,
                top_k,
                stats,
                keys,
                data,
            )
        else:
            v = -negamax(
                child,
                size,
                komi,
                suicide,
                ko_mode,
                history,
                depth - 1,
                -lo - 1,
                -lo,
                ply + 1,
                top_k,
                stats,
                keys,
                data,
            )
            if lo < v < beta:
                v = -negamax(
                    child,
                    size,
                    komi,
                    suicide,
                    ko_mode,
                    history,
                    depth - 1,
                    -beta,
                    -v,
                    ply + 1,
                    top_k,
                    stats,
                    keys,
                    data,
                )
        if stats[2]:
            return 0
        if v > best:
            best = v
            best_a = a
            if v >= beta:
                break
    store(ukey, U0, slot, depth, best, best_a, alpha0, beta, keys, data)
    return best
