"""Numba kernel that checks a whole line of Go moves in one call.

Built on the Go rules' public array API (:mod:`imago.games.go.fastpath`): ``advance`` plays
one move from a *full* state array (with the superko keys) into another and says whether the
rules accept it, exactly as ``GoPosition.play`` does. Reading an SGF record, the tree uses
:func:`first_refused` to check its main line at once, then computes each node's position
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
