"""Time control: what GTP's ``time_settings`` / ``kgs-time_settings`` / ``time_left`` say, turned
into a per-move budget in seconds that the agent receives as ``Limit(time=...)``.

=================  =============================================  ==============================
system             GTP                                            budget per move
=================  =============================================  ==============================
none               ``time_settings 0 1 0`` / ``kgs-... none``     the engine's default move time
absolute           ``time_settings M 0 0`` / ``kgs-... absolute``  remaining / moves still to play
Canadian           ``time_settings M B S`` / ``kgs-... canadian``  main: share of main time;
                                                                  byo-yomi: period / stones left
Japanese byo-yomi  ``kgs-time_settings byoyomi M P N``            main: share + most of a period;
                                                                  byo-yomi: most of one period
=================  =============================================  ==============================

``time_left colour T S``: ``S = 0`` means T is main (or absolute) time; otherwise the player is
in byo-yomi with T seconds for S stones (Canadian), or T seconds of the current period and S
periods left (Japanese, as Leela Zero and KGS read it). A safety margin (:class:`TimePolicy`) is
always kept back so that an engine answering within its budget never loses on time.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


class TimeSystem(enum.Enum):
    """The kinds of clock GTP can set."""

    NONE = "none"
    ABSOLUTE = "absolute"
    CANADIAN = "canadian"
    BYOYOMI = "byoyomi"


@dataclass(frozen=True, slots=True)
class TimeSettings:
    """A time system with its parameters (seconds).

    ``period_time`` and ``stones`` are the Canadian byo-yomi period and the stones to play in it;
    for Japanese byo-yomi ``period_time`` is one period and ``periods`` how many there are.
    """

    system: TimeSystem = TimeSystem.NONE
    main_time: float = 0.0
    period_time: float = 0.0
    stones: int = 0
    periods: int = 0

    @classmethod
    def from_gtp(cls, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> TimeSettings:
        """``time_settings``: Canadian byo-yomi; ``B > 0, S = 0`` means no limit; ``B = 0``
        means absolute time."""
        if min(main_time, byo_yomi_time) < 0 or byo_yomi_stones < 0:
            raise ValueError("time settings must not be negative")
        if byo_yomi_time > 0 and byo_yomi_stones == 0:
            return cls()
        if byo_yomi_time == 0:
            return cls(TimeSystem.ABSOLUTE, main_time)
        return cls(TimeSystem.CANADIAN, main_time, byo_yomi_time, byo_yomi_stones)

    @classmethod
    def from_kgs(cls, args: tuple[str, ...]) -> TimeSettings:
        """``kgs-time_settings none | absolute M | byoyomi M P N | canadian M B S``."""
        if not args:
            raise ValueError("kgs-time_settings needs a system")
        system, numbers = args[0].lower(), args[1:]
        expected = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if system not in expected or len(numbers) != expected[system]:
            raise ValueError(f"bad kgs-time_settings {' '.join(args)!r}")
        values = [_non_negative(text) for text in numbers]
        if system == "none":
            return cls()
        if system == "absolute":
            return cls(TimeSystem.ABSOLUTE, values[0])
        if system == "canadian":
            if values[2] == 0:
                raise ValueError("Canadian byo-yomi needs at least one stone")
            return cls(TimeSystem.CANADIAN, values[0], values[1], int(values[2]))
        return cls(TimeSystem.BYOYOMI, values[0], values[1], 0, int(values[2]))


def _non_negative(text: str) -> float:
    value = float(text)
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"not a time: {text!r}")
    return value


@dataclass(frozen=True, slots=True)
class Clock:
    """One player's clock: ``remaining`` seconds; ``stones`` 0 in main time, else the stones
    (Canadian) or periods (Japanese) left in byo-yomi."""

    remaining: float
    stones: int = 0

    @classmethod
    def start(cls, settings: TimeSettings) -> Clock:
        """The clock at the start of a game."""
        if settings.main_time > 0 or settings.system is TimeSystem.ABSOLUTE:
            return cls(settings.main_time, 0)
        if settings.system is TimeSystem.CANADIAN:
            return cls(settings.period_time, settings.stones)
        if settings.system is TimeSystem.BYOYOMI:
            return cls(settings.period_time, settings.periods)
        return cls(0.0, 0)

    def after(self, settings: TimeSettings, seconds: float) -> Clock:
        """The clock after a move that took ``seconds`` (the engine's own bookkeeping between
        ``time_left`` updates)."""
        if settings.system is TimeSystem.NONE:
            return self
        left = self.remaining - seconds
        if settings.system is TimeSystem.ABSOLUTE:
            return replace(self, remaining=max(left, 0.0))
        if self.stones == 0 and left >= 0:
            return replace(self, remaining=left)
        if self.stones == 0:  # main time ran out during the move: byo-yomi starts
            return Clock.start(replace(settings, main_time=0.0)).after(settings, -left)
        if settings.system is TimeSystem.CANADIAN:
            if self.stones <= 1:
                return Clock(settings.period_time, settings.stones)
            return Clock(max(left, 0.0), self.stones - 1)
        if left >= 0:  # Japanese: a move inside the period does not use it up
            return Clock(settings.period_time, self.stones)
        return Clock(settings.period_time, max(self.stones - 1, 1))


@dataclass(frozen=True, slots=True)
class TimePolicy:
    """How the engine spends its time.

    ``default_time`` is the budget without a time system; ``lag`` plus ``reserve`` (a fraction
    of what is left) is kept back for the controller's and the network's delays; ``min_time`` is
    the least a move is given while the clock allows it (nearly out of time, a move gets a
    small share of what is left instead, so sudden death never runs out).
    """

    default_time: float | None = 2.0
    lag: float = 0.3
    reserve: float = 0.05
    min_time: float = 0.05
    min_moves_left: int = 5

    def budget(self, settings: TimeSettings, clock: Clock, moves_left: float) -> float | None:
        """Seconds for the next move (``None``: no limit and no default)."""
        if settings.system is TimeSystem.NONE:
            return self.default_time
        moves = max(float(moves_left), float(self.min_moves_left))
        if settings.system is TimeSystem.ABSOLUTE or (
            clock.stones == 0 and settings.period_time == 0
        ):
            return self._keep(clock.remaining, clock.remaining / moves)
        if clock.stones > 0 and settings.system is TimeSystem.CANADIAN:
            return self._keep(clock.remaining, clock.remaining / clock.stones)
        if clock.stones > 0:  # Japanese byo-yomi: most of one period, every move
            return self._keep(clock.remaining, clock.remaining)
        if settings.system is TimeSystem.CANADIAN:
            per_stone = settings.period_time / max(settings.stones, 1)
            share = clock.remaining / moves + 0.5 * per_stone
            return self._keep(clock.remaining + per_stone, share)
        total = clock.remaining + settings.period_time
        return self._keep(total, clock.remaining / moves + settings.period_time)

    def _keep(self, available: float, wanted: float) -> float:
        """``wanted``, but never more than ``available`` less the safety margin."""
        ceiling = available * (1.0 - self.reserve) - self.lag
        return max(self.floor(available), min(wanted, ceiling))

    def floor(self, available: float) -> float:
        """The least a move is given with ``available`` seconds: ``min_time``, or a twentieth
        (with the default ``min_moves_left``) of what is left when that is less."""
        return min(self.min_time, max(available, 0.0) / (4 * self.min_moves_left))
