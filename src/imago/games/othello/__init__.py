"""Othello (Reversi) on 64-bit bitboards: 8x8, and 6x6 / 4x4 for fast experiments.

>>> from imago.games.othello import new_game
>>> state = new_game()
>>> [state.format_move(m) for m in state.legal_moves()]
['d3', 'c4', 'f5', 'e6']
>>> state.play(state.parse_move("f5")).to_play
<Color.WHITE: 2>

The friendly API is :class:`OthelloState` (the :class:`~imago.core.game.GameState` protocol);
numba code builds on :mod:`imago.games.othello.bitboard`; the board's symmetries (both games)
are :mod:`imago.games.symmetry`.
"""

from __future__ import annotations

from imago.games.othello.state import (
    SIZES,
    OthelloState,
    new_game,
    perft,
)

__all__ = [
    "SIZES",
    "OthelloState",
    "new_game",
    "perft",
]
