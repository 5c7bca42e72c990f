"""Numba kernels that check a whole line of Go moves in one call.

Built on the Go rules' public array API (:mod:`imago.games.go.fastpath`): ``play`` places a
stone in a state array (captures, simple ko, suicide) and ``history_key`` gives the key that
superko remembers, the checks ``GoPosition.play`` makes. Reading an SGF record, the tree uses
:func:`line_refused` to check its main line at once, then computes each node's position
(a ``GoPosition``) only when it is asked for.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from imago.games.go.fastpath import (
    F_PASSES,
    F_TO_PLAY,
    KO_SIMPLE,
    OK,
    header,
    history_key,
    play,
)


@njit(cache=True)
def first_refused(
    state: npt.NDArray[np.int64],
    size: int,
    keys: npt.NDArray[np.int64],
    actions: npt.NDArray[np.int64],
    colors: npt.NDArray[np.int64],
    suicide_allowed: bool,
    ko_mode: int,
) -> int:
    """The index of the first move the rules refuse, or -1 when all are legal.

    ``state`` is a copy of the starting position's state array (``GoPosition.arrays()``,
    changed in place), ``keys`` the positions superko forbids there
    (``GoPosition.superko_keys()``), ``actions`` the moves (``row * size + col``, pass
    ``size * size``) and ``colors`` who plays each (1 black, 2 white, 0 the side to move).
    As ``GoPosition.play``: a move after two passes is refused (the game is over), and under
    superko a move (not a pass) may not recreate a remembered position; every position
    reached is remembered.
    """
    h = header(size)
    nn = size * size
    seen = set()
    for k in keys:
        seen.add(k)
    for i in range(actions.shape[0]):
        if state[h + F_PASSES] >= 2:
            return i
        action = actions[i]
        color = colors[i] if colors[i] != 0 else state[h + F_TO_PLAY]
        if play(state, size, action, color, suicide_allowed) != OK:
            return i
        if ko_mode != KO_SIMPLE:
            key = history_key(state, size, ko_mode)
            if action != nn and key in seen:
                return i
            seen.add(key)
    return -1


NOT_A_LINE = -2


@njit(cache=True)
def line_refused(
    state: npt.NDArray[np.int64],
    size: int,
    keys: npt.NDArray[np.int64],
    codes: npt.NDArray[np.int32],
    parents: npt.NDArray[np.int32],
    action_of_code: npt.NDArray[np.int64],
    suicide_allowed: bool,
    ko_mode: int,
) -> int:
    """:func:`first_refused` over an SGF tree as the grammar's scan left it: ``codes`` and
    ``parents`` of its nodes (node 0 the root; move codes ``colour << 10 | point code``,
    parents numbered in any consistent way), ``action_of_code`` the action of each point
    code. Returns :data:`NOT_A_LINE` unless every node after the root is the child of the
    one before it and has a move; else the index (counting from node 1) of the first move
    refused, or -1."""
    n = codes.shape[0] - 1
    actions = np.empty(n, np.int64)
    colors = np.empty(n, np.int64)
    for i in range(n):
        code = codes[i + 1]
        if code < 0 or (i > 0 and parents[i + 1] != parents[i] + 1):
            return NOT_A_LINE
        action = action_of_code[code & 1023]
        if action < 0:
            return NOT_A_LINE
        actions[i] = action
        colors[i] = code >> 10
    return first_refused(state, size, keys, actions, colors, suicide_allowed, ko_mode)
