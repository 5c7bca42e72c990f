"""Othello positions: :class:`OthelloState`, the :class:`~imago.core.game.GameState` of Othello.

Rules: black moves first from the four centre discs (``d5``/``e4`` black, ``d4``/``e5`` white on
8x8); a move must flip at least one line of opponent discs, in any of the 8 directions; a
player with no such move passes (a forced pass is the only legal move then, and passing
while a move exists is illegal); the game ends when neither player can move, and the player
with more discs wins; the empty squares left count for the winner (:meth:`OthelloState.outcome`).

Coordinates: ``f5`` is column ``f``, row 5 counted from the top; the action index is
``row * size + col`` and pass is ``size * size``. Internally the discs are two 64-bit
bitboards with square ``row * 8 + col`` on every board size (see
:mod:`imago.games.othello.bitboard`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason, InvalidMoveError
from imago.core.game import Outcome
from imago.core.move import Move, MoveKind, Point
from imago.games.othello import _kernels as _k
from imago.games.othello import bitboard as _bb
from imago.games.symmetry import SYMMETRIES

SIZES: tuple[int, ...] = (4, 6, 8)
"""The board sizes imago plays Othello on (8 is the standard game)."""

_M64 = (1 << 64) - 1
_MASK: dict[int, int] = {size: int(_bb.board_mask(size)) for size in SIZES}
_START: dict[int, tuple[int, int]] = {
    size: (int(_bb.start_position(size)[0]), int(_bb.start_position(size)[1])) for size in SIZES
}
_OPPONENT = {Color.BLACK: Color.WHITE, Color.WHITE: Color.BLACK}
_REASONS = {_k.OCCUPIED: IllegalReason.OCCUPIED, _k.NO_FLIPS: IllegalReason.NO_FLIPS}


def _move_tables(size: int) -> tuple[tuple[Move, ...], tuple[Move | None, ...]]:
    """The immutable moves by action index (pass last), and the same moves by bit square."""
    by_action = tuple(Move.from_action(action, size) for action in range(size * size + 1))
    by_square = tuple(
        by_action[(sq // 8) * size + sq % 8] if sq // 8 < size and sq % 8 < size else None
        for sq in range(64)
    )
    return by_action, by_square


_MOVES: dict[int, tuple[tuple[Move, ...], tuple[Move | None, ...]]] = {
    size: _move_tables(size) for size in SIZES
}


def _zobrist_tables() -> tuple[npt.NDArray[np.uint64], dict[tuple[int, Color], int]]:
    """Byte-wise Zobrist tables ``[colour, byte index, byte value]`` from fixed random keys,
    and the side-to-move keys (0 for black) per board size."""
    rng = np.random.default_rng(0x0E110)
    squares = rng.integers(0, 2**64, size=(2, 8, 8), dtype=np.uint64)  # [colour, byte, bit]
    table = np.zeros((2, 8, 256), dtype=np.uint64)
    for value in range(1, 256):
        low = (value & -value).bit_length() - 1
        table[:, :, value] = table[:, :, value & (value - 1)] ^ squares[:, :, low]
    sides = rng.integers(0, 2**64, size=len(SIZES), dtype=np.uint64)
    side_keys = {(size, Color.BLACK): 0 for size in SIZES}
    side_keys.update({(size, Color.WHITE): int(sides[i]) for i, size in enumerate(SIZES)})
    return table, side_keys


def _check_size(size: int) -> None:
    if size not in SIZES:
        raise ValueError(f"Othello is played on {', '.join(map(str, SIZES))} boards, not {size!r}")


class OthelloState:
    """An immutable Othello position with its history (the :class:`GameState` protocol).

    Make one with :func:`new_game`, :meth:`from_board_string`, :meth:`from_bitboards` or
    :meth:`with_setup`; :meth:`play` returns a new state and never changes this one.
    """

    __slots__ = (
        "_black",
        "_key",
        "_last_move",
        "_legal",
        "_move_number",
        "_moves",
        "_over",
        "_previous",
        "_resigned",
        "_size",
        "_to_play",
        "_white",
    )

    _black: int
    _white: int
    _size: int
    _to_play: Color
    _legal: int
    _over: bool
    _previous: OthelloState | None
    _last_move: Move | None
    _move_number: int
    _key: int | None
    _moves: tuple[Move, ...] | None
    _resigned: Color | None

    def __init__(self, size: int = 8) -> None:
        """The start position on a ``size`` x ``size`` board (see :data:`SIZES`)."""
        _check_size(size)
        black, white = _START[size]
        legal, over = _k.status(black, white, _MASK[size])
        self._fill(size, black, white, Color.BLACK, int(legal), over, None, None, 0)

    def _fill(
        self,
        size: int,
        black: int,
        white: int,
        to_play: Color,
        legal: int,
        over: bool,
        previous: OthelloState | None,
        last_move: Move | None,
        move_number: int,
    ) -> None:
        self._size = size
        self._black = black
        self._white = white
        self._to_play = to_play
        self._legal = legal
        self._over = over
        self._previous = previous
        self._last_move = last_move
        self._move_number = move_number
        self._key = None
        self._moves = None
        self._resigned = None

    @classmethod
    def _position(
        cls,
        size: int,
        black: int,
        white: int,
        to_play: Color,
        previous: OthelloState | None = None,
        last_move: Move | None = None,
        move_number: int = 0,
    ) -> OthelloState:
        """A state for any discs, its legal moves and end of game computed afresh."""
        p, o = (black, white) if to_play is Color.BLACK else (white, black)
        legal, over = _k.status(p, o, _MASK[size])
        state = cls.__new__(cls)
        state._fill(size, black, white, to_play, int(legal), over, previous, last_move, move_number)
        return state

    # -- constructors ----------------------------------------------------------------------------
    @classmethod
    def from_board_string(
        cls, text: str, to_play: Color | str = Color.BLACK, *, size: int | None = None
    ) -> OthelloState:
        """A position from board characters in row-major order (``a1``, ``b1``, ... ``h8``).

        ``X`` (or ``x``, ``*``) is black, ``O`` (or ``o``) white, ``-`` (or ``.``) empty;
        whitespace is ignored, so a diagram of rows works too. This is the FFO / Edax format:
        64 characters for 8x8 (36 for 6x6). ``to_play``: a :class:`Color`, or ``X`` / ``O`` /
        ``black`` / ``white``.
        """
        cells = "".join(text.split())
        if size is None:
            size = round(len(cells) ** 0.5)
        _check_size(size)
        if len(cells) != size * size:
            raise ValueError(f"a {size}x{size} board needs {size * size} cells, got {len(cells)}")
        black = white = 0
        for index, char in enumerate(cells):
            bit = 1 << ((index // size) * 8 + index % size)
            if char in "Xx*":
                black |= bit
            elif char in "Oo":
                white |= bit
            elif char not in "-.":
                raise ValueError(f"bad board character {char!r} at cell {index} (use X, O, -)")
        return cls._position(size, black, white, _parse_color(to_play))

    @classmethod
    def from_bitboards(
        cls,
        player: int | np.uint64,
        opponent: int | np.uint64,
        to_play: Color = Color.BLACK,
        size: int = 8,
    ) -> OthelloState:
        """The position with discs ``player`` for ``to_play`` and ``opponent`` for the other
        colour (the inverse of :meth:`bitboards`)."""
        _check_size(size)
        p, o = int(player), int(opponent)
        if p & o:
            raise ValueError("the two bitboards overlap")
        if (p | o) & ~_MASK[size] & _M64 or p < 0 or o < 0 or (p | o) > _M64:
            raise ValueError(f"discs outside the {size}x{size} board")
        to_play = Color(to_play)
        black, white = (p, o) if to_play is Color.BLACK else (o, p)
        return cls._position(size, black, white, to_play)

    def with_setup(
        self,
        black: Iterable[Point] = (),
        white: Iterable[Point] = (),
        empty: Iterable[Point] = (),
        to_play: Color | None = None,
    ) -> OthelloState:
        """A new state with discs placed (``black``, ``white``) or removed (``empty``), in that
        order, and optionally another side to move. Nothing is flipped; the history and move
        number are kept."""
        b, w = self._black, self._white
        for point in black:
            bit = self._bit(point)
            b, w = b | bit, w & ~bit
        for point in white:
            bit = self._bit(point)
            b, w = b & ~bit, w | bit
        for point in empty:
            bit = self._bit(point)
            b, w = b & ~bit, w & ~bit
        side = self._to_play if to_play is None else Color(to_play)
        return self._position(
            self._size, b, w, side, self._previous, self._last_move, self._move_number
        )

    def _bit(self, point: Point) -> int:
        if not isinstance(point, Point) or not point.on_board(self._size):
            raise InvalidMoveError(f"{point!r} is not a point of a {self._size}x{self._size} board")
        return 1 << (point.row * 8 + point.col)

    # -- the protocol: properties ------------------------------------------------------------------
    @property
    def game(self) -> str:
        return "othello"

    @property
    def size(self) -> int:
        return self._size

    @property
    def to_play(self) -> Color:
        return self._to_play

    @property
    def key(self) -> int:
        """The Zobrist key of discs and side to move (64-bit, stable across runs)."""
        key = self._key
        if key is None:
            side = _SIDE_KEYS[self._size, self._to_play]
            key = int(_k.zobrist(self._black, self._white, side, _ZOBRIST))
            self._key = key
        return key

    @property
    def num_actions(self) -> int:
        return self._size * self._size + 1

    @property
    def previous(self) -> OthelloState | None:
        return self._previous

    @property
    def last_move(self) -> Move | None:
        return self._last_move

    @property
    def move_number(self) -> int:
        return self._move_number

    # -- the protocol: queries ---------------------------------------------------------------------
    def board(self) -> npt.NDArray[np.int8]:
        """A ``(size, size)`` array: 0 empty, 1 black, 2 white."""
        size = self._size
        grid = np.empty(size * size, dtype=np.int8)
        _k.write_board(np.uint64(self._black), np.uint64(self._white), size, grid)
        return grid.reshape(size, size)

    def legal_moves(self) -> Sequence[Move]:
        """The legal moves in action order; ``(Move.PASS,)`` for a forced pass, ``()`` at the
        end of the game."""
        moves = self._moves
        if moves is None:
            if self._over:
                moves = ()
            elif not self._legal:
                moves = (Move.PASS,)
            else:
                by_square = _MOVES[self._size][1]
                found = []
                rest = self._legal
                while rest:
                    low = rest & -rest
                    found.append(by_square[low.bit_length() - 1])
                    rest ^= low
                moves = tuple(found)  # type: ignore[arg-type]
            self._moves = moves
        return moves

    def legal_actions(self) -> npt.NDArray[np.int64]:
        """The legal action indices, ascending (pass, ``size * size``, for a forced pass)."""
        return np.flatnonzero(self.legal_mask()).astype(np.int64)

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """Which of the :attr:`num_actions` actions are legal."""
        size = self._size
        mask = np.zeros(size * size + 1, dtype=np.bool_)
        if self._over:
            return mask
        if not self._legal:
            mask[-1] = True
            return mask
        _k.write_squares(np.uint64(self._legal), size, mask)
        return mask

    def legal_squares(self) -> int:
        """The legal squares as a bitboard (bit ``row * 8 + col``); 0 when passing or over."""
        return 0 if self._over else self._legal

    def is_legal(self, move: Move) -> bool:
        point = move.point
        if point is None:
            if move.is_resign:
                return not self._over
            return move.is_pass and not self._over and not self._legal
        if not point.on_board(self._size):
            return False
        return not self._over and bool(self._legal >> (point.row * 8 + point.col) & 1)

    def is_over(self) -> bool:
        """Whether neither player can move (or one resigned)."""
        return self._over

    def discs(self) -> tuple[int, int]:
        """``(black discs, white discs)``."""
        return self._black.bit_count(), self._white.bit_count()

    def outcome(self, *, empties_to_winner: bool = True) -> Outcome | None:
        """The result by disc count once the game is over, else ``None``.

        The empty squares of a game that ends before the board is full (a wipe-out, or
        neither side able to move) count for the winner, shared equally in a draw: the
        convention of the world federation's rules, WTHOR and the FFO scores, used by every
        part of imago (terminal play, records, matches, the endgame solver). With
        ``empties_to_winner=False`` only the discs on the board are counted.
        """
        if not self._over:
            return None
        if self._resigned is not None:
            return Outcome(self._resigned.opponent, 0.0, by_resignation=True)
        black, white = self.discs()
        if empties_to_winner:
            empties = self._size * self._size - black - white
            if black > white:
                black += empties
            elif white > black:
                white += empties
            else:
                black += empties // 2
                white += empties // 2
        winner = Color.BLACK if black > white else Color.WHITE if white > black else None
        return Outcome(winner, float(abs(black - white)), False, float(black), float(white))

    # -- the protocol: moves ---------------------------------------------------------------------
    def play(self, move: Move, color: Color | None = None) -> OthelloState:
        """The state after ``move``: a disc on a point, a forced pass, or a resignation.

        ``color`` other than :attr:`to_play` means the side to move passed first (as WTHOR and
        move transcripts record games); that is only allowed when it has no legal move
        (``WRONG_COLOR`` otherwise). :data:`Move.RESIGN` ends the game: ``color`` (default
        the side to move) resigns. Raises :class:`IllegalMoveError` (``OCCUPIED``,
        ``NO_FLIPS``, ``PASS_NOT_ALLOWED``, ``WRONG_COLOR``, ``GAME_OVER``) or
        :class:`InvalidMoveError` (off the board); nothing changes on error.
        """
        point = move.point
        if point is None and move.kind is MoveKind.RESIGN:
            return self._resign(self._to_play if color is None else Color(color))
        if color is not None and color != self._to_play:
            return self._implicit_pass(move).play(move)
        if point is None:
            return self._pass()
        return self._play_square(point.row, point.col, move)

    def play_action(self, action: int) -> OthelloState:
        """:meth:`play` by action index (``row * size + col``; pass is ``size * size``)."""
        size = self._size
        if action == size * size:
            return self._pass()
        if not 0 <= action < size * size:
            raise InvalidMoveError(f"action {action} is not one of 0..{size * size}")
        row, col = divmod(int(action), size)
        return self._play_square(row, col, _MOVES[size][0][row * size + col])

    def _play_square(self, row: int, col: int, move: Move) -> OthelloState:
        size = self._size
        if not (0 <= row < size and 0 <= col < size):
            raise InvalidMoveError(f"{move.to_algebraic()} is off a {size}x{size} board")
        if self._over:
            raise IllegalMoveError(IllegalReason.GAME_OVER, move.to_algebraic())
        color = self._to_play
        black = color is Color.BLACK
        p, o = (self._black, self._white) if black else (self._white, self._black)
        code, p, o, legal, over = _k.play(p, o, row * 8 + col, _MASK[size])
        if code:
            raise IllegalMoveError(_REASONS[code], move.to_algebraic())
        child = OthelloState.__new__(OthelloState)
        child._size = size
        child._black, child._white = (p, o) if black else (o, p)
        child._to_play = _OPPONENT[color]
        child._legal = legal
        child._over = over
        child._previous = self
        child._last_move = move
        child._move_number = self._move_number + 1
        child._key = None
        child._moves = None
        child._resigned = None
        return child

    def _pass(self) -> OthelloState:
        if self._over:
            raise IllegalMoveError(IllegalReason.GAME_OVER, "pass")
        if self._legal:
            raise IllegalMoveError(IllegalReason.PASS_NOT_ALLOWED, "pass")
        return self._position(
            self._size,
            self._black,
            self._white,
            _OPPONENT[self._to_play],
            self,
            Move.PASS,
            self._move_number + 1,
        )

    def _resign(self, color: Color) -> OthelloState:
        if self._over:
            raise IllegalMoveError(IllegalReason.GAME_OVER, "resign")
        state = OthelloState.__new__(OthelloState)
        state._fill(
            self._size, self._black, self._white, self._to_play, 0, True, self, Move.RESIGN,
            self._move_number + 1,
        )  # fmt: skip
        state._resigned = color
        return state

    @property
    def resigned(self) -> Color | None:
        """The colour that resigned, if the game ended so."""
        return self._resigned

    def _implicit_pass(self, move: Move) -> OthelloState:
        text = move.to_algebraic()
        if self._over:
            raise IllegalMoveError(IllegalReason.GAME_OVER, text)
        if self._legal:
            raise IllegalMoveError(IllegalReason.WRONG_COLOR, text)
        return self._pass()

    def parse_move(self, text: str) -> Move:
        """Read ``f5`` / ``F5`` / ``pass`` on this board."""
        return Move.from_algebraic(text, self._size)

    def format_move(self, move: Move) -> str:
        """Write ``f5`` or ``pass``."""
        if move.point is not None and not move.point.on_board(self._size):
            raise InvalidMoveError(f"{move!r} is off a {self._size}x{self._size} board")
        return move.to_algebraic()

    # -- bitboards, symmetries, text ---------------------------------------------------------------
    def bitboards(self) -> tuple[np.uint64, np.uint64]:
        """``(discs of the player to move, discs of the opponent)`` as ``np.uint64``
        (bit ``row * 8 + col``), ready for :mod:`imago.games.othello.bitboard`."""
        if self._to_play is Color.BLACK:
            return np.uint64(self._black), np.uint64(self._white)
        return np.uint64(self._white), np.uint64(self._black)

    def transform(self, sym: int) -> OthelloState:
        """The position under board symmetry ``sym`` (see :mod:`imago.games.symmetry`),
        as a new state without history."""
        if sym not in SYMMETRIES:
            raise ValueError(f"symmetry must be 0..7, not {sym!r}")
        size = self._size
        black = int(_k.symmetry(self._black, sym, size))
        white = int(_k.symmetry(self._white, sym, size))
        return self._position(size, black, white, self._to_play, None, None, self._move_number)

    def board_string(self) -> str:
        """The discs as FFO / Edax write them: ``X`` black, ``O`` white, ``-`` empty, row-major."""
        chars = np.array(["-", "X", "O"])[self.board()]
        return "".join(chars.ravel())

    def __str__(self) -> str:
        size = self._size
        letters = " ".join(chr(ord("a") + col) for col in range(size))
        rows = [f"  {letters}"]
        text = self.board_string()
        for row in range(size):
            cells = " ".join(text[row * size : (row + 1) * size])
            rows.append(f"{row + 1} {cells}")
        black, white = self.discs()
        rows.append(f"{self._to_play} to play; black {black}, white {white}")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"OthelloState.from_board_string({self.board_string()!r}, {self._to_play.name!r})"

    def __eq__(self, other: object) -> bool:
        """Equal positions: same board size, discs and side to move (history is ignored)."""
        if not isinstance(other, OthelloState):
            return NotImplemented
        return (self._size, self._black, self._white, self._to_play) == (
            other._size,
            other._black,
            other._white,
            other._to_play,
        )

    def __hash__(self) -> int:
        return self.key


def _parse_color(value: Color | str) -> Color:
    if isinstance(value, Color):
        return value
    word = str(value).strip().lower()
    if word in ("x", "*"):
        return Color.BLACK
    if word == "o":
        return Color.WHITE
    return Color.parse(word)


_ZOBRIST, _SIDE_KEYS = _zobrist_tables()


def new_game(size: int = 8, **options: Any) -> OthelloState:
    """A new game on a ``size`` x ``size`` board (8, or 6 / 4 for small experiments)."""
    if options:
        raise TypeError(f"unknown Othello options: {', '.join(sorted(options))}")
    return OthelloState(size)


def perft(depth: int, size: int = 8) -> int:
    """The number of leaves of the game tree ``depth`` plies deep from the start position.

    The usual convention: a pass is a ply, and a game that ends earlier is a leaf.
    The published 8x8 counts are 4, 12, 56, 244, 1396, 8200, 55092, ...
    """
    _check_size(size)
    if depth < 0:
        raise ValueError(f"depth must be >= 0, not {depth}")
    black, white = _START[size]
    if size == 8:
        return int(_bb.perft(black, white, depth))
    return int(_k.perft(np.uint64(black), np.uint64(white), depth, np.uint64(_MASK[size])))
