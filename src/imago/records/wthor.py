"""The WTHOR Othello database: ``.wtb`` games, ``.JOU`` players, ``.TRN`` tournaments.

Format (little-endian), as the Fédération Française d'Othello publishes it:

* every file starts with a 16-byte header: creation date (century, year, month, day), the
  number of records (``uint32`` at 4 for games, ``uint16`` at 8 for names), the year of the
  games (``uint16`` at 10), the board size (12; 0 means 8), the type (13) and the depth of
  the theoretical score (14);
* a ``.wtb`` record is 68 bytes: tournament, black and white player numbers (``uint16``),
  Black's disc count, Black's theoretical (perfect play) score, then 60 moves, one byte each
  = 10 * row + column (1-based; 0 ends the game). Passes are not written: a move the side to
  move cannot make means that side passed;
* a ``.JOU`` record is a 20-byte, a ``.TRN`` record a 26-byte latin-1 name, NUL padded.

:func:`read_games` gives the raw records (:class:`WthorGame`), fast; :meth:`WthorGame.to_game`
replays one into a :class:`~imago.records.tree.Game` with players, tournament, year and
result as SGF properties, so it converts to SGF GM[2] directly.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from imago.core.color import Color
from imago.core.errors import ImagoError
from imago.core.files import atomic_write
from imago.core.move import Move, Point
from imago.records.tree import Game, game_from_moves, game_from_squares, start_state

HEADER_SIZE = 16
GAME_RECORD_SIZE = 68
PLAYER_NAME_SIZE = 20
TOURNAMENT_NAME_SIZE = 26
MOVES_PER_GAME = 60
THEORETICAL_SCORE = "TSC"
"""Private SGF property that keeps WTHOR's theoretical score on conversion."""

_RECORD = np.dtype(
    [
        ("tournament", "<u2"),
        ("black", "<u2"),
        ("white", "<u2"),
        ("black_score", "u1"),
        ("theoretical", "u1"),
        ("moves", "u1", (MOVES_PER_GAME,)),
    ]
)


class WthorError(ImagoError, ValueError):
    """A WTHOR file that does not follow the format (size, header, move bytes)."""


@dataclass(frozen=True, slots=True)
class WthorHeader:
    """The 16-byte header of every WTHOR file."""

    created: tuple[int, int, int]
    count: int
    year: int = 0
    board_size: int = 8
    kind: int = 0
    depth: int = 22

    @property
    def size(self) -> int:
        """The board size (the header's byte 12; 0 means 8)."""
        return self.board_size or 8

    def pack(self, name_file: bool = False) -> bytes:
        century, year_in_century = divmod(self.created[0], 100)
        out = bytearray(HEADER_SIZE)
        out[0], out[1], out[2], out[3] = century, year_in_century, self.created[1], self.created[2]
        if name_file:
            out[8:10] = self.count.to_bytes(2, "little")
        else:
            out[4:8] = self.count.to_bytes(4, "little")
        out[10:12] = self.year.to_bytes(2, "little")
        out[12] = self.board_size
        out[13] = self.kind
        out[14] = self.depth
        return bytes(out)


def _header(data: bytes, path: object) -> WthorHeader:
    if len(data) < HEADER_SIZE:
        raise WthorError(f"{path}: {len(data)} bytes is too short for a WTHOR header")
    return WthorHeader(
        created=(data[0] * 100 + data[1], data[2], data[3]),
        count=int.from_bytes(data[4:8], "little"),
        year=int.from_bytes(data[10:12], "little"),
        board_size=data[12],
        kind=data[13],
        depth=data[14],
    )


@dataclass(frozen=True, slots=True)
class WthorGame:
    """One ``.wtb`` record: ids of tournament and players, scores, and the moves (no passes)."""

    tournament: int
    black: int
    white: int
    black_score: int
    theoretical_score: int
    moves: tuple[Move, ...]
    year: int = 0
    board_size: int = 8
    _squares: bytes = field(default=b"", init=False, repr=False, compare=False)
    """The moves as bit squares (``row * 8 + col``) when read from a file (spares converting
    ``moves``); not an argument, so ``dataclasses.replace`` never carries it to other moves."""

    def transcript(self) -> str:
        """The moves as a transcript: ``f5d6c3...``."""
        return "".join(move.to_algebraic() for move in self.moves)

    def result(self) -> str:
        """The result as SGF writes it, from Black's disc count (empties go to the winner)."""
        total = self.board_size * self.board_size
        margin = 2 * self.black_score - total
        if margin == 0:
            return "0"
        return f"B+{margin}" if margin > 0 else f"W+{-margin}"

    def to_game(
        self,
        players: Sequence[str] | None = None,
        tournaments: Sequence[str] | None = None,
    ) -> Game:
        """Replay the moves into a game tree (raises ``RecordError`` at an illegal move).

        Root properties: ``PB``/``PW`` (names, or ``#id`` without a players list), ``EV``,
        ``DT`` (the year), ``RE`` and the theoretical score as ``TSC``.
        """
        initial = start_state("othello", size=self.board_size)
        if self._squares and len(self._squares) == len(self.moves):
            game = game_from_squares(initial, self.moves, self._squares)
        else:
            game = game_from_moves(initial, self.moves)
        game.set_text("PB", _name(players, self.black))
        game.set_text("PW", _name(players, self.white))
        game.set_text("EV", _name(tournaments, self.tournament))
        if self.year:
            game.set_text("DT", str(self.year))
        game.set_text("RE", self.result())
        game.properties[THEORETICAL_SCORE] = [str(self.theoretical_score)]
        return game


def _name(names: Sequence[str] | None, index: int) -> str:
    if names is not None and 0 <= index < len(names):
        return names[index]
    return f"#{index}"


_MOVE_OF_CODE: list[Move | None] = [None] * 256
for _row in range(1, 11):
    for _col in range(1, 11):
        _MOVE_OF_CODE[10 * _row + _col] = Move.play(Point(_row - 1, _col - 1))


def _check_moves(moves: np.ndarray, size: int, path: object) -> np.ndarray:
    """Validate the move bytes of every record at once; returns the number of moves of each."""
    played = moves != 0
    rows, cols = moves // 10, moves % 10
    on_board = (rows >= 1) & (rows <= size) & (cols >= 1) & (cols <= size)
    bad = played & ~on_board
    if bad.any():
        game, slot = (int(x) for x in np.argwhere(bad)[0])
        raise WthorError(
            f"{path}: game {game + 1}: move byte {int(moves[game, slot])} is not a square"
        )
    if moves.shape[0] and (np.diff(played.astype(np.int8), axis=1) > 0).any():
        game = int(np.argwhere(np.diff(played.astype(np.int8), axis=1) > 0)[0][0])
        raise WthorError(f"{path}: game {game + 1}: a move follows the end of the game")
    counts: np.ndarray = played.sum(axis=1)
    return counts


def read_games(path: str | os.PathLike[str]) -> list[WthorGame]:
    """Every game of a ``.wtb`` file (raw records, not replayed)."""
    return read_wtb(path)[1]


def read_wtb(path: str | os.PathLike[str]) -> tuple[WthorHeader, list[WthorGame]]:
    """The header and the games of a ``.wtb`` file."""
    return read_wtb_bytes(Path(path).read_bytes(), path)


def read_wtb_bytes(data: bytes, path: object = "<bytes>") -> tuple[WthorHeader, list[WthorGame]]:
    """The header and the games held by the bytes of a ``.wtb`` file (``path`` for messages)."""
    header = _header(data, path)
    expected = HEADER_SIZE + GAME_RECORD_SIZE * header.count
    if len(data) != expected:
        raise WthorError(
            f"{path}: {len(data)} bytes, but a header announcing {header.count} games "
            f"needs {expected}"
        )
    records = np.frombuffer(data, _RECORD, count=header.count, offset=HEADER_SIZE)
    games: list[WthorGame] = []
    size = header.size
    tournaments = records["tournament"].tolist()
    blacks = records["black"].tolist()
    whites = records["white"].tolist()
    scores = records["black_score"].tolist()
    theoretical = records["theoretical"].tolist()
    counts = _check_moves(records["moves"], size, path).tolist()
    codes = records["moves"]
    moves = codes.tolist()
    rows, cols = np.divmod(codes, 10)
    squares = (8 * (rows.astype(np.int16) - 1) + cols - 1).astype(np.uint8)
    table = _MOVE_OF_CODE.__getitem__
    year = header.year
    for index in range(header.count):
        played: tuple[Move, ...] = tuple(map(table, moves[index][: counts[index]]))  # type: ignore[arg-type]
        record = WthorGame(
            tournaments[index],
            blacks[index],
            whites[index],
            scores[index],
            theoretical[index],
            played,
            year,
            size,
        )
        object.__setattr__(record, "_squares", squares[index, : counts[index]].tobytes())
        games.append(record)
    return header, games


def read_header(path: str | os.PathLike[str]) -> WthorHeader:
    """The header of any WTHOR file."""
    with open(path, "rb") as stream:
        return _header(stream.read(HEADER_SIZE), path)


def read_names(path: str | os.PathLike[str]) -> list[str]:
    """The names of a ``.JOU`` (players) or ``.TRN`` (tournaments) file, by number."""
    try:
        return read_names_bytes(Path(path).read_bytes())
    except WthorError as error:
        raise WthorError(f"{path}: {error}") from None


def read_names_bytes(data: bytes) -> list[str]:
    """The names held by the bytes of a ``.JOU`` or ``.TRN`` file."""
    if len(data) < HEADER_SIZE:
        raise WthorError("too short for a WTHOR header")
    count = int.from_bytes(data[8:10], "little")
    body = len(data) - HEADER_SIZE
    if count == 0 or body % count:
        raise WthorError(f"{body} bytes do not hold {count} names")
    width = body // count
    if width not in (PLAYER_NAME_SIZE, TOURNAMENT_NAME_SIZE):
        raise WthorError(f"records of {width} bytes are neither players nor tournaments")
    names = []
    for index in range(count):
        start = HEADER_SIZE + index * width
        raw = data[start : start + width].split(b"\0", 1)[0]
        names.append(raw.decode("latin-1").strip())
    return names


def from_game(
    game: Game,
    *,
    tournament: int = 0,
    black: int = 0,
    white: int = 0,
) -> WthorGame:
    """A ``.wtb`` record of ``game``'s main line (passes dropped; scores from the final board)."""
    if game.game_name != "othello":
        raise WthorError("WTHOR holds Othello games only")
    moves = tuple(move for move in game.mainline_moves() if move.is_play)
    if len(moves) > MOVES_PER_GAME:
        raise WthorError(f"{len(moves)} moves do not fit a WTHOR record")
    final = game.end().state
    board = final.board()
    black_discs = int((board == int(Color.BLACK)).sum())
    white_discs = int((board == int(Color.WHITE)).sum())
    empties = board.size - black_discs - white_discs
    if black_discs > white_discs:
        black_discs += empties
    elif black_discs == white_discs:
        black_discs += empties // 2
    theoretical = game.get(THEORETICAL_SCORE)
    try:
        theory = int(theoretical[0]) if theoretical else black_discs
    except ValueError:
        theory = black_discs
    year = 0
    date = game.date
    if date and date[:4].isdigit():
        year = int(date[:4])
    return WthorGame(tournament, black, white, black_discs, theory, moves, year, game.size)


def pack_games(
    games: Sequence[WthorGame],
    *,
    year: int = 0,
    created: datetime.date | None = None,
    header: WthorHeader | None = None,
) -> bytes:
    """The bytes of a ``.wtb`` file holding ``games`` (``header`` kept when given)."""
    day = created or datetime.date.today()
    size = games[0].board_size if games else 8
    if header is None:
        header = WthorHeader((day.year, day.month, day.day), len(games), year, size)
    elif header.count != len(games):
        header = dataclasses.replace(header, count=len(games))
    records = np.zeros(len(games), _RECORD)
    for index, game in enumerate(games):
        if game.board_size != size:
            raise WthorError("all games of a WTHOR file share one board size")
        records[index]["tournament"] = game.tournament
        records[index]["black"] = game.black
        records[index]["white"] = game.white
        records[index]["black_score"] = game.black_score
        records[index]["theoretical"] = game.theoretical_score
        codes = [
            10 * (m.point.row + 1) + m.point.col + 1 for m in game.moves if m.point is not None
        ]
        records[index]["moves"][: len(codes)] = codes
    return header.pack() + records.tobytes()


def write_games(
    path: str | os.PathLike[str],
    games: Sequence[WthorGame],
    *,
    year: int = 0,
    created: datetime.date | None = None,
) -> None:
    """Write a ``.wtb`` file atomically."""
    atomic_write(path, pack_games(games, year=year, created=created))


def pack_names(names: Iterable[str], width: int, *, created: datetime.date | None = None) -> bytes:
    """The bytes of a ``.JOU`` (``width`` 20) or ``.TRN`` (26) file."""
    day = created or datetime.date.today()
    items = list(names)
    header = WthorHeader((day.year, day.month, day.day), len(items), 0, 8, 0, 0)
    body = bytearray()
    for name in items:
        raw = name.encode("latin-1", errors="replace")[: width - 1]
        body += raw + b"\0" * (width - len(raw))
    return header.pack(name_file=True) + bytes(body)


def write_names(path: str | os.PathLike[str], names: Iterable[str], width: int) -> None:
    """Write a ``.JOU`` or ``.TRN`` file atomically."""
    atomic_write(path, pack_names(names, width))


__all__ = [
    "THEORETICAL_SCORE",
    "WthorError",
    "WthorGame",
    "WthorHeader",
    "from_game",
    "pack_games",
    "pack_names",
    "read_games",
    "read_header",
    "read_names",
    "read_names_bytes",
    "read_wtb",
    "read_wtb_bytes",
    "write_games",
    "write_names",
]
