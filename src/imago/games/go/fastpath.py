"""The array-level fast path of the Go rules, for search code written in numba.

Every kernel named here is a numba ``njit`` function over one flat ``int64`` state array ``s``
and the board ``size``; call them from Python or from your own ``@njit`` code. They follow the
**simple-ko** rule; superko is a check against a sorted ``int64`` array of forbidden keys
(``history``), which :func:`legal_actions`, :func:`sensible_actions` and :func:`child` apply and
:func:`play` does not (check a played move with :func:`history_key` + :func:`contains`).

In Python, from a position to arrays and back::

    from imago.games.go import fastpath as f
    s = f.to_arrays(position)             # a private copy of the state
    keys = position.superko_keys()        # sorted keys superko forbids (empty under simple ko)
    mode = f.ko_mode(position.rules)      # KO_SIMPLE / KO_POSITIONAL / KO_SITUATIONAL
    rng = f.seed_rng(seed)                # xorshift state: a 1-element int64 array
    position2 = f.from_arrays(s, position)  # a GoPosition again, ``position`` its parent

In numba (or Python)::

    h = f.header(size)
    color = s[h + f.F_TO_PLAY]            # 1 black, 2 white; s[h + f.F_PASSES] >= 2: game over
    status = f.play(s, size, action, color, suicide_allowed)   # in place; f.OK when legal
    n = f.legal_actions(s, size, color, suicide_allowed, mode, keys, out)  # out: nn + 1 slots
    n = f.sensible_actions(s, size, color, suicide_allowed, mode, keys, out)  # no own-eye fills
    a = f.random_move(s, size, color, suicide_allowed, rng)    # uniform sensible move or pass
    score = f.playout(s, size, komi, suicide_allowed, max_moves, rng)  # B - W - komi (area)
    b, w = f.area_score(s, size)          # Tromp-Taylor counts
    t = f.child(s, size, action, color, suicide_allowed, mode, keys)  # copy + play + superko;
                                          # status in t[h + f.F_STATUS]

Actions are ``row * size + col`` and pass is ``size * size``. Status codes: ``OK``,
``OCCUPIED``, ``SUICIDE``, ``KO``, ``SUPERKO``. The layout of ``s`` is documented in the private
``_kernels`` module and may change; read the board as ``s[p]``, the header through the ``F_*``
offsets after :func:`header`, and groups only through the accessors (``nn = size * size``)::

    g = f.group_head(s, nn, p)            # the group of the stone on p (its head point)
    q = f.next_stone(s, nn, q)            # the group's stones, a circular list from g
    f.group_size(s, nn, g)                # its number of stones
    f.atari_liberty(s, nn, p)             # the only liberty of p's group, or -1
    f.empty_at(s, nn, i)                  # the i-th empty point, i < s[h + f.F_NEMPTY]

``zobrist(color, point)`` and ``ZOBRIST_WHITE_TO_PLAY`` make the keys.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from imago.games.go._kernels import (
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
    KO,
    KO_POSITIONAL,
    KO_SIMPLE,
    KO_SITUATIONAL,
    OCCUPIED,
    OK,
    SUICIDE,
    SUPERKO,
    WHITE,
    ZOBRIST_WHITE_TO_PLAY,
    advance,
    area,
    area_score,
    atari_liberty,
    check,
    child,
    contains,
    empty_at,
    finish,
    group_head,
    group_size,
    header,
    history_key,
    insert_sorted,
    is_true_eye,
    legal_actions,
    legal_list,
    new_state,
    next_stone,
    play,
    playout,
    playouts,
    random_move,
    result_hash,
    sensible_actions,
    state_length,
    zobrist,
)
from imago.games.go.position import _KO_MODES, GoPosition
from imago.games.go.rules import GoRules

__all__ = [
    "BLACK",
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
    "F_TO_PLAY",
    "KO",
    "KO_POSITIONAL",
    "KO_SIMPLE",
    "KO_SITUATIONAL",
    "OCCUPIED",
    "OK",
    "SUICIDE",
    "SUPERKO",
    "WHITE",
    "ZOBRIST_WHITE_TO_PLAY",
    "advance",
    "area",
    "area_score",
    "atari_liberty",
    "check",
    "child",
    "contains",
    "empty_at",
    "finish",
    "from_arrays",
    "group_head",
    "group_size",
    "header",
    "history_key",
    "insert_sorted",
    "is_true_eye",
    "ko_mode",
    "legal_actions",
    "legal_list",
    "new_state",
    "next_stone",
    "play",
    "playout",
    "playouts",
    "random_move",
    "result_hash",
    "seed_rng",
    "sensible_actions",
    "state_length",
    "to_arrays",
    "zobrist",
]


def ko_mode(rules: GoRules) -> int:
    """The kernels' code of ``rules.ko``."""
    return _KO_MODES[rules.ko]


def seed_rng(seed: int) -> npt.NDArray[np.int64]:
    """A fresh random state for :func:`playout` and :func:`random_move` (never zero)."""
    value = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 63)
    return np.array([value or 1], dtype=np.int64)


def to_arrays(position: GoPosition) -> npt.NDArray[np.int64]:
    """A copy of ``position``'s state array."""
    return position.arrays()


def from_arrays(state: npt.NDArray[np.int64], parent: GoPosition) -> GoPosition:
    """A :class:`GoPosition` for ``state`` reached from ``parent`` by the state's last action
    (same size and rules; ``parent`` becomes its :attr:`~GoPosition.previous`). The array is
    copied. Use it to hand a position found by search back to the public API."""
    return GoPosition.from_state(state, parent)
