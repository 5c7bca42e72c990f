"""Game clocks for matches: ``--time-control`` syntax, each side's clock, per-move budgets.

Syntax (all times in seconds, decimals allowed):

==================  ===========================================================================
``60``              absolute (sudden death): 60 s for the whole game
``60+5``            Fischer: 60 s, plus 5 s added after every move
``300+30x5``        Japanese byo-yomi: 300 s main time, then 5 periods of 30 s; a move played
                    within a period does not use it up
``300+300/25``      Canadian byo-yomi (as GTP's ``time_settings``): 300 s main time, then 25
                    moves in every 300 s period
==================  ===========================================================================

The referee charges each side the wall-clock time its agent took for the move (measured around
``select_move``). A side whose clock goes below zero by more than :data:`GRACE` seconds (process
start-up and pipe overhead) loses on time: ``B+T`` / ``W+T``. Before each move an imago agent
receives ``Limit(time=budget)``, the budget computed by the GTP engine's own policy
(:class:`imago.gtp.timecontrol.TimePolicy`) from what is left on its clock; a GTP program receives
``time_settings`` (or ``kgs-time_settings`` for Japanese byo-yomi) at the start and ``time_left``
before every ``genmove`` and manages its own time. GTP has no Fischer clock: a Fischer control is
sent as absolute time, and ``time_left`` reports the increments as they are earned.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, replace

from imago.gtp.timecontrol import Clock, TimePolicy, TimeSettings, TimeSystem

GRACE = 0.5
"""Seconds a clock may go below zero before its side loses on time (process overhead)."""


class ClockKind(enum.Enum):
    """The time systems of ``--time-control``."""

    ABSOLUTE = "absolute"
    FISCHER = "fischer"
    BYOYOMI = "byoyomi"
    CANADIAN = "canadian"


_NUMBER = r"(\d+(?:\.\d+)?)"
_PATTERNS = (
    (ClockKind.ABSOLUTE, re.compile(rf"{_NUMBER}")),
    (ClockKind.FISCHER, re.compile(rf"{_NUMBER}\+{_NUMBER}")),
    (ClockKind.BYOYOMI, re.compile(rf"{_NUMBER}\+{_NUMBER}x(\d+)")),
    (ClockKind.CANADIAN, re.compile(rf"{_NUMBER}\+{_NUMBER}/(\d+)")),
)
SYNTAX = "60 (absolute), 60+5 (Fischer), 300+30x5 (byo-yomi), 300+300/25 (Canadian)"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A parsed ``--time-control``: main time, then ``extra`` seconds as an increment
    (Fischer), a period (byo-yomi) or a block for ``count`` moves (Canadian)."""

    kind: ClockKind
    main: float
    extra: float = 0.0
    count: int = 0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Parse the syntax of the module docstring; ``ValueError`` says what is expected."""
        spec = text.strip().lower()
        for kind, pattern in _PATTERNS:
            found = pattern.fullmatch(spec)
            if found is None:
                continue
            main = float(found.group(1))
            extra = float(found.group(2)) if kind is not ClockKind.ABSOLUTE else 0.0
            count = int(found.group(3)) if kind in (ClockKind.BYOYOMI, ClockKind.CANADIAN) else 0
            if kind is ClockKind.FISCHER and extra == 0:
                kind = ClockKind.ABSOLUTE
            control = cls(kind, main, extra, count)
            control.check()
            return control
        raise ValueError(f"bad time control {text!r}; expected e.g. {SYNTAX}")

    def check(self) -> None:
        """``ValueError`` unless the control gives every side some time."""
        if self.kind in (ClockKind.ABSOLUTE, ClockKind.FISCHER) and self.main <= 0:
            raise ValueError("a time control needs main time above 0 s")
        if self.kind in (ClockKind.BYOYOMI, ClockKind.CANADIAN) and (
            self.extra <= 0 or self.count < 1
        ):
            raise ValueError("byo-yomi needs periods above 0 s and at least 1 period / move")

    def __str__(self) -> str:
        if self.kind is ClockKind.ABSOLUTE:
            return f"{self.main:g}"
        if self.kind is ClockKind.FISCHER:
            return f"{self.main:g}+{self.extra:g}"
        mark = "x" if self.kind is ClockKind.BYOYOMI else "/"
        return f"{self.main:g}+{self.extra:g}{mark}{self.count}"

    def describe(self) -> str:
        """Words for the SGF ``OT`` property."""
        if self.kind is ClockKind.ABSOLUTE:
            return "absolute"
        if self.kind is ClockKind.FISCHER:
            return f"Fischer +{self.extra:g} s per move"
        if self.kind is ClockKind.BYOYOMI:
            return f"{self.count}x{self.extra:g} byo-yomi"
        return f"{self.count}/{self.extra:g} Canadian"

    def gtp_settings(self) -> TimeSettings:
        """The control as GTP can say it (Fischer as absolute time)."""
        if self.kind in (ClockKind.ABSOLUTE, ClockKind.FISCHER):
            return TimeSettings(TimeSystem.ABSOLUTE, self.main)
        if self.kind is ClockKind.CANADIAN:
            return TimeSettings(TimeSystem.CANADIAN, self.main, self.extra, self.count)
        return TimeSettings(TimeSystem.BYOYOMI, self.main, self.extra, 0, self.count)

    def start(self) -> SideClock:
        """A side's clock at the start of a game."""
        if self.main > 0 or self.kind in (ClockKind.ABSOLUTE, ClockKind.FISCHER):
            return SideClock(self.main, 0)
        return SideClock(self.extra, self.count)


@dataclass(frozen=True, slots=True)
class SideClock:
    """What one side has left: ``remaining`` seconds; ``stones`` 0 in main time, else the moves
    (Canadian) or periods (byo-yomi) left, ``remaining`` then being the current period's time.
    ``flagged`` is set when the side lost on time."""

    remaining: float
    stones: int = 0
    flagged: bool = False

    def available(self, control: TimeControl) -> float:
        """Seconds the side may still take for its next move before it loses on time."""
        if self.stones > 0 and control.kind is ClockKind.BYOYOMI:
            return self.remaining + (self.stones - 1) * control.extra
        if self.stones == 0 and control.kind in (ClockKind.BYOYOMI, ClockKind.CANADIAN):
            if control.kind is ClockKind.BYOYOMI:
                return self.remaining + control.count * control.extra
            return self.remaining + control.extra
        return self.remaining

    def after(self, control: TimeControl, seconds: float, grace: float = GRACE) -> SideClock:
        """The clock after a move that took ``seconds`` (``flagged`` if the side lost on time)."""
        left = self.remaining - seconds
        if self.stones == 0:
            if left >= 0 or control.kind in (ClockKind.ABSOLUTE, ClockKind.FISCHER):
                if left < -grace:
                    return SideClock(0.0, 0, True)
                return SideClock(max(left, 0.0) + control.extra * _fischer(control), 0)
            # main time ran out during the move: byo-yomi starts with the overflow
            return SideClock(control.extra, control.count).after(control, -left, grace)
        if control.kind is ClockKind.CANADIAN:
            if left < -grace:
                return replace(self, remaining=0.0, flagged=True)
            if self.stones <= 1:
                return SideClock(control.extra, control.count)
            return SideClock(max(left, 0.0), self.stones - 1)
        # Japanese byo-yomi: every period fully used up costs one
        if seconds > self.available(control) + grace:
            return replace(self, remaining=0.0, flagged=True)
        used = max(math.ceil(seconds / control.extra) - 1, 0)
        return SideClock(control.extra, max(self.stones - used, 1))

    def gtp_time_left(self) -> tuple[int, int]:
        """``time_left`` arguments (seconds, stones), seconds rounded down."""
        return math.floor(self.remaining), self.stones


def _fischer(control: TimeControl) -> int:
    return 1 if control.kind is ClockKind.FISCHER else 0


ARENA_POLICY = TimePolicy(default_time=None, lag=0.1, reserve=0.05, min_time=0.05)
"""How imago agents are budgeted: the GTP engine's policy, with a smaller lag (no controller)."""


def move_budget(
    control: TimeControl,
    clock: SideClock,
    moves_left: float,
    policy: TimePolicy = ARENA_POLICY,
) -> float:
    """Seconds to give the next move (``Limit(time=...)``), never more than the clock allows
    less the policy's safety margin; ``moves_left`` is the side's expected moves still to play."""
    settings = control.gtp_settings()
    budget = policy.budget(settings, Clock(clock.remaining, clock.stones), moves_left)
    assert budget is not None  # a time system is set, so there is a budget
    if control.kind is ClockKind.FISCHER:
        ceiling = clock.remaining * (1.0 - policy.reserve) - policy.lag
        budget = max(policy.floor(clock.remaining), min(budget + 0.8 * control.extra, ceiling))
    return budget
