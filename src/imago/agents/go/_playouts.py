# mypy: disable-error-code="no-any-return"
"""Private numba kernels: the "heavy" Go playout policy of the MCTS agent.

Each playout move is chosen in this order (the tactics computer Go found worth having first,
MoGo 2006 and its successors):

1. **capture**: an opponent group next to the last move (or the last move's own group) that is
   in atari is captured;
2. **atari escape**: an own group next to the last move that is in atari is saved by capturing
   an adjacent opponent group in atari, or by extending on its liberty when that leaves the
   group at least two liberties;
3. **vital point**: when the last move borders an eye space of its group that has a killable
   shape, the point that leaves it one eye (:func:`vital_point_move`): the answer to the
   capture of a nakade sacrifice, or the defender's two eyes;
4. otherwise a uniformly random legal move that neither fills one's own true eye nor puts an
   own group of two or more stones into atari (the rules' fast path's
   :func:`~imago.games.go.fastpath.bad_self_atari`); pass when no such move is left. Two
   kinds of self-atari stay allowed: a single stone (throw-ins need it), and a **nakade
   sacrifice**: a group of up to six stones inside one opponent group, whose capture leaves
   that group an eye space of a killable shape
   (:func:`~imago.games.go.fastpath.nakade_sacrifice`). Without the second, a
   playout never kills a group whose eye space holds a few enemy stones, and counts it alive
   (or in seki): the misjudgement behind many of ``az``'s lost games against Pachi.

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
from imago.games.go.fastpath import (
    atari_liberty,
    bad_self_atari,
    empty_at,
    escape_keeps,
    group_head,
    group_size,
    nakade_shape,
    next_stone,
    vital_point,
)

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
def vital_point_move(s: np.ndarray, size: int, color: int, suicide: bool, buf: np.ndarray) -> int:
    """The vital point of an eye space next to the opponent's last move: an empty region of
    three to six points, every neighbour of it a stone of the last move's group (or off the
    board), with a :func:`~imago.games.go.fastpath.nakade_shape`: its
    :func:`~imago.games.go.fastpath.vital_point`, where
    ``color``'s stone leaves that eye space one eye. It answers the capture of a nakade
    sacrifice, and it is where the defender makes two eyes when the other side has not; -1
    when there is none. ``buf`` is scratch of ``size * size``."""
    nn = size * size
    last = s[gf.header(size) + gf.F_LAST]
    if last < 0 or last >= nn or s[last] != 3 - color:
        return -1
    head = group_head(s, nn, last)
    if group_size(s, nn, head) < 5:
        return -1  # too small to enclose three points (in the corner it takes five stones)
    for start in nbrs(last, size):
        if start < 0 or s[start] != 0:
            continue
        k = _enclosed_region(s, size, start, head, buf)
        if k < 3 or not nakade_shape(buf, k, size):
            continue
        vital = vital_point(buf, k, size)
        if playable(s, size, vital, color, suicide):
            return vital
    return -1


@numba.njit(cache=True)
def _enclosed_region(s: np.ndarray, size: int, start: int, head: int, buf: np.ndarray) -> int:
    """The empty region around ``start`` into ``buf`` when it has at most six points and every
    stone beside it belongs to the group of ``head``: its size; else 0."""
    nn = size * size
    buf[0] = start
    k = 1
    i = 0
    while i < k:
        x = buf[i]
        i += 1
        for y in nbrs(x, size):
            if y < 0:
                continue
            if s[y] != 0:
                if group_head(s, nn, y) != head:
                    return 0
                continue
            seen = False
            for j in range(k):
                seen = seen or buf[j] == y
            if not seen:
                if k == 6:
                    return 0
                buf[k] = y
                k += 1
    return k


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
    a = vital_point_move(s, size, color, suicide, buf)
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
    """A random sensible move for ``color`` that is no :func:`bad_self_atari` (pass,
    ``size * size``, when there is none); ``buf`` is scratch of ``size * size``."""
    nn = size * size
    n = s[gf.header(size) + gf.F_NEMPTY]
    for i in range(n):
        buf[i] = empty_at(s, nn, i)
    while n > 0:
        i = rand_below(rng, n)
        p = buf[i]
        if playable(s, size, p, color, suicide) and not bad_self_atari(
            s, size, p, color, suicide, work
        ):
            return p
        n -= 1
        buf[i] = buf[n]
    return nn
