"""``imago gtp --game othello --agent alphabeta`` on a 6x6 board, driven over its pipes."""

from __future__ import annotations

import sys

from gtp_helpers import Pipe

from imago.core.color import Color
from imago.games.othello import new_game


def test_alphabeta_plays_a_whole_6x6_game_over_gtp() -> None:
    engine = Pipe(
        [sys.executable, "-m", "imago", "gtp", "--game", "othello", "--agent", "alphabeta:depth=3"]
    )
    try:
        engine.ok("boardsize 6")
        engine.ok("clear_board")
        state = new_game(6)
        while not state.is_over():
            color = "black" if state.to_play is Color.BLACK else "white"
            text = engine.ok(f"genmove {color}")
            move = state.parse_move(text.lower())
            assert state.is_legal(move), (state.board_string(), text)
            state = state.play(move)
        assert len(engine.ok("list_stones black").split()) == state.discs()[0]
        assert len(engine.ok("list_stones white").split()) == state.discs()[1]
        succeeded, _ = engine.send("play black a7")  # off the 6x6 board
        assert not succeeded
        engine.send("quit")
        assert engine.process.wait(timeout=300) == 0  # (slow to exit on a loaded machine)
    finally:
        if engine.process.poll() is None:
            engine.process.kill()
