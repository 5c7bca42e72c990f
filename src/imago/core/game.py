"""The game-state protocol that Go and Othello both satisfy, and the outcome of a game.

Every agent, record format, protocol and training pipeline is written against
:class:`GameState`, never against one game. A state is immutable: :meth:`GameState.play`
returns a new state and leaves its input untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, Self, runtime_checkable

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.move import Move, Point


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    ``margin`` is the winner's lead in points (Go) or discs (Othello), ``0`` for a draw and for
    a resignation. ``black_score`` / ``white_score`` are the counted totals when the game was
    counted (komi included in White's for Go).
    """

    winner: Color | None
    margin: float = 0.0
    by_resignation: bool = False
    black_score: float | None = None
    white_score: float | None = None

    @property
    def is_draw(self) -> bool:
        return self.winner is None and not self.by_resignation

    def result(self) -> str:
        """The result as SGF's ``RE`` writes it: ``B+3.5``, ``W+R``, ``0`` (draw)."""
        if self.winner is None:
            return "0"
        if self.by_resignation:
            return f"{self.winner.letter}+R"
        return f"{self.winner.letter}+{_number(self.margin)}"

    def __str__(self) -> str:
        return self.result()


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@runtime_checkable
class GameState(Protocol):
    """An immutable position of a two-player game with its history.

    Friendly API (``Move`` values) for people and tools; fast API (action indices, masks and
    arrays) for search and networks. Actions are ``row * size + col`` and pass is ``size * size``.
    """

    @property
    def game(self) -> str:
        """The game's registry name: ``"go"`` or ``"othello"``."""
        ...

    @property
    def size(self) -> int:
        """The board is ``size`` x ``size``."""
        ...

    @property
    def to_play(self) -> Color:
        """Whose turn it is."""
        ...

    @property
    def key(self) -> int:
        """A Zobrist key of the position (stones and side to move) as a 64-bit integer."""
        ...

    @property
    def num_actions(self) -> int:
        """``size * size + 1``: every point, then pass."""
        ...

    @property
    def previous(self) -> Self | None:
        """The state before the last move, or ``None`` at the start of the game."""
        ...

    @property
    def last_move(self) -> Move | None:
        """The move that led here, or ``None`` at the start of the game."""
        ...

    @property
    def move_number(self) -> int:
        """How many moves (passes included) were played to reach this state."""
        ...

    def board(self) -> npt.NDArray[np.int8]:
        """A ``(size, size)`` copy of the board: 0 empty, 1 black, 2 white (:class:`Color`)."""
        ...

    def legal_moves(self) -> Sequence[Move]:
        """Every legal move, in action order; pass is last when it is legal."""
        ...

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """A boolean array of length :attr:`num_actions`: which actions are legal."""
        ...

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here (never raises for a well-formed move)."""
        ...

    def play(self, move: Move, color: Color | None = None) -> Self:
        """The state after ``move``; raises ``IllegalMoveError`` and changes nothing if illegal.

        ``color`` (default: :attr:`to_play`) lets records and GTP play out of turn: Go plays the
        stone for that colour; Othello treats it as an implicit pass of the side to move when
        that side has no legal move, and refuses it (``WRONG_COLOR``) otherwise.
        """
        ...

    def with_setup(
        self,
        black: Iterable[Point] = (),
        white: Iterable[Point] = (),
        empty: Iterable[Point] = (),
        to_play: Color | None = None,
    ) -> Self:
        """A new state with stones/discs placed or removed (SGF ``AB``/``AW``/``AE``, ``PL``).

        Not a move: nothing is captured or flipped and the move number does not change.
        """
        ...

    def play_action(self, action: int) -> Self:
        """:meth:`play` by action index."""
        ...

    def is_over(self) -> bool:
        """Whether the game has ended."""
        ...

    def outcome(self) -> Outcome | None:
        """The outcome once :meth:`is_over`, else ``None``."""
        ...

    def parse_move(self, text: str) -> Move:
        """Read a move in the game's usual notation (Go: GTP vertex; Othello: ``f5``)."""
        ...

    def format_move(self, move: Move) -> str:
        """Write a move in the game's usual notation."""
        ...
