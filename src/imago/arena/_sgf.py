"""Finished arena games as SGF, through the record layer (:mod:`imago.records`).

The game is rebuilt as a :class:`~imago.records.tree.Game` from its first position (every move
checked again by the rules) and written by :func:`imago.records.sgf.write_string`: Go as GM[1],
Othello as GM[2]. Each move node carries a comment with the seconds the move took and what the
agent said about it; opening moves are marked ``opening``. Under a game clock each move also
carries ``BL`` / ``WL``: the seconds its player had left after it (and ``OB`` / ``OW``, the
moves or periods left, once in overtime).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence

from imago import __version__
from imago.arena.game import PlayedMove
from imago.core.game import GameState


def root_state(state: GameState) -> GameState:
    """The first position of ``state``'s game."""
    while state.previous is not None:
        state = state.previous
    return state


def game_to_sgf(final: GameState, moves: Sequence[PlayedMove], *, root: Mapping[str, str]) -> str:
    """The SGF text of the game that led to ``final`` through ``moves``.

    ``root`` holds extra root properties as plain text (``PB``, ``PW``, ``RE``, ``KM``, ...).
    """
    from imago.records.sgf import write_string
    from imago.records.tree import Game, GameNode

    game = Game(root_state(final))
    game.set_text("AP", f"imago:{__version__}")
    game.set_text("DT", datetime.date.today().isoformat())
    for key, value in root.items():
        if value:
            game.set_text(key, value)
    node: GameNode = game
    for played in moves:
        if played.move.is_resign:
            continue
        if played.note == "opening":
            comment = "opening"
        else:
            comment = f"{played.seconds:.2f} s" + (f", {played.note}" if played.note else "")
        node = node.add_variation(played.move, played.color, comment=comment)
        if played.clock is not None:  # time left after the move, as SGF's BL / WL
            node.set_text(f"{played.color.letter}L", f"{played.clock:.2f}")
        if played.overtime:  # moves or periods left in overtime, as SGF's OB / OW
            node.set_text(f"O{played.color.letter}", str(played.overtime))
    return write_string(game)
