# mypy: disable-error-code="no-any-return"
"""Private numba kernels: Go knowledge for the MCTS agent, 3x3 shape patterns, the "pattern"
playout policy and prior knowledge at node expansion.

**3x3 patterns.** A point's neighbourhood is coded in 16 bits, two per neighbour in the order
NW, N, NE, W, E, SW, S, SE (0 empty, 1 black, 2 white, 3 off the board). :func:`pattern_table`
marks the codes that match one of :data:`PATTERNS` (hane, cuts, edge blocks in the spirit of
MoGo's playout patterns, Gelly et al. 2006) under any of the 8 symmetries and with either
colour as ``X``, so one table serves both players; :func:`code3x3` computes a code in numba.

**Pattern playout policy** (``POLICY_PATTERN``), in :mod:`imago.agents.go._playouts`' terms:
the heavy policy's capture and atari escape answering the last move (``tactical_move``), else
the vital point of a killable eye space beside the last move (``vital_point_move``), else a
random point among the last move's 8 neighbours that matches a pattern and is no bad
self-atari, else a random sensible move that is no bad self-atari (the fast path's
``bad_self_atari``: a self-atari of two or more stones that is no nakade sacrifice).

**Priors** (:func:`node_priors`): when the tree adds a node, each child edge's AMAF
statistics start with virtual visits and wins (prior knowledge as in MoGo, Fuego and Pachi;
under MC-RAVE an edge is judged by its AMAF value until its own visits take over, so the
prior steers the first visits and then washes out, and the edge's own visit count and win
rate stay pure): an even-game prior for every move, bonuses for captures, atari escapes,
pattern moves and moves near the last move, penalties for self-atari and for first- and
second-line moves far from every stone. Pass gets none.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
import numpy.typing as npt

from imago.agents.go._playouts import (
    neighbours,
    playable,
    safe_random_move,
    tactical_move,
    vital_point_move,
)
from imago.core.rng import rand_below
from imago.games.go import fastpath as gf
from imago.games.go.fastpath import atari_liberty, bad_self_atari, escape_keeps

POLICY_PATTERN = 2


PATTERNS = (
    # hane and contact answers (X, O: either colour; x: not X; o: not O; #: off the board;
    # ?: anything; the centre is the move)
    ("XOX", "...", "???"),
    ("XO.", "...", "?.?"),
    ("XO?", "X..", "x.?"),
    ("XOO", "...", "?.?"),
    # cutting points
    ("XO?", "O.o", "?o?"),
    ("?X?", "O.O", "ooo"),
    # on the first line
    ("X.?", "O.?", "###"),
    ("?X?", "o.O", "###"),
    ("?OX", "X.O", "###"),
)
"""The 3x3 shapes, rows top to bottom, in their canonical orientation."""

# (row, col) offsets of the 8 neighbours in code order
_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _variants(pattern: tuple[str, str, str]) -> list[list[list[str]]]:
    """The 8 symmetries of ``pattern`` as 3x3 character grids."""
    grid = [list(row) for row in pattern]
    out = []
    for _ in range(4):
        grid = [list(row) for row in zip(*grid[::-1], strict=True)]  # rotate 90 degrees
        out.append(grid)
        out.append([row[::-1] for row in grid])  # and its mirror image
    return out


def _allowed(char: str, x: int) -> set[int]:
    o = 3 - x
    return {
        "X": {x},
        "O": {o},
        ".": {0},
        "#": {3},
        "x": {0, o, 3},
        "o": {0, x, 3},
        "?": {0, 1, 2, 3},
    }[char]


@functools.cache
def pattern_table() -> npt.NDArray[np.bool_]:
    """The 65,536 neighbourhood codes, ``True`` where a pattern of :data:`PATTERNS` matches."""
    codes = np.arange(1 << 16)
    values = np.stack([(codes >> (2 * i)) & 3 for i in range(8)], axis=1)
    table = np.zeros(1 << 16, dtype=np.bool_)
    for pattern in PATTERNS:
        for grid in _variants(pattern):
            for x in (1, 2):
                match = np.ones(1 << 16, dtype=np.bool_)
                for i, (dr, dc) in enumerate(_OFFSETS):
                    allowed = list(_allowed(grid[1 + dr][1 + dc], x))
                    match &= np.isin(values[:, i], allowed)
                table |= match
    return table


@numba.njit(cache=True)
def code3x3(s: np.ndarray, size: int, p: int) -> int:
    """The 16-bit neighbourhood code of ``p`` (see the module docstring)."""
    r = p // size
    c = p - r * size
    code = 0
    shift = 0
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if dr == 0 and dc == 0:
                continue
            rr = r + dr
            cc = c + dc
            off = rr < 0 or rr >= size or cc < 0 or cc >= size
            v = 3 if off else s[rr * size + cc]
            code |= v << shift
            shift += 2
    return code


@numba.njit(cache=True)
def pattern_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    rng: np.ndarray,
    work: np.ndarray,
    table: np.ndarray,
    cand: np.ndarray,
) -> int:
    """A random empty neighbour of the last move that matches a pattern, is playable and is no
    self-atari; -1 when there is none. ``cand`` is scratch space (8 slots at least)."""
    nn = size * size
    last = s[gf.header(size) + gf.F_LAST]
    if last < 0 or last >= nn:
        return -1
    r = last // size
    c = last - r * size
    nc = 0
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            rr = r + dr
            cc = c + dc
            if (dr == 0 and dc == 0) or rr < 0 or rr >= size or cc < 0 or cc >= size:
                continue
            p = rr * size + cc
            if s[p] == 0 and table[code3x3(s, size, p)]:
                cand[nc] = p
                nc += 1
    while nc > 0:
        i = rand_below(rng, nc)
        p = cand[i]
        if playable(s, size, p, color, suicide) and not bad_self_atari(
            s, size, p, color, suicide, work
        ):
            return p
        nc -= 1
        cand[i] = cand[nc]
    return -1


@numba.njit(cache=True)
def pattern_policy_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    rng: np.ndarray,
    buf: np.ndarray,
    work: np.ndarray,
    table: np.ndarray,
) -> int:
    """The pattern policy's move for ``color`` (pass, ``size * size``, when nothing is left)."""
    a = tactical_move(s, size, color, suicide, rng, work)
    if a >= 0:
        return a
    a = vital_point_move(s, size, color, suicide, buf)
    if a >= 0:
        return a
    a = pattern_move(s, size, color, suicide, rng, work, table, buf)
    if a >= 0:
        return a
    return safe_random_move(s, size, color, suicide, rng, buf, work)


# -- priors -------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _self_atari_stones(
    s: np.ndarray, size: int, p: int, color: int, suicide: bool, work: np.ndarray
) -> int:
    """The size of ``color``'s group after playing the legal ``p`` when it is then in atari
    (or captured: suicide), else 0."""
    nn = size * size
    nb = np.empty(4, dtype=np.int64)
    k = neighbours(p, size, nb)
    empties = 0
    for i in range(k):
        if s[nb[i]] == 0:
            empties += 1
    if empties >= 2:
        return 0
    work[:] = s
    gf.play(work, size, p, color, suicide)
    if work[p] != color:
        return 1
    if atari_liberty(work, nn, p) < 0:
        return 0
    return gf.group_size(work, nn, gf.group_head(work, nn, p))


@numba.njit(cache=True)
def _near_stone(s: np.ndarray, size: int, p: int, reach: int) -> bool:
    """Whether a stone lies within Manhattan distance ``reach`` of ``p``."""
    r = p // size
    c = p - r * size
    for dr in range(-reach, reach + 1):
        span = reach - abs(dr)
        for dc in range(-span, span + 1):
            rr = r + dr
            cc = c + dc
            if 0 <= rr < size and 0 <= cc < size and s[rr * size + cc] != 0:
                return True
    return False


@numba.njit(cache=True)
def _add_prior(ef: np.ndarray, e: int, n: float, w: float) -> None:
    ef[e, 2] += n
    ef[e, 3] += w


@numba.njit(cache=True)
def node_priors(
    s: np.ndarray,
    size: int,
    suicide: bool,
    first: int,
    count: int,
    ei: np.ndarray,
    ef: np.ndarray,
    table: np.ndarray,
    weight: float,
) -> None:
    """Add prior virtual visits and wins to the edges ``first .. first + count`` of a node whose
    position is ``s`` (the player to move there chooses), scaled by ``weight`` (0: none)."""
    if weight <= 0.0 or count == 0:
        return
    nn = size * size
    h = gf.header(size)
    color = s[h + gf.F_TO_PLAY]
    other = 3 - color
    last = s[h + gf.F_LAST]
    work = np.empty_like(s)
    # captures (stones captured) and atari escapes (stones saved), by point
    capture = np.zeros(nn + 1, dtype=np.int64)
    escape = np.zeros(nn + 1, dtype=np.int64)
    for p in range(nn):
        v = s[p]
        if v == 0 or gf.group_head(s, nn, p) != p:
            continue
        lib = atari_liberty(s, nn, p)
        if lib < 0:
            continue
        stones = gf.group_size(s, nn, p)
        if v == other:
            capture[lib] += stones
        elif escape_keeps(s, size, lib, color, suicide, work):
            escape[lib] += stones
    stones_on_board = nn - s[h + gf.F_NEMPTY]
    lr = -1
    lc = -1
    if 0 <= last < nn:
        lr = last // size
        lc = last - lr * size
    for e in range(first, first + count):
        a = ei[e, 0]
        if a >= nn:
            continue  # pass has no AMAF statistics: its prior would never wash out
        n = 10.0
        w = 5.0  # even game
        if capture[a] > 0:
            bonus = 10.0 * min(capture[a], 4)
            n += bonus
            w += bonus
        if escape[a] > 0:
            bonus = 10.0 * min(escape[a], 4)
            n += bonus
            w += bonus
        lost = _self_atari_stones(s, size, a, color, suicide, work)
        if lost > 0 and capture[a] == 0:
            n += 10.0 * min(lost, 3)
        r = a // size
        c = a - r * size
        line = min(min(r, c), min(size - 1 - r, size - 1 - c))
        if line <= 1 and not _near_stone(s, size, a, 2):
            n += 20.0 if line == 0 else 10.0
            w += 0.0 if line == 0 else 2.0
        if table[code3x3(s, size, a)]:
            n += 10.0
            w += 10.0
        if lr >= 0 and stones_on_board > 0:
            d = abs(r - lr) + abs(c - lc)
            if d <= 2:
                n += 10.0
                w += 8.0 if d == 1 else 7.0
        _add_prior(ef, e, weight * n, weight * w)
