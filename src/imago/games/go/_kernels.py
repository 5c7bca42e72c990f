# mypy: disable-error-code="no-any-return"
"""Private numba kernels of the Go rules: one flat ``int64`` state array per position.

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
:func:`next_stone`, :func:`group_size`, :func:`atari_liberty` and :func:`empty_at`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import carray, njit  # type: ignore[attr-defined]
from numba.core import types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import overload

from imago.core.kernels import borrowed, int64_pointer, move_words
from imago.core.rng import rand_below

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
NO_ROOM = 6  # not a rule: :func:`advance_into`'s arena is full

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
F_TOP = 11  # in a full array: no board of its superko keys has more stones (_beyond_history)
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
    """``dst[d0 : d0 + n] = src[s0 : s0 + n]`` (see :data:`imago.core.kernels.move_words`;
    the parts may overlap)."""
    if n > 0:
        move_words(dst, d0, src, s0, n)


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


@njit(cache=True, inline="always")
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
    g0 = -1
    g1 = -1
    g2 = -1
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
        if g == g0 or g == g1 or g == g2:  # noqa: SIM109 (numba: plain comparisons)
            continue
        if g0 < 0:
            g0 = g
        elif g1 < 0:
            g1 = g
        else:
            g2 = g
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


@njit(cache=True, inline="always")
def _lower_bound(a: np.ndarray, at: int, n: int, key: int) -> int:
    """The first index ``i`` of the sorted ``a[at : at + n]`` with ``a[i] >= key`` (``at + n``
    when there is none): the one binary search of the Go kernels. (A branch-free halving was
    slower in the batch's step: its loads wait on each other, where the branches let the
    processor run ahead.)"""
    lo = at
    hi = at + n
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def _contains_at(a: np.ndarray, at: int, n: int, key: int) -> bool:
    """Whether the sorted ``a[at : at + n]`` holds ``key``."""
    i = _lower_bound(a, at, n, key)
    return i < at + n and a[i] == key


BLOOM_WORDS = 64
"""Words of the bit filter in front of the superko keys of a full array (4096 bits)."""


@njit(cache=True, inline="always")
def _bloom_has(a: np.ndarray, at: int, key: int) -> bool:
    b = (key >> 7) & 4095
    return (a[at + (b >> 6)] >> (b & 63)) & 1 == 1


@njit(cache=True, inline="always")
def _bloom_add(a: np.ndarray, at: int, key: int) -> None:
    b = (key >> 7) & 4095
    a[at + (b >> 6)] |= np.int64(1) << (b & 63)


@njit(cache=True, inline="always")
def _lsr(x: np.int64, k: int) -> np.int64:
    """``x`` shifted right by ``k`` (1..63) bits, zeros coming in (a logical shift)."""
    return (x >> k) & ~(np.int64(-1) << (64 - k))


@njit(cache=True, inline="always")
def _shl2(lo: np.int64, hi: np.int64, k: int) -> tuple[np.int64, np.int64]:
    """The 128-bit set ``(lo, hi)`` shifted towards higher points by ``k`` (1..63)."""
    return lo << k, (hi << k) | _lsr(lo, 64 - k)


@njit(cache=True, inline="always")
def _shr2(lo: np.int64, hi: np.int64, k: int) -> tuple[np.int64, np.int64]:
    """The 128-bit set ``(lo, hi)`` shifted towards lower points by ``k`` (1..63)."""
    return _lsr(lo, k) | (hi << (64 - k)), _lsr(hi, k)


@njit(cache=True, inline="always")
def _captured_hash(s: np.ndarray, size: int, p: int, other: int) -> int:
    """The stones ``other`` loses to a stone played on ``p``: the hash of each of its groups in
    atari next to ``p``, each once (inline, unlike :func:`result_hash`, which counts
    suicides too)."""
    nn = size * size
    key = 0
    g0 = -1
    g1 = -1
    g2 = -1
    for q in _neighbors(p, size):
        if q < 0 or s[q] != other:
            continue
        g = s[nn + q]
        if g == g0 or g == g1 or g == g2 or not _in_atari(s, nn, g):  # noqa: SIM109
            continue
        key ^= s[6 * nn + g]
        if g0 < 0:
            g0 = g
        elif g1 < 0:
            g1 = g
        else:
            g2 = g
    return key


@njit(cache=True, inline="always")
def _remakes_history(
    s: np.ndarray,
    size: int,
    p: int,
    color: int,
    side: int,
    liberty: bool,
    captures: bool,
    keys: np.ndarray,
    keys_at: int,
    nkeys: int,
    bloom_at: int,
    own_keys: bool,
) -> bool:
    """Whether ``color``'s legal stone on ``p`` would remake a board of the superko keys: the
    test both legal lists make of a candidate. ``liberty`` / ``captures``: whether the stone
    has a liberty (else it is a suicide, where allowed) / takes enemy stones; ``side``: the
    side-to-move key of situational superko (else 0)."""
    if not liberty:  # a suicide: the rules' own count of what leaves the board
        key = result_hash(s, size, p, color) ^ side
    else:
        key = s[10 * size * size + F_HASH] ^ side ^ zobrist(color, p)
        if captures:
            key ^= _captured_hash(s, size, p, 3 - color)
    return (not own_keys or _bloom_has(keys, bloom_at, key)) and _contains_at(
        keys, keys_at, nkeys, key
    )


def _word_of(bits: np.ndarray | tuple[np.int64, np.int64], p: int) -> np.int64:
    """The word of the bit set ``bits`` (64 points a word: an array, or a pair of words on
    boards up to 128 points) that holds point ``p``. In kernels a pair is read by a choice,
    not by an index, which would keep its two words in memory rather than in registers (see
    the overload below)."""
    return bits[p >> 6]


@overload(_word_of, inline="always")  # type: ignore[misc]
def _word_of_in_kernels(bits: Any, p: Any) -> Any:  # (numba: the same parameters throughout)
    # The choice is made by the argument's type while numba compiles the caller: numba's own
    # ``isinstance`` inside an inlined kernel miscompiled its caller (2x2 superko lists went
    # wrong), so no kernel here uses it.
    if isinstance(bits, types.BaseTuple):

        def from_pair(bits: Any, p: Any) -> Any:
            return bits[0] ^ ((bits[0] ^ bits[1]) & -np.int64(p >= 64))  # no branch

        return from_pair

    def from_words(bits: Any, p: Any) -> Any:
        return bits[np.uint64(p >> 6)]

    return from_words


@njit(cache=True, inline="always")
def _drop_repeats(
    s: np.ndarray,
    size: int,
    color: int,
    ko_mode: int,
    plain: bool,
    lib: np.ndarray | tuple[np.int64, np.int64],
    take: np.ndarray | tuple[np.int64, np.int64],
    keys: np.ndarray,
    keys_at: int,
    nkeys: int,
    bloom_at: int,
    own_keys: bool,
    out: np.ndarray,
    out_at: int,
    n: int,
) -> int:
    """Remove from the candidates ``out[out_at:n]`` those that would remake a board of the
    superko keys; return the new end. ``lib`` / ``take``: bit sets (see :func:`_word_of`) of
    the points where a stone has a liberty / captures; ``plain``: only captures and suicides
    can remake a board (see :func:`_beyond_history`). Both legal lists end with it."""
    side = ZOBRIST_WHITE_TO_PLAY if ko_mode == KO_SITUATIONAL and color == BLACK else 0
    m = out_at
    for j in range(out_at, n):
        p = out[j]
        captures = (_word_of(take, p) >> (p & 63)) & 1 == 1
        liberty = (_word_of(lib, p) >> (p & 63)) & 1 == 1
        out[m] = p
        m += (plain and liberty and not captures) or not _remakes_history(
            s, size, p, color, side, liberty, captures, keys, keys_at, nkeys, bloom_at, own_keys
        )
    return m


@njit(cache=True, inline="always")
def _write_bits(out: np.ndarray, n: int, bits: np.int64, first: int) -> int:
    """Write ``first + i`` for each set bit ``i`` of ``bits`` to ``out[n:]``, ascending; return
    the index after the last one written."""
    while bits:  # (an unsigned index: no test for a negative one, see _atari_heads)
        out[np.uint64(n)] = first + trailing_zeros(bits)  # type: ignore[call-arg]  # llvm.cttz
        n += 1
        bits &= bits - 1
    return n


@njit(cache=True, inline="always")
def _atari_heads(s: np.ndarray, nn: int, first: int, end: int) -> np.int64:
    """The bit set of the points ``first`` to ``end - 1`` (at most 64; bit ``p - first``) that
    head a group in atari (other points' bits mean nothing): the group fields read in order,
    without a gather. (Indices are unsigned here and in :func:`_point_sets`: numba then does
    not test each for a negative value, a test that kept LLVM from vectorising these loops
    well; the list's cost before and after: BENCHMARKS.md, "Go rules", "Seventh pass".)"""
    u = np.uint64
    bits = np.int64(0)
    for q in range(end - first):
        p = u(first + q)
        c = s[u(3 * nn) + p]
        t = s[u(4 * nn) + p]
        bits |= (np.int64(1) << q) & -np.int64(c * s[u(5 * nn) + p] == t * t)
    return bits


@njit(cache=True, inline="always")
def _point_sets(
    s: np.ndarray,
    nn: int,
    color: int,
    first: int,
    end: int,
    atari: np.ndarray | tuple[np.int64, np.int64],
) -> tuple[np.int64, np.int64, np.int64]:
    """Bit sets of the points ``first`` to ``end - 1`` (at most 64; bit ``p - first``): the
    empty points, ``color``'s stones not in atari and the enemy's stones in atari. ``atari``:
    :func:`_atari_heads` of each word of the board (a pair on boards up to 128 points, else an
    array). Every point is read the same way, without a branch."""
    u = np.uint64
    other = 3 - color
    e_set = safe_set = cap_set = np.int64(0)
    for q in range(end - first):
        p = u(first + q)
        v = s[p]
        g = s[u(nn) + p]
        in_atari = (_word_of(atari, g) >> (g & 63)) & 1 == 1
        bit = np.int64(1) << q
        e_set |= bit & -np.int64(v == EMPTY)
        safe_set |= bit & -np.int64((v == color) & (not in_atari))
        cap_set |= bit & -np.int64((v == other) & in_atari)
    return e_set, safe_set, cap_set


@njit(cache=True)
def _legal_small(
    s: np.ndarray,
    size: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
    keys: np.ndarray,
    keys_at: int,
    nkeys: int,
    bloom_at: int,
    own_keys: bool,
    out: np.ndarray,
    out_at: int,
) -> int:
    """:func:`_legal_into` for boards of at most 128 points (up to 11x11), with bit sets of the
    board in two words: each point is read once and tested without a branch, and the moves
    follow from shifts of the sets. On random positions a branch per point test costs more than
    the test (``bench/go_legal_probe.py``): this makes the list about twice as fast."""
    nn = size * size
    h = 10 * nn
    ko = s[h + F_KO] if s[h + F_KO_COLOR] == color else -1
    superko = ko_mode != KO_SIMPLE and nkeys > 0
    # bit sets of the board (bit p of (lo, hi)): empty points, own stones not in atari, enemy
    # stones in atari
    atari = (_atari_heads(s, nn, 0, min(nn, 64)), _atari_heads(s, nn, 64, nn))
    e_lo, safe_lo, cap_lo = _point_sets(s, nn, color, 0, min(nn, 64), atari)
    e_hi, safe_hi, cap_hi = _point_sets(s, nn, color, 64, nn, atari)
    # the points next to each set: a liberty for a stone played there (an empty point, a friend
    # that keeps one, or an enemy it captures)
    col0_lo = col0_hi = last_lo = last_hi = np.int64(0)
    for r in range(size):
        a = r * size
        b = a + size - 1
        if a < 64:
            col0_lo |= np.int64(1) << a
        else:
            col0_hi |= np.int64(1) << (a - 64)
        if b < 64:
            last_lo |= np.int64(1) << b
        else:
            last_hi |= np.int64(1) << (b - 64)
    src_lo = e_lo | safe_lo | cap_lo
    src_hi = e_hi | safe_hi | cap_hi
    n1_lo, n1_hi = _shl2(src_lo, src_hi, size)  # p with p - size in the set
    n2_lo, n2_hi = _shr2(src_lo, src_hi, size)  # p with p + size in the set
    n3_lo, n3_hi = _shl2(src_lo, src_hi, 1)  # p with p - 1 in the set
    n4_lo, n4_hi = _shr2(src_lo, src_hi, 1)  # p with p + 1 in the set
    lib_lo = n1_lo | n2_lo | (n3_lo & ~col0_lo) | (n4_lo & ~last_lo)
    lib_hi = n1_hi | n2_hi | (n3_hi & ~col0_hi) | (n4_hi & ~last_hi)
    # the points next to an enemy group in atari: moves that capture
    c1_lo, c1_hi = _shl2(cap_lo, cap_hi, size)
    c2_lo, c2_hi = _shr2(cap_lo, cap_hi, size)
    c3_lo, c3_hi = _shl2(cap_lo, cap_hi, 1)
    c4_lo, c4_hi = _shr2(cap_lo, cap_hi, 1)
    x_lo = c1_lo | c2_lo | (c3_lo & ~col0_lo) | (c4_lo & ~last_lo)
    x_hi = c1_hi | c2_hi | (c3_hi & ~col0_hi) | (c4_hi & ~last_hi)
    if suicide_allowed:
        ok_lo = e_lo
        ok_hi = e_hi
    else:
        ok_lo = e_lo & lib_lo
        ok_hi = e_hi & lib_hi
    if ko >= 0:
        if ko < 64:
            ok_lo &= ~(np.int64(1) << ko)
        else:
            ok_hi &= ~(np.int64(1) << (ko - 64))
    # the candidates, ascending: one step per set bit
    n = _write_bits(out, out_at, ok_lo, 0)
    n = _write_bits(out, n, ok_hi, 64)
    plain = superko and _beyond_history(s, nn, own_keys)
    if plain:
        # only the captures and suicides can remake an earlier board: the rest need no key
        if suicide_allowed:
            test_lo = ok_lo & (x_lo | ~lib_lo)
            test_hi = ok_hi & (x_hi | ~lib_hi)
        else:
            test_lo = ok_lo & x_lo
            test_hi = ok_hi & x_hi
        superko = (test_lo | test_hi) != 0
    if superko:  # the sets as pairs of words (the filter indexes them as it indexes arrays)
        n = _drop_repeats(
            s, size, color, ko_mode, plain, (lib_lo, lib_hi), (x_lo, x_hi), keys, keys_at, nkeys,
            bloom_at, own_keys, out, out_at, n,
        )  # fmt: skip
    out[n] = nn
    return n + 1 - out_at


@njit(cache=True, inline="always")
def _shl_word(a: np.ndarray, w: int, k: int) -> np.int64:
    """Word ``w`` of the bit set ``a`` (64 points a word) shifted towards higher points by
    ``k`` (1..63)."""
    x = a[w] << k
    if w > 0:
        x |= _lsr(a[w - 1], 64 - k)
    return x


@njit(cache=True, inline="always")
def _shr_word(a: np.ndarray, w: int, k: int, words: int) -> np.int64:
    """Word ``w`` of the bit set ``a`` shifted towards lower points by ``k`` (1..63)."""
    x = _lsr(a[w], k)
    if w + 1 < words:
        x |= a[w + 1] << (64 - k)
    return x


@njit(cache=True, inline="always")
def _next_to(
    a: np.ndarray, w: int, size: int, words: int, col0: np.int64, last: np.int64
) -> np.int64:
    """Word ``w`` of the points next to the set ``a``: above, below, left (not from the
    first column) and right (not from the last)."""
    return (
        _shl_word(a, w, size)
        | _shr_word(a, w, size, words)
        | (_shl_word(a, w, 1) & ~col0)
        | (_shr_word(a, w, 1, words) & ~last)
    )


@njit(cache=True)
def _legal_words(
    s: np.ndarray,
    size: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
    keys: np.ndarray,
    keys_at: int,
    nkeys: int,
    bloom_at: int,
    own_keys: bool,
    out: np.ndarray,
    out_at: int,
) -> int:
    """:func:`_legal_small` for boards of any size: the bit sets in words of 64 points (up to
    ten on 25x25) instead of two registers. (It gives the same lists on small boards, but
    :func:`_legal_small` stays for them: its sets need no memory, and on 9x9 the word list
    takes a third longer to twice as long, ``bench/go_legal_probe.py``'s ``words`` line beside
    its ``legal``. The two share their superko filter, :func:`_drop_repeats`.)"""
    nn = size * size
    h = 10 * nn
    words = (nn + 63) >> 6
    ko = s[h + F_KO] if s[h + F_KO_COLOR] == color else -1
    superko = ko_mode != KO_SIMPLE and nkeys > 0
    sets = np.empty(8 * words, dtype=np.int64)
    src = sets[:words]  # empty points, own stones not in atari, enemy stones in atari
    cap = sets[words : 2 * words]  # enemy stones in atari
    col0 = sets[2 * words : 3 * words]  # the first column
    last = sets[3 * words : 4 * words]  # the last column
    lib = sets[4 * words : 5 * words]  # the points where a stone has a liberty
    take = sets[5 * words : 6 * words]  # the points where a stone captures
    ok = sets[6 * words : 7 * words]  # the candidates
    atari = sets[7 * words :]  # the group heads in atari
    for w in range(words):
        atari[w] = _atari_heads(s, nn, 64 * w, min(nn, 64 * w + 64))
    for w in range(words):
        e, safe, c = _point_sets(s, nn, color, 64 * w, min(nn, 64 * w + 64), atari)
        ok[w] = e
        src[w] = e | safe | c
        cap[w] = c
        col0[w] = 0
        last[w] = 0
    for r in range(size):
        a = r * size
        b = a + size - 1
        col0[a >> 6] |= np.int64(1) << (a & 63)
        last[b >> 6] |= np.int64(1) << (b & 63)
    test = np.int64(0)
    for w in range(words):
        lib[w] = _next_to(src, w, size, words, col0[w], last[w])
        take[w] = _next_to(cap, w, size, words, col0[w], last[w])
        if not suicide_allowed:
            ok[w] &= lib[w]
    if ko >= 0:
        ok[ko >> 6] &= ~(np.int64(1) << (ko & 63))
    n = out_at
    for w in range(words):
        n = _write_bits(out, n, ok[w], 64 * w)
        test |= ok[w] & (take[w] | ~lib[w]) if suicide_allowed else ok[w] & take[w]
    plain = superko and _beyond_history(s, nn, own_keys)
    if plain:
        superko = test != 0  # only captures and suicides can remake an earlier board
    if superko:
        n = _drop_repeats(
            s, size, color, ko_mode, plain, lib, take, keys, keys_at, nkeys, bloom_at, own_keys,
            out, out_at, n,
        )  # fmt: skip
    out[n] = nn
    return n + 1 - out_at


@njit(cache=True)
def _legal_into(
    s: np.ndarray,
    size: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
    keys: np.ndarray,
    keys_at: int,
    nkeys: int,
    bloom_at: int,
    own_keys: bool,
    out: np.ndarray,
    out_at: int,
) -> int:
    """The legal actions of ``color`` into ``out[out_at:]``; superko keys are the sorted
    ``keys[keys_at : keys_at + nkeys]``. ``own_keys``: ``keys`` is the full array ``s`` itself,
    whose bloom words (at ``keys[bloom_at:]``) filter the keys and whose ``F_TOP`` bounds their
    stones; otherwise every candidate is looked up in the keys."""
    # Both lists are bit sets of the board, read without a branch per point (on random
    # positions such a branch costs more than its test): in two registers up to 11x11, in
    # words of 64 points above.
    nn = size * size
    if nn <= 128:
        return _legal_small(
            s, size, color, suicide_allowed, ko_mode, keys, keys_at, nkeys, bloom_at, own_keys,
            out, out_at,
        )  # fmt: skip
    return _legal_words(
        s, size, color, suicide_allowed, ko_mode, keys, keys_at, nkeys, bloom_at, own_keys,
        out, out_at,
    )  # fmt: skip


@njit(cache=True)
def legal_actions(
    s: np.ndarray,
    size: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
    history: np.ndarray,
    out: np.ndarray,
) -> int:
    """Write the legal actions of ``color`` (ascending, pass last) to ``out``; return how many.

    ``history`` is the sorted array of keys the superko rule forbids (stone hashes for positional
    superko; stone hash XOR side to move for situational superko); unused for simple ko.
    """
    return _legal_into(
        s, size, color, suicide_allowed, ko_mode, history, 0, history.shape[0], 0, False, out, 0
    )


@njit(cache=True)
def legal_list(
    s: np.ndarray, size: int, color: int, suicide_allowed: bool, ko_mode: int, history: np.ndarray
) -> np.ndarray:
    """A new array of the legal actions of ``color`` (see :func:`legal_actions`)."""
    out = np.empty(size * size + 1, dtype=np.int64)
    n = legal_actions(s, size, color, suicide_allowed, ko_mode, history, out)
    return out[:n]


@njit(cache=True)
def child(
    s: np.ndarray,
    size: int,
    action: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
    history: np.ndarray,
) -> np.ndarray:
    """A new state: ``s`` after ``color`` plays ``action``. Its ``F_STATUS`` field says whether
    the move was legal (``OK``); when it is not, the array is to be thrown away."""
    t = s.copy()
    h = 10 * size * size
    status = play(t, size, action, color, suicide_allowed)
    if status == OK and ko_mode != KO_SIMPLE and action != size * size:
        key = t[h + F_HASH]
        if ko_mode == KO_SITUATIONAL and color == BLACK:
            key ^= ZOBRIST_WHITE_TO_PLAY
        if _contains_at(history, 0, history.shape[0], key):
            status = SUPERKO
    t[h + F_STATUS] = status
    return t


@njit(cache=True)
def history_key(s: np.ndarray, size: int, ko_mode: int) -> int:
    """The key of ``s`` that superko remembers (stones; with the side to move if situational)."""
    h = 10 * size * size
    key = s[h + F_HASH]
    if ko_mode == KO_SITUATIONAL and s[h + F_TO_PLAY] == WHITE:
        key ^= ZOBRIST_WHITE_TO_PLAY
    return key


@njit(cache=True)
def full_length(size: int, keys: int) -> int:
    """The length of a full array (see :func:`finish`) holding ``keys`` superko keys."""
    nn = size * size
    return 10 * nn + HEADER + nn + 3 + BLOOM_WORDS + keys


@njit(cache=True, inline="always")
def _raise_stone_bound(t: np.ndarray, nn: int) -> None:
    """After the board of the full array ``t`` joined its superko keys: keep ``F_TOP`` at least
    its number of stones."""
    stones = nn - t[10 * nn + F_NEMPTY]
    if stones > t[10 * nn + F_TOP]:
        t[10 * nn + F_TOP] = stones


@njit(cache=True, inline="always")
def _beyond_history(s: np.ndarray, nn: int, own_keys: bool) -> bool:
    """Whether a move that captures nothing on the full array ``s`` can skip the superko test:
    it makes a board of one stone more than ``s`` has, and when that is more than ``F_TOP``,
    no board of the keys has as many stones, so none is that board. (Only when the keys are
    the full array's own, ``own_keys``: ``F_TOP`` bounds those.) In random 9x9 games about 70 %
    of positions are at a new most stones (they grow, and captures are few)."""
    return own_keys and nn - s[10 * nn + F_NEMPTY] + 1 > s[10 * nn + F_TOP]


@njit(cache=True, inline="always")
def _complete(
    t: np.ndarray,
    size: int,
    suicide_allowed: bool,
    ko_mode: int,
    src: np.ndarray,
    keys_at: int,
    nk: int,
    src_bloom_at: int,
    remember: bool,
) -> None:
    """Write the parts of the full array ``t`` after its state: keys ``src[keys_at:][:nk]``
    (plus this position's own when ``remember``), their bloom words (copied from
    ``src[src_bloom_at:]`` when it is not negative, else rebuilt), and the legal actions."""
    nn = size * size
    h = 10 * nn
    length = 10 * nn + HEADER
    bloom_at = length + nn + 3
    base = bloom_at + BLOOM_WORDS
    if src_bloom_at >= 0:
        _copy(t, bloom_at, src, src_bloom_at, BLOOM_WORDS)
    else:
        for i in range(BLOOM_WORDS):
            t[bloom_at + i] = 0
        for i in range(nk):
            _bloom_add(t, bloom_at, src[keys_at + i])
    count = nk
    if remember and ko_mode != KO_SIMPLE:
        key = history_key(t, size, ko_mode)
        lo = _lower_bound(src, keys_at, nk, key)
        before = lo - keys_at
        _copy(t, base, src, keys_at, before)
        if lo < keys_at + nk and src[lo] == key:
            _copy(t, base + before, src, lo, nk - before)
        else:
            t[base + before] = key
            _copy(t, base + before + 1, src, lo, nk - before)
            _bloom_add(t, bloom_at, key)
            count = nk + 1
        _raise_stone_bound(t, nn)
    elif nk:
        _copy(t, base, src, keys_at, nk)
    t[length + nn + 2] = count
    if t[h + F_PASSES] >= 2:
        t[length + nn + 1] = 0
    else:
        t[length + nn + 1] = _legal_into(
            t,
            size,
            t[h + F_TO_PLAY],
            suicide_allowed,
            ko_mode,
            t,
            base,
            count,
            bloom_at,
            True,
            t,
            length,
        )


@njit(cache=True)
def finish(
    s: np.ndarray,
    size: int,
    suicide_allowed: bool,
    ko_mode: int,
    history: np.ndarray,
    remember: bool,
) -> np.ndarray:
    """A *full* array: the state ``s[:state_length]``; the legal actions of the side to move
    (``nn + 1`` slots, then their count); the number of superko keys, a 4096-bit filter of them
    (``BLOOM_WORDS`` words) and the sorted keys: ``history`` plus this position's own key when
    ``remember`` and superko applies. See :func:`full_offsets`."""
    return _finish(s, size, suicide_allowed, ko_mode, history, remember, -1)


@njit(cache=True)
def _finish(
    s: np.ndarray,
    size: int,
    suicide_allowed: bool,
    ko_mode: int,
    history: np.ndarray,
    remember: bool,
    top: int,
) -> np.ndarray:
    """:func:`finish`, told that no board of ``history`` has more than ``top`` stones (for the
    rules' own classes, which know the position the keys came from; ``top < 0``: not known,
    so the legal lists test every move against the keys)."""
    nn = size * size
    t = np.empty(full_length(size, history.shape[0] + 1), dtype=np.int64)
    _copy(t, 0, s, 0, 10 * nn + HEADER)
    if top < 0:
        top = nn if history.shape[0] else 0
    t[10 * nn + F_TOP] = top
    _complete(t, size, suicide_allowed, ko_mode, history, 0, history.shape[0], -1, remember)
    return t


@njit(cache=True)
def full_offsets(size: int) -> tuple[int, int, int, int, int]:
    """Where the parts of a full array start: (legal actions, their count, key count, filter,
    keys)."""
    nn = size * size
    length = 10 * nn + HEADER
    return length, length + nn + 1, length + nn + 2, length + nn + 3, length + nn + 3 + BLOOM_WORDS


@njit(cache=True, inline="always")
def advance(
    full: np.ndarray,
    out: np.ndarray,
    size: int,
    action: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
) -> int:
    """Fill ``out`` (a full array with room for one more superko key than ``full`` holds) with
    the position after ``color`` (0: the side to move) plays ``action`` on the full array
    ``full`` (see :func:`finish`). Returns ``-1 - n - (k << 16)`` where ``n`` is the number of
    legal actions of the new position and ``k`` its number of superko keys, or a status code
    (``OCCUPIED`` ... ``GAME_OVER``) when the move is refused, and then ``out`` is garbage."""
    full = borrowed(full)
    out = borrowed(out)
    nn = size * size
    h = 10 * nn
    length = 10 * nn + HEADER
    if full[h + F_PASSES] >= 2:
        return GAME_OVER
    nk = full[length + nn + 2]
    bloom_at = length + nn + 3
    base = bloom_at + BLOOM_WORDS
    _copy(out, 0, full, 0, length)
    to_play = full[h + F_TO_PLAY]
    if color == 0:
        color = to_play
    if (
        color == to_play
        and action != nn
        and _contains_at(full, length, full[length + nn + 1], action)
    ):
        _apply(out, size, action, color)  # in the legal list: nothing left to test
        status = OK
    else:
        status = play(out, size, action, color, suicide_allowed)
        if status == OK and ko_mode != KO_SIMPLE and action != nn:
            key = history_key(out, size, ko_mode)
            if _bloom_has(full, bloom_at, key) and _contains_at(full, base, nk, key):
                status = SUPERKO
    if status != OK:
        return status
    _complete(out, size, suicide_allowed, ko_mode, full, base, nk, bloom_at, True)
    return -1 - out[length + nn + 1] - (out[length + nn + 2] << 16)


ARENA_NEXT = 0
"""``arena[ARENA_NEXT]``: where the next position of an arena goes (see :func:`advance_into`)."""
ARENA_TABLE = 1
"""``arena[ARENA_TABLE]``: where the arena's *move table* starts: ``nn + 1`` words, word ``a``
the address of the ``Move`` object of action ``a`` (the public classes' table of cached moves,
which lives as long as the process). :func:`advance_into` writes each position's legal moves
as these addresses, so that Python can read them as a sequence of objects (see
``imago.games.go.position.LegalMoves``)."""
ARENA_LENGTH = 2
"""``arena[ARENA_LENGTH]``: the arena's length in words (for :func:`advance_here`)."""
ARENA_START = 8
"""Where an arena's move table starts (a cache line after its header)."""


@njit(cache=True, inline="always")
def object_words(nn: int) -> int:
    """The words in front of each full array of an arena, for its legal moves as object
    addresses (``nn + 1`` of them, ending where the full array starts), rounded up to a cache
    line so that full arrays stay aligned. The move table takes as many."""
    return (nn + 1 + 7) & ~7


@njit(cache=True)
def advance_into(
    source: np.ndarray,
    at: int,
    arena: np.ndarray,
    size: int,
    action: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
) -> int:
    """:func:`advance` from the full array at ``source[at:]`` into the free end of ``arena``
    (memory shared by the positions of one game; ``arena[ARENA_NEXT]`` says where its free part
    starts, cache-line aligned). Returns ``n + (k << 16) + (offset << 32)``, where ``n`` is the
    number of legal actions of the new position, ``k`` its number of superko keys and
    ``offset`` where its full array starts in ``arena`` (so at least ``1 << 32``); or a status
    code (``OCCUPIED`` ... ``GAME_OVER``) when the move is refused, or ``NO_ROOM`` when the
    arena is too full: then ``arena`` is unchanged. ``source`` may be ``arena`` itself.

    A position takes :func:`object_words` words and then its full array. The first ``n``
    words before the full array's start become the addresses of its ``n`` legal moves, looked
    up in the arena's move table (see :data:`ARENA_TABLE`).

    The arena's free part is taken and marked used in one call, while the GIL is held (this
    kernel does not release it), so that threads playing in the same arena never share
    memory; nothing is ever written to a position's part again once it is made."""
    source = borrowed(source)  # the caller holds both: no reference counts (see borrowed)
    arena = borrowed(arena)
    nn = size * size
    nk = source[at + 10 * nn + HEADER + nn + 2]
    start = arena[ARENA_NEXT] + object_words(nn)
    end = start + full_length(size, nk + 1)
    if end > arena.shape[0]:
        return NO_ROOM
    result = advance(source[at:], arena[start:end], size, action, color, suicide_allowed, ko_mode)
    if result < 0:
        _write_objects(arena, start, nn, (-1 - result) & 0xFFFF)
        arena[ARENA_NEXT] = (end + 7) & ~7
        return (-1 - result) + (start << 32)
    return result


@njit(cache=True, inline="always")
def _write_objects(arena: np.ndarray, start: int, nn: int, n: int) -> None:
    """Write the addresses of the ``n`` legal moves of the full array at ``arena[start:]`` in
    the words in front of it, from the arena's move table (see :data:`ARENA_TABLE`)."""
    u = np.uint64  # unsigned indices: no test for negative ones (see _atari_heads)
    legal = u(start + 10 * nn + HEADER)
    objects = u(start - nn - 1)
    table = u(arena[ARENA_TABLE])
    for j in range(u(n)):
        arena[objects + j] = arena[table + u(arena[legal + j])]


@njit(cache=True)
def adopt(arena: np.ndarray, full: np.ndarray, size: int) -> int:
    """Put the full array ``full`` (see :func:`finish`) in the free part of ``arena``, with its
    legal moves' addresses in front of it, as :func:`advance_into` places a position it makes;
    returns where it starts, or ``-1`` when the arena has no room for it."""
    nn = size * size
    start = arena[ARENA_NEXT] + object_words(nn)
    end = start + full.shape[0]
    if end > arena.shape[0]:
        return -1
    _copy(arena, start, full, 0, full.shape[0])
    _write_objects(arena, start, nn, full[10 * nn + HEADER + nn + 1])
    arena[ARENA_NEXT] = (end + 7) & ~7
    return start


@njit(cache=True)
def new_arena(words: int, table: np.ndarray) -> np.ndarray:
    """An empty arena of ``words`` words with the move table ``table`` (see
    :data:`ARENA_TABLE`; ``nn + 1`` addresses), its first position's part free."""
    arena = np.empty(words, dtype=np.int64)
    arena[ARENA_LENGTH] = words
    arena[ARENA_TABLE] = ARENA_START
    _copy(arena, ARENA_START, table, 0, table.shape[0])
    arena[ARENA_NEXT] = ARENA_START + object_words(table.shape[0] - 1)
    return arena


@njit(cache=True)
def address(a: np.ndarray) -> int:
    """Where the data of ``a`` starts in memory."""
    return a.ctypes.data


def rules_code(size: int, suicide_allowed: bool, ko_mode: int) -> int:
    """The board size and rules of :func:`advance_here` in one number."""
    return size | int(suicide_allowed) << 8 | ko_mode << 9


@njit(cache=True)
def advance_here(view: int, at: int, code: int, action: int) -> int:
    """``advance_into(arena, at, arena, ...)`` for the side to move, the board size and rules
    given by ``code`` (see :func:`rules_code`): the common case of a move, with the fewest
    arguments to convert from Python. The arena is given by its address less
    ``8 * (nn + 1)`` (``view``: where position ``at``'s legal moves' addresses are is
    ``view + 8 * at``); the caller must hold the arena."""
    size = code & 0xFF
    start = int64_pointer(view + 8 * (size * size + 1))
    arena = carray(start, carray(start, ARENA_START)[ARENA_LENGTH])
    suicide_allowed = (code >> 8) & 1 == 1
    return advance_into(arena, at, arena, size, action, 0, suicide_allowed, code >> 9)


@njit(cache=True, inline="always")
def _eye_rc(s: np.ndarray, size: int, p: int, r: int, c: int, color: int) -> bool:
    if r > 0 and s[p - size] != color:
        return False
    if r < size - 1 and s[p + size] != color:
        return False
    if c > 0 and s[p - 1] != color:
        return False
    if c < size - 1 and s[p + 1] != color:
        return False
    other = 3 - color
    bad = 0
    if r == 0 or r == size - 1 or c == 0 or c == size - 1:
        bad = 1  # an edge eye may have no enemy diagonal at all
    if r > 0 and c > 0 and s[p - size - 1] == other:
        bad += 1
    if r > 0 and c < size - 1 and s[p - size + 1] == other:
        bad += 1
    if r < size - 1 and c > 0 and s[p + size - 1] == other:
        bad += 1
    if r < size - 1 and c < size - 1 and s[p + size + 1] == other:
        bad += 1
    return bad < 2


@njit(cache=True)
def is_true_eye(s: np.ndarray, size: int, p: int, color: int) -> bool:
    """Whether empty ``p`` is an eye of ``color``: all neighbours ``color``, and at most one
    diagonal held by the opponent (none on the edge)."""
    r = p // size
    return _eye_rc(s, size, p, r, p - r * size, color)


@njit(cache=True)
def sensible_actions(
    s: np.ndarray,
    size: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
    history: np.ndarray,
    out: np.ndarray,
) -> int:
    """Like :func:`legal_actions` without the moves that fill one of ``color``'s true eyes."""
    n = legal_actions(s, size, color, suicide_allowed, ko_mode, history, out)
    m = 0
    for i in range(n):
        a = out[i]
        if a < size * size and is_true_eye(s, size, a, color):
            continue
        out[m] = a
        m += 1
    return m


@njit(cache=True)
def setup(s: np.ndarray, size: int, p: int, color: int) -> None:
    """Put ``color`` (or remove the stone, ``EMPTY``) on ``p`` without capturing anything."""
    nn = size * size
    h = 10 * nn
    if s[p] != EMPTY:
        g = s[nn + p]
        stones = np.empty(s[7 * nn + g], dtype=np.int64)
        q = g
        k = 0
        while True:
            stones[k] = q
            k += 1
            q = s[2 * nn + q]
            if q == g:
                break
        own = s[p]
        _remove_group(s, size, g)
        for q in stones:
            if q != p:
                _place(s, size, q, own)
    if color != EMPTY:
        _place(s, size, p, color)
    s[h + F_KO] = -1


@njit(cache=True)
def area(s: np.ndarray, size: int, out: np.ndarray) -> None:
    """Tromp-Taylor ownership: ``out[p]`` = 1 or 2 for a stone or an empty point that reaches
    only that colour, 0 for dame."""
    nn = size * size
    seen = np.zeros(nn, dtype=np.bool_)
    stack = np.empty(nn, dtype=np.int64)
    region = np.empty(nn, dtype=np.int64)
    for p in range(nn):
        if s[p] != EMPTY:
            out[p] = s[p]
            continue
        if seen[p]:
            continue
        top = 0
        stack[0] = p
        seen[p] = True
        count = 0
        touches = 0
        while top >= 0:
            q = stack[top]
            top -= 1
            region[count] = q
            count += 1
            for t in _neighbors(q, size):
                if t < 0:
                    continue
                v = s[t]
                if v == EMPTY:
                    if not seen[t]:
                        seen[t] = True
                        top += 1
                        stack[top] = t
                else:
                    touches |= v
        owner = touches if touches == 1 or touches == 2 else 0
        for i in range(count):
            out[region[i]] = owner


@njit(cache=True)
def area_score(s: np.ndarray, size: int) -> tuple[int, int]:
    """Tromp-Taylor area counts ``(black, white)``."""
    nn = size * size
    owner = np.empty(nn, dtype=np.int64)
    area(s, size, owner)
    b = 0
    w = 0
    for p in range(nn):
        if owner[p] == BLACK:
            b += 1
        elif owner[p] == WHITE:
            w += 1
    return b, w


@njit(cache=True)
def random_move(
    s: np.ndarray, size: int, color: int, suicide_allowed: bool, rng: np.ndarray
) -> int:
    """A uniformly random legal (simple ko) move of ``color`` that does not fill its own true
    eye; pass (``size * size``) when there is none."""
    nn = size * size
    h = 10 * nn
    n = s[h + F_NEMPTY]
    buf = np.empty(n, dtype=np.int64)
    _copy(buf, 0, s, 8 * nn, n)
    while n > 0:
        i = rand_below(rng, n)
        p = buf[i]
        if check(s, size, p, color, suicide_allowed) == OK and not is_true_eye(s, size, p, color):
            return p
        n -= 1
        buf[i] = buf[n]
    return nn


@njit(cache=True)
def playout(
    s: np.ndarray, size: int, komi: float, suicide_allowed: bool, max_moves: int, rng: np.ndarray
) -> float:
    """Play uniformly random sensible moves on ``s`` in place until two consecutive passes (or
    ``max_moves`` more moves); return the area score, Black minus White minus ``komi``."""
    nn = size * size
    h = 10 * nn
    buf = np.empty(nn, dtype=np.int64)
    moves = 0
    while s[h + F_PASSES] < 2 and moves < max_moves:
        color = s[h + F_TO_PLAY]
        n = s[h + F_NEMPTY]
        _copy(buf, 0, s, 8 * nn, n)
        action = nn
        while n > 0:
            i = rand_below(rng, n)
            p = buf[i]
            r = p // size
            c = p - r * size
            if _check_rc(s, size, p, r, c, color, suicide_allowed) == OK and not _eye_rc(
                s, size, p, r, c, color
            ):
                action = p
                break
            n -= 1
            buf[i] = buf[n]
        if action == nn:
            play(s, size, action, color, suicide_allowed)
        else:
            _apply(s, size, action, color)
        moves += 1
    b, w = area_score(s, size)
    return b - w - komi


@njit(cache=True)
def playouts(
    s: np.ndarray,
    size: int,
    komi: float,
    suicide_allowed: bool,
    count: int,
    max_moves: int,
    rng: np.ndarray,
    ownership: np.ndarray,
) -> float:
    """Run ``count`` playouts from ``s`` (not changed); add each final owner (+1 Black, -1 White)
    to ``ownership``; return the mean score."""
    nn = size * size
    work = np.empty_like(s)
    owner = np.empty(nn, dtype=np.int64)
    total = 0.0
    for _ in range(count):
        _copy(work, 0, s, 0, s.shape[0])
        total += playout(work, size, komi, suicide_allowed, max_moves, rng)
        area(work, size, owner)
        for p in range(nn):
            if owner[p] == BLACK:
                ownership[p] += 1
            elif owner[p] == WHITE:
                ownership[p] -= 1
    return total / max(count, 1)


@njit(cache=True)
def perft(
    s: np.ndarray,
    size: int,
    depth: int,
    suicide_allowed: bool,
    ko_mode: int,
    history: np.ndarray,
    nhist: int,
) -> int:
    """The number of positions reached by exactly ``depth`` legal moves (pass included) from
    ``s``; a game ended by two passes is counted but not continued. ``history[:nhist]`` holds
    the keys superko forbids; the array needs ``depth`` more free slots. Iterative (numba's
    cache does not support recursion)."""
    nn = size * size
    h = 10 * nn
    if depth == 0:
        return 1
    if s[h + F_PASSES] >= 2:
        return 0
    states = np.empty((depth + 1, s.shape[0]), dtype=np.int64)
    states[0] = s
    cursor = np.zeros(depth + 1, dtype=np.int64)
    total = 0
    ply = 0
    while ply >= 0:
        a = cursor[ply]
        if a > nn:
            ply -= 1
            continue
        cursor[ply] = a + 1
        current = states[ply]
        color = current[h + F_TO_PLAY]
        if a < nn and check(current, size, a, color, suicide_allowed) != OK:
            continue
        child = states[ply + 1]
        _copy(child, 0, current, 0, current.shape[0])
        play(child, size, a, color, suicide_allowed)
        if ko_mode != KO_SIMPLE:
            key = child[h + F_HASH]
            if ko_mode == KO_SITUATIONAL and color == BLACK:
                key ^= ZOBRIST_WHITE_TO_PLAY
            if a < nn:
                repeat = False
                for i in range(nhist + ply):
                    if history[i] == key:
                        repeat = True
                        break
                if repeat:
                    continue
            history[nhist + ply] = key
        if ply + 1 == depth:
            total += 1
        elif child[h + F_PASSES] < 2:
            ply += 1
            cursor[ply] = 0
    return total


@njit(cache=True)
def insert_sorted(keys: np.ndarray, key: int) -> np.ndarray:
    """A new sorted array: ``keys`` (sorted) with ``key`` added (kept once)."""
    n = keys.shape[0]
    lo = _lower_bound(keys, 0, n, key)
    if lo < n and keys[lo] == key:
        return keys
    out = np.empty(n + 1, dtype=np.int64)
    _copy(out, 0, keys, 0, lo)
    out[lo] = key
    _copy(out, lo + 1, keys, lo, n - lo)
    return out


@njit(cache=True)
def contains(keys: np.ndarray, key: int) -> bool:
    """Whether the sorted array ``keys`` holds ``key``."""
    return _contains_at(keys, 0, keys.shape[0], key)
