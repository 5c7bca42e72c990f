# mypy: disable-error-code="no-any-return"
"""Private numba kernels of the Go rules, part two: the legal-move lists (from bit sets of the
board), the sorted superko keys with their bloom filter, and the full array of a position (its
state, legal actions and keys: :func:`finish`, :func:`advance`). The state layout is in
:mod:`imago.games.go._board`."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.core import types
from numba.cpython.unsafe.numbers import trailing_zeros  # llvm.cttz: a bit scan of an integer
from numba.extending import overload

from imago.games.go._board import (
    BAD_INPUT,
    BLACK,
    EMPTY,
    F_HASH,
    F_KO,
    F_KO_COLOR,
    F_NEMPTY,
    F_PASSES,
    F_STATUS,
    F_TO_PLAY,
    F_TOP,
    GAME_OVER,
    HEADER,
    KO_SIMPLE,
    KO_SITUATIONAL,
    OK,
    SUPERKO,
    WHITE,
    ZOBRIST_WHITE_TO_PLAY,
    _copy,
    _in_atari,
    _neighbors,
    atari_heads,
    first_meeting,
    group_head,
    play,
    result_hash,
    zobrist,
)


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
    g0 = g1 = g2 = -1
    for q in _neighbors(p, size):
        if q < 0 or s[q] != other:
            continue
        g = s[nn + q]
        new, g0, g1, g2 = first_meeting(g, g0, g1, g2)
        if new and _in_atari(s, nn, g):
            key ^= s[6 * nn + g]
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
    # The choice is made by the argument's type while numba compiles the caller (numba's own
    # ``isinstance`` inside an inlined kernel miscompiled its caller once: 2x2 superko lists
    # went wrong).
    if isinstance(bits, types.BaseTuple):

        def from_pair(bits: Any, p: Any) -> Any:
            return bits[0] ^ ((bits[0] ^ bits[1]) & -np.int64(p >= 64))  # no branch

        return from_pair

    def from_words(bits: Any, p: Any) -> Any:
        return bits[p >> 6]

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
    """Write ``first + i`` for each set bit ``i`` of ``bits`` to ``out[n:]``, ascending (one
    step per set bit: ``trailing_zeros`` is the processor's bit scan); return the index after
    the last one written."""
    while bits:
        out[n] = first + trailing_zeros(bits)  # type: ignore[call-arg]  # (a numba intrinsic)
        n += 1
        bits &= bits - 1
    return n


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
    ``atari_heads`` of each word of the board (a pair on boards up to 128 points, else an
    array). Every point is read the same way, without a branch."""
    other = 3 - color
    e_set = safe_set = cap_set = np.int64(0)
    for q in range(end - first):
        p = first + q
        v = s[p]
        g = group_head(s, nn, p)
        in_atari = (_word_of(atari, g) >> (g & 63)) & 1 == 1
        bit = np.int64(1) << q
        e_set |= bit & -np.int64(v == EMPTY)
        safe_set |= bit & -np.int64((v == color) & (not in_atari))
        cap_set |= bit & -np.int64((v == other) & in_atari)
    return e_set, safe_set, cap_set


@njit(cache=True, inline="always")
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
    board in two words held in registers: each point is read once and tested without a branch,
    and the moves follow from shifts of the sets. On random positions a branch per point test
    costs more than the test (``bench/go_legal_probe.py``)."""
    nn = size * size
    h = 10 * nn
    ko = s[h + F_KO] if s[h + F_KO_COLOR] == color else -1
    superko = ko_mode != KO_SIMPLE and nkeys > 0
    # bit sets of the board (bit p of (lo, hi)): empty points, own stones not in atari, enemy
    # stones in atari
    atari = (atari_heads(s, nn, 0, min(nn, 64)), atari_heads(s, nn, 64, nn))
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
    if superko:
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
    ten on 25x25) in a small array instead of two registers. (It gives the same lists on small
    boards, but there the registers are faster.) The two share their superko filter,
    :func:`_drop_repeats`."""
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
        atari[w] = atari_heads(s, nn, 64 * w, min(nn, 64 * w + 64))
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


@njit(cache=True, inline="always")
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
    if size * size <= 128:
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
def _advance(
    full: np.ndarray,
    out: np.ndarray,
    size: int,
    action: int,
    color: int,
    suicide_allowed: bool,
    ko_mode: int,
) -> int:
    """:func:`advance`; its callers' one body. Every index it makes is checked first against
    the arrays' lengths: arrays too short for ``size`` and the keys, an action off the board or
    a colour other than black or white give ``BAD_INPUT`` and nothing is written."""
    nn = size * size
    h = 10 * nn
    length = 10 * nn + HEADER
    bloom_at = length + nn + 3
    base = bloom_at + BLOOM_WORDS
    if size < 2 or full.shape[0] < base or not 0 <= action <= nn:
        return BAD_INPUT
    nk = full[length + nn + 2]
    if color == 0:
        color = full[h + F_TO_PLAY]
    if (
        nk < 0
        or full.shape[0] < base + nk
        or out.shape[0] < base + nk + 1
        or (color != BLACK and color != WHITE)
    ):
        return BAD_INPUT
    if full[h + F_PASSES] >= 2:
        return GAME_OVER
    _copy(out, 0, full, 0, length)
    status = play(out, size, action, color, suicide_allowed)
    if status == OK and ko_mode != KO_SIMPLE and action != nn:
        key = history_key(out, size, ko_mode)
        if _bloom_has(full, bloom_at, key) and _contains_at(full, base, nk, key):
            status = SUPERKO
    if status != OK:
        return status
    _complete(out, size, suicide_allowed, ko_mode, full, base, nk, bloom_at, True)
    return -1 - out[length + nn + 1] - (out[length + nn + 2] << 16)


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
    """Fill ``out`` (a full array with room for one more superko key than ``full`` holds: at
    least ``full_length(size, k + 1)`` words for ``k`` keys) with the position after ``color``
    (0: the side to move) plays ``action`` on the full array ``full`` (see :func:`finish`).
    Returns ``-1 - n - (k << 16)`` where ``n`` is the number of legal actions of the new
    position and ``k`` its number of superko keys, or a status code (``OCCUPIED`` ...
    ``GAME_OVER``) when the move is refused, and then ``out`` is garbage; ``BAD_INPUT`` when
    the arrays are too short for ``size``, ``action`` is off the board or ``color`` is not 0,
    black or white (then nothing is written)."""
    return _advance(full, out, size, action, color, suicide_allowed, ko_mode)


def rules_code(size: int, suicide_allowed: bool, ko_mode: int) -> int:
    """:func:`advance_coded`'s ``code`` for a game: the size, the suicide rule and the ko
    mode in one integer (add ``color << 8`` to play for ``color`` rather than the side to
    move)."""
    return size | int(suicide_allowed) << 5 | ko_mode << 6


@njit(cache=True)
def advance_coded(full: np.ndarray, out: np.ndarray, code: int, action: int) -> int:
    """:func:`advance` with the game's integers in one (:func:`rules_code`): the position's
    step, whose entry then converts four arguments rather than seven."""
    return _advance(full, out, code & 31, action, code >> 8, (code >> 5) & 1 == 1, (code >> 6) & 3)
