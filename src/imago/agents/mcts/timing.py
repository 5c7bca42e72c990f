"""How much of a time limit a search uses: Pachi's early stops (``uct/search.c``).

A search agent given ``Limit(time=T)`` searches for ``T`` seconds unless :class:`TimeUse` says it
may stop sooner. With ``desired < 1`` it stops

- when the move is **decided**: the most visited root move leads the runner-up by more visits
  than the search can still run before ``T`` at its rate so far, so the move it plays cannot
  change (Pachi's and Leela Zero's "result cannot change");
- after ``desired * T`` seconds, when the search is **settled**: the most visited move has at
  least ``ratio`` times the runner-up's visits and no move searched a tenth as much has a higher
  win rate (Pachi's ``best2_ratio`` and "best is also the winner");
- after ``desired * T + (1 - desired) * T * (1 - beta)`` seconds, ``beta = 2 * winrate - 1``,
  when it is winning (``winrate > 0.5``): the surer the win, the sooner it stops (Pachi's
  "do not waste time if we are winning").

So ``T`` is the most a move takes, hard positions get it and easy ones do not, and the average
is below ``T``. Under a clock (GTP's ``time_settings``, ``imago match --time-control``) what a
move saves is left on the clock for the moves after it. Under a fixed time a move (``imago match
--time-per-move``) it is lost, unless ``bank > 0``: then the seconds saved are kept for later
moves of the same game, and a move may take its ``T`` plus what is kept, up to ``bank * T``
more. A game's moves then take ``T`` each on average at most, and the hard ones up to
``(1 + bank) * T``: a match at equal time compares average seconds a move (the match table's
``s/move``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

MIN_SIMULATIONS = 64
"""Simulations a move runs before any early stop (a root with a handful of visits says little)."""


@dataclass(frozen=True, slots=True)
class TimeUse:
    """When a time-limited search stops early, and what it keeps of the time it saves (see the
    module docstring). ``desired = 1``: it always uses the whole limit."""

    desired: float = 1.0
    ratio: float = 2.5
    bank: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.desired <= 1:
            raise ValueError(f"desired_time must be in (0, 1], got {self.desired}")
        if self.ratio < 1:
            raise ValueError(f"ratio must be >= 1, got {self.ratio}")
        if self.bank < 0:
            raise ValueError(f"time_bank must be >= 0, got {self.bank}")
        if self.bank > 0 and not self.stops_early:
            raise ValueError("time_bank needs desired_time < 1 (say desired_time=0.5): a "
                             "search that uses its whole limit saves nothing")  # fmt: skip

    @property
    def stops_early(self) -> bool:
        """Whether this ever stops a search before its limit."""
        return self.desired < 1

    def move_limit(self, seconds: float, banked: float) -> float:
        """The most a move given ``seconds`` may take with ``banked`` seconds kept."""
        return seconds + min(max(banked, 0.0), self.bank * seconds)

    def banked_after(self, seconds: float, banked: float, used: float) -> float:
        """What is kept after a move given ``seconds`` used ``used`` of them, from ``banked``."""
        if self.bank == 0:
            return 0.0
        return min(max(banked + seconds - used, 0.0), self.bank * seconds)

    def should_stop(
        self,
        visits: npt.NDArray[np.float64],
        wins: npt.NDArray[np.float64],
        *,
        elapsed: float,
        target: float,
        limit: float,
        done: int,
    ) -> bool:
        """Whether a search ``elapsed`` seconds into a move given ``target`` seconds (at most
        ``limit`` with a bank), having run ``done`` simulations this move, may stop now;
        ``visits`` and ``wins`` are the root moves' totals (win rates for the player to
        move)."""
        if not self.stops_early or done < MIN_SIMULATIONS or elapsed <= 0 or len(visits) < 2:
            return False
        first, second = np.argsort(visits)[::-1][:2]
        lead = visits[first] - visits[second]
        if lead > done / elapsed * max(limit - elapsed, 0.0):
            return True
        desired = self.desired * target
        if elapsed < desired:
            return False
        winrate = wins[first] / visits[first] if visits[first] > 0 else 0.5
        if winrate > 0.5:
            sure = 2 * winrate - 1
            if elapsed >= desired + (limit - desired) * (1 - sure):
                return True
        return self._settled(visits, wins, int(first), int(second))

    def _settled(
        self,
        visits: npt.NDArray[np.float64],
        wins: npt.NDArray[np.float64],
        first: int,
        second: int,
    ) -> bool:
        if visits[first] < self.ratio * visits[second]:
            return False
        searched = visits >= visits[first] / 10
        rates = wins[searched] / visits[searched]
        return bool(rates.max() <= wins[first] / visits[first])


@dataclass(frozen=True)
class TimeOptions:
    """The options of a search agent that set its :class:`TimeUse`."""

    desired_time: float = 1.0
    """Under a time limit, the share of it after which a settled search stops; before it, a
    search stops once its move cannot change (Pachi's early stops,
    :mod:`imago.agents.mcts.timing`). 1: always search for the whole limit."""
    time_bank: float = 0.0
    """Under a fixed time a move, keep the seconds that early stops save for later moves of
    the game: a move may take its limit plus what is kept, up to ``time_bank`` limits more, and
    a game's moves take the limit on average at most (needs ``desired_time < 1``)."""

    def time_use(self) -> TimeUse:
        """The time use these options ask for (``ValueError`` for values out of range)."""
        return TimeUse(desired=self.desired_time, bank=self.time_bank)


__all__ = ["MIN_SIMULATIONS", "TimeOptions", "TimeUse"]
