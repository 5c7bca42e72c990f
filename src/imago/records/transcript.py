"""Othello move transcripts (``f5d6c3d3...``, passes implicit) and the eOthello CSV.

A transcript is the moves of a game in algebraic notation run together; a side with no legal
move passes without a mark, as in WTHOR. Reading tolerates white space, upper case and
explicit ``pass`` / ``--`` / ``ps`` marks; writing gives the compact lower-case form.

The eOthello CSV (``Othello_game_id,winner,game_moves``; winner 1 black, -1 white, 0 draw)
is read by :func:`read_eothello_csv`.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from imago.core.errors import ImagoError, InvalidMoveError
from imago.core.files import atomic_write
from imago.core.move import Move
from imago.records.tree import Game, game_from_moves, start_state

_TOKEN = re.compile(r"\s*(?:([a-zA-Z])(\d{1,2})|(pass|PASS|Pass|--|ps|PS|pa|PA))")


class TranscriptError(ImagoError, ValueError):
    """Text that is not a transcript; ``position`` is the character where reading stopped."""

    def __init__(self, message: str, position: int) -> None:
        self.position = position
        super().__init__(f"column {position + 1}: {message}")


def parse_transcript(text: str, size: int = 8) -> list[Move]:
    """The moves of a transcript (explicit pass marks are dropped: passes are implicit)."""
    moves: list[Move] = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None:
            raise TranscriptError(f"not a move: {stripped[position : position + 4]!r}", position)
        if match.group(1):
            try:
                moves.append(Move.from_algebraic(match.group(1) + match.group(2), size))
            except InvalidMoveError as error:
                raise TranscriptError(str(error), match.start(1)) from None
        position = match.end()
    return moves


def format_transcript(moves: Iterable[Move]) -> str:
    """The compact transcript of ``moves`` (passes left out)."""
    return "".join(move.to_algebraic() for move in moves if move.is_play)


def read_transcript(text: str, size: int = 8) -> Game:
    """Replay a transcript into a game tree (raises ``RecordError`` at an illegal move)."""
    return game_from_moves(start_state("othello", size=size), parse_transcript(text, size))


def game_transcript(game: Game) -> str:
    """The transcript of a game's main line."""
    return format_transcript(game.mainline_moves())


def read_transcript_file(path: str | os.PathLike[str], size: int = 8) -> list[Game]:
    """One game per non-empty line (``#`` starts a comment line)."""
    games = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            games.append(read_transcript(line, size))
    return games


def write_transcript_file(path: str | os.PathLike[str], games: Iterable[Game]) -> None:
    """Write one transcript per line, atomically."""
    text = "".join(game_transcript(game) + "\n" for game in games)
    atomic_write(path, text.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class EOthelloGame:
    """One row of the eOthello CSV."""

    game_id: str
    winner: int
    moves: tuple[Move, ...]

    def result(self) -> str:
        """``B+``, ``W+`` or ``0`` from the winner column (no margin is recorded)."""
        return {1: "B+", -1: "W+"}.get(self.winner, "0")

    def to_game(self) -> Game:
        """Replay into a tree; ``RE`` is the counted result when the game reached its end."""
        game = game_from_moves(start_state("othello"), self.moves)
        final = game.end().state
        outcome = final.outcome() if final.is_over() else None
        game.set_text("RE", outcome.result() if outcome is not None else self.result())
        game.set_text("GN", self.game_id)
        return game


def read_eothello_csv(path: str | os.PathLike[str]) -> Iterator[EOthelloGame]:
    """The games of an eOthello CSV file, in order (moves parsed, not replayed)."""
    with open(path, newline="", encoding="utf-8") as stream:
        yield from read_eothello_rows(stream, str(path))


def read_eothello_rows(stream: TextIO, name: str = "<csv>") -> Iterator[EOthelloGame]:
    """The games of an eOthello CSV text stream (``name`` for messages)."""
    reader = csv.reader(stream)
    header = next(reader, None)
    if header is None or [h.strip() for h in header[:3]] != [
        "Othello_game_id",
        "winner",
        "game_moves",
    ]:
        raise TranscriptError(f"{name}: not an eOthello CSV (header {header!r})", 0)
    for line, row in enumerate(reader, start=2):
        if not row:
            continue
        try:
            winner = int(row[1])
            moves = tuple(parse_transcript(row[2]))
        except (IndexError, ValueError) as error:
            raise TranscriptError(f"{name}: line {line}: {error}", 0) from None
        yield EOthelloGame(row[0], winner, moves)


__all__ = [
    "EOthelloGame",
    "TranscriptError",
    "format_transcript",
    "game_transcript",
    "parse_transcript",
    "read_eothello_csv",
    "read_eothello_rows",
    "read_transcript",
    "read_transcript_file",
    "write_transcript_file",
]
