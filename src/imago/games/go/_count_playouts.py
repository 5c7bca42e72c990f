# mypy: disable-error-code="no-any-return"
"""Private numba kernels: the playout policy of the end-of-game count.

Each move, in this order: fill the ko point the player took on its last turn (at the end of a
game a ko may be retaken only after a pass, so it is won by whoever takes it first); on the
first move, capture any string left in atari (a referee asks whether stones can be captured
with their opponent moving first); capture a string next to the last move that is in atari;
save an own string the last move put in atari (by capturing an attacker, or extending to two
liberties or more); otherwise a uniformly random legal move that neither fills one of the
player's true eyes nor leaves a group of two stones or more in atari (so a seki stays a seki),
unless that self-atari is a nakade sacrifice (:func:`~imago.games.go._nakade.nakade_sacrifice`:
stones inside one enemy group whose capture leaves it an eye space that makes one eye, the
sacrifice that kills a group a seki would otherwise save); pass when none is left. Moves on
``frozen`` points (the certain territories) are never played.

State arrays are those of :mod:`imago.games.go._kernels`, read through its accessors; the random
generator is :mod:`imago.core.rng` on a 1-element state.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.core.rng import rand_below
from imago.games.go._kernels import (
    BLACK,
    EMPTY,
    F_KO,
    F_LAST,
    F_NEMPTY,
    F_PASSES,
    F_TO_PLAY,
    OK,
    _neighbors,
    atari_liberty,
    bad_self_atari,
    check,
    empty_at,
    escape_keeps,
    group_head,
    header,
    is_true_eye,
    next_stone,
    play,
)


@njit(cache=True, inline="always")
def _capture_at(
    s: np.ndarray, size: int, q: int, color: int, suicide: bool, frozen: np.ndarray
) -> int:
    """Where ``color`` captures the group on ``q`` (in atari), or -1."""
    lib = atari_liberty(s, size * size, q)
    if lib >= 0 and not frozen[lib] and check(s, size, lib, color, suicide) == OK:
        return lib
    return -1


@njit(cache=True)
def _tactical_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    frozen: np.ndarray,
    rng: np.ndarray,
    work: np.ndarray,
) -> int:
    """A capture next to the last move, else the escape of an own group the last move put in
    atari (capturing an attacker, or extending to two liberties or more); -1 when none."""
    nn = size * size
    last = s[header(size) + F_LAST]
    if last < 0 or last >= nn or s[last] == EMPTY:
        return -1
    other = 3 - color
    choice = -1
    n = 0
    if s[last] == other:
        lib = _capture_at(s, size, last, color, suicide, frozen)
        if lib >= 0:
            choice = lib
            n = 1
    for q in _neighbors(last, size):
        if q >= 0 and s[q] == other:
            lib = _capture_at(s, size, q, color, suicide, frozen)
            if lib >= 0:
                n += 1
                if rand_below(rng, n) == 0:
                    choice = lib
    if n > 0:
        return choice
    for q in _neighbors(last, size):
        if q < 0 or s[q] != color:
            continue
        lib = atari_liberty(s, nn, q)
        if lib < 0:
            continue
        g = group_head(s, nn, q)
        x = g
        while True:
            for y in _neighbors(x, size):
                if y >= 0 and s[y] == other:
                    lib2 = _capture_at(s, size, y, color, suicide, frozen)
                    if lib2 >= 0:
                        n += 1
                        if rand_below(rng, n) == 0:
                            choice = lib2
            x = next_stone(s, nn, x)
            if x == g:
                break
        if not frozen[lib] and escape_keeps(s, size, lib, color, suicide, work):
            n += 1
            if rand_below(rng, n) == 0:
                choice = lib
    return choice if n > 0 else -1


@njit(cache=True)
def _random_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    frozen: np.ndarray,
    rng: np.ndarray,
    buf: np.ndarray,
    work: np.ndarray,
) -> int:
    """A uniformly random legal move off the ``frozen`` points that neither fills one of
    ``color``'s true eyes nor is a :func:`bad_self_atari` (two stones or more in atari, and no
    nakade sacrifice); pass when none."""
    nn = size * size
    n = s[header(size) + F_NEMPTY]
    for i in range(n):
        buf[i] = empty_at(s, nn, i)
    while n > 0:
        i = rand_below(rng, n)
        p = buf[i]
        if (
            not frozen[p]
            and check(s, size, p, color, suicide) == OK
            and not is_true_eye(s, size, p, color)
            and not bad_self_atari(s, size, p, color, suicide, work)
        ):
            return p
        n -= 1
        buf[i] = buf[n]
    return nn


@njit(cache=True)
def _capture_any(
    s: np.ndarray, size: int, color: int, suicide: bool, frozen: np.ndarray, rng: np.ndarray
) -> int:
    """A capture of any opponent string in atari (random among them), or -1."""
    nn = size * size
    other = 3 - color
    choice = -1
    n = 0
    for p in range(nn):
        if s[p] == other and group_head(s, nn, p) == p:
            lib = _capture_at(s, size, p, color, suicide, frozen)
            if lib >= 0:
                n += 1
                if rand_below(rng, n) == 0:
                    choice = lib
    return choice


@njit(cache=True)
def policy_playout(
    w: np.ndarray,
    size: int,
    suicide: bool,
    frozen: np.ndarray,
    max_moves: int,
    rng: np.ndarray,
    buf: np.ndarray,
    work: np.ndarray,
) -> None:
    """Play the policy on ``w`` in place until two passes (or ``max_moves``).

    The first move captures a string left in atari when there is one (a referee asks whether
    the stones can be captured with their opponent moving first); a ko once taken is filled at
    the taker's next turn (at the end of a game a ko may be retaken only after a pass, so it is
    won by whoever takes it first)."""
    nn = size * size
    h = header(size)
    moves = 0
    pending_b = -1  # the ko point to fill, by colour
    pending_w = -1
    while w[h + F_PASSES] < 2 and moves < max_moves:
        color = w[h + F_TO_PLAY]
        a = -1
        pending = pending_b if color == BLACK else pending_w
        if pending >= 0:
            if (
                w[pending] == EMPTY
                and check(w, size, pending, color, suicide) == OK
                and not bad_self_atari(w, size, pending, color, suicide, work)
            ):
                a = pending
            if color == BLACK:
                pending_b = -1
            else:
                pending_w = -1
        if a < 0 and moves == 0:
            a = _capture_any(w, size, color, suicide, frozen, rng)
        if a < 0:
            a = _tactical_move(w, size, color, suicide, frozen, rng, work)
        if a < 0:
            a = _random_move(w, size, color, suicide, frozen, rng, buf, work)
        if play(w, size, a, color, suicide) != OK:
            play(w, size, nn, color, suicide)
        elif a < nn and w[h + F_KO] >= 0:
            if color == BLACK:
                pending_b = w[h + F_KO]
            else:
                pending_w = w[h + F_KO]
        moves += 1
