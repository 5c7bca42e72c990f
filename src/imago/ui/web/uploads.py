"""Records sent by the page (uploaded files or pasted text), read in memory.

Nothing is written to disk and no path the client names is ever opened: a file's name only
chooses its format. Formats: SGF (Go and Othello), WTHOR ``.wtb`` (with the ``WTH.JOU`` /
``WTH.TRN`` name files when they are sent along), Othello transcripts (one game a line). A
file holding several games gives a :class:`Library` to choose from; its games are built only
when chosen (a year of WTHOR holds thousands).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from imago.core.errors import ImagoError
from imago.records import sgf, sgf_grammar, transcript, wthor
from imago.records.files import suffix
from imago.records.tree import Game, RecordError
from imago.ui.web import positions

MAX_UPLOAD_BYTES = 8 << 20
"""The largest upload (all files of one request together)."""
MAX_GAMES = 100_000
"""The most games one upload may list."""


class UploadError(ImagoError, ValueError):
    """An upload that cannot be read; the message says why, for the page."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One game of a library, as the chooser lists it."""

    black: str
    white: str
    result: str
    event: str
    date: str
    moves: int
    build: Callable[[], Game]


@dataclass
class Library:
    """The games of one upload, and the problems met reading it."""

    name: str
    entries: list[Entry] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def listing(self) -> list[dict[str, object]]:
        """What the page's chooser shows."""
        return [
            {
                "index": i,
                "black": e.black,
                "white": e.white,
                "result": e.result,
                "event": e.event,
                "date": e.date,
                "moves": e.moves,
            }
            for i, e in enumerate(self.entries)
        ]

    def open(self, index: int) -> Game:
        """Build game ``index``; :class:`UploadError` when it cannot be replayed."""
        if not 0 <= index < len(self.entries):
            raise UploadError(f"there is no game {index + 1} (1..{len(self.entries)})")
        try:
            return self.entries[index].build()
        except (RecordError, ValueError) as error:
            raise UploadError(f"game {index + 1} cannot be replayed: {error}") from None


def read_upload(files: Sequence[tuple[str, bytes]]) -> Library:
    """Read uploaded files (``(name, bytes)``); raises :class:`UploadError` when nothing in
    them is a game."""
    total = sum(len(data) for _, data in files)
    if not files:
        raise UploadError("no file was sent")
    if total > MAX_UPLOAD_BYTES:
        raise UploadError(f"the upload is {total:,} bytes; the limit is {MAX_UPLOAD_BYTES:,}")
    names = {
        suffix(name) if suffix(name) in (".jou", ".trn") else name: data for name, data in files
    }
    players = _names(names.get(".jou"), "WTH.JOU")
    tournaments = _names(names.get(".trn"), "WTH.TRN")
    records = [(n, d) for n, d in files if suffix(n) not in (".jou", ".trn")]
    if not records:
        raise UploadError("only WTHOR name files were sent: add the .wtb file of the games")
    library = Library(", ".join(n for n, _ in records))
    for name, data in records:
        _read_file(name, data, library, players, tournaments)
    if not library.entries:
        detail = "; ".join(library.errors[:3]) or "no game found"
        raise UploadError(f"no game could be read from {library.name}: {detail}")
    return library


def read_text(text: str) -> Library:
    """Read pasted text: SGF when it holds ``(;``, else Othello transcripts (one a line)."""
    data = text.encode("utf-8")
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadError(f"the text is {len(data):,} bytes; the limit is {MAX_UPLOAD_BYTES:,}")
    name = "pasted.sgf" if "(;" in text else "pasted.txt"
    return read_upload([(name, data)])


def _names(data: bytes | None, what: str) -> list[str] | None:
    if data is None:
        return None
    try:
        return wthor.read_names_bytes(data)
    except wthor.WthorError as error:
        raise UploadError(f"{what}: {error}") from None


def _read_file(
    name: str,
    data: bytes,
    library: Library,
    players: list[str] | None,
    tournaments: list[str] | None,
) -> None:
    kind = suffix(name)
    if kind == ".wtb":
        _read_wthor(name, data, library, players, tournaments)
    elif kind in (".txt", ".tra", "") and not data.lstrip().startswith(b"("):
        _read_transcripts(name, data, library)
    elif kind in (".sgf", "") or data.lstrip().startswith(b"("):
        _read_sgf(name, data, library)
    else:
        raise UploadError(f"{name}: unknown record format (.sgf, .wtb, .txt transcripts)")


def _read_sgf(name: str, data: bytes, library: Library) -> None:
    """Read an SGF file within the memory budget (:mod:`imago.ui.web.positions`): its trees'
    sizes and longest lines are checked from the grammar's scan before any node is built."""
    try:
        scan = sgf_grammar.parse(data)
    except sgf_grammar.SgfError as error:  # only strict parsing raises; kept for safety
        raise UploadError(f"{name}: {error}") from None
    sizes = [len(tree) for tree in scan.trees]
    for number, nodes in enumerate(sizes, start=1):
        refusal = positions.node_refusal(nodes)
        if refusal is not None:
            raise UploadError(f"{name}: game {number} is too large: {refusal}")
    total = sum(sizes)
    if total > positions.MAX_UPLOAD_NODES:
        raise UploadError(
            f"{name} has {total:,} nodes in all; an upload here has at most "
            f"{positions.MAX_UPLOAD_NODES:,}"
        )
    longest = max((positions.line_depths(tree.parents) for tree in scan.trees), default=0)
    del scan
    collection = sgf.read_bytes(data, replay=False)
    boards = {(game.game_name, game.size) for game in collection}
    for game_name, size in boards:
        refusal = positions.line_refusal(game_name, size, longest)
        if refusal is not None:
            raise UploadError(f"{name} is too long to show: {refusal}")
    if all(positions.replay_when_read(g, s, total) for g, s in boards):
        collection = sgf.read_bytes(data)  # small enough to replay whole: illegal moves found
    library.errors.extend(f"{name}:{e.line}:{e.column}: {e.message}" for e in collection.errors)
    for game in collection:
        _add_game(library, game)


def _add_game(library: Library, game: Game) -> None:
    if len(library.entries) >= MAX_GAMES:
        raise UploadError(f"more than {MAX_GAMES:,} games in one upload")
    library.entries.append(
        Entry(
            game.black_player or "",
            game.white_player or "",
            game.result or "",
            game.event or "",
            game.date or "",
            len(game.mainline_moves()),
            lambda: game,
        )
    )


def _read_transcripts(name: str, data: bytes, library: Library) -> None:
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            game = transcript.read_transcript(text)
        except (RecordError, transcript.TranscriptError) as error:
            library.errors.append(f"{name}:{number}: {error}")
            continue
        _add_game(library, game)


def _read_wthor(
    name: str,
    data: bytes,
    library: Library,
    players: list[str] | None,
    tournaments: list[str] | None,
) -> None:
    try:
        header, records = wthor.read_wtb_bytes(data, name)
    except wthor.WthorError as error:
        library.errors.append(str(error))
        return
    if len(records) + len(library.entries) > MAX_GAMES:
        raise UploadError(f"more than {MAX_GAMES:,} games in one upload")
    for record in records:
        library.entries.append(
            Entry(
                _wthor_name(players, record.black),
                _wthor_name(players, record.white),
                record.result(),
                _wthor_name(tournaments, record.tournament),
                str(record.year or header.year or ""),
                len(record.moves),
                _wthor_builder(record, players, tournaments),
            )
        )


def _wthor_name(names: list[str] | None, index: int) -> str:
    if names is not None and 0 <= index < len(names):
        return names[index]
    return f"#{index}"


def _wthor_builder(
    record: wthor.WthorGame, players: list[str] | None, tournaments: list[str] | None
) -> Callable[[], Game]:
    return lambda: record.to_game(players, tournaments)
