"""The errors imago raises. Syntax and rule errors are distinct types, both ``ValueError``."""

from __future__ import annotations

import enum
from pathlib import Path


class ImagoError(Exception):
    """Base class of imago's own errors."""


class InvalidMoveError(ImagoError, ValueError):
    """A move that cannot be read or does not exist on this board (bad notation, off the board)."""


class IllegalReason(enum.Enum):
    """Why the rules refuse a move."""

    OCCUPIED = "the point is occupied"
    SUICIDE = "suicide is not allowed"
    KO = "the move retakes a ko"
    SUPERKO = "the move repeats an earlier position (superko)"
    NO_FLIPS = "the move flips no disc"
    MUST_PASS = "no legal move: the player must pass"
    PASS_NOT_ALLOWED = "passing is not allowed while a legal move exists"
    GAME_OVER = "the game is over"
    WRONG_COLOR = "it is not that colour's turn"


class IllegalMoveError(ImagoError, ValueError):
    """A well-formed move that the rules refuse; ``reason`` says which rule."""

    def __init__(self, reason: IllegalReason, move_text: str = "") -> None:
        self.reason = reason
        self.move_text = move_text
        where = f"{move_text}: " if move_text else ""
        super().__init__(f"illegal move {where}{reason.value}")


def os_error_text(error: OSError) -> str:
    """What went wrong with a file, in words for people: ``no such file or directory``,
    ``permission denied``, ``is a directory`` (never ``[Errno 2] ...``)."""
    reason = error.strerror or str(error) or type(error).__name__
    return reason[:1].lower() + reason[1:]


def user_path(text: str) -> Path:
    """``text`` as a path with a leading ``~`` or ``~user`` expanded; :class:`ValueError` when
    that home cannot be found (``~nobody-here/x``), where :meth:`Path.expanduser` raises a
    ``RuntimeError``."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        raise ValueError(f"{text}: no such user's home folder") from None
