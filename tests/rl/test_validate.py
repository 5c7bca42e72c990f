"""Validation of a generation on the self-play holdout and on real records (WTHOR)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from imago.agents.othello.endgame import EndgameSolver
from imago.rl.config import smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play
from imago.rl.validate import NOT_A_MOVE, best_moves, result_keeping_moves, validate


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
    states, scores = solver_positions(folder, config)
    assert len(states) == 6 and scores.shape == (6, 65)
    solver = EndgameSolver(table_bits=16)
    for state, row in zip(states, scores, strict=True):
        black, white = state.discs()
        assert 64 - black - white <= 10 and not state.is_over()
        assert ((row != NOT_A_MOVE) == state.legal_mask()).all()  # a score for each legal move
        assert row.max() == solver.solve_state(state).score  # the position's exact value
    again, scores_again = solver_positions(folder, config)
    assert [s.board_string() for s in again] == [s.board_string() for s in states]
    assert (scores_again == scores).all()
    metrics = solver_metrics(folder, config, folder.model_path(0))
    assert metrics["positions"] == 6
    for name in ("policy", "search", "policy_result", "search_result"):
        assert 0 <= metrics[name] <= 1
    # a best move keeps the result, so keeping it is at least as common
    assert metrics["policy_result"] >= metrics["policy"]
    assert metrics["search_result"] >= metrics["search"]


def test_a_solver_file_of_best_moves_only_is_labelled_again(tmp_path: Path) -> None:
    from imago.rl.validate import solver_positions

    config = smoke_config(GameSpec("othello", 6)).with_changes(
        {"solver_positions": 3, "solver_empties": 8}
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    states, scores = solver_positions(folder, config)
    path = next(folder.validation_dir.glob("solver-*.npz"))
    with np.load(path) as data:  # as the files of earlier runs were written: no scores
        kept = {key: data[key] for key in ("player", "opponent", "color")}
    np.savez_compressed(path, **kept, best=best_moves(scores))
    again, relabelled = solver_positions(folder, config)
    assert [s.board_string() for s in again] == [s.board_string() for s in states]
    assert (relabelled == scores).all()
    with np.load(path) as data:
        assert "scores" in data.files  # written back


#  scores of five actions in three positions (-128: not a move)   best   keeps the result
SCORES = [
    ([4, -2, 4, -128, 0], [1, 0, 1, 0, 0], [1, 0, 1, 0, 0]),  # a win by 4: two best moves
    ([6, 2, -128, -4, 0], [1, 0, 0, 0, 0], [1, 1, 0, 0, 0]),  # a win by 6; by 2 still wins
    ([-2, -10, -128, -128, -6], [1, 0, 0, 0, 0], [1, 1, 0, 0, 1]),  # lost whatever is played
    ([0, -2, 0, -128, -128], [1, 0, 1, 0, 0], [1, 0, 1, 0, 0]),  # a draw at best
]


@pytest.mark.parametrize(("scores", "best", "keeping"), SCORES)
def test_best_moves_and_moves_that_keep_the_result(
    scores: list[int], best: list[int], keeping: list[int]
) -> None:
    row = np.array([scores], dtype=np.int8)
    assert best_moves(row)[0].tolist() == [bool(b) for b in best]
    assert result_keeping_moves(row)[0].tolist() == [bool(k) for k in keeping]


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
