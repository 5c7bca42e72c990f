"""Time settings become a per-move budget that never runs the clock out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from imago.gtp.timecontrol import Clock, TimePolicy, TimeSettings, TimeSystem

POLICY = TimePolicy(default_time=2.0, lag=0.3, reserve=0.05, min_time=0.05, min_moves_left=5)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((0, 1, 0), TimeSettings()),  # byo-yomi time without stones: no limit
        ((300, 0, 0), TimeSettings(TimeSystem.ABSOLUTE, 300)),
        ((600, 30, 5), TimeSettings(TimeSystem.CANADIAN, 600, 30, 5)),
    ],
)
def test_gtp_time_settings(args: tuple[int, int, int], expected: TimeSettings):
    assert TimeSettings.from_gtp(*args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("none",), TimeSettings()),
        (("absolute", "60"), TimeSettings(TimeSystem.ABSOLUTE, 60)),
        (("byoyomi", "600", "30", "5"), TimeSettings(TimeSystem.BYOYOMI, 600, 30, 0, 5)),
        (("canadian", "600", "300", "25"), TimeSettings(TimeSystem.CANADIAN, 600, 300, 25)),
    ],
)
def test_kgs_time_settings(args: tuple[str, ...], expected: TimeSettings):
    assert TimeSettings.from_kgs(args) == expected


@pytest.mark.parametrize(
    "args", [(), ("sudden",), ("absolute",), ("byoyomi", "1", "2"), ("absolute", "-1")]
)
def test_bad_kgs_time_settings(args: tuple[str, ...]):
    with pytest.raises(ValueError):
        TimeSettings.from_kgs(args)


def test_budgets():
    absolute = TimeSettings(TimeSystem.ABSOLUTE, 100)
    assert POLICY.budget(TimeSettings(), Clock(0), 40) == 2.0
    assert POLICY.budget(absolute, Clock(100), 40) == pytest.approx(2.5)
    assert POLICY.budget(absolute, Clock(10), 40) == pytest.approx(0.25)
    assert POLICY.budget(absolute, Clock(0.4), 1) == pytest.approx(0.4 * 0.95 - 0.3)
    canadian = TimeSettings(TimeSystem.CANADIAN, 0, 30, 10)
    assert POLICY.budget(canadian, Clock(30, 10), 40) == pytest.approx(3.0)
    japanese = TimeSettings(TimeSystem.BYOYOMI, 0, 10, 0, 3)
    assert POLICY.budget(japanese, Clock(10, 3), 40) == pytest.approx(10 * 0.95 - 0.3)


def test_sudden_death_never_runs_out_however_long_the_game():
    # Found under load: with a fixed 0.05 s floor, the last 0.35 s of a 3 s clock went in seven
    # moves and a long game lost on time. Spending exactly each budget must never reach zero.
    absolute = TimeSettings(TimeSystem.ABSOLUTE, 3)
    remaining = 3.0
    for _ in range(300):
        remaining -= POLICY.budget(absolute, Clock(remaining), 10)  # type: ignore[operator]
        assert remaining > 0


def test_clock_bookkeeping():
    canadian = TimeSettings(TimeSystem.CANADIAN, 10, 30, 2)
    clock = Clock.start(canadian).after(canadian, 4)
    assert clock == Clock(6, 0)
    clock = clock.after(canadian, 8)  # main time runs out: byo-yomi starts, 2 s used of it
    assert clock == Clock(28, 1)
    assert clock.after(canadian, 5) == Clock(30, 2)  # the period's stones are played: new period
    japanese = TimeSettings(TimeSystem.BYOYOMI, 0, 10, 0, 3)
    assert Clock.start(japanese).after(japanese, 9) == Clock(10, 3)
    assert Clock.start(japanese).after(japanese, 11) == Clock(10, 2)


systems = st.sampled_from(
    [
        TimeSettings(TimeSystem.ABSOLUTE, 60),
        TimeSettings(TimeSystem.CANADIAN, 60, 20, 5),
        TimeSettings(TimeSystem.BYOYOMI, 60, 5, 0, 3),
    ]
)


@given(systems, st.lists(st.floats(0.3, 1.0), min_size=1, max_size=300))
def test_never_loses_on_time(settings: TimeSettings, usage: list[float]):
    """An engine that uses any fraction of each budget (plus the lag) never flags."""
    clock = Clock.start(settings)
    for moves_played, fraction in enumerate(usage):
        budget = POLICY.budget(settings, clock, max(40 - moves_played / 2, 1))
        assert budget is not None and budget > 0
        spent = budget * fraction + 0.1  # the engine's overhead, under the policy's lag
        if settings.system is TimeSystem.ABSOLUTE and clock.remaining < 1.0:
            break  # absolute time is finite: a long game must end some time
        assert spent <= clock.remaining + (settings.period_time if clock.stones == 0 else 0)
        clock = clock.after(settings, spent)
