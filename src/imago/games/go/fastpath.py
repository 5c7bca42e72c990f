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
    f.self_atari(s, size, p, color, suicide_allowed, work)   # leaves 2+ stones in atari
    f.escape_keeps(s, size, p, color, suicide_allowed, work)  # extends to 2+ liberties
    f.nakade_sacrifice(s, size, p, color, suicide_allowed, work)  # a self-atari that kills
    f.bad_self_atari(s, size, p, color, suicide_allowed, work)  # a self-atari that does not
    f.nakade_shape(points, k, size)       # points[:k]: an eye space that makes one eye
    f.vital_point(points, k, size)        # ... and the point that kills it
    score = f.playout(s, size, komi, suicide_allowed, max_moves, rng)  # B - W - komi (area)
    b, w = f.area_score(s, size)          # Tromp-Taylor counts
    f.liberties(board, size, out)         # out[p]: liberties of p's group (a plain board too)
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

Bad input never reads or writes out of bounds: each kernel first checks, in O(1), what it
indexes with and what it writes: ``2 <= size <= MAX_SIZE``, ``len(s) >= state_length(size)``
with ``0 <= s[h + F_NEMPTY] <= nn`` (and a side to move of 1 or 2 where the kernel plays it),
actions ``0 .. nn`` (points ``0 .. nn - 1`` for :func:`check`, :func:`is_true_eye`,
:func:`result_hash` and the self-atari tests :func:`self_atari`, :func:`escape_keeps`,
:func:`nakade_sacrifice`, :func:`bad_self_atari`), ``1 <= k <= len(points)`` for
:func:`nakade_shape` / :func:`vital_point`, colours ``BLACK``/``WHITE``,
``len(out) >= nn + 1`` for the legal lists (``nn`` for :func:`area` and ``playouts``'
ownership), ``len(work) >= len(s)``, ``len(rng) >= 1``, and for the accessors
``0 <= p < nn`` with ``s`` long enough for ``nn``. A refusal writes nothing and is:

* ``BAD_INPUT`` from the kernels that return a status (:func:`play`, :func:`check`,
  :func:`advance`, :func:`area`; :func:`child` returns an empty ``size`` board with status
  ``BAD_INPUT``, or an empty array when ``size`` is off);
* ``-1`` from those that return a count, an action, a point or a key (:func:`legal_actions`,
  :func:`sensible_actions`, :func:`random_move`, :func:`vital_point`, the accessors,
  :func:`result_hash`, :func:`history_key`), ``(-1, -1)`` from :func:`area_score`, ``False`` from
  :func:`is_true_eye`, :func:`nakade_shape` and the self-atari tests, NaN from :func:`playout` /
  :func:`playouts`, an empty array from :func:`legal_list` and :func:`finish`;
* ``ValueError`` from the Python helpers :func:`to_arrays` / :func:`from_arrays`.

The checks cannot see inside an array: its contents must come from these kernels for that
``size``, and ``history`` must be sorted (the caller's part; unsorted keys give wrong answers,
never a bad access). The rules' own loops call the unchecked kernels of ``_kernels``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from imago.games.go import _kernels as K
from imago.games.go._kernels import (
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
    HEADER,
    KO,
    KO_POSITIONAL,
    KO_SIMPLE,
    KO_SITUATIONAL,
    MAX_SIZE,
    OCCUPIED,
    OK,
    SUICIDE,
    SUPERKO,
    WHITE,
    ZOBRIST_WHITE_TO_PLAY,
    advance,
    contains,
    header,
    insert_sorted,
    new_state,
    state_length,
    zobrist,
)
from imago.games.go.position import _KO_MODES, GoPosition
from imago.games.go.rules import GoRules

__all__ = [
    "BAD_INPUT",
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
    "bad_self_atari",
    "check",
    "child",
    "contains",
    "empty_at",
    "escape_keeps",
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
    "nakade_sacrifice",
    "nakade_shape",
    "new_state",
    "next_stone",
    "play",
    "playout",
    "playouts",
    "random_move",
    "result_hash",
    "seed_rng",
    "self_atari",
    "sensible_actions",
    "state_length",
    "to_arrays",
    "vital_point",
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
    """A copy of ``position``'s state array (``ValueError`` for anything but a GoPosition)."""
    if not isinstance(position, GoPosition):
        raise ValueError("to_arrays needs a GoPosition")
    return position.arrays()


def from_arrays(state: npt.NDArray[np.int64], parent: GoPosition) -> GoPosition:
    """A :class:`GoPosition` for ``state`` reached from ``parent`` by the state's last action
    (same size and rules; ``parent`` becomes its :attr:`~GoPosition.previous`). The array is
    copied. Use it to hand a position found by search back to the public API. Raises
    ``ValueError`` when ``state`` is not a state array of ``parent``'s size (its length, its
    side to move, its counts of empty points and passes and its last action are checked; the
    rest of its contents is the kernels' part)."""
    if not isinstance(parent, GoPosition):
        raise ValueError("from_arrays needs the parent GoPosition")
    size = parent.size
    nn = size * size
    if (
        not isinstance(state, np.ndarray)
        or state.dtype != np.int64
        or state.shape != (state_length(size),)
    ):
        raise ValueError(f"not a {size}x{size} Go state array (int64, {state_length(size)} words)")
    h = 10 * nn
    if (
        state[h + F_TO_PLAY] not in (BLACK, WHITE)
        or not 0 <= state[h + F_NEMPTY] <= nn
        or state[h + F_PASSES] < 0
        or not -1 <= state[h + F_LAST] <= nn
    ):
        raise ValueError("the state array's header does not fit a Go position")
    return GoPosition.from_state(state, parent)


# -- the checked entries -------------------------------------------------------------------------
# Each public kernel below checks, in O(1), the values it indexes with and the arrays it writes,
# then calls the unchecked kernel of the same name in ``_kernels`` (which the rules' own hot
# loops call directly: they make their arguments themselves, so they do not pay for the checks).


@njit(cache=True, inline="always")
def _fits(s: np.ndarray, size: int) -> bool:
    """Whether ``s`` is long enough for a ``size`` board (2 to ``MAX_SIZE``) and its count of
    empty points, which kernels loop over, is one a board can have."""
    nn = size * size
    if size < 2 or size > MAX_SIZE or s.ndim != 1 or s.shape[0] < 10 * nn + HEADER:
        return False
    n = s[10 * nn + F_NEMPTY]
    return bool(0 <= n <= nn)


@njit(cache=True, inline="always")
def _is_color(color: int) -> bool:
    return BLACK <= color <= WHITE


@njit(cache=True, inline="always")
def _to_play_fits(s: np.ndarray, size: int) -> bool:
    """``_fits`` and a side to move that is black or white (for kernels that play it)."""
    return _fits(s, size) and _is_color(s[10 * size * size + F_TO_PLAY])


@njit(cache=True, inline="always")
def _point_fits(s: np.ndarray, nn: int, p: int) -> bool:
    """For the group accessors (given ``nn``): ``s`` holds the fields of ``nn`` points and ``p``
    is one of them."""
    return 4 <= nn <= MAX_SIZE * MAX_SIZE and s.shape[0] >= 10 * nn + HEADER and 0 <= p < nn


@njit(cache=True)
def play(s: np.ndarray, size: int, action: int, color: int, suicide_allowed: bool) -> int:
    """Play ``action`` for ``color`` in place (simple ko). Returns a status; ``s`` is unchanged
    unless it is ``OK``. ``BAD_INPUT`` (nothing written) when ``s`` does not fit ``size``,
    ``action`` is not ``0 .. size * size`` or ``color`` is not black or white."""
    if not _fits(s, size) or not 0 <= action <= size * size or not _is_color(color):
        return BAD_INPUT
    return K.play(s, size, action, color, suicide_allowed)


@njit(cache=True)
def check(s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool) -> int:
    """Whether ``color`` may play on point ``p`` (not pass) under the simple-ko rule: a status
    code; ``BAD_INPUT`` for an array, point or colour that does not fit."""
    if not _fits(s, size) or not 0 <= p < size * size or not _is_color(color):
        return BAD_INPUT
    return K.check(s, size, p, color, suicide_allowed)


@njit(cache=True)
def is_true_eye(s: np.ndarray, size: int, p: int, color: int) -> bool:
    """Whether empty ``p`` is an eye of ``color`` (see the rules' kernels); ``False`` for an
    array, point or colour that does not fit."""
    if not _fits(s, size) or not 0 <= p < size * size or not _is_color(color):
        return False
    return K.is_true_eye(s, size, p, color)


@njit(cache=True, inline="always")
def _tactic_fits(s: np.ndarray, size: int, p: int, color: int, work: np.ndarray) -> bool:
    return (
        _fits(s, size)
        and 0 <= p < size * size
        and _is_color(color)
        and work.ndim == 1
        and work.shape[0] >= s.shape[0]
    )


@njit(cache=True)
def self_atari(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` playing the legal point ``p`` leaves its new group of two or more
    stones with at most one liberty (a suicide too). ``work`` is scratch at least as long as
    ``s`` (written only when the move captures); ``False`` on bad input."""
    if not _tactic_fits(s, size, p, color, work):
        return False
    return K.self_atari(s, size, p, color, suicide_allowed, work)


@njit(cache=True)
def bad_self_atari(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """A :func:`self_atari` that is no :func:`nakade_sacrifice`: the self-atari a playout
    should not play. ``work`` as for :func:`self_atari`; ``False`` on bad input."""
    if not _tactic_fits(s, size, p, color, work):
        return False
    return K.bad_self_atari(s, size, p, color, suicide_allowed, work)


@njit(cache=True)
def nakade_sacrifice(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` playing the legal point ``p`` puts a group of two to six stones into
    atari inside one opponent group, whose capture leaves that group a :func:`nakade_shape`:
    the sacrifice that kills. Played on ``work`` (scratch at least as long as ``s``);
    ``False`` on bad input."""
    if not _tactic_fits(s, size, p, color, work):
        return False
    return K.nakade_sacrifice(s, size, p, color, suicide_allowed, work)


@njit(cache=True, inline="always")
def _shape_fits(points: np.ndarray, k: int, size: int) -> bool:
    return 2 <= size <= MAX_SIZE and points.ndim == 1 and 1 <= k <= points.shape[0]


@njit(cache=True)
def nakade_shape(points: np.ndarray, k: int, size: int) -> bool:
    """Whether the ``k`` distinct points ``points[:k]`` form an eye space that makes one eye
    once its attacker plays the vital point: any shape of one to three points, the square and
    the pyramid four, the bulky and crossed five, the rabbity six. ``False`` on bad input
    (``k`` outside ``1 .. len(points)``, ``size`` off)."""
    if not _shape_fits(points, k, size):
        return False
    return K.nakade_shape(points, k, size)


@njit(cache=True)
def vital_point(points: np.ndarray, k: int, size: int) -> int:
    """The vital point of the eye space ``points[:k]``: the first of its points with the most
    neighbours among them; ``-1`` on bad input (as for :func:`nakade_shape`)."""
    if not _shape_fits(points, k, size):
        return -1
    return K.vital_point(points, k, size)


@njit(cache=True)
def escape_keeps(
    s: np.ndarray, size: int, p: int, color: int, suicide_allowed: bool, work: np.ndarray
) -> bool:
    """Whether ``color`` playing the point ``p`` is legal and leaves the group it joins at least
    two liberties: an escape from atari that keeps. Played on ``work`` (scratch at least as long
    as ``s``); ``False`` on bad input."""
    if not _tactic_fits(s, size, p, color, work):
        return False
    return K.escape_keeps(s, size, p, color, suicide_allowed, work)


@njit(cache=True, inline="always")
def _list_fits(s: np.ndarray, size: int, color: int, ko_mode: int, out: np.ndarray) -> bool:
    return (
        _fits(s, size)
        and _is_color(color)
        and KO_SIMPLE <= ko_mode <= KO_SITUATIONAL
        and out.shape[0] >= size * size + 1
    )


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
    """Write the legal actions of ``color`` (ascending, pass last) to ``out`` (at least
    ``size * size + 1`` slots); return how many, or -1 (nothing written) when ``s``, ``color``,
    ``ko_mode`` or ``out`` does not fit. ``history``: the sorted superko keys (sorting them is
    the caller's part)."""
    if not _list_fits(s, size, color, ko_mode, out):
        return -1
    return K.legal_actions(s, size, color, suicide_allowed, ko_mode, history, out)


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
    """Like :func:`legal_actions` without the moves that fill one of ``color``'s true eyes
    (-1 on the same bad input)."""
    if not _list_fits(s, size, color, ko_mode, out):
        return -1
    return K.sensible_actions(s, size, color, suicide_allowed, ko_mode, history, out)


@njit(cache=True)
def legal_list(
    s: np.ndarray, size: int, color: int, suicide_allowed: bool, ko_mode: int, history: np.ndarray
) -> np.ndarray:
    """A new array of the legal actions of ``color`` (see :func:`legal_actions`); empty on bad
    input (a legal list always holds pass)."""
    if not _fits(s, size) or not _is_color(color) or not KO_SIMPLE <= ko_mode <= KO_SITUATIONAL:
        return np.empty(0, dtype=np.int64)
    return K.legal_list(s, size, color, suicide_allowed, ko_mode, history)


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
    the move was legal (``OK``); when it is not, the array is to be thrown away. On bad input
    ``s`` is not read: the new array is an empty ``size`` board whose status is ``BAD_INPUT``
    (an empty array when ``size`` itself is off)."""
    nn = size * size
    if not _fits(s, size) or not 0 <= action <= nn or not _is_color(color):
        if size < 2 or size > MAX_SIZE:
            return np.empty(0, dtype=np.int64)
        t = K.new_state(size)
        t[10 * nn + F_STATUS] = BAD_INPUT
        return t
    return K.child(s, size, action, color, suicide_allowed, ko_mode, history)


@njit(cache=True)
def result_hash(s: np.ndarray, size: int, p: int, color: int) -> int:
    """The stone hash after ``color`` plays the legal move ``p`` (captures and suicide included);
    -1 when ``s``, ``p`` (a point, not pass) or ``color`` does not fit (a real key is -1 once in
    2**64: check the arguments first where that matters)."""
    if not _fits(s, size) or not 0 <= p < size * size or not _is_color(color):
        return -1
    return K.result_hash(s, size, p, color)


@njit(cache=True)
def history_key(s: np.ndarray, size: int, ko_mode: int) -> int:
    """The key of ``s`` that superko remembers (stones; with the side to move if situational);
    -1 when ``s`` does not fit ``size`` (see :func:`result_hash`)."""
    if not _fits(s, size):
        return -1
    return K.history_key(s, size, ko_mode)


@njit(cache=True)
def area(s: np.ndarray, size: int, out: np.ndarray) -> int:
    """Tromp-Taylor ownership: ``out[p]`` = 1 or 2 for a stone or an empty point that reaches
    only that colour, 0 for dame. Returns ``OK``, or ``BAD_INPUT`` (nothing written) when ``s``
    does not fit ``size`` or ``out`` has fewer than ``size * size`` slots."""
    if not _fits(s, size) or out.shape[0] < size * size:
        return BAD_INPUT
    K.area(s, size, out)
    return OK


@njit(cache=True)
def liberties(board: np.ndarray, size: int, out: np.ndarray) -> int:
    """``out[p]``: the number of liberties of the group on ``p``, 0 on an empty point (and for
    a group without any, which no legal game has), read from ``board[:size * size]``: a plain
    board (0 empty, 1 black, 2 white) or a state array. Returns ``OK``, or ``BAD_INPUT``
    (nothing written) when ``size`` is off or either array has fewer than ``size * size``
    slots."""
    nn = size * size
    if size < 2 or size > MAX_SIZE or board.ndim != 1 or board.shape[0] < nn:
        return BAD_INPUT
    if out.shape[0] < nn:
        return BAD_INPUT
    K.board_liberties(board, size, out)
    return OK


@njit(cache=True)
def area_score(s: np.ndarray, size: int) -> tuple[int, int]:
    """Tromp-Taylor area counts ``(black, white)``; ``(-1, -1)`` when ``s`` does not fit."""
    if not _fits(s, size):
        return -1, -1
    return K.area_score(s, size)


@njit(cache=True)
def random_move(
    s: np.ndarray, size: int, color: int, suicide_allowed: bool, rng: np.ndarray
) -> int:
    """A uniformly random legal (simple ko) move of ``color`` that does not fill its own true
    eye; pass (``size * size``) when there is none; -1 when ``s``, ``color`` or ``rng`` (at
    least one word) does not fit."""
    if not _fits(s, size) or not _is_color(color) or rng.shape[0] < 1:
        return -1
    return K.random_move(s, size, color, suicide_allowed, rng)


@njit(cache=True)
def playout(
    s: np.ndarray, size: int, komi: float, suicide_allowed: bool, max_moves: int, rng: np.ndarray
) -> float:
    """Play uniformly random sensible moves on ``s`` in place until two consecutive passes (or
    ``max_moves`` more moves); return the area score, Black minus White minus ``komi``. NaN
    (nothing written) when ``s`` (its side to move included) or ``rng`` does not fit."""
    if not _to_play_fits(s, size) or rng.shape[0] < 1:
        return np.nan
    return K.playout(s, size, komi, suicide_allowed, max_moves, rng)


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
    to ``ownership`` (at least ``size * size`` slots); return the mean score. NaN (nothing
    written) when ``s``, ``rng`` or ``ownership`` does not fit."""
    if not _to_play_fits(s, size) or rng.shape[0] < 1 or ownership.shape[0] < size * size:
        return np.nan
    return K.playouts(s, size, komi, suicide_allowed, count, max_moves, rng, ownership)


@njit(cache=True)
def finish(
    s: np.ndarray,
    size: int,
    suicide_allowed: bool,
    ko_mode: int,
    history: np.ndarray,
    remember: bool,
) -> np.ndarray:
    """A *full* array for :func:`advance` (see the rules' kernels); an empty array, which
    :func:`advance` refuses, when ``s`` (its side to move included) or ``ko_mode`` does not
    fit. ``history``: sorted keys (the caller's part)."""
    if not _to_play_fits(s, size) or not KO_SIMPLE <= ko_mode <= KO_SITUATIONAL:
        return np.empty(0, dtype=np.int64)
    return K.finish(s, size, suicide_allowed, ko_mode, history, remember)


@njit(cache=True)
def group_head(s: np.ndarray, nn: int, p: int) -> int:
    """The head point of the group of the stone on ``p`` (its identity while it stands); -1 when
    ``p`` is not a point of ``nn`` or ``s`` is shorter than a state of ``nn`` points."""
    if not _point_fits(s, nn, p):
        return -1
    return K.group_head(s, nn, p)


@njit(cache=True)
def next_stone(s: np.ndarray, nn: int, p: int) -> int:
    """The next stone of ``p``'s group (a circular list: walk until back at the start); -1 on
    bad input (see :func:`group_head`)."""
    if not _point_fits(s, nn, p):
        return -1
    return K.next_stone(s, nn, p)


@njit(cache=True)
def group_size(s: np.ndarray, nn: int, g: int) -> int:
    """The number of stones of the group with head ``g``; -1 on bad input."""
    if not _point_fits(s, nn, g):
        return -1
    return K.group_size(s, nn, g)


@njit(cache=True)
def atari_liberty(s: np.ndarray, nn: int, p: int) -> int:
    """The only liberty of the group of the stone on ``p`` when it has exactly one, else -1
    (also on bad input)."""
    if not _point_fits(s, nn, p) or not 0 <= s[nn + p] < nn:
        return -1
    return K.atari_liberty(s, nn, p)


@njit(cache=True)
def empty_at(s: np.ndarray, nn: int, i: int) -> int:
    """The ``i``-th empty point (``0 <= i < s[header + F_NEMPTY]``, in no particular order); -1
    when ``i`` is not below ``nn`` or ``s`` is shorter than a state of ``nn`` points."""
    if not _point_fits(s, nn, i):
        return -1
    return K.empty_at(s, nn, i)
