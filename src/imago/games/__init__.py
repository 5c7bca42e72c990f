"""The games, each a public API over private numba kernels, and a registry to make them by name.

>>> from imago.games import make
>>> make("go", size=9).move_number
0
>>> make("othello", size=6).size
6
"""

from __future__ import annotations

import importlib
from typing import Any

from imago.core.game import GameState

GAMES: dict[str, str] = {
    "go": "imago.games.go",
    "othello": "imago.games.othello",
}
"""Game name -> module that defines ``new_game(**options) -> GameState``."""

DEFAULT_SIZES: dict[str, int] = {"go": 9, "othello": 8}
"""The board a game is played on when no size is given (every command and :func:`make`)."""


def default_size(name: str) -> int:
    """The board size of ``name`` when none is given (Go 9, Othello 8)."""
    try:
        return DEFAULT_SIZES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None


def make(name: str, **options: Any) -> GameState:
    """A new game of ``name`` (``"go"``, ``"othello"``) at its start position.

    Options are the game's own: for Go ``size``, ``rules`` (a ``GoRules``), ``handicap``;
    for Othello ``size`` (8, or 6 for the small variant).
    """
    try:
        module_name = GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise ValueError(f"unknown game {name!r} (known: {known})") from None
    module = importlib.import_module(module_name)
    state: GameState = module.new_game(**options)
    return state
