"""Record files of every format by extension, folders and tar.gz archives, and statistics.

==========  ======================================  =====================================
extension   format                                  read / write
==========  ======================================  =====================================
``.sgf``    SGF collection (Go GM[1], Othello GM[2]) both
``.wtb``    WTHOR games (names from ``WTH.JOU`` /   both
            ``WTH.TRN`` in the same folder)
``.txt``    Othello transcripts, one game a line    both
``.ggf``    GGF (the Othello servers' format)       both
``.csv``    the eOthello CSV                        read
==========  ======================================  =====================================

Each extension has one meaning everywhere (``imago records``, ``imago play``'s ``save`` and
``load``, datasets). A ``.txt`` file met while walking a folder or an archive is read only
when it holds transcripts (a ``README.txt`` is skipped and said so); named on its own, it is
read as transcripts and a file that holds none is one problem, not one per line.
"""

from __future__ import annotations

import io
import os
import statistics
import tarfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from imago.core.errors import ImagoError
from imago.records import ggf, sgf, transcript, wthor
from imago.records.sgf_properties import parse_result
from imago.records.tree import Game, RecordError

READABLE = (".sgf", ".wtb", ".txt", ".ggf", ".csv")
WRITABLE = (".sgf", ".wtb", ".txt", ".ggf")


class FormatError(ImagoError, ValueError):
    """A file whose format imago does not know, or cannot write."""


@dataclass(slots=True)
class Loaded:
    """The games read from one file and the problems met (``where: message`` strings).

    ``skipped`` says why a file found in a folder or archive was not read as records (a
    ``README.txt``): it then has neither games nor problems."""

    name: str
    games: list[Game] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: str | None = None


def suffix(name: str) -> str:
    """The lower-case extension of a file name (``.sgf``)."""
    return Path(name).suffix.lower()


def unknown_format(name: str) -> str:
    """Why ``name`` is not read as records, and what is: for messages."""
    kind = suffix(name)
    what = f"{kind} is not a record format" if kind else "a file name without an extension"
    archive = " (archives: .tar.gz, .tgz, .tar)" if _is_archive(Path(name)) else ""
    return f"{what}; imago reads {', '.join(READABLE)} files{archive}"


def load_bytes(
    name: str,
    data: bytes,
    *,
    replay: bool = True,
    names_folder: Path | None = None,
    found: bool = False,
) -> Loaded:
    """Read the games of a file's bytes; problems are collected, never raised.

    ``found``: the file was met in a folder or an archive, not named; a ``.txt`` file that
    holds no transcript is then skipped instead of reported.
    """
    kind = suffix(name)
    loaded = Loaded(name)
    if kind == ".sgf":
        collection = sgf.read_bytes(data, replay=replay)
        loaded.games.extend(collection)
        loaded.errors.extend(f"{name}:{e.line}:{e.column}: {e.message}" for e in collection.errors)
    elif kind == ".wtb":
        _load_wthor(name, data, loaded, names_folder)
    elif kind == ".txt":
        _load_transcripts(name, data, loaded, found)
    elif kind == ".ggf":
        games = ggf.read_bytes(data)
        loaded.games.extend(games)
        loaded.errors.extend(f"{name}:{e.line}:{e.column}: {e.message}" for e in games.errors)
    elif kind == ".csv":
        _load_csv(name, data, loaded)
    else:
        loaded.errors.append(f"{name}: {unknown_format(name)}")
    return loaded


def _load_transcripts(name: str, data: bytes, loaded: Loaded, found: bool) -> None:
    lines = [
        (number, line.strip())
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1)
        if line.strip() and not line.strip().startswith("#")
    ]
    if lines:
        try:
            transcript.parse_transcript(lines[0][1])
        except transcript.TranscriptError as error:
            why = "no Othello transcript (one game a line: f5d6c3...)"
            if found:
                loaded.skipped = why
            else:
                loaded.errors.append(f"{name}:{lines[0][0]}: {why}; line {lines[0][0]}: {error}")
            return
    for number, text in lines:
        try:
            loaded.games.append(transcript.read_transcript(text))
        except (RecordError, transcript.TranscriptError) as error:
            loaded.errors.append(f"{name}:{number}: {error}")


def _load_wthor(name: str, data: bytes, loaded: Loaded, names_folder: Path | None) -> None:
    players = tournaments = None
    if names_folder is not None:
        if (names_folder / "WTH.JOU").is_file():
            players = wthor.read_names(names_folder / "WTH.JOU")
        if (names_folder / "WTH.TRN").is_file():
            tournaments = wthor.read_names(names_folder / "WTH.TRN")
    try:
        _, records = wthor.read_wtb_bytes(data, name)
    except wthor.WthorError as error:
        loaded.errors.append(str(error))
        return
    for number, record in enumerate(records, start=1):
        try:
            loaded.games.append(record.to_game(players, tournaments))
        except RecordError as error:
            loaded.errors.append(f"{name}: game {number}: {error}")


def _load_csv(name: str, data: bytes, loaded: Loaded) -> None:
    stream = io.StringIO(data.decode("utf-8", "replace"))
    try:
        for number, row in enumerate(transcript.read_eothello_rows(stream, name), start=2):
            try:
                loaded.games.append(row.to_game())
            except RecordError as error:
                loaded.errors.append(f"{name}:{number}: {error}")
    except transcript.TranscriptError as error:
        loaded.errors.append(str(error))


def load_file(path: str | os.PathLike[str], *, replay: bool = True) -> Loaded:
    """Read the games of one file (any format of :data:`READABLE`); ``OSError`` when it
    cannot be read."""
    target = Path(path)
    return load_bytes(str(target), target.read_bytes(), replay=replay, names_folder=target.parent)


def load_sources(
    paths: Iterable[str | os.PathLike[str]], *, replay: bool = True
) -> Iterator[Loaded]:
    """Every record file under ``paths`` (files, folders, archives: :func:`iter_sources`),
    read: what ``imago records check`` and ``stats`` both go through."""
    for source in iter_sources(paths):
        yield load_bytes(
            source.name,
            source.data,
            replay=replay,
            names_folder=source.folder,
            found=source.found,
        )


def save_file(path: str | os.PathLike[str], games: Sequence[Game]) -> None:
    """Write games in the format of ``path``'s extension, atomically. :class:`FormatError`
    (nothing written) for an extension imago does not write, or games the format cannot
    hold: transcripts and WTHOR files hold 8x8 Othello games only, GGF Othello games."""
    target = Path(path)
    kind = suffix(target.name)
    if kind in (".txt", ".wtb"):
        what = "an Othello transcript" if kind == ".txt" else "a WTHOR file"
        for game in games:
            if (game.game_name, game.size) != ("othello", 8):
                raise FormatError(
                    f"{target.name}: {kind} is {what}, which holds 8x8 Othello games only, not "
                    f"{game.size}x{game.size} {game.game_name}; write .sgf instead"
                )
    if kind == ".ggf":
        for game in games:
            if game.game_name != "othello":
                raise FormatError(
                    f"{target.name}: .ggf holds Othello games, not {game.game_name}; "
                    "write .sgf instead"
                )
    if kind == ".sgf":
        sgf.write_file(target, games)
    elif kind == ".txt":
        transcript.write_transcript_file(target, games)
    elif kind == ".ggf":
        ggf.write_file(target, games)
    elif kind == ".wtb":
        records = [wthor.from_game(game) for game in games]
        year = records[0].year if records else 0
        wthor.write_games(target, records, year=year)
    else:
        raise FormatError(
            f"{target.name}: imago writes {', '.join(WRITABLE)} files, not "
            f"{kind or 'files without an extension'}"
        )


@dataclass(frozen=True, slots=True)
class Source:
    """One record file's bytes: its name for messages, the folder holding WTHOR's name files
    (``None`` inside an archive), and whether it was found in a folder or an archive."""

    name: str
    data: bytes
    folder: Path | None
    found: bool = False


def iter_sources(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Source]:
    """Every record file under ``paths``: files as named, folders walked recursively in name
    order, ``.tar.gz`` / ``.tgz`` / ``.tar`` archives read member by member without unpacking
    them to disk. ``OSError`` for a path that cannot be read, ``tarfile.TarError`` for a
    broken archive."""
    for item in paths:
        path = Path(item)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and _is_archive(child):
                    yield from iter_sources([child])
                elif child.is_file() and suffix(child.name) in READABLE:
                    yield Source(str(child), child.read_bytes(), child.parent, True)
        elif _is_archive(path):
            with tarfile.open(path, "r:*") as archive:
                for member in archive:
                    if member.isfile() and suffix(member.name) in READABLE:
                        stream = archive.extractfile(member)
                        if stream is not None:
                            yield Source(f"{path}:{member.name}", stream.read(), None, True)
        else:
            yield Source(str(path), path.read_bytes(), path.parent)


def _is_archive(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith((".tar.gz", ".tgz", ".tar"))


def count_sources(paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many files :func:`iter_sources` will yield (for a progress bar)."""
    total = 0
    for item in paths:
        path = Path(item)
        if path.is_dir():
            for child in path.rglob("*"):
                if child.is_file() and _is_archive(child):
                    total += count_sources([child])
                elif child.is_file() and suffix(child.name) in READABLE:
                    total += 1
        elif _is_archive(path):
            with tarfile.open(path, "r:*") as archive:
                total += sum(1 for m in archive if m.isfile() and suffix(m.name) in READABLE)
        else:
            total += 1
    return total


@dataclass(slots=True)
class RecordStats:
    """Counts over many games: games, results, games and board sizes, main-line lengths."""

    files: int = 0
    games: int = 0
    errors: int = 0
    unreadable_files: int = 0
    skipped: list[str] = field(default_factory=list)
    """Files found in folders or archives that hold no records (``name: why``)."""
    results: Counter[str] = field(default_factory=Counter)
    boards: Counter[str] = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)

    def add_file(self, loaded: Loaded) -> None:
        if loaded.skipped is not None:
            self.skipped.append(f"{loaded.name}: {loaded.skipped}")
            return
        self.files += 1
        self.errors += len(loaded.errors)
        if not loaded.games:
            self.unreadable_files += 1
        for game in loaded.games:
            self.add_game(game)

    def add_game(self, game: Game) -> None:
        self.games += 1
        self.boards[f"{game.game_name} {game.size}x{game.size}"] += 1
        self.results[_result_class(game)] += 1
        length = 0
        node = game.next()
        while node is not None:
            if node.move is not None:
                length += 1
            node = node.next()
        self.lengths.append(length)

    def length_summary(self) -> dict[str, float]:
        if not self.lengths:
            return {}
        ordered = sorted(self.lengths)
        return {
            "min": ordered[0],
            "p10": ordered[len(ordered) // 10],
            "median": statistics.median(ordered),
            "mean": statistics.fmean(ordered),
            "p90": ordered[(len(ordered) * 9) // 10],
            "max": ordered[-1],
        }


def _result_class(game: Game) -> str:
    values = game.get("RE")
    if not values:
        return "none"
    outcome = parse_result(values[0])
    if outcome is None:
        text = (game.result or "").strip()
        return text if text.lower() in ("void", "?", "") else "other"
    if outcome.winner is None:
        return "draw"
    how = "R" if outcome.by_resignation else ("score" if outcome.margin else "other")
    return f"{outcome.winner.letter}+{how}"


__all__ = [
    "READABLE",
    "WRITABLE",
    "FormatError",
    "Loaded",
    "RecordStats",
    "Source",
    "count_sources",
    "iter_sources",
    "load_bytes",
    "load_file",
    "load_sources",
    "save_file",
    "suffix",
    "unknown_format",
]
