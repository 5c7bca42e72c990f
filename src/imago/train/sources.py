"""Where training games come from: WTHOR files, move transcripts, the eOthello CSV, SGF files,
folders, archives.

A source is cut into *units* (one WTHOR file, one transcript file, a chunk of SGF games) so
that a dataset build can record which units are done and resume after an interruption. Each
unit yields :class:`SourceGame` values: the moves as recorded plus what the filters need.

WTHOR files are read here in bulk with a numpy record type (68-byte records after a 16-byte
header; see ``shared/data/wthor/README.txt``) because a dataset build touches 137,000 games;
SGF is read with :mod:`imago.records.sgf`.
"""

from __future__ import annotations

import io
import re
import tarfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from imago.core.color import Color
from imago.core.move import Move, Point


@dataclass(frozen=True, slots=True)
class SourceGame:
    """One recorded game, before replay.

    ``colors`` gives who played each move when the record says so (SGF); ``None`` means the
    moves alternate with implicit passes (WTHOR, transcripts). ``winner`` is ``None`` for a draw
    and when ``decided`` is false (no result, void game).
    """

    key: str
    moves: tuple[Move, ...]
    colors: tuple[Color, ...] | None = None
    winner: Color | None = None
    decided: bool = False
    year: int | None = None
    size: int = 8
    handicap: int = 0
    setup_black: tuple[Point, ...] = ()
    setup_white: tuple[Point, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def split_hash(self) -> float:
        """A stable number in ``[0, 1)`` from the game's key (for a by-game validation split)."""
        return zlib.crc32(self.key.encode()) / 2**32


@dataclass(frozen=True, slots=True)
class Unit:
    """A resumable piece of a source: a name stable across runs and a way to read its games."""

    name: str
    load: Callable[[], list[SourceGame]]
    games: int | None = None


class SourceError(ValueError):
    """A path that holds no readable games."""


# -- WTHOR ----------------------------------------------------------------------------------

WTHOR_HEADER = 16
WTHOR_RECORD = np.dtype(
    [
        ("tournament", "<u2"),
        ("black", "<u2"),
        ("white", "<u2"),
        ("black_discs", "u1"),
        ("theoretical", "u1"),
        ("moves", "u1", (60,)),
    ]
)


def wthor_count(path: Path) -> int:
    """The number of games a ``.wtb`` header announces."""
    with path.open("rb") as handle:
        header = handle.read(WTHOR_HEADER)
    return int.from_bytes(header[4:8], "little") if len(header) == WTHOR_HEADER else 0


def read_wthor(path: Path) -> list[SourceGame]:
    """Every game of a ``.wtb`` file (8x8; passes implicit)."""
    data = path.read_bytes()
    if len(data) < WTHOR_HEADER:
        raise SourceError(f"{path} is too short for a WTHOR file")
    count = int.from_bytes(data[4:8], "little")
    year = int.from_bytes(data[10:12], "little")
    if len(data) != WTHOR_HEADER + count * WTHOR_RECORD.itemsize:
        raise SourceError(f"{path}: size does not match its {count} games")
    records = np.frombuffer(data, dtype=WTHOR_RECORD, offset=WTHOR_HEADER, count=count)
    games = []
    for index, record in enumerate(records):
        moves = []
        for code in record["moves"]:
            if code == 0:
                break
            row, col = divmod(int(code), 10)
            if not (1 <= row <= 8 and 1 <= col <= 8):
                break
            moves.append(Move.play(Point(row - 1, col - 1)))
        black = int(record["black_discs"])
        winner = Color.BLACK if black > 32 else Color.WHITE if black < 32 else None
        games.append(
            SourceGame(
                key=f"{path.name}#{index}",
                moves=tuple(moves),
                winner=winner,
                decided=True,
                year=year,
                size=8,
                meta={"tournament": int(record["tournament"])},
            )
        )
    return games


# -- transcripts ----------------------------------------------------------------------------

_OTHELLO_SQUARE = re.compile(r"[a-hA-H][1-8]|pass|PASS|Pass")


def read_transcripts(path: Path, game: str, size: int) -> list[SourceGame]:
    """One game per line: Othello ``f5d6c3...`` (spaces optional) or Go GTP vertices.

    A line may end with a result after ``#`` (``# B+``, ``# W+3``, ``# 0``); blank lines and
    lines starting with ``#`` are skipped.
    """
    games = []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        text, _, result = line.partition("#")
        if not text.strip():
            continue
        if game == "othello":
            tokens = _OTHELLO_SQUARE.findall(text)
            moves = tuple(Move.from_algebraic(t, size) for t in tokens)
        else:
            moves = tuple(Move.from_gtp(t, size) for t in text.replace(",", " ").split())
        winner, decided = parse_result(result.strip())
        key = f"{path.name}#{number}"
        games.append(SourceGame(key, moves, None, winner, decided, None, size))
    return games


def parse_result(text: str) -> tuple[Color | None, bool]:
    """``(winner, decided)`` from an SGF-style result (``B+R``, ``W+3.5``, ``0``, ``Void``)."""
    word = text.strip().upper()
    if word.startswith("B+"):
        return Color.BLACK, True
    if word.startswith("W+"):
        return Color.WHITE, True
    if word in ("0", "DRAW", "JIGO"):
        return None, True
    return None, False


# -- the eOthello CSV ------------------------------------------------------------------------


def read_eothello(path: Path) -> list[SourceGame]:
    """Every game of an eOthello CSV (``Othello_game_id,winner,game_moves``), read as
    ``imago records`` reads it (:func:`imago.records.transcript.read_eothello_rows`)."""
    from imago.records.transcript import TranscriptError, read_eothello_rows

    winners = {1: Color.BLACK, -1: Color.WHITE, 0: None}
    games = []
    try:
        with path.open(newline="", encoding="utf-8", errors="replace") as stream:
            for row in read_eothello_rows(stream, path.name):
                games.append(
                    SourceGame(
                        key=f"{path.name}#{row.game_id}",
                        moves=row.moves,
                        winner=winners.get(row.winner),
                        decided=row.winner in winners,
                        size=8,
                    )
                )
    except TranscriptError as error:
        raise SourceError(str(error)) from None
    return games


# -- which game ------------------------------------------------------------------------------

_GM = re.compile(rb"GM\s*\[\s*(\d+)\s*\]")


def guess_game(paths: Iterable[Path]) -> str | None:
    """The game the records under ``paths`` hold, from the first one found: ``othello`` for
    WTHOR, eOthello CSV and transcript files, and SGF by its ``GM`` property (``GM[2]``
    Othello; ``GM[1]`` or none, Go); ``None`` when nothing tells."""
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            name = file.name.lower()
            if name.endswith((".wtb", ".csv")) or _is_transcript(name):
                return "othello"
            if name.endswith(".sgf"):
                return _sgf_game(file.read_bytes()[:4096])
            if name.endswith((".tar.gz", ".tgz", ".tar")) and file.is_file():
                with tarfile.open(file, "r:*") as archive:
                    for member in archive:
                        if member.isfile() and member.name.lower().endswith(".sgf"):
                            handle = archive.extractfile(member)
                            if handle is not None:
                                return _sgf_game(handle.read(4096))
    return None


def _sgf_game(head: bytes) -> str:
    match = _GM.search(head)
    return "othello" if match is not None and int(match[1]) == 2 else "go"


def _is_transcript(name: str) -> bool:
    return name.endswith((".txt", ".transcript")) and not name.startswith("readme")


# -- discovering units ----------------------------------------------------------------------

SgfReader = Callable[[str, str], SourceGame | None]
"""Reads one SGF text (with a key for it) into a game, or ``None`` when it is not one."""


def discover_units(
    path: Path,
    game: str,
    size: int,
    *,
    sgf_reader: SgfReader | None = None,
    chunk: int = 2000,
) -> Iterator[Unit]:
    """The units of a source path: a WTHOR file or folder, a transcript, SGF files or archives.

    Raises :class:`SourceError` when the path does not exist or holds nothing readable.
    """
    if not path.exists():
        raise SourceError(f"no such file or folder: {path}")
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    found = False
    sgf_files: list[Path] = []
    for file in files:
        name = file.name.lower()
        if name.endswith(".wtb"):
            found = True
            yield Unit(file.name, _bind_wthor(file), wthor_count(file))
        elif _is_transcript(name):
            found = True
            yield Unit(file.name, _bind_transcript(file, game, size))
        elif name.endswith(".csv"):
            found = True
            yield Unit(file.name, _bind_eothello(file))
        elif name.endswith(".sgf"):
            sgf_files.append(file)
        elif name.endswith((".tar.gz", ".tgz", ".tar")):
            if sgf_reader is None:
                raise SourceError("reading SGF archives needs the SGF reader (imago.records)")
            found = True
            yield from _archive_units(file, sgf_reader, chunk)
    if sgf_files:
        if sgf_reader is None:
            raise SourceError("reading SGF files needs the SGF reader (imago.records)")
        found = True
        base = path if path.is_dir() else path.parent
        for start in range(0, len(sgf_files), chunk):
            part = sgf_files[start : start + chunk]
            name = f"{base.name}/sgf#{start // chunk}"
            yield Unit(name, _bind_sgf_files(part, sgf_reader), len(part))
    if not found:
        raise SourceError(
            f"{path} holds no games (.wtb, .sgf, .tar.gz, the eOthello .csv or transcript .txt)"
        )


def _bind_wthor(file: Path) -> Callable[[], list[SourceGame]]:
    return lambda: read_wthor(file)


def _bind_eothello(file: Path) -> Callable[[], list[SourceGame]]:
    return lambda: read_eothello(file)


def _bind_transcript(file: Path, game: str, size: int) -> Callable[[], list[SourceGame]]:
    return lambda: read_transcripts(file, game, size)


def _bind_sgf_files(files: list[Path], reader: SgfReader) -> Callable[[], list[SourceGame]]:
    def load() -> list[SourceGame]:
        games = []
        for file in files:
            text = file.read_bytes().decode("utf-8", errors="replace")
            parsed = reader(text, file.name)
            if parsed is not None:
                games.append(parsed)
        return games

    return load


def _archive_units(file: Path, reader: SgfReader, chunk: int) -> Iterator[Unit]:
    """Chunks of an SGF archive, read in one pass (members in archive order)."""
    with tarfile.open(file, "r:*") as archive:
        batch: list[tuple[str, bytes]] = []
        index = 0
        for member in archive:
            if not member.isfile() or not member.name.lower().endswith(".sgf"):
                continue
            handle = archive.extractfile(member)
            if handle is None:
                continue
            batch.append((member.name, handle.read()))
            if len(batch) == chunk:
                yield Unit(f"{file.name}#{index}", _bind_texts(batch, reader), len(batch))
                batch, index = [], index + 1
        if batch:
            yield Unit(f"{file.name}#{index}", _bind_texts(batch, reader), len(batch))


def _bind_texts(
    items: list[tuple[str, bytes]], reader: SgfReader
) -> Callable[[], list[SourceGame]]:
    def load() -> list[SourceGame]:
        games = []
        for name, data in items:
            parsed = reader(io.BytesIO(data).read().decode("utf-8", errors="replace"), name)
            if parsed is not None:
                games.append(parsed)
        return games

    return load
