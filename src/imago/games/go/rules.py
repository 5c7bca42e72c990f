"""Rules of Go as data: a frozen :class:`GoRules` with enum fields, and named presets."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar


class KoRule(enum.Enum):
    """Which repetitions are forbidden."""

    SIMPLE = "simple"
    """Only the immediate recapture of a single stone (the position before the opponent's move)."""
    POSITIONAL_SUPERKO = "positional"
    """No play may recreate any earlier board position."""
    SITUATIONAL_SUPERKO = "situational"
    """No play may recreate an earlier board position with the same player to move."""


class Scoring(enum.Enum):
    """How a finished game is counted."""

    AREA = "area"
    """Stones plus surrounded empty points (Chinese, Tromp-Taylor)."""
    TERRITORY = "territory"
    """Surrounded empty points plus prisoners (Japanese); points in seki are not territory."""


COMPUTER_KOMI_9X9 = 7.0
"""Komi of the computer rules on 9x9 (as the CGOS 9x9 server plays); 7.5 on other boards."""


@dataclass(frozen=True, slots=True)
class GoRules:
    """A rule set. The default is the computer-Go-server rule set (``preset("computer")``).

    Komi, when none is given, is the preset's: 7.5 for the Chinese, Tromp-Taylor, AGA and
    computer rules, 6.5 for the Japanese and 7 for the New Zealand rules, except that the
    computer rules (imago's default everywhere: :func:`imago.games.make`, ``imago play``,
    ``gtp``, ``match``) use 7 on 9x9, as the CGOS 9x9 server does (:meth:`preset` with a size).
    """

    ko: KoRule = KoRule.POSITIONAL_SUPERKO
    suicide_allowed: bool = False
    scoring: Scoring = Scoring.AREA
    komi: float = 7.5

    PRESETS: ClassVar[tuple[str, ...]] = (
        "chinese",
        "japanese",
        "tromp-taylor",
        "aga",
        "nz",
        "computer",
    )

    def __post_init__(self) -> None:
        if not isinstance(self.ko, KoRule) or not isinstance(self.scoring, Scoring):
            raise TypeError("ko and scoring must be KoRule and Scoring members")
        if (self.komi * 2) != int(self.komi * 2):
            raise ValueError(f"komi must be a multiple of 0.5, not {self.komi}")

    @classmethod
    def preset(cls, name: str, size: int | None = None) -> GoRules:
        """A named rule set: ``chinese``, ``japanese``, ``tromp-taylor``, ``aga``, ``nz``,
        ``computer`` (area, positional superko, no suicide: what computer Go servers use),
        with its komi for a ``size`` board (the computer rules: 7 on 9x9, else 7.5)."""
        key = name.strip().lower().replace("_", "-")
        table = {
            "chinese": cls(KoRule.POSITIONAL_SUPERKO, False, Scoring.AREA, 7.5),
            "japanese": cls(KoRule.SIMPLE, False, Scoring.TERRITORY, 6.5),
            "tromp-taylor": cls(KoRule.POSITIONAL_SUPERKO, True, Scoring.AREA, 7.5),
            "aga": cls(KoRule.SITUATIONAL_SUPERKO, False, Scoring.AREA, 7.5),
            "nz": cls(KoRule.SITUATIONAL_SUPERKO, True, Scoring.AREA, 7.0),
            "computer": cls(KoRule.POSITIONAL_SUPERKO, False, Scoring.AREA, 7.5),
        }
        try:
            rules = table[key]
        except KeyError:
            raise ValueError(f"unknown rules {name!r} (known: {', '.join(cls.PRESETS)})") from None
        if key == "computer" and size == 9:
            return rules.with_komi(COMPUTER_KOMI_9X9)
        return rules

    def with_komi(self, komi: float) -> GoRules:
        """The same rules with another komi."""
        return GoRules(self.ko, self.suicide_allowed, self.scoring, komi)
