"""Score intervals and the SPRT."""

from __future__ import annotations

import math

import numpy as np
import pytest

from imago.arena.stats import Sprt, SprtDecision, score_interval


@pytest.mark.parametrize(
    ("wins", "losses", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
        # Statistics in Medicine 17: the Wilson score interval (method 3) of his examples.
        (81, 263 - 81, 0.2553, 0.3662),
        (15, 148 - 15, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29 - 1, 0.0061, 0.1718),
    ],
)
def test_wilson_interval(wins: int, losses: int, low: float, high: float) -> None:
    interval = score_interval(wins, 0, losses)
    assert round(interval.low, 4) == low
    assert round(interval.high, 4) == high
    mirrored = score_interval(losses, 0, wins)
    assert mirrored.low == pytest.approx(1 - interval.high)


def test_draws_are_half_points_and_elo_follows() -> None:
    interval = score_interval(6, 4, 2)
    assert interval.score == pytest.approx(8 / 12)
    assert interval.elo == pytest.approx(-400 * math.log10(12 / 8 - 1))
    assert interval.elo_low < interval.elo < interval.elo_high
    assert "Elo" in interval.describe()
    assert score_interval(0, 0, 0).score == 0.5


def test_wider_confidence_is_wider() -> None:
    narrow, wide = score_interval(30, 0, 20, 0.9), score_interval(30, 0, 20, 0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


def test_interval_covers_the_truth_about_as_often_as_promised() -> None:
    rng = np.random.default_rng(7)
    covered = 0
    for _ in range(2000):
        wins = int(rng.binomial(60, 0.3))
        interval = score_interval(wins, 0, 60 - wins)
        covered += interval.low <= 0.3 <= interval.high
    assert 0.93 <= covered / 2000 <= 0.97


def test_sprt_decides_clear_cases_and_waits_on_unclear_ones() -> None:
    sprt = Sprt(elo0=0, elo1=50)
    assert sprt.decide(0, 0, 0) is SprtDecision.CONTINUE
    assert sprt.decide(60, 0, 20) is SprtDecision.H1
    assert sprt.decide(20, 0, 60) is SprtDecision.H0
    assert sprt.decide(4, 1, 3) is SprtDecision.CONTINUE
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05))
    # A perfect record does not divide by zero and is accepted quickly.
    assert sprt.decide(20, 0, 0) is SprtDecision.H1


def test_sprt_error_rates_are_roughly_honoured() -> None:
    # Simulated matches at the H0 and H1 strengths: wrong decisions stay rare.
    sprt = Sprt(elo0=0, elo1=100, alpha=0.05, beta=0.05)
    rng = np.random.default_rng(11)
    for true_elo, wrong in ((0.0, SprtDecision.H1), (100.0, SprtDecision.H0)):
        p = 1 / (1 + 10 ** (-true_elo / 400))
        mistakes = 0
        for _ in range(300):
            wins = losses = 0
            decision = SprtDecision.CONTINUE
            while decision is SprtDecision.CONTINUE and wins + losses < 5000:
                if rng.random() < p:
                    wins += 1
                else:
                    losses += 1
                decision = sprt.decide(wins, 0, losses)
            mistakes += decision is wrong
        assert mistakes / 300 < 0.1


def test_sprt_parse_and_validation() -> None:
    assert Sprt.parse("0,10") == Sprt(0, 10)
    assert Sprt.parse("-5,5,0.1,0.2") == Sprt(-5, 5, 0.1, 0.2)
    for bad in ("10", "a,b", "10,0", "0,10,0.7,0.1"):
        with pytest.raises(ValueError):
            Sprt.parse(bad)
