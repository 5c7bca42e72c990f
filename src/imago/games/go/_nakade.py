# mypy: disable-error-code="no-any-return"
"""Private numba kernels of the Go rules: nakade, the eye spaces that cannot make two eyes.

:func:`nakade_shape` tells the killable shapes of an eye space, :func:`nakade_sacrifice` the
self-atari that leaves one of them behind when it is captured, and :func:`vital_point` the
point of a shape where a stone leaves it one eye. Both playout policies use them: the end-of-
game count's (:mod:`imago.games.go._count_playouts`), so that a group killed by a sacrifice is
counted dead, and the search's (through the checked versions on
:mod:`imago.games.go.fastpath`). State arrays are those of :mod:`imago.games.go._board`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.games.go._board import (
    OK,
    _neighbors,
    atari_liberty,
    first_meeting,
    group_head,
    group_size,
    next_stone,
    play,
)


@njit(cache=True, inline="always")
def _degree(points: np.ndarray, k: int, p: int, size: int) -> int:
    """How many of ``points[:k]`` are beside the point ``p``."""
    r = p // size
    c = p - r * size
    degree = 0
    for j in range(k):
        q = points[j]
        qr = q // size
        if abs(qr - r) + abs(q - qr * size - c) == 1:
            degree += 1
    return degree


@njit(cache=True)
def nakade_shape(points: np.ndarray, k: int, size: int) -> bool:
    """Whether the ``k`` distinct points ``points[:k]`` form an eye space that cannot make two
    eyes once its attacker plays the vital point: the classic nakade shapes. Every shape of
    one to three points; of four, the square and the pyramid (a point with three neighbours in
    the shape); of five, the bulky five (the one pentomino holding a 2x2 square) and the
    crossed five (a point with four neighbours); of six, the rabbity six (both). Straight and
    bent fours, the other fives and sixes, and anything larger make two eyes."""
    if k <= 3:
        return k >= 1
    if k > 6:
        return False
    most = 0
    square = False
    for i in range(k):
        p = points[i]
        most = max(most, _degree(points, k, p, size))
        right = down = corner = False
        for j in range(k):
            q = points[j]
            right = right or (q == p + 1 and q % size != 0)
            down = down or q == p + size
            corner = corner or (q == p + size + 1 and q % size != 0)
        square = square or (right and down and corner)
    if k == 4:
        return square or most == 3
    if k == 5:
        return square or most == 4
    return square and most == 4


@njit(cache=True)
def vital_point(points: np.ndarray, k: int, size: int) -> int:
    """The vital point of the eye space ``points[:k]`` (``k >= 1``): the first of its points
    with the most neighbours among them."""
    best = points[0]
    most = -1
    for i in range(k):
        p = points[i]
        degree = _degree(points, k, p, size)
        if degree > most:
            most = degree
            best = p
    return best


@njit(cache=True, inline="always")
def _may_enclose(s: np.ndarray, size: int, p: int, color: int) -> bool:
    """What :func:`nakade_sacrifice` can tell without playing ``p``: the group it makes has at
    most six stones, and the opponent's stones beside ``p`` that it does not capture are of one
    group (they stay beside the sacrificed group, which one group must enclose)."""
    nn = size * size
    other = 3 - color
    g0 = g1 = g2 = -1  # the groups counted (a fourth neighbour has only these to repeat)
    stones = 1
    enclosing = -1
    for q in _neighbors(p, size):
        if q < 0:
            continue
        if s[q] == color:
            g = group_head(s, nn, q)
            new, g0, g1, g2 = first_meeting(g, g0, g1, g2)
            if new:
                stones += group_size(s, nn, g)
        elif s[q] == other and atari_liberty(s, nn, q) != p:
            head = group_head(s, nn, q)
            if enclosing >= 0 and head != enclosing:
                return False
            enclosing = head
    return stones <= 6


@njit(cache=True)
def nakade_sacrifice(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` playing the legal ``p`` puts a group of two to six stones into atari
    inside one opponent group (every neighbour of the group but its last liberty, and every
    neighbour of that liberty but the group, is a stone of that one group, or off the board),
    so that its capture leaves that group a :func:`nakade_shape` for an eye space: the
    sacrifice that kills. Plays the move on ``work`` (as long as ``s``)."""
    if not _may_enclose(s, size, p, color):
        return False
    nn = size * size
    other = 3 - color
    work[: s.shape[0]] = s
    if play(work, size, p, color, suicide_allowed) != OK or work[p] != color:
        return False
    lib = atari_liberty(work, nn, p)
    g = group_head(work, nn, p)
    k = group_size(work, nn, g)
    if lib < 0 or k < 2 or k > 6:
        return False
    points = np.empty(6, dtype=np.int64)
    enclosing = -1
    x = g
    for i in range(k):
        points[i] = x
        for y in _neighbors(x, size):
            if y < 0 or y == lib or work[y] == color:
                continue
            if work[y] != other:
                return False  # an empty point beside the group: not its last liberty
            head = group_head(work, nn, y)
            if enclosing >= 0 and head != enclosing:
                return False
            enclosing = head
        x = next_stone(work, nn, x)
    for y in _neighbors(lib, size):
        if y < 0 or (work[y] == color and group_head(work, nn, y) == g):
            continue
        if work[y] != other or group_head(work, nn, y) != enclosing:
            return False
    return nakade_shape(points, k, size)
