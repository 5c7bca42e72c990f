"""Input features: small encoder functions that declare their plane count, and named sets of them.

No torch (numpy and numba kernels), so datasets can be built without it. An encoder reads a
batch of :class:`Positions` (the current board, a few earlier boards, whose turn it is, the
legal moves) and writes its ``uint8`` planes into the feature set's output at the planes it is
given, always from the point of view of the player to move ("own" stones are the mover's). A
:class:`FeatureSet` is an ordered tuple of encoders with a name; models remember the name of
the set they were trained on.

=============  ======  ============================================================================
feature set    planes  what
=============  ======  ============================================================================
``stones2``    2       own stones, opponent stones (design 000's 9x9x2 input, 004's Othello input)
``legal4``     4       own, opponent, legal moves, a plane of ones (shows the board edge to padded
                       convolutions)
``minigo17``   17      own/opponent stones for the last 8 positions, interleaved
                       (``own_t, opp_t, own_t-1, opp_t-1, ...``), then ones if Black is to play
                       (MiniGo's ``features.py`` layout, design 003)
``history9``   9       the same for the last 4 positions, then the colour plane (design 001)
``libs8``      8       ``legal4``, then the stones in groups with exactly 1, 2 and 3 liberties (Go;
                       KataGo's liberty planes), then ones if Black is to play (komi's side);
                       begins as ``legal4`` does, so a ``legal4`` network grows into it
``history11``  11      own/opponent stones for the last 4 positions, legal moves, ones, colour
                       (the big-board networks: the last moves locate the fight, the ones plane
                       the edge)
=============  ======  ============================================================================

History follows MiniGo: "own" means the player to move *now* in every history plane, and before
the start of the game the oldest available board is repeated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.game import GameState
from imago.nn._feature_kernels import fill_colour, fill_legal, fill_liberties, fill_stone_history

Planes = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class Positions:
    """A batch of positions as arrays.

    ``boards[b, k]`` is the board ``k`` moves before position ``b`` (0 = now; 0 empty, 1 black,
    2 white); ``to_play[b]`` a :class:`Color` value; ``legal[b]`` the legal-action mask
    (``size * size + 1`` entries, pass last).

    ``newest``, when given, says that ``boards[b]`` is a ring instead (as a batch of games keeps
    its boards, so that a move writes one board): the board ``k`` moves ago is
    ``boards[b, (newest[b] + k) % history]``.
    """

    boards: npt.NDArray[np.int8]
    to_play: npt.NDArray[np.int8]
    legal: npt.NDArray[np.bool_]
    newest: npt.NDArray[np.int64] | None = None

    @property
    def size(self) -> int:
        return int(self.boards.shape[-1])

    @property
    def history(self) -> int:
        return int(self.boards.shape[1])

    def __len__(self) -> int:
        return int(self.boards.shape[0])


Encoder = Callable[[Positions, Planes, int, int], None]
"""``encode(positions, out, first, count)`` writes every element of the planes
``out[:, first : first + count]``, where ``out`` is the feature set's whole output flattened to
``(batch, planes, size * size)`` and C-contiguous (each plane one run of memory, as numba
kernels write fastest); it writes no other plane."""


@dataclass(frozen=True, slots=True)
class Feature:
    """One encoder: ``encode(positions, out, first, planes)`` fills ``planes`` planes from
    ``first`` (see :data:`Encoder`); it looks ``history`` back."""

    name: str
    planes: int
    history: int
    encode: Encoder


@dataclass(frozen=True, slots=True)
class FeatureSet:
    """An ordered, named list of features: the input layout of a network."""

    name: str
    features: tuple[Feature, ...]
    summary: str = ""
    game: str | None = None
    """The one game whose positions the set describes (``libs8``: Go), or ``None`` for any."""
    _planes: int = field(init=False, repr=False, compare=False)
    _history: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # computed once: encode() runs per observation in the environments
        object.__setattr__(self, "_planes", sum(f.planes for f in self.features))
        object.__setattr__(self, "_history", max((f.history for f in self.features), default=1))

    @property
    def planes(self) -> int:
        """The total number of input planes."""
        return self._planes

    @property
    def history(self) -> int:
        """How many boards (the current one included) the set needs."""
        return self._history

    def encode(self, positions: Positions) -> Planes:
        """``(batch, planes, size, size)`` uint8 planes for ``positions``."""
        boards = positions.boards
        if boards.shape[1] < self._history:
            raise ValueError(
                f"feature set {self.name!r} needs {self._history} boards of history, "
                f"got {boards.shape[1]}"
            )
        n, size = boards.shape[0], boards.shape[-1]
        out = np.empty((n, self._planes, size, size), dtype=np.uint8)
        flat = out.reshape(n, self._planes, size * size)  # a view: the same memory
        first = 0
        for feature in self.features:
            feature.encode(positions, flat, first, feature.planes)
            first += feature.planes
        return out

    def encode_states(self, states: Sequence[GameState]) -> Planes:
        """Planes for a list of game states (history read from ``state.previous``)."""
        return self.encode(positions_from_states(states, self.history))


# -- encoders --------------------------------------------------------------------------------


_NEWEST_FIRST: Final = np.zeros(0, dtype=np.int64)
"""``newest`` for boards given newest first (no ring): what the kernel takes for ``None``."""


def _stones(positions: Positions, out: Planes, first: int, count: int) -> None:
    """Own/opponent planes of the last ``count // 2`` boards."""
    boards = positions.boards
    flat = boards.reshape(boards.shape[0], boards.shape[1], -1)  # copies only if it must
    newest = _NEWEST_FIRST if positions.newest is None else positions.newest
    fill_stone_history(flat, newest, positions.to_play, out, first, count // 2)


def _legal_moves(positions: Positions, out: Planes, first: int, count: int) -> None:
    fill_legal(positions.legal, out, first)


def _liberties(positions: Positions, out: Planes, first: int, count: int) -> None:
    boards = positions.boards
    flat = boards.reshape(boards.shape[0], boards.shape[1], -1)
    newest = _NEWEST_FIRST if positions.newest is None else positions.newest
    fill_liberties(flat, newest, positions.size, out, first)


def _ones(positions: Positions, out: Planes, first: int, count: int) -> None:
    out[:, first : first + count] = 1


def _black_to_play(positions: Positions, out: Planes, first: int, count: int) -> None:
    fill_colour(positions.to_play, int(Color.BLACK), out, first, count)


STONES = Feature("stones", 2, 1, _stones)
"""Own stones, opponent stones."""
LEGAL = Feature("legal", 1, 1, _legal_moves)
"""Points where the mover may play."""
ONES = Feature("ones", 1, 1, _ones)
"""A constant plane of ones (lets a zero-padded convolution see the edge)."""
BLACK_TO_PLAY = Feature("black_to_play", 1, 1, _black_to_play)
"""Ones if Black is to move, zeros if White is."""
LIBERTIES = Feature("liberties", 3, 1, _liberties)
"""Go: the stones (of either colour) whose group has exactly 1, 2 or 3 liberties, one plane each
(KataGo's liberty inputs; AlphaGo's policy network had eight such planes)."""


def stone_history(depth: int) -> Feature:
    """Own/opponent stones for the last ``depth`` positions, interleaved (``2 * depth`` planes)."""
    return Feature(f"stones_x{depth}", 2 * depth, depth, _stones)


FEATURE_SETS: dict[str, FeatureSet] = {
    fs.name: fs
    for fs in (
        FeatureSet("stones2", (STONES,), "own and opponent stones (designs 000, 004)"),
        FeatureSet("legal4", (STONES, LEGAL, ONES), "stones, legal moves, ones"),
        FeatureSet(
            "minigo17", (stone_history(8), BLACK_TO_PLAY), "8 positions of history + colour (003)"
        ),
        FeatureSet(
            "history9", (stone_history(4), BLACK_TO_PLAY), "4 positions of history + colour (001)"
        ),
        FeatureSet(
            "libs8",
            (STONES, LEGAL, ONES, LIBERTIES, BLACK_TO_PLAY),
            "legal4 + groups with 1, 2 or 3 liberties + colour (9x9 Go)",
            game="go",
        ),
        FeatureSet(
            "history11",
            (stone_history(4), LEGAL, ONES, BLACK_TO_PLAY),
            "4 positions of history, legal moves, ones, colour (big boards)",
        ),
    )
}
"""Every named feature set."""


def feature_set(name: str, game: str | None = None) -> FeatureSet:
    """The feature set called ``name``; a clear error names the known ones, or says that the
    set is for another game than ``game`` (when given)."""
    try:
        found = FEATURE_SETS[name]
    except KeyError:
        known = ", ".join(FEATURE_SETS)
        raise ValueError(f"unknown feature set {name!r} (known: {known})") from None
    if game is not None and found.game not in (None, game):
        raise ValueError(f"the {name} features are for {found.game}, not {game}")
    return found


# -- building Positions ----------------------------------------------------------------------


def positions_from_game(
    boards: Sequence[npt.NDArray[np.int8]],
    to_play: Sequence[int],
    legal: Sequence[npt.NDArray[np.bool_]],
    history: int,
    indices: Sequence[int] | None = None,
) -> Positions:
    """Positions for a replayed game: ``boards[i]`` is the board before move ``i``.

    ``indices`` picks which positions to keep (default: all); history still reaches back into
    the whole game.
    """
    chosen = range(len(boards)) if indices is None else indices
    size = boards[0].shape[-1] if boards else 0
    stack = np.empty((len(chosen), history, size, size), dtype=np.int8)
    for out, i in enumerate(chosen):
        for k in range(history):
            stack[out, k] = boards[max(i - k, 0)]
    return Positions(
        stack,
        np.asarray([to_play[i] for i in chosen], dtype=np.int8),
        np.asarray([legal[i] for i in chosen], dtype=np.bool_).reshape(len(chosen), -1),
    )


def positions_from_states(
    states: Sequence[GameState],
    history: int,
    legal: npt.NDArray[np.bool_] | None = None,
) -> Positions:
    """Positions for game states, reading history through ``state.previous``; ``legal``: their
    legal-action masks when the caller has them already (``(len(states), actions)``)."""
    if not states:
        raise ValueError("no positions to encode")
    size = states[0].size
    stack = np.empty((len(states), history, size, size), dtype=np.int8)
    to_play = np.empty(len(states), dtype=np.int8)
    masks = legal
    if masks is None:
        masks = np.empty((len(states), states[0].num_actions), dtype=np.bool_)
    for b, state in enumerate(states):
        to_play[b] = int(state.to_play)
        if legal is None:
            masks[b] = state.legal_mask()
        current: GameState = state
        for k in range(history):
            stack[b, k] = current.board()
            earlier = current.previous
            if earlier is not None:
                current = earlier
    return Positions(stack, to_play, masks)
