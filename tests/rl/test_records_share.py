"""Real-record positions mixed into self-play training batches (``train.records_share``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from imago.nn.dataset import ShardArrays
from imago.nn.rl_train import StepsConfig, check_targets, draw_batch, with_played_targets
from imago.rl.config import smoke_config
from imago.rl.folder import RunError, RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play, train

ACTIONS = 10  # a 3x3 board and the pass


def _arrays(n: int, first_game: int, *, targets: bool) -> ShardArrays:
    """``n`` rows whose ``game`` column tells where they came from."""
    moves = np.arange(n, dtype=np.int16) % ACTIONS
    target = np.full((n, ACTIONS), 1 / ACTIONS, np.float16) if targets else None
    return ShardArrays(
        planes=np.zeros((n, 5), np.uint8),
        legal=np.zeros((n, 2), np.uint8),
        policy=moves,
        value=np.ones(n, np.int8),
        game=np.arange(first_game, first_game + n, dtype=np.int32),
        target=target,
    )


def test_played_moves_become_one_hot_targets() -> None:
    records = with_played_targets(_arrays(25, 0, targets=False), ACTIONS)
    assert records.target is not None
    assert records.target.shape == (25, ACTIONS)
    assert (records.target.argmax(axis=1) == records.policy).all()
    assert (records.target.sum(axis=1) == 1).all()


@pytest.mark.parametrize(("share", "from_records"), [(0.25, 8), (0.5, 16), (0.1, 3)])
def test_a_batch_takes_its_share_of_rows_from_the_records(share: float, from_records: int) -> None:
    window = _arrays(1000, 0, targets=True)
    records = with_played_targets(_arrays(500, 10_000, targets=False), ACTIONS)
    config = StepsConfig(batch_size=32, records_share=share)
    batch = draw_batch(np.random.default_rng(7), window, config, records)
    assert len(batch) == 32
    drawn_from_records = batch.game >= 10_000
    assert drawn_from_records.sum() == from_records
    assert batch.target is not None
    played = batch.target[drawn_from_records].argmax(axis=1)
    assert (played == batch.policy[drawn_from_records]).all()


def test_without_a_share_the_batch_is_drawn_as_before() -> None:
    """Runs that never mix records draw the very batches they drew before the option existed
    (a resumed run trains on the same examples)."""
    window = _arrays(1000, 0, targets=True)
    rng, before = np.random.default_rng([0, 3, 5]), np.random.default_rng([0, 3, 5])
    rows = np.sort(before.integers(0, len(window), size=64))
    batch = draw_batch(rng, window, StepsConfig(batch_size=64), None)
    assert (batch.game == window.game[rows]).all()
    assert rng.integers(0, 8) == before.integers(0, 8)  # the symmetry drawn next is the same


def test_a_share_without_records_or_of_another_board_is_refused() -> None:
    window = _arrays(100, 0, targets=True)
    with pytest.raises(ValueError, match="records_share needs real records"):
        check_targets(window, StepsConfig(records_share=0.25), None)
    other_board = with_played_targets(_arrays(50, 100, targets=False), ACTIONS + 5)
    with pytest.raises(ValueError, match="another board"):
        check_targets(window, StepsConfig(records_share=0.25), other_board)
    with pytest.raises(ValueError, match="a share"):
        StepsConfig(records_share=1.0)


@pytest.mark.parametrize("weight", ["score_weight", "search_weight", "ownership_weight"])
def test_a_share_of_records_with_a_target_records_lack_is_refused(weight: str) -> None:
    """Real records have no final margins, search values or ownership: the settings are
    refused when made (``imago rl set`` included), not when the loop comes to train."""
    with pytest.raises(ValueError, match="no final margins, search values or ownership"):
        StepsConfig(records_share=0.25, **{weight: 0.5})
    assert getattr(StepsConfig(records_share=0.0, **{weight: 0.5}), weight) == 0.5


def test_the_run_settings_keep_training_records_apart_from_validation_records() -> None:
    config = smoke_config(GameSpec("go", 9))
    with pytest.raises(RunError, match="needs train_records"):
        config.with_changes({"train.records_share": 0.25})
    with pytest.raises(RunError, match="must be other records"):
        config.with_changes({"records": ["a/games.sgf"], "train_records": ["./a/../a/games.sgf"]})


def test_a_run_trains_on_its_share_of_real_go_games(tmp_path: Path, data_dir: Path) -> None:
    archive = data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz"
    if not archive.is_file():
        pytest.skip("the OGS 9x9 archive is not in the shared data")
    config = smoke_config(GameSpec("go", 9)).with_changes(
        {
            "train_records": [str(archive)],
            "train_records_min_rank": "1d",
            "train_records_games": 20,
            "train.records_share": 0.25,
        }
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, worker="w")
    assert train(folder, config) == 1
    (row,) = folder.metrics("train")
    assert row["records_rows"] == 8  # a quarter of the smoke run's 32
    built = folder.validation_dir / "train-records-legal4" / "manifest.json"
    assert built.is_file()
    assert 20 * 20 < row["records"] < 20 * 120  # the positions of 20 dan games
