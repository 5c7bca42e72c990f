# mypy: disable-error-code="no-any-return"
"""Private numba kernels of the Go rules: eyes, self-ataris, set-up, area counts, playouts,
perft and the sorted-key helpers, with the state and group kernels of
:mod:`imago.games.go._board`, the legal lists of :mod:`imago.games.go._legal` and the nakade
kernels of :mod:`imago.games.go._nakade` re-exported (callers import this one module)."""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.core.rng import rand_below
from imago.games.go._board import (
    _GOLDEN,
    _MIX1,
    _MIX2,
    BAD_INPUT,
    BLACK,
    EMPTY,
    F_CAPT_B,
    F_CAPT_W,
    F_HASH,
    F_KO,
    F_KO_COLOR,
    F_LAST,
    F_MOVES,
    F_NEMPTY,
    F_PASSES,
    F_STATUS,
    F_TO_PLAY,
    F_TOP,
    GAME_OVER,
    HEADER,
    KO,
    KO_POSITIONAL,
    KO_SIMPLE,
    KO_SITUATIONAL,
    L_BOARD,
    L_EMPTIES,
    L_GHASH,
    L_GSIZE,
    L_HEAD,
    L_LIBC,
    L_LIBQ,
    L_LIBS,
    L_NEXT,
    L_WHERE,
    MAX_POINTS,
    MAX_SIZE,
    OCCUPIED,
    OK,
    SUICIDE,
    SUPERKO,
    WHITE,
    ZOBRIST_WHITE_TO_PLAY,
    _add_lib,
    _apply,
    _check_rc,
    _copy,
    _del_lib,
    _empties_add,
    _empties_remove,
    _in_atari,
    _merge,
    _neighbor_allows,
    _neighbors,
    _place,
    _remove_group,
    atari_liberty,
    board_liberties,
    check,
    empty_at,
    first_meeting,
    group_head,
    group_size,
    header,
    new_state,
    next_stone,
    play,
    result_hash,
    state_length,
    zobrist,
)
from imago.games.go._legal import (
    BLOOM_WORDS,
    _beyond_history,
    _bloom_add,
    _bloom_has,
    _captured_hash,
    _complete,
    _contains_at,
    _finish,
    _legal_into,
    _legal_small,
    _lower_bound,
    _lsr,
    _raise_stone_bound,
    _remakes_history,
    _shl2,
    _shr2,
    advance,
    advance_coded,
    child,
    finish,
    full_length,
    full_offsets,
    history_key,
    legal_actions,
    legal_list,
    rules_code,
)
from imago.games.go._nakade import nakade_sacrifice, nakade_shape, vital_point

__all__ = [
    "BAD_INPUT",
    "BLACK",
    "BLOOM_WORDS",
    "EMPTY",
    "F_CAPT_B",
    "F_CAPT_W",
    "F_HASH",
    "F_KO",
    "F_KO_COLOR",
    "F_LAST",
    "F_MOVES",
    "F_NEMPTY",
    "F_PASSES",
    "F_STATUS",
    "F_TOP",
    "F_TO_PLAY",
    "GAME_OVER",
    "HEADER",
    "KO",
    "KO_POSITIONAL",
    "KO_SIMPLE",
    "KO_SITUATIONAL",
    "L_BOARD",
    "L_EMPTIES",
    "L_GHASH",
    "L_GSIZE",
    "L_HEAD",
    "L_LIBC",
    "L_LIBQ",
    "L_LIBS",
    "L_NEXT",
    "L_WHERE",
    "MAX_POINTS",
    "MAX_SIZE",
    "OCCUPIED",
    "OK",
    "SUICIDE",
    "SUPERKO",
    "WHITE",
    "ZOBRIST_WHITE_TO_PLAY",
    "_GOLDEN",
    "_MIX1",
    "_MIX2",
    "_add_lib",
    "_apply",
    "_beyond_history",
    "_bloom_add",
    "_bloom_has",
    "_captured_hash",
    "_check_rc",
    "_complete",
    "_contains_at",
    "_copy",
    "_del_lib",
    "_empties_add",
    "_empties_remove",
    "_eye_rc",
    "_finish",
    "_in_atari",
    "_legal_into",
    "_legal_small",
    "_lower_bound",
    "_lsr",
    "_merge",
    "_neighbor_allows",
    "_neighbors",
    "_place",
    "_raise_stone_bound",
    "_remakes_history",
    "_remove_group",
    "_shl2",
    "_shr2",
    "advance",
    "advance_coded",
    "area",
    "area_score",
    "atari_liberty",
    "bad_self_atari",
    "board_liberties",
    "board_state",
    "check",
    "child",
    "contains",
    "empty_at",
    "escape_keeps",
    "finish",
    "full_length",
    "full_offsets",
    "group_head",
    "group_size",
    "header",
    "history_key",
    "insert_sorted",
    "is_true_eye",
    "legal_actions",
    "legal_list",
    "nakade_sacrifice",
    "nakade_shape",
    "new_state",
    "next_stone",
    "perft",
    "play",
    "playout",
    "playouts",
    "random_move",
    "result_hash",
    "rules_code",
    "self_atari",
    "sensible_actions",
    "setup",
    "state_length",
    "vital_point",
    "zobrist",
]


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
def self_atari(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` playing the legal ``p`` leaves its new group of two or more stones with
    at most one liberty (suicide included). Two empty neighbours, or no friendly one, settle it
    without playing; without a capture the liberties are counted by walking the friendly
    groups; a capture plays the move on ``work`` (as long as ``s``)."""
    nn = size * size
    other = 3 - color
    empties = 0
    friends = False
    lib = -1
    for q in _neighbors(p, size):
        if q < 0:
            continue
        v = s[q]
        if v == EMPTY:
            empties += 1
            lib = q
        elif v == color:
            friends = True
    if empties >= 2 or not friends:
        return False
    for q in _neighbors(p, size):
        if q >= 0 and s[q] == other and atari_liberty(s, nn, q) == p:
            work[: s.shape[0]] = s  # a capture: play it out on the copy
            play(work, size, p, color, suicide_allowed)
            if work[p] != color:
                return True  # suicide
            g = group_head(work, nn, p)
            return group_size(work, nn, g) >= 2 and atari_liberty(work, nn, p) >= 0
    g0 = g1 = g2 = -1
    for q in _neighbors(p, size):
        if q < 0 or s[q] != color:
            continue
        g = group_head(s, nn, q)
        new, g0, g1, g2 = first_meeting(g, g0, g1, g2)
        if not new:
            continue
        x = g
        while True:
            for y in _neighbors(x, size):
                if y >= 0 and s[y] == EMPTY and y != p and y != lib:
                    if lib >= 0:
                        return False  # a second liberty
                    lib = y
            x = next_stone(s, nn, x)
            if x == g:
                break
    return True


@njit(cache=True)
def bad_self_atari(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """A :func:`self_atari` that is no :func:`nakade_sacrifice`: the self-atari that playouts
    never play (a single stone, as a throw-in, and a sacrifice that kills stay allowed)."""
    return self_atari(s, size, p, color, suicide_allowed, work) and not nakade_sacrifice(
        s, size, p, color, suicide_allowed, work
    )


@njit(cache=True)
def escape_keeps(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` extending on ``p`` leaves the new group at least two liberties (played
    on ``work``, as long as ``s``)."""
    work[: s.shape[0]] = s
    if play(work, size, p, color, suicide_allowed) != OK or work[p] != color:
        return False
    return atari_liberty(work, size * size, p) < 0


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
