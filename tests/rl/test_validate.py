"""Validation of a generation on the self-play holdout and on real records (WTHOR)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from imago.rl.config import smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play
from imago.rl.validate import validate


def test_a_generation_is_validated_on_the_holdout_and_on_wthor(
    tmp_path: Path, data_dir: Path
) -> None:
    wthor = data_dir / "wthor" / "WTH_2025.wtb"
    if not wthor.is_file():
        pytest.skip("WTH_2025.wtb is not in the shared data")
    config = smoke_config(GameSpec("othello", 8)).with_changes(
        {
            "records": [str(wthor)],
            "records_years": [2025, 2025],
            "records_limit": 400,
            "holdout_fraction": 0.5,
            "selfplay.max_moves": 0,
        }
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=8, worker="w")
    row = validate(folder, config, 0)
    holdout, records = row["holdout"], row["records"]
    assert holdout["positions"] > 0 and 0 <= holdout["top1"] <= 1 and holdout["policy_loss"] > 0
    assert records["positions"] == 400
    assert 0 <= records["top1"] <= 1 and records["loss"] > 0 and "value_mse" in records
    built = folder.validation_dir / "records-legal4" / "manifest.json"
    stamp = built.stat().st_mtime
    assert validate(folder, config, 0) == row  # logged once, not measured again
    from imago.rl.validate import records_metrics

    records_metrics(folder, config, folder.model_path(0))
    assert built.stat().st_mtime == stamp  # the dataset is built once


def test_solver_labelled_positions_are_made_once_and_score_a_network(tmp_path: Path) -> None:
    from imago.rl.validate import solver_metrics, solver_positions

    config = smoke_config(GameSpec("othello", 8)).with_changes(
        {"solver_positions": 6, "solver_empties": 10, "solver_simulations": 16}
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    states, best = solver_positions(folder, config)
    assert len(states) == 6 and best.shape == (6, 65)
    for state, mask in zip(states, best, strict=True):
        black, white = state.discs()
        assert 64 - black - white <= 10 and not state.is_over()
        assert mask.any() and not (mask & ~state.legal_mask()).any()  # best moves are legal
    again, best_again = solver_positions(folder, config)
    assert [s.board_string() for s in again] == [s.board_string() for s in states]
    assert (best_again == best).all()
    metrics = solver_metrics(folder, config, folder.model_path(0))
    assert metrics["positions"] == 6
    assert 0 <= metrics["policy"] <= 1 and 0 <= metrics["search"] <= 1


def test_go_runs_validate_on_the_ogs_dan_games(tmp_path: Path, data_dir: Path) -> None:
    archive = data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz"
    if not archive.is_file():
        pytest.skip("the OGS archive is not in the shared data")
    from imago.rl.validate import records_metrics

    config = smoke_config(GameSpec("go", 9)).with_changes(
        {"records": [str(archive)], "records_min_rank": "1d", "records_limit": 300}
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    measured = records_metrics(folder, config, folder.model_path(0))
    assert measured["positions"] == 300 and 0 <= measured["top1"] <= 1
