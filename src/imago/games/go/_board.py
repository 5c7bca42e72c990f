# mypy: disable-error-code="no-any-return"
"""Private numba kernels of the Go rules, part one: the state array and its groups (placing and
removing stones, the legality check of a move, playing it, Zobrist keys). The legal lists and
the superko keys are in :mod:`imago.games.go._legal`; :mod:`imago.games.go._kernels` holds the
rest and re-exports both, so callers import that one module.

Nothing here raises for a rule: kernels return status codes and the public classes turn them into
typed errors. Board size is always an argument. Points are flat indices ``row * size + col``;
pass is ``size * size``.

State layout (``nn = size * size``; see :func:`state_length`)::

    [0,    nn)   board       0 empty, 1 black, 2 white
    [nn,  2nn)   head        the group (head point) of each stone
    [2nn, 3nn)   next        circular list of each group's stones
    [3nn, 4nn)   libc        pseudo-liberty count of a group (indexed by its head)
    [4nn, 5nn)   libs        sum of the pseudo-liberty points
    [5nn, 6nn)   libq        sum of their squares: a group is in atari iff libc*libq == libs**2
    [6nn, 7nn)   ghash       Zobrist hash of a group's stones
    [7nn, 8nn)   gsize       number of stones of a group
    [8nn, 9nn)   empties     the empty points (first ``F_NEMPTY`` entries)
    [9nn, 10nn)  where       position of each empty point in ``empties``
    [10nn, ...)  header      the fields ``F_*`` below

Kernels in other modules read the board as ``s[p]`` (``0 <= p < nn``), the header through
:func:`header` + ``F_*``, and the group fields only through the accessors :func:`group_head`,
:func:`next_stone`, :func:`group_size`, :func:`atari_liberty`, :func:`atari_heads` and
:func:`empty_at`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = 0
BLACK = 1
WHITE = 2
MAX_SIZE = 25
MAX_POINTS = MAX_SIZE * MAX_SIZE

# -- status codes -------------------------------------------------------------------------------
OK = 0
OCCUPIED = 1
SUICIDE = 2
KO = 3
SUPERKO = 4
GAME_OVER = 5
BAD_INPUT = 6  # arrays, size, action or colour that do not fit together (see _legal.advance)

# -- ko modes -----------------------------------------------------------------------------------
KO_SIMPLE = 0
KO_POSITIONAL = 1
KO_SITUATIONAL = 2

# -- per-point fields: field X of point p is ``s[X * nn + p]`` (the layout above) ----------------
L_BOARD = 0
L_HEAD = 1
L_NEXT = 2
L_LIBC = 3
L_LIBS = 4
L_LIBQ = 5
L_GHASH = 6
L_GSIZE = 7
L_EMPTIES = 8
L_WHERE = 9

# -- header fields (offsets after 10 * nn) --------------------------------------------------------
F_TO_PLAY = 0
F_KO = 1  # the point the ko rule forbids, or -1
F_KO_COLOR = 2  # the colour it is forbidden to
F_PASSES = 3  # consecutive passes
F_CAPT_B = 4  # stones captured by Black (White's stones removed)
F_CAPT_W = 5  # stones captured by White
F_HASH = 6  # Zobrist hash of the stones (side to move not included)
F_MOVES = 7  # moves played (passes included)
F_LAST = 8  # last action, -1 at the start
F_NEMPTY = 9  # number of empty points
F_STATUS = 10  # status of the move that made this array (see :func:`child`)
F_TOP = 11  # in a full array: no board of its superko keys has more stones (see _stone_bound)
HEADER = 12


ZOBRIST_WHITE_TO_PLAY = 0x5DEECE66D1A2B3C4
"""XORed into a position's key when White is to play."""

_GOLDEN = 0x9E3779B97F4A7C15 - (1 << 64)  # splitmix64 constants as signed 64-bit integers
_MIX1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_MIX2 = 0x94D049BB133111EB - (1 << 64)


@njit(cache=True, inline="always")
def zobrist(color: int, p: int) -> int:
    """The 64-bit Zobrist key of a ``color`` stone on point ``p`` (splitmix64 of the pair:
    computed, not a global table, so cached kernels carry no constant array)."""
    x = (color * 1024 + p + 1) * _GOLDEN
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * _MIX1
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * _MIX2
    return x ^ ((x >> 31) & 0x1FFFFFFFF)


@njit(cache=True, inline="always")
def _copy(dst: np.ndarray, d0: int, src: np.ndarray, s0: int, n: int) -> None:
    """``dst[d0 : d0 + n] = src[s0 : s0 + n]`` as a plain loop (numba's slice assignment is
    an order of magnitude slower). Overlap is safe only when ``d0 <= s0`` or the arrays differ."""
    for j in range(n):
        dst[d0 + j] = src[s0 + j]


@njit(cache=True)
def header(size: int) -> int:
    """Where the header fields start in a state array: add ``F_*`` to it."""
    return 10 * size * size


@njit(cache=True)
def state_length(size: int) -> int:
    """The length of the state array of a ``size`` x ``size`` board."""
    return 10 * size * size + HEADER


@njit(cache=True)
def new_state(size: int) -> np.ndarray:
    """The empty board with Black to play."""
    nn = size * size
    s = np.zeros(10 * nn + HEADER, dtype=np.int64)
    h = 10 * nn
    for p in range(nn):
        s[8 * nn + p] = p
        s[9 * nn + p] = p
    s[h + F_TO_PLAY] = BLACK
    s[h + F_KO] = -1
    s[h + F_LAST] = -1
    s[h + F_NEMPTY] = nn
    return s


@njit(cache=True, inline="always")
def _neighbors(p: int, size: int) -> tuple[int, int, int, int]:
    r = p // size
    c = p - r * size
    up = p - size if r > 0 else -1
    down = p + size if r < size - 1 else -1
    left = p - 1 if c > 0 else -1
    right = p + 1 if c < size - 1 else -1
    return (up, down, left, right)


@njit(cache=True, inline="always")
def first_meeting(g: int, g0: int, g1: int, g2: int) -> tuple[bool, int, int, int]:
    """Whether the group ``g`` is none of ``g0, g1, g2`` (the groups already met around one
    point, ``-1`` for a free slot), and the three with ``g`` in the first free slot. A point
    has four neighbours, so three slots do: the fourth group met is compared with no other.
    The loop around a point that counts each neighbouring group once::

        g0 = g1 = g2 = -1
        for q in _neighbors(p, size):
            ...
            new, g0, g1, g2 = first_meeting(g, g0, g1, g2)
            if not new:
                continue
    """
    if g == g0 or g == g1 or g == g2:  # noqa: SIM109 (plain comparisons for numba)
        return False, g0, g1, g2
    if g0 < 0:
        return True, g, g1, g2
    if g1 < 0:
        return True, g0, g, g2
    return True, g0, g1, g


@njit(cache=True)
def board_liberties(b: np.ndarray, size: int, out: np.ndarray) -> None:
    """``out[p]``: the number of liberties of the group on ``p`` (0 on an empty point), from the
    board ``b[:size * size]`` alone (a plain board, or a state array's board part): one
    flood fill a group, its liberties counted once each."""
    nn = size * size
    members = np.empty(nn, dtype=np.int64)
    counted = np.full(nn, -1, dtype=np.int64)  # the group (its first stone) that counted it
    for p in range(nn):
        out[p] = -1 if b[p] != EMPTY else 0
    for start in range(nn):
        if out[start] != -1:
            continue
        color = b[start]
        out[start] = 0
        members[0] = start
        found = 1
        liberties = 0
        i = 0
        while i < found:
            q = members[i]
            i += 1
            for t in _neighbors(q, size):
                if t < 0:
                    continue
                v = b[t]
                if v == EMPTY:
                    if counted[t] != start:
                        counted[t] = start
                        liberties += 1
                elif v == color and out[t] == -1:
                    out[t] = 0
                    members[found] = t
                    found += 1
        for j in range(found):
            out[members[j]] = liberties


@njit(cache=True, inline="always")
def _in_atari(s: np.ndarray, nn: int, g: int) -> bool:
    c = s[3 * nn + g]
    t = s[4 * nn + g]
    return c * s[5 * nn + g] == t * t


# -- read-only accessors of the group fields, for kernels outside this module --------------------
@njit(cache=True, inline="always")
def group_head(s: np.ndarray, nn: int, p: int) -> int:
    """The head point of the group of the stone on ``p`` (its identity while it stands)."""
    return s[nn + p]


@njit(cache=True, inline="always")
def next_stone(s: np.ndarray, nn: int, p: int) -> int:
    """The next stone of ``p``'s group (a circular list: walk until back at the start)."""
    return s[2 * nn + p]


@njit(cache=True, inline="always")
def group_size(s: np.ndarray, nn: int, g: int) -> int:
    """The number of stones of the group with head ``g``."""
    return s[7 * nn + g]


@njit(cache=True, inline="always")
def atari_liberty(s: np.ndarray, nn: int, p: int) -> int:
    """The only liberty of the group of the stone on ``p`` when it has exactly one, else -1."""
    g = s[nn + p]
    c = s[3 * nn + g]
    t = s[4 * nn + g]
    if c > 0 and c * s[5 * nn + g] == t * t:
        return t // c
    return -1


@njit(cache=True, inline="always")
def atari_heads(s: np.ndarray, nn: int, first: int, end: int) -> np.int64:
    """The bit set of the points ``first`` to ``end - 1`` (at most 64; bit ``p - first``) that
    head a group in atari (other points' bits mean nothing): the group fields read in order,
    without a gather, for the legal lists' bit sets. (The indices are unsigned: numba then does
    not test each for a negative value, a test that keeps LLVM from vectorising the loop.)"""
    u = np.uint64
    bits = np.int64(0)
    for q in range(end - first):
        p = u(first + q)
        c = s[u(L_LIBC * nn) + p]
        t = s[u(L_LIBS * nn) + p]
        bits |= (np.int64(1) << q) & -np.int64(c * s[u(L_LIBQ * nn) + p] == t * t)
    return bits


@njit(cache=True, inline="always")
def empty_at(s: np.ndarray, nn: int, i: int) -> int:
    """The ``i``-th empty point (``0 <= i < s[header + F_NEMPTY]``, in no particular order)."""
    return s[8 * nn + i]


@njit(cache=True, inline="always")
def _add_lib(s: np.ndarray, nn: int, g: int, p: int) -> None:
    s[3 * nn + g] += 1
    s[4 * nn + g] += p
    s[5 * nn + g] += p * p


@njit(cache=True, inline="always")
def _del_lib(s: np.ndarray, nn: int, g: int, p: int) -> None:
    s[3 * nn + g] -= 1
    s[4 * nn + g] -= p
    s[5 * nn + g] -= p * p


@njit(cache=True, inline="always")
def _empties_remove(s: np.ndarray, nn: int, p: int) -> None:
    h = 10 * nn
    n = s[h + F_NEMPTY] - 1
    i = s[9 * nn + p]
    last = s[8 * nn + n]
    s[8 * nn + i] = last
    s[9 * nn + last] = i
    s[h + F_NEMPTY] = n


@njit(cache=True, inline="always")
def _empties_add(s: np.ndarray, nn: int, p: int) -> None:
    h = 10 * nn
    n = s[h + F_NEMPTY]
    s[8 * nn + n] = p
    s[9 * nn + p] = n
    s[h + F_NEMPTY] = n + 1


@njit(cache=True)
def _merge(s: np.ndarray, nn: int, a: int, b: int) -> int:
    """Merge groups ``a`` and ``b`` (heads); the result's head is returned."""
    if s[7 * nn + a] < s[7 * nn + b]:
        a, b = b, a
    # relabel b's stones
    q = b
    while True:
        s[nn + q] = a
        q = s[2 * nn + q]
        if q == b:
            break
    # splice the circular lists
    na = s[2 * nn + a]
    s[2 * nn + a] = s[2 * nn + b]
    s[2 * nn + b] = na
    for k in range(3, 6):
        s[k * nn + a] += s[k * nn + b]
    s[6 * nn + a] ^= s[6 * nn + b]
    s[7 * nn + a] += s[7 * nn + b]
    return a


@njit(cache=True)
def _place(s: np.ndarray, size: int, p: int, color: int) -> int:
    """Put a stone on empty ``p`` and merge it with its friends; no capture. Returns its group."""
    nn = size * size
    h = 10 * nn
    z = zobrist(color, p)
    s[p] = color
    s[nn + p] = p
    s[2 * nn + p] = p
    s[3 * nn + p] = 0
    s[4 * nn + p] = 0
    s[5 * nn + p] = 0
    s[6 * nn + p] = z
    s[7 * nn + p] = 1
    s[h + F_HASH] ^= z
    _empties_remove(s, nn, p)
    g = p
    for q in _neighbors(p, size):
        if q < 0:
            continue
        v = s[q]
        if v == EMPTY:
            _add_lib(s, nn, g, q)
        else:
            _del_lib(s, nn, s[nn + q], p)
    for q in _neighbors(p, size):
        if q >= 0 and s[q] == color:
            other = s[nn + q]
            if other != g:
                g = _merge(s, nn, g, other)
    return g


@njit(cache=True)
def _remove_group(s: np.ndarray, size: int, g: int) -> int:
    """Take group ``g`` off the board; returns the number of stones removed."""
    nn = size * size
    h = 10 * nn
    color = s[g]
    q = g
    count = 0
    while True:
        s[q] = EMPTY
        s[h + F_HASH] ^= zobrist(color, q)
        _empties_add(s, nn, q)
        count += 1
        q = s[2 * nn + q]
        if q == g:
            break
    q = g
    while True:
        for t in _neighbors(q, size):
            if t >= 0 and s[t] != EMPTY:
                _add_lib(s, nn, s[nn + t], q)
        q = s[2 * nn + q]
        if q == g:
            break
    return count


@njit(cache=True, inline="always")
def _neighbor_allows(s: np.ndarray, nn: int, q: int, color: int) -> bool:
    """Whether neighbour ``q`` gives a stone of ``color`` played next to it a liberty
    (empty, a friend not in atari, or an enemy in atari that gets captured)."""
    v = s[q]
    if v == EMPTY:
        return True
    g = s[nn + q]
    c = s[3 * nn + g]
    t = s[4 * nn + g]
    atari = c * s[5 * nn + g] == t * t
    return (not atari) if v == color else atari


@njit(cache=True, inline="always")
def _check_rc(
    s: np.ndarray, size: int, p: int, r: int, c: int, color: int, suicide_allowed: bool
) -> int:
    nn = size * size
    if s[p] != EMPTY:
        return OCCUPIED
    h = 10 * nn
    if p == s[h + F_KO] and color == s[h + F_KO_COLOR]:
        return KO
    if r > 0 and _neighbor_allows(s, nn, p - size, color):
        return OK
    if r < size - 1 and _neighbor_allows(s, nn, p + size, color):
        return OK
    if c > 0 and _neighbor_allows(s, nn, p - 1, color):
        return OK
    if c < size - 1 and _neighbor_allows(s, nn, p + 1, color):
        return OK
    return OK if suicide_allowed else SUICIDE


@njit(cache=True)
def check(s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool) -> int:
    """Whether ``color`` may play on point ``p`` under the simple-ko rule: a status code."""
    r = p // size
    return _check_rc(s, size, p, r, p - r * size, color, suicide_allowed)


@njit(cache=True)
def play(s: np.ndarray, size: int, action: int, color: int, suicide_allowed: bool) -> int:
    """Play ``action`` for ``color`` in place (simple ko). Returns a status; ``s`` is unchanged
    unless it is ``OK``."""
    nn = size * size
    h = 10 * nn
    other = 3 - color
    if action == nn:
        s[h + F_PASSES] += 1
        s[h + F_KO] = -1
        s[h + F_TO_PLAY] = other
        s[h + F_MOVES] += 1
        s[h + F_LAST] = nn
        return OK
    status = check(s, size, action, color, suicide_allowed)
    if status != OK:
        return status
    _apply(s, size, action, color)
    return OK


@njit(cache=True)
def _apply(s: np.ndarray, size: int, action: int, color: int) -> None:
    """Play the legal stone ``action`` of ``color`` in place: captures, suicide, ko, header."""
    nn = size * size
    h = 10 * nn
    other = 3 - color
    g = _place(s, size, action, color)
    captured = 0
    last_captured = -1
    for q in _neighbors(action, size):
        if q >= 0 and s[q] == other and s[3 * nn + s[nn + q]] == 0:
            last_captured = q
            captured += _remove_group(s, size, s[nn + q])
    g = s[nn + action]
    ko = -1
    if s[3 * nn + g] == 0:  # suicide (only reached when allowed)
        lost = _remove_group(s, size, g)
        s[h + F_CAPT_B + other - 1] += lost
    else:
        s[h + F_CAPT_B + color - 1] += captured
        if captured == 1 and s[7 * nn + g] == 1 and s[3 * nn + g] == 1:
            ko = last_captured
    s[h + F_KO] = ko
    s[h + F_KO_COLOR] = other
    s[h + F_PASSES] = 0
    s[h + F_TO_PLAY] = other
    s[h + F_MOVES] += 1
    s[h + F_LAST] = action


@njit(cache=True)
def result_hash(s: np.ndarray, size: int, p: int, color: int) -> int:
    """The stone hash after ``color`` plays the legal move ``p`` (captures and suicide included)."""
    nn = size * size
    h = 10 * nn
    key = s[h + F_HASH] ^ zobrist(color, p)
    g0 = g1 = g2 = -1
    liberty = False
    friends = 0
    for q in _neighbors(p, size):
        if q < 0:
            continue
        v = s[q]
        if v == EMPTY:
            liberty = True
            continue
        g = s[nn + q]
        new, g0, g1, g2 = first_meeting(g, g0, g1, g2)
        if not new:
            continue
        if v == color:
            if not _in_atari(s, nn, g):
                liberty = True
            friends ^= s[6 * nn + g]
        elif _in_atari(s, nn, g):
            key ^= s[6 * nn + g]
            liberty = True
    if not liberty:  # suicide: the stone and its friends leave the board
        key ^= friends ^ zobrist(color, p)
    return key
