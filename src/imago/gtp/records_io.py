"""SGF in and out of the engine core, through :mod:`imago.records` (GTP ``loadsgf`` /
``printsgf``, terminal ``save`` / ``load``).

GTP's ``loadsgf`` / ``printsgf`` read and write SGF whatever the file's name; the terminal's
``save`` / ``load`` go by the extension, as ``imago records`` does (one meaning per extension
everywhere). A saved game is the record a
person expects: game information (``PB``, ``PW``, ``RE``, ``KM``,
``RU``, ``HA``), handicap stones as ``AB`` in the root, then the moves. Loading takes the main
line of the first game in the file, up to a move number if given (GTP: the position before
that move), and keeps the file's board size, komi and rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from imago.core.color import Color
from imago.core.game import GameState
from imago.core.move import Point
from imago.gtp.game_engine import Event, GameEngine, Placement, Play
from imago.records import Game, GameNode, Setup
from imago.records.files import (
    READABLE,
    FormatError,
    load_file,
    save_file,
    suffix,
    unknown_format,
)
from imago.records.sgf import RU_OF_RULES, RULES_OF_RU, read_file, write_file, write_string


def record(engine: GameEngine, info: Mapping[str, str] | None = None) -> Game:
    """The game so far as a record tree."""
    game = Game(engine.initial_state)
    node: GameNode = game
    for event in engine.events():
        if isinstance(event, Placement):
            setup = Setup(event.black, event.white, event.empty, event.to_play)
            if node is game and not game.children:
                game.set_setup(setup)
            else:
                node = node.add_setup_node(setup)
        else:
            node = node.add_variation(event.move, event.color)
    if engine.game == "go":
        komi = getattr(engine.initial_state, "komi", 0.0)
        game.properties["KM"] = [f"{komi:g}"]
        game.properties["RU"] = [RU_OF_RULES.get(engine.rules, engine.rules)]
        if engine.handicap_stones():
            game.properties["HA"] = [str(len(engine.handicap_stones()))]
    for ident, text in (info or {}).items():
        game.set_text(ident, text)
    return game


def sgf_text(engine: GameEngine, info: Mapping[str, str] | None = None) -> str:
    """The game so far as SGF text."""
    return write_string(record(engine, info))


def save_sgf(engine: GameEngine, path: Path, info: Mapping[str, str] | None = None) -> None:
    """Write the game so far to ``path`` as SGF, whatever its extension (atomically)."""
    write_file(path, record(engine, info))


def save_record(engine: GameEngine, path: Path, info: Mapping[str, str] | None = None) -> None:
    """Write the game so far to ``path`` in the format its extension names, as ``imago records``
    reads it (:data:`imago.records.files.WRITABLE`: ``.sgf``; for 8x8 Othello also ``.txt``
    transcripts and ``.wtb``). ``ValueError`` (:class:`~imago.records.files.FormatError`)
    for another extension or a game the format cannot hold, ``OSError`` when it cannot be
    written; nothing is written then."""
    save_file(path, [record(engine, info)])


def load_sgf(engine: GameEngine, path: Path, move_number: int | None = None) -> Game:
    """Replace the engine's game by the main line of the first game of the SGF file ``path``
    (whatever its name: GTP's ``loadsgf``), playing the moves before ``move_number`` (all of
    them when ``None``); returns the record read. ``OSError`` when the file cannot be read,
    ``ValueError`` when it holds no game of this kind or cannot be replayed; the engine is
    unchanged on any error."""
    collection = read_file(path)
    problems = [str(error) for error in collection.errors]
    return _load_first(engine, path, list(collection), problems, move_number)


def load_record(engine: GameEngine, path: Path) -> Game:
    """:func:`load_sgf` for a file of any format ``imago records`` reads, by its extension
    (SGF, transcripts, WTHOR, the eOthello CSV); returns the record read."""
    if suffix(path.name) not in READABLE:
        raise FormatError(f"{path.name}: {unknown_format(path.name)}")
    loaded = load_file(path)
    return _load_first(engine, path, loaded.games, loaded.errors, None)


def _load_first(
    engine: GameEngine,
    path: Path,
    games: Sequence[Game],
    problems: Sequence[str],
    move_number: int | None,
) -> Game:
    if not games:
        text = "; ".join(problems[:3])
        raise ValueError(f"no game in {path}" + (f" ({text})" if text else ""))
    game = games[0]
    if game.game_name != engine.game:
        raise ValueError(f"{path} holds a game of {game.game_name}, not {engine.game}")
    events = _events(game, move_number)
    komi = getattr(game.initial, "komi", None)
    ru = game.get_text("RU")
    rules = RULES_OF_RU.get(ru.strip().lower()) if ru else None
    engine.load(game.size, events, komi, rules)
    return game


def _events(game: Game, move_number: int | None) -> list[Event]:
    events: list[Event] = []
    start = _placement(game.initial)
    if start is not None:
        events.append(start)
    moves = 0
    node: GameNode = game
    while True:
        if node.setup:
            setup = node.setup
            events.append(Placement(setup.black, setup.white, setup.empty, setup.to_play))
        if node.move is not None and node.color is not None and not node.move.is_resign:
            moves += 1
            if move_number is not None and moves >= move_number:
                break
            events.append(Play(node.color, node.move))
        if not node.children:
            break
        node = node.children[0]
    return events


def _placement(initial: GameState) -> Placement | None:
    """The stones a record's starting position has beyond an empty board (fixed handicap)."""
    if initial.game != "go":
        return None
    board = initial.board()
    if not np.any(board):
        return None
    black = tuple(
        Point(int(r), int(c)) for r, c in zip(*np.nonzero(board == Color.BLACK), strict=True)
    )
    white = tuple(
        Point(int(r), int(c)) for r, c in zip(*np.nonzero(board == Color.WHITE), strict=True)
    )
    return Placement(black, white, (), initial.to_play)
