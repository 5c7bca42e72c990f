"""Statistics of a match: score with a confidence interval, Elo difference, and an SPRT.

A draw is half a point. The score interval is Wilson's for a proportion (it behaves at 0% and
100%, where the normal interval collapses); treating each game as a win or a loss makes it a
little wider than needed when there are draws, never narrower.

The SPRT is the generalised SPRT of chess engine testing (fishtest, cutechess-cli): with the
per-game score ``x`` of mean ``m`` and variance ``v`` estimated from the games, the log-likelihood
ratio of "the Elo difference is ``elo1``" against "it is ``elo0``" is approximately

    LLR = n * (s1 - s0) * (2 m - s0 - s1) / (2 v),     s_k = 1 / (1 + 10 ** (-elo_k / 400))

and the test stops for H1 when ``LLR >= log((1 - beta) / alpha)`` and for H0 when
``LLR <= log(beta / (1 - alpha))``. Half a virtual win, draw and loss are added to the counts
for the variance, so that a run of identical results does not divide by zero.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from imago.arena.ratings import elo_difference, expected_score


@dataclass(frozen=True, slots=True)
class ScoreInterval:
    """A score (fraction of the points) with its confidence interval, and the same in Elo."""

    score: float
    low: float
    high: float
    confidence: float

    @property
    def elo(self) -> float:
        return elo_difference(self.score)

    @property
    def elo_low(self) -> float:
        return elo_difference(self.low)

    @property
    def elo_high(self) -> float:
        return elo_difference(self.high)

    def describe(self) -> str:
        """``"62.5% [50.1%, 73.4%] (95%), Elo +89 [+1, +177]"``."""
        pct = f"{100 * self.score:.1f}% [{100 * self.low:.1f}%, {100 * self.high:.1f}%]"
        return (
            f"{pct} ({100 * self.confidence:.0f}%), Elo {_elo(self.elo)} "
            f"[{_elo(self.elo_low)}, {_elo(self.elo_high)}]"
        )


def _elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


def _z(confidence: float) -> float:
    """The two-sided normal quantile for ``confidence`` (bisection on erf; no scipy needed)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    low, high = 0.0, 40.0
    for _ in range(200):
        middle = (low + high) / 2
        if math.erf(middle / math.sqrt(2.0)) < confidence:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def score_interval(wins: int, draws: int, losses: int, confidence: float = 0.95) -> ScoreInterval:
    """The score of ``wins``/``draws``/``losses`` with Wilson's interval at ``confidence``."""
    n = wins + draws + losses
    if min(wins, draws, losses) < 0:
        raise ValueError("counts cannot be negative")
    if n == 0:
        return ScoreInterval(0.5, 0.0, 1.0, confidence)
    p = (wins + 0.5 * draws) / n
    z = _z(confidence)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return ScoreInterval(p, max(0.0, centre - half), min(1.0, centre + half), confidence)


class SprtDecision(enum.Enum):
    """Where a sequential test stands."""

    CONTINUE = "continue"
    H0 = "H0"  # the difference is elo0 (or less): the test rejects "stronger by elo1"
    H1 = "H1"  # the difference is elo1 (or more): accepted


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test of "Elo difference = elo0" against "= elo1"."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT needs elo0 < elo1")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT {name} must lie in (0, 0.5), got {value}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this log-likelihood ratio."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """The approximate log-likelihood ratio of H1 against H0 after these games."""
        n = wins + draws + losses
        if n == 0:
            return 0.0
        w, d, l = wins + 0.5, draws + 0.5, losses + 0.5
        total = w + d + l
        mean = (w + 0.5 * d) / total
        variance = (w * (1 - mean) ** 2 + d * (0.5 - mean) ** 2 + l * mean**2) / total
        observed = (wins + 0.5 * draws) / n
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return n * (s1 - s0) * (2 * observed - s0 - s1) / (2 * variance)

    def decide(self, wins: int, draws: int, losses: int) -> SprtDecision:
        llr = self.llr(wins, draws, losses)
        if llr >= self.upper:
            return SprtDecision.H1
        if llr <= self.lower:
            return SprtDecision.H0
        return SprtDecision.CONTINUE

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """Read ``"elo0,elo1"`` or ``"elo0,elo1,alpha,beta"``."""
        try:
            values = [float(v) for v in text.split(",")]
        except ValueError:
            raise ValueError(f"SPRT wants elo0,elo1[,alpha,beta], got {text!r}") from None
        if len(values) not in (2, 4):
            raise ValueError(f"SPRT wants elo0,elo1[,alpha,beta], got {text!r}")
        return cls(*values)
