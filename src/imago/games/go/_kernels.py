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

import numpy as np
from numba import njit

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
    side = ZOBRIST_WHITE_TO_PLAY if ko_mode == KO_SITUATIONAL and color == BLACK else 0
    other = 3 - color
    # bit sets of the board (bit p of (lo, hi)): empty points, own stones not in atari, enemy
    # stones in atari; every point is read the same way, without a branch
    e_lo = e_hi = safe_lo = safe_hi = cap_lo = cap_hi = np.int64(0)
    for p in range(nn):
        v = s[p]
        g = s[nn + p]
        c = s[3 * nn + g]
        t = s[4 * nn + g]
        atari = c * s[5 * nn + g] == t * t
        e = np.int64(v == EMPTY)
        safe = np.int64((v == color) & (not atari))
        cap = np.int64((v == other) & atari)
        if p < 64:
            e_lo |= e << p
            safe_lo |= safe << p
            cap_lo |= cap << p
        else:
            e_hi |= e << (p - 64)
            safe_hi |= safe << (p - 64)
            cap_hi |= cap << (p - 64)
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
    # the candidates, ascending, without a branch per point
    n = out_at
    for p in range(nn):
        bit = (ok_lo >> p) & 1 if p < 64 else (ok_hi >> (p - 64)) & 1
        out[n] = p
        n += int(bit)
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
    if superko:
        m = out_at
        for j in range(out_at, n):
            p = out[j]
            if p < 64:
                captures = (x_lo >> p) & 1 == 1
                liberty = (lib_lo >> p) & 1 == 1
            else:
                captures = (x_hi >> (p - 64)) & 1 == 1
                liberty = (lib_hi >> (p - 64)) & 1 == 1
            out[m] = p
            m += (plain and liberty and not captures) or not _remakes_history(
                s, size, p, color, side, liberty, captures, keys, keys_at, nkeys, bloom_at,
                own_keys,
            )  # fmt: skip
        n = m
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
    # Helpers here are inlined (``inline="always"``): an ordinary call per point (array
    # arguments, reference counts) made this loop twenty times slower.
    nn = size * size
    if nn <= 128:
        return _legal_small(
            s, size, color, suicide_allowed, ko_mode, keys, keys_at, nkeys, bloom_at, own_keys,
            out, out_at,
        )  # fmt: skip
    h = 10 * nn
    ko = s[h + F_KO] if s[h + F_KO_COLOR] == color else -1
    superko = ko_mode != KO_SIMPLE and nkeys > 0
    side = ZOBRIST_WHITE_TO_PLAY if ko_mode == KO_SITUATIONAL and color == BLACK else 0
    plain = superko and _beyond_history(s, nn, own_keys)
    n = out_at
    p = 0
    for r in range(size):
        for c in range(size):
            if s[p] != EMPTY or p == ko:
                p += 1
                continue
            up = p - size if r > 0 else -1
            down = p + size if r < size - 1 else -1
            left = p - 1 if c > 0 else -1
            right = p + 1 if c < size - 1 else -1
            if not superko and (
                (up >= 0 and s[up] == EMPTY)
                or (down >= 0 and s[down] == EMPTY)
                or (left >= 0 and s[left] == EMPTY)
                or (right >= 0 and s[right] == EMPTY)
            ):
                out[n] = p
                n += 1
                p += 1
                continue
            liberty = False
            captures = False
            for q in (up, down, left, right):
                if q < 0:
                    continue
                v = s[q]
                if v == EMPTY:
                    liberty = True
                    continue
                atari = _in_atari(s, nn, s[nn + q])
                if v == color:
                    liberty |= not atari
                elif atari:
                    liberty = True
                    captures = True
            if not liberty and not suicide_allowed:
                p += 1
                continue
            if (
                superko
                and not (plain and liberty and not captures)  # a new board: it has more stones
                and _remakes_history(
                    s, size, p, color, side, liberty, captures, keys, keys_at, nkeys, bloom_at,
                    own_keys,
                )
            ):  # fmt: skip
                p += 1
                continue
            out[n] = p
            n += 1
            p += 1
    out[n] = nn
    return n + 1 - out_at


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


@njit(cache=True)
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


@njit(cache=True)
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
    nn = size * size
    h = 10 * nn
    length = 10 * nn + HEADER
    if full[h + F_PASSES] >= 2:
        return GAME_OVER
    nk = full[length + nn + 2]
    bloom_at = length + nn + 3
    base = bloom_at + BLOOM_WORDS
    _copy(out, 0, full, 0, length)
    if color == 0:
        color = full[h + F_TO_PLAY]
    status = play(out, size, action, color, suicide_allowed)
    if status == OK and ko_mode != KO_SIMPLE and action != nn:
        key = history_key(out, size, ko_mode)
        if _bloom_has(full, bloom_at, key) and _contains_at(full, base, nk, key):
            status = SUPERKO
    if status != OK:
        return status
    _complete(out, size, suicide_allowed, ko_mode, full, base, nk, bloom_at, True)
    return -1 - out[length + nn + 1] - (out[length + nn + 2] << 16)


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
def board_state(board: np.ndarray, size: int) -> np.ndarray:
    """The state of the stones of ``board`` (``size * size`` values, each ``EMPTY``, ``BLACK``
    or ``WHITE``: the caller checks them), set up without captures, Black to play."""
    s = new_state(size)
    for p in range(size * size):
        if board[p] != EMPTY:
            _place(s, size, p, board[p])
    return s


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
