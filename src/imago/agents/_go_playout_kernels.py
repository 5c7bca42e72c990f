# mypy: disable-error-code="no-any-return"
"""Private numba kernels: the "heavy" Go playout policy of the MCTS agent.

Each playout move is chosen in this order (the tactics computer Go found worth having first,
MoGo 2006 and its successors):

1. **capture**: an opponent group next to the last move (or the last move's own group) that is
   in atari is captured;
2. **atari escape**: an own group next to the last move that is in atari is saved by capturing
   an adjacent opponent group in atari, or by extending on its liberty when that leaves the
   group at least two liberties;
3. otherwise a uniformly random legal move that neither fills one's own true eye nor puts an
   own group of two or more stones into atari (single-stone self-ataris stay allowed: throw-ins
   and nakade need them); pass when no such move is left.

The kernels read the group fields of :mod:`imago.games.go.fastpath` state arrays (head, pseudo-
liberty count, sum and sum of squares, stone count: the layout documented by the rules'
kernels) and play only through the public :func:`~imago.games.go.fastpath.play` and
:func:`~imago.games.go.fastpath.check`. The random generator is the fast path's 1-element
xorshift state.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.games.go import fastpath as gf

# Offsets (in units of nn) of the group fields in a fastpath state array.
_HEAD = 1
_NEXT = 2
_LIBC = 3
_LIBS = 4
_LIBQ = 5
_GSIZE = 7
_EMPTIES = 8

POLICY_RANDOM = 0
POLICY_HEAVY = 1


@numba.njit(cache=True)
def rand_below(rng: np.ndarray, n: int) -> int:
    """A uniform integer in ``[0, n)`` from the xorshift64* state ``rng[0]``."""
    x = rng[0]
    x ^= (x >> 12) & 0x000FFFFFFFFFFFFF
    x ^= x << 25
    x ^= (x >> 27) & 0x0000001FFFFFFFFF
    rng[0] = x
    y = (x * 0x2545F4914F6CDD1D) >> 33
    return (y & 0x7FFFFFFF) % n


@numba.njit(cache=True)
def atari_liberty(s: np.ndarray, nn: int, p: int) -> int:
    """The only liberty of the group of the stone on ``p`` when it is in atari, else -1."""
    g = s[_HEAD * nn + p]
    c = s[_LIBC * nn + g]
    t = s[_LIBS * nn + g]
    if c > 0 and c * s[_LIBQ * nn + g] == t * t:
        return t // c
    return -1


@numba.njit(cache=True)
def neighbours(p: int, size: int, out: np.ndarray) -> int:
    """The on-board neighbours of ``p`` into ``out`` (4 slots); how many."""
    r = p // size
    c = p - r * size
    n = 0
    if r > 0:
        out[n] = p - size
        n += 1
    if r < size - 1:
        out[n] = p + size
        n += 1
    if c > 0:
        out[n] = p - 1
        n += 1
    if c < size - 1:
        out[n] = p + 1
        n += 1
    return n


@numba.njit(cache=True)
def playable(s: np.ndarray, size: int, p: int, color: int, suicide: bool) -> bool:
    """Legal under simple ko and not filling ``color``'s own true eye."""
    return gf.check(s, size, p, color, suicide) == gf.OK and not gf.is_true_eye(s, size, p, color)


@numba.njit(cache=True)
def self_atari(
    s: np.ndarray, size: int, p: int, color: int, suicide: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` playing the legal ``p`` leaves its group of two or more stones in
    atari (two empty neighbours, or no friendly neighbour, settle it without playing)."""
    nn = size * size
    nb = np.empty(4, dtype=np.int64)
    k = neighbours(p, size, nb)
    empties = 0
    friends = False
    for i in range(k):
        v = s[nb[i]]
        if v == 0:
            empties += 1
        elif v == color:
            friends = True
    if empties >= 2 or not friends:
        return False
    work[:] = s
    gf.play(work, size, p, color, suicide)
    if work[p] != color:
        return True  # suicide
    g = work[_HEAD * nn + p]
    return work[_GSIZE * nn + g] >= 2 and atari_liberty(work, nn, p) >= 0


@numba.njit(cache=True)
def _escape_keeps(
    s: np.ndarray, size: int, p: int, color: int, suicide: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` extending on ``p`` leaves the new group at least two liberties."""
    work[:] = s
    if gf.play(work, size, p, color, suicide) != gf.OK or work[p] != color:
        return False
    return atari_liberty(work, size * size, p) < 0


@numba.njit(cache=True)
def tactical_move(
    s: np.ndarray, size: int, color: int, suicide: bool, rng: np.ndarray, work: np.ndarray
) -> int:
    """A capture or atari escape answering the last move, chosen at random among those found;
    -1 when there is none."""
    nn = size * size
    h = 10 * nn
    last = s[h + gf.F_LAST]
    if last < 0 or last >= nn or s[last] == 0:
        return -1
    other = 3 - color
    cand = np.empty(16, dtype=np.int64)
    nc = 0
    nb = np.empty(5, dtype=np.int64)
    k = neighbours(last, size, nb)
    nb[k] = last
    # 1. capture opponent groups in atari at or next to the last move
    for i in range(k + 1):
        q = nb[i]
        if s[q] == other:
            lib = atari_liberty(s, nn, q)
            if lib >= 0 and nc < 16 and gf.check(s, size, lib, color, suicide) == gf.OK:
                cand[nc] = lib
                nc += 1
    if nc > 0:
        return cand[rand_below(rng, nc)]
    # 2. save own groups in atari next to the last move
    nb2 = np.empty(4, dtype=np.int64)
    for i in range(k):
        q = nb[i]
        if s[q] != color:
            continue
        lib = atari_liberty(s, nn, q)
        if lib < 0:
            continue
        # capture an opponent group in atari touching the threatened group
        g = s[_HEAD * nn + q]
        x = g
        while True:
            m = neighbours(x, size, nb2)
            for j in range(m):
                y = nb2[j]
                if s[y] == other:
                    lib2 = atari_liberty(s, nn, y)
                    if lib2 >= 0 and nc < 16 and gf.check(s, size, lib2, color, suicide) == gf.OK:
                        cand[nc] = lib2
                        nc += 1
            x = s[_NEXT * nn + x]
            if x == g:
                break
        if nc < 16 and _escape_keeps(s, size, lib, color, suicide, work):
            cand[nc] = lib
            nc += 1
    if nc > 0:
        return cand[rand_below(rng, nc)]
    return -1


@numba.njit(cache=True)
def heavy_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    rng: np.ndarray,
    buf: np.ndarray,
    work: np.ndarray,
) -> int:
    """The heavy policy's move for ``color`` (pass, ``size * size``, when nothing is left)."""
    nn = size * size
    h = 10 * nn
    a = tactical_move(s, size, color, suicide, rng, work)
    if a >= 0:
        return a
    n = s[h + gf.F_NEMPTY]
    for i in range(n):
        buf[i] = s[_EMPTIES * nn + i]
    while n > 0:
        i = rand_below(rng, n)
        p = buf[i]
        if playable(s, size, p, color, suicide) and not self_atari(
            s, size, p, color, suicide, work
        ):
            return p
        n -= 1
        buf[i] = buf[n]
    return nn


@numba.njit(cache=True)
def heavy_playout(
    s: np.ndarray,
    size: int,
    komi: float,
    suicide: bool,
    max_moves: int,
    rng: np.ndarray,
    first: np.ndarray,
) -> float:
    """Heavy-policy moves on ``s`` in place until two passes or ``max_moves``; records in
    ``first`` the colour that first played each point (when 0 before); returns Black - White -
    komi (area)."""
    nn = size * size
    h = 10 * nn
    buf = np.empty(nn, dtype=np.int64)
    work = np.empty_like(s)
    moves = 0
    while s[h + gf.F_PASSES] < 2 and moves < max_moves:
        color = s[h + gf.F_TO_PLAY]
        a = heavy_move(s, size, color, suicide, rng, buf, work)
        gf.play(s, size, a, color, suicide)
        if a < nn and first[a] == 0:
            first[a] = color
        moves += 1
    b, w = gf.area_score(s, size)
    return b - w - komi
