"""The training window: which rounds a generation trains on, fixed or growing with the run as
KataGo's does (Wu 2019, "Accelerating Self-Play Learning in Go", section 5.1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from imago.cli.app import app
from imago.rl import checkpoint
from imago.rl.config import LoopConfig, smoke_config
from imago.rl.folder import RunError, RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, change_settings, gather, init, self_play, train


def _config(**changes: object) -> LoopConfig:
    return smoke_config(GameSpec("othello", 6)).with_changes(changes)


def _katago_rows(total_rows: float, min_rows: float, per_row: float, exponent: float) -> float:
    """KataGo's window in its own terms (``python/shuffle.py``: ``num_desired_rows`` with the
    taper offset at ``min_rows``), written out as it is there, in rows."""
    offset = min_rows
    power_law_x = total_rows - min_rows + offset
    unscaled = power_law_x**exponent - offset**exponent
    scaled = unscaled / (exponent * offset ** (exponent - 1))
    return float(scaled * per_row + min_rows)


#  rounds played:  0 1 2 3 4 5 6
#  round 5, a window of 4:  . . [2 3 4 5]
@pytest.mark.parametrize(
    ("round_", "window"),
    [
        (-1, []),  # nothing played yet
        (0, [0]),
        (2, [2, 1, 0]),
        (3, [3, 2, 1, 0]),
        (5, [5, 4, 3, 2]),
        (40, [40, 39, 38, 37]),
    ],
)
def test_a_fixed_window_is_the_newest_rounds(round_: int, window: list[int]) -> None:
    assert _config(window_rounds=4).window(round_) == window


@pytest.mark.parametrize("played", [4, 5, 9, 16, 70, 145, 400])
def test_a_growing_window_is_katagos_formula_counted_in_rounds(played: int) -> None:
    config = _config(window_rounds=1000, window_growth=0.4, window_start=4, window_exponent=0.75)
    rows_per_round = 17_000  # any size: the formula scales with it
    expected = _katago_rows(played * rows_per_round, 4 * rows_per_round, 0.4, 0.75)
    assert config.window_size(played - 1) == int(expected / rows_per_round + 1e-9)


# the go9x9 run at generation 70 with KataGo's settings: 20 rounds, not 4
#   start * (1 + 0.4 * ((70 / 4) ** 0.75 - 1) / 0.75) = 20.1
@pytest.mark.parametrize(
    ("played", "rounds"),
    [(1, 1), (4, 4), (5, 4), (8, 5), (70, 20), (145, 33)],
)
def test_a_growing_window_by_hand(played: int, rounds: int) -> None:
    config = _config(window_rounds=1000, window_growth=0.4, window_start=4)
    assert config.window_size(played - 1) == rounds


def test_growth_one_and_exponent_one_keep_every_round_up_to_the_cap() -> None:
    config = _config(window_rounds=50, window_growth=1.0, window_start=3, window_exponent=1.0)
    assert [config.window_size(r) for r in (0, 2, 9, 49, 80)] == [1, 3, 10, 50, 50]


@given(
    growth=st.floats(0.0, 1.0),
    start=st.integers(1, 12),
    exponent=st.floats(0.05, 1.0),
    cap=st.integers(1, 60),
    round_=st.integers(0, 500),
)
def test_the_window_grows_by_at_most_a_round_per_round_and_keeps_its_cap(
    growth: float, start: int, exponent: float, cap: int, round_: int
) -> None:
    config = _config(
        window_rounds=cap, window_growth=growth, window_start=start, window_exponent=exponent
    )
    now, after = config.window_size(round_), config.window_size(round_ + 1)
    assert min(start, cap, round_ + 1) <= now <= min(cap, round_ + 1)
    # so the rounds a checkpoint keeps for the next training (the window ending at the
    # round being played) are all the training after it needs from the past
    assert now <= after <= now + 1
    assert config.window(round_) == list(range(round_, round_ - now, -1))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"window_growth": -0.1}, "window_growth must be >= 0"),
        ({"window_exponent": 0.0}, "window_exponent must be above 0"),
        ({"window_exponent": 1.5}, "window_exponent must be above 0"),
        ({"window_rounds": 0}, "must be >= 1"),
        ({"window_start": 0}, "must be >= 1"),
    ],
)
def test_a_window_setting_out_of_range_is_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(RunError, match=message):
        _config(**changes)


def _rounds_of(paths: list[Path]) -> set[int]:
    return {int(path.parent.name) for path in paths}


def test_a_run_trains_on_and_checkpoints_the_rounds_of_its_window(tmp_path: Path) -> None:
    """Three rounds played; a fixed window of one round against one grown to all three."""
    fixed = _config(window_rounds=1, holdout_fraction=0.25)
    folder = RunFolder(tmp_path / "run")
    init(folder, fixed)
    bootstrap(folder, fixed)
    for generation in (0, 1):
        self_play(folder, fixed, worker=f"w{generation}")
        assert train(folder, fixed) == generation + 1
    self_play(folder, fixed, games=4, worker="w2")
    grown = fixed.with_changes(
        {"window_rounds": 10, "window_growth": 1.0, "window_start": 1, "window_exponent": 1.0}
    )
    assert _rounds_of(gather(folder, fixed, 2)) == {2}
    assert _rounds_of(gather(folder, grown, 2)) == {0, 1, 2}
    assert checkpoint.write(folder, tmp_path / "fixed").rounds == (2,)
    change_settings(
        folder,
        {"window_rounds": 10, "window_growth": 1.0, "window_start": 1, "window_exponent": 1.0},
    )
    assert checkpoint.write(folder, tmp_path / "grown").rounds == (0, 1, 2)
    shown = CliRunner().invoke(app, ["rl", "gather", str(folder.root)], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "window of round 2: rounds 0-2" in shown.output
