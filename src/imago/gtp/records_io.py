"""SGF in and out of the engine core, through :mod:`imago.records` (GTP ``loadsgf`` /
``printsgf``, terminal ``save`` / ``load``).

A saved game is the record a person expects: game information (``PB``, ``PW``, ``RE``, ``KM``,
``RU``, ``HA``), handicap stones as ``AB`` in the root, then the moves. Loading takes the main
line of the first game in the file, up to a move number if given (GTP: the position before
that move), and keeps the file's board size, komi and rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from imago.core.color import Color
from imago.core.game import GameState
from imago.core.move import Point
from imago.gtp.game_engine import Event, GameEngine, Placement, Play
from imago.records import Game, GameNode, Setup
from imago.records.sgf import RULES_OF_RU, read_file, write_file, write_string

SGF_RULES = {
    "computer": "Chinese",
    "chinese": "Chinese",
    "japanese": "Japanese",
    "tromp-taylor": "Tromp-Taylor",
    "aga": "AGA",
    "nz": "NZ",
}
"""imago's rule presets -> SGF ``RU`` values (read back by :data:`RULES_OF_RU`)."""


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
        game.properties["RU"] = [SGF_RULES.get(engine.rules, engine.rules)]
        if engine.handicap_stones():
            game.properties["HA"] = [str(len(engine.handicap_stones()))]
    for ident, text in (info or {}).items():
        game.set_text(ident, text)
    return game


def sgf_text(engine: GameEngine, info: Mapping[str, str] | None = None) -> str:
    """The game so far as SGF text."""
    return write_string(record(engine, info))


def save_sgf(engine: GameEngine, path: Path, info: Mapping[str, str] | None = None) -> None:
    """Write the game so far to ``path`` (atomically)."""
    write_file(path, record(engine, info))


def load_sgf(engine: GameEngine, path: Path, move_number: int | None = None) -> None:
    """Replace the engine's game by the main line of the first game in ``path``, playing the
    moves before ``move_number`` (all of them when ``None``). ``OSError`` when the file cannot
    be read, ``ValueError`` when it holds no game of this kind or cannot be replayed; the
    engine is unchanged on any error."""
    collection = read_file(path)
    if not collection:
        problems = "; ".join(str(e) for e in collection.errors[:3])
        raise ValueError(f"no game in {path}" + (f" ({problems})" if problems else ""))
    game = collection[0]
    if game.game_name != engine.game:
        raise ValueError(f"{path} holds a game of {game.game_name}, not {engine.game}")
    events = _events(game, move_number)
    komi = getattr(game.initial, "komi", None)
    ru = game.get_text("RU")
    rules = RULES_OF_RU.get(ru.strip().lower()) if ru else None
    engine.load(game.size, events, komi, rules)


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
