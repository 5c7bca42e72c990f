"""Points and moves, with exact round trips to every coordinate system imago speaks.

=============  ==================  ===================================================
system         example (9x9)       convention
=============  ==================  ===================================================
``Point``      ``Point(0, 3)``     ``row`` 0 is the top row as drawn, ``col`` 0 the left
action         ``3``               ``row * size + col``; pass is ``size * size``
GTP vertex     ``D9``              column letter skipping ``I``, row 1 at the bottom
SGF            ``da``              column then row letters, ``a`` = top-left; pass is
                                   ``""`` (or ``tt`` on boards up to 19x19)
algebraic      ``d1``              Othello notation: column ``a``.., row 1 at the top
=============  ==================  ===================================================

Board size is always an argument: a ``Point`` or ``Move`` does not know the board it is on.
So ``str(move)`` is the board-free ``(row, col)`` (or ``pass``, ``resign``); a game state
writes a move in its game's notation (``position.format_move(move)``: ``D6`` in Go,
``d4`` in Othello):

>>> move = Move.from_gtp("D6", 9)
>>> print(move, move.to_gtp(9), move.to_sgf(9), move.to_algebraic(), move.to_action(9))
(3, 3) D6 dd d4 30
>>> print(Move.PASS, Move.PASS.to_gtp(9), repr(Move.PASS.to_sgf(9)), Move.PASS.to_action(9))
pass pass '' 81
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

from imago.core.errors import InvalidMoveError

MAX_SIZE = 25
"""The largest board GTP can address (25 column letters without ``I``)."""

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True, slots=True, order=True)
class Point:
    """A point of the board: ``row`` 0 is the top row as drawn, ``col`` 0 the left column."""

    row: int
    col: int

    def __str__(self) -> str:
        """``(row, col)``."""
        return f"({self.row}, {self.col})"

    def on_board(self, size: int) -> bool:
        """Whether the point lies on a ``size`` x ``size`` board."""
        return 0 <= self.row < size and 0 <= self.col < size

    def index(self, size: int) -> int:
        """The flat index ``row * size + col``."""
        return self.row * size + self.col

    @classmethod
    def from_index(cls, index: int, size: int) -> Point:
        """The point with flat index ``index``."""
        if not 0 <= index < size * size:
            raise InvalidMoveError(f"index {index} is off a {size}x{size} board")
        return cls(*divmod(index, size))


class MoveKind(enum.Enum):
    """What a move does."""

    PLAY = "play"
    PASS = "pass"
    RESIGN = "resign"


def _check_size(size: int) -> None:
    if not 1 <= size <= MAX_SIZE:
        raise InvalidMoveError(f"board size {size} is outside 1..{MAX_SIZE}")


@dataclass(frozen=True, slots=True)
class Move:
    """An immutable move: a stone or disc on ``point``, a pass, or a resignation.

    Build one with :meth:`play`, :data:`PASS` / :meth:`pass_`, :data:`RESIGN`, or parse text with
    :meth:`from_gtp`, :meth:`from_sgf`, :meth:`from_algebraic`, :meth:`from_action`.
    A pass or resignation is falsy, like python-chess's null move.
    """

    kind: MoveKind
    point: Point | None = None

    PASS: ClassVar[Move]
    RESIGN: ClassVar[Move]

    def __post_init__(self) -> None:
        if (self.kind is MoveKind.PLAY) != (self.point is not None):
            raise InvalidMoveError("a play needs a point, and only a play has one")

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def play(cls, point: Point | tuple[int, int]) -> Move:
        """A stone or disc on ``point``."""
        if not isinstance(point, Point):
            point = Point(*point)
        return cls(MoveKind.PLAY, point)

    @classmethod
    def pass_(cls) -> Move:
        """The pass move."""
        return cls.PASS

    @classmethod
    def from_action(cls, action: int, size: int) -> Move:
        """The move with flat action index ``action`` (pass is ``size * size``)."""
        _check_size(size)
        if action == size * size:
            return cls.PASS
        return cls.play(Point.from_index(action, size))

    @classmethod
    def from_gtp(cls, text: str, size: int) -> Move:
        """Read a GTP vertex (``D4``, ``pass``, ``resign``; any case) on a ``size`` board."""
        _check_size(size)
        word = text.strip()
        special = _special(word)
        if special is not None:
            return special
        if len(word) < 2:
            raise InvalidMoveError(f"not a GTP vertex: {text!r}")
        letter, digits = word[0].upper(), word[1:]
        if letter not in GTP_COLUMNS or not _is_number(digits):
            raise InvalidMoveError(f"not a GTP vertex: {text!r}")
        col, number = GTP_COLUMNS.index(letter), int(digits)
        point = Point(size - number, col)
        if not 1 <= number <= size or not point.on_board(size):
            raise InvalidMoveError(f"{text!r} is off a {size}x{size} board")
        return cls.play(point)

    @classmethod
    def from_sgf(cls, text: str, size: int) -> Move:
        """Read an SGF move value (``dd``; ``""`` or ``tt`` for pass up to 19x19)."""
        _check_size(size)
        if text == "" or (text == "tt" and size <= 19):
            return cls.PASS
        if len(text) != 2 or text[0] not in SGF_LETTERS or text[1] not in SGF_LETTERS:
            raise InvalidMoveError(f"not an SGF point: {text!r}")
        point = Point(SGF_LETTERS.index(text[1]), SGF_LETTERS.index(text[0]))
        if not point.on_board(size):
            raise InvalidMoveError(f"SGF point {text!r} is off a {size}x{size} board")
        return cls.play(point)

    @classmethod
    def from_algebraic(cls, text: str, size: int = 8) -> Move:
        """Read Othello notation (``f5``, ``pass``): column letter, row 1 at the top."""
        _check_size(size)
        word = text.strip()
        special = _special(word)
        if special is not None:
            return special
        if len(word) < 2 or not _is_number(word[1:]):
            raise InvalidMoveError(f"not a move: {text!r}")
        col = ord(word[0].lower()) - ord("a")
        point = Point(int(word[1:]) - 1, col)
        if not (word[0].isascii() and word[0].isalpha()) or not point.on_board(size):
            raise InvalidMoveError(f"{text!r} is off a {size}x{size} board")
        return cls.play(point)

    # -- queries ----------------------------------------------------------------------------
    @property
    def is_play(self) -> bool:
        return self.kind is MoveKind.PLAY

    @property
    def is_pass(self) -> bool:
        return self.kind is MoveKind.PASS

    @property
    def is_resign(self) -> bool:
        return self.kind is MoveKind.RESIGN

    def __bool__(self) -> bool:
        return self.kind is MoveKind.PLAY

    # -- text -------------------------------------------------------------------------------
    def to_action(self, size: int) -> int:
        """The flat action index; pass is ``size * size``. A resignation has none."""
        if self.point is not None:
            return self.point.index(size)
        if self.is_pass:
            return size * size
        raise InvalidMoveError("a resignation has no action index")

    def to_gtp(self, size: int) -> str:
        """The GTP vertex (upper case), ``pass`` or ``resign``."""
        if self.point is None:
            return self.kind.value
        return f"{GTP_COLUMNS[self.point.col]}{size - self.point.row}"

    def to_sgf(self, size: int) -> str:
        """The SGF value: two letters, or ``""`` for a pass (``tt`` is read, never written)."""
        if self.point is None:
            if self.is_pass:
                return ""
            raise InvalidMoveError("SGF has no resignation move")
        return SGF_LETTERS[self.point.col] + SGF_LETTERS[self.point.row]

    def to_algebraic(self) -> str:
        """Othello notation (``f5``), ``pass`` or ``resign``."""
        if self.point is None:
            return self.kind.value
        return f"{chr(ord('a') + self.point.col)}{self.point.row + 1}"

    def __str__(self) -> str:
        """``(row, col)`` of the point (row 0 at the top), ``pass`` or ``resign``."""
        if self.point is None:
            return self.kind.value
        return f"({self.point.row}, {self.point.col})"

    def __repr__(self) -> str:
        if self.point is None:
            return f"Move.{self.kind.name}"
        return f"Move.play(Point({self.point.row}, {self.point.col}))"


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _special(word: str) -> Move | None:
    lowered = word.lower()
    if lowered == "pass":
        return Move.PASS
    if lowered == "resign":
        return Move.RESIGN
    return None


Move.PASS = Move(MoveKind.PASS)
Move.RESIGN = Move(MoveKind.RESIGN)
