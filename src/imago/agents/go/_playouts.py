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
:func:`~imago.games.go.fastpath.check`. The random generator is :mod:`imago.core.rng` on the
fast path's 1-element state.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.core.rng import rand_below
from imago.games.go import fastpath as gf
from imago.games.go.fastpath import atari_liberty, empty_at, group_head, group_size, next_stone

POLICY_RANDOM = 0
POLICY_HEAVY = 1


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


@numba.njit(cache=True, inline="always")
def nbrs(p: int, size: int) -> tuple[int, int, int, int]:
    """The four neighbours of ``p`` (up, down, left, right), -1 where off the board."""
    r = p // size
    c = p - r * size
    return (
        p - size if r > 0 else -1,
        p + size if r < size - 1 else -1,
        p - 1 if c > 0 else -1,
        p + 1 if c < size - 1 else -1,
    )


@numba.njit(cache=True)
def playable(s: np.ndarray, size: int, p: int, color: int, suicide: bool) -> bool:
    """Legal under simple ko and not filling ``color``'s own true eye."""
    return gf.check(s, size, p, color, suicide) == gf.OK and not gf.is_true_eye(s, size, p, color)


@numba.njit(cache=True)
def self_atari(
    s: np.ndarray, size: int, p: int, color: int, suicide: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` playing the legal ``p`` leaves its group of two or more stones in
    atari (two empty neighbours, or no friendly neighbour, settle it without playing). Without
    a capture the liberties are counted by walking the friendly groups; a capture plays the
    move on ``work``."""
    nn = size * size
    other = 3 - color
    empties = 0
    friends = False
    lib = -1
    for q in nbrs(p, size):
        if q < 0:
            continue
        v = s[q]
        if v == 0:
            empties += 1
            lib = q
        elif v == color:
            friends = True
    if empties >= 2 or not friends:
        return False
    for q in nbrs(p, size):
        if q >= 0 and s[q] == other and atari_liberty(s, nn, q) == p:
            work[:] = s  # a capture: play it out
            gf.play(work, size, p, color, suicide)
            if work[p] != color:
                return True  # suicide
            g = group_head(work, nn, p)
            return group_size(work, nn, g) >= 2 and atari_liberty(work, nn, p) >= 0
    g0 = -1
    g1 = -1
    g2 = -1
    for q in nbrs(p, size):
        if q < 0 or s[q] != color:
            continue
        g = group_head(s, nn, q)
        if g == g0 or g == g1 or g == g2:  # noqa: SIM109 (plain compares for numba)
            continue
        if g0 < 0:
            g0 = g
        elif g1 < 0:
            g1 = g
        else:
            g2 = g
        x = g
        while True:
            for y in nbrs(x, size):
                if y >= 0 and s[y] == 0 and y != p and y != lib:
                    if lib >= 0:
                        return False  # a second liberty
                    lib = y
            x = next_stone(s, nn, x)
            if x == g:
                break
    return True


@numba.njit(cache=True)
def escape_keeps(
    s: np.ndarray, size: int, p: int, color: int, suicide: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` extending on ``p`` leaves the new group at least two liberties."""
    work[:] = s
    if gf.play(work, size, p, color, suicide) != gf.OK or work[p] != color:
        return False
    return atari_liberty(work, size * size, p) < 0


@numba.njit(cache=True, inline="always")
def _capture_point(s: np.ndarray, size: int, q: int, color: int, suicide: bool) -> int:
    """The point where ``color`` captures the group on ``q`` when it is in atari, else -1."""
    lib = atari_liberty(s, size * size, q)
    if lib >= 0 and gf.check(s, size, lib, color, suicide) == gf.OK:
        return lib
    return -1


@numba.njit(cache=True)
def tactical_move(
    s: np.ndarray, size: int, color: int, suicide: bool, rng: np.ndarray, work: np.ndarray
) -> int:
    """A capture or atari escape answering the last move, chosen at random among those found
    (reservoir sampling, no allocation); -1 when there is none."""
    nn = size * size
    h = gf.header(size)
    last = s[h + gf.F_LAST]
    if last < 0 or last >= nn or s[last] == 0:
        return -1
    other = 3 - color
    choice = -1
    nc = 0
    # 1. capture opponent groups in atari at or next to the last move
    if s[last] == other:
        lib = _capture_point(s, size, last, color, suicide)
        if lib >= 0:
            nc = 1
            choice = lib
    for q in nbrs(last, size):
        if q >= 0 and s[q] == other:
            lib = _capture_point(s, size, q, color, suicide)
            if lib >= 0:
                nc += 1
                if rand_below(rng, nc) == 0:
                    choice = lib
    if nc > 0:
        return choice
    # 2. save own groups in atari next to the last move
    for q in nbrs(last, size):
        if q < 0 or s[q] != color:
            continue
        lib = atari_liberty(s, nn, q)
        if lib < 0:
            continue
        # capture an opponent group in atari touching the threatened group
        g = group_head(s, nn, q)
        x = g
        while True:
            for y in nbrs(x, size):
                if y >= 0 and s[y] == other:
                    lib2 = _capture_point(s, size, y, color, suicide)
                    if lib2 >= 0:
                        nc += 1
                        if rand_below(rng, nc) == 0:
                            choice = lib2
            x = next_stone(s, nn, x)
            if x == g:
                break
        if escape_keeps(s, size, lib, color, suicide, work):
            nc += 1
            if rand_below(rng, nc) == 0:
                choice = lib
    return choice if nc > 0 else -1


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
    a = tactical_move(s, size, color, suicide, rng, work)
    if a >= 0:
        return a
    return safe_random_move(s, size, color, suicide, rng, buf, work)


@numba.njit(cache=True)
def safe_random_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    rng: np.ndarray,
    buf: np.ndarray,
    work: np.ndarray,
) -> int:
    """A random sensible move for ``color`` that is no self-atari of a group of two or more
    stones (pass, ``size * size``, when there is none); ``buf`` is scratch of ``size * size``."""
    nn = size * size
    n = s[gf.header(size) + gf.F_NEMPTY]
    for i in range(n):
        buf[i] = empty_at(s, nn, i)
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
