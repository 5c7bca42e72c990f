"""Game-agnostic value types: colours, points, moves, outcomes, errors, the game protocol."""

from imago.core.color import Color
from imago.core.errors import (
    IllegalMoveError,
    IllegalReason,
    ImagoError,
    InvalidMoveError,
)
from imago.core.game import GameState, Outcome
from imago.core.move import Move, MoveKind, Point

__all__ = [
    "Color",
    "GameState",
    "IllegalMoveError",
    "IllegalReason",
    "ImagoError",
    "InvalidMoveError",
    "Move",
    "MoveKind",
    "Outcome",
    "Point",
]
