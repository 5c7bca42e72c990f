"""The two players."""

from __future__ import annotations

import enum


class Color(enum.IntEnum):
    """A player's colour. The integer values are the ones board arrays use (0 is empty)."""

    BLACK = 1
    WHITE = 2

    @property
    def opponent(self) -> Color:
        """The other colour."""
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def letter(self) -> str:
        """``"B"`` or ``"W"``, as SGF writes it."""
        return "B" if self is Color.BLACK else "W"

    @classmethod
    def parse(cls, text: str) -> Color:
        """Read ``b``, ``black``, ``w`` or ``white`` (any case), as GTP and SGF write colours."""
        lowered = text.strip().lower()
        if lowered in ("b", "black"):
            return cls.BLACK
        if lowered in ("w", "white"):
            return cls.WHITE
        raise ValueError(f"not a colour: {text!r}")

    def __str__(self) -> str:
        return self.name.lower()


EMPTY = 0
"""The value of an empty point in board arrays."""
