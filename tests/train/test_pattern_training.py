"""Training the Othello pattern evaluation on real WTHOR games (a small year)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from imago.agents.othello.weights import load_pattern_weights
from imago.cli.app import app
from imago.games import make
from imago.records.wthor import read_games
from imago.train import othello_patterns as op

YEAR = "WTH_1981.wtb"  # 153 games


@pytest.fixture(scope="module")
def wthor(data_dir: Path) -> Path:
    return data_dir / "wthor" / YEAR


def _bits(state: object) -> tuple[int, int]:
    board = state.board()  # type: ignore[attr-defined]
    mover = int(state.to_play)  # type: ignore[attr-defined]
    flat = np.asarray(board).reshape(-1)
    p = sum(1 << i for i in range(64) if flat[i] == mover)
    o = sum(1 << i for i in range(64) if flat[i] not in (0, mover))
    return p, o


def test_positions_follow_the_games(wthor: Path) -> None:
    config = op.PatternTrainConfig(validate_from=0, target="final")
    train_set, valid_set = op.load_positions([wthor], config)
    games = read_games(wthor)
    assert len(valid_set) == 0 and train_set.games == len(games)
    assert len(train_set) == sum(len(g.moves) for g in games)
    # The first game, replayed by the rules module: every position and target agree.
    game = games[0]
    state = make("othello")
    black_diff = 2 * game.black_score - 64
    for k, move in enumerate(game.moves):
        if move not in state.legal_moves():
            state = state.play(state.parse_move("pass"))
        p, o = _bits(state)
        assert (int(train_set.p[k]), int(train_set.o[k])) == (p, o)
        sign = 1 if int(state.to_play) == 1 else -1
        assert train_set.target[k] == sign * black_diff
        state = state.play(move)


def test_mixed_target_uses_the_theoretical_score_early(wthor: Path) -> None:
    config = op.PatternTrainConfig(validate_from=0, target="mixed")
    train_set, _ = op.load_positions([wthor], config)
    game = read_games(wthor)[0]
    assert train_set.target[0] == 2 * game.theoretical_score - 64  # Black moves first


def test_training_reduces_the_error_and_round_trips(wthor: Path, tmp_path: Path) -> None:
    config = op.PatternTrainConfig(epochs=2, validate_from=0, learning_rate=0.003)
    train_set, _ = op.load_positions([wthor], config)
    before, _, _ = op.measure(train_set, op.new_weights())
    reports: list[op.EpochReport] = []
    weights = op.train(train_set, train_set, config, on_epoch=lambda r, w: reports.append(r))
    after, _, _ = op.measure(train_set, weights)
    assert after < 0.8 * before
    assert [r.epoch for r in reports] == [0, 1]
    assert reports[1].valid_rmse == pytest.approx(after)
    path = tmp_path / "w.npz"
    op.save_weights(path, weights, info={"epochs_done": 2})
    table = load_pattern_weights(path)
    assert table.shape[0] == weights.shape[0]
    again, info = op.read_weights(path)
    assert info["epochs_done"] == 2
    assert np.abs(again - weights).max() <= 0.006  # hundredths of a disc


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="target"):
        op.PatternTrainConfig(target="best").check()
    with pytest.raises(ValueError, match="epochs"):
        op.PatternTrainConfig(epochs=0).check()


def test_cli_trains_and_resumes(wthor: Path, tmp_path: Path) -> None:
    out = tmp_path / "patterns.npz"
    runner = CliRunner()
    args = ["train", "patterns", str(wthor), "--out", str(out), "--validate-from", "0"]
    result = runner.invoke(app, [*args, "--epochs", "1"])
    assert result.exit_code == 0, result.output
    assert "epoch 1:" in result.output and out.is_file()
    result = runner.invoke(app, [*args, "--epochs", "2", "--resume"])
    assert result.exit_code == 0, result.output
    assert "epoch 2:" in result.output and "epoch 1:" not in result.output
    missing = runner.invoke(app, ["train", "patterns", str(tmp_path), "--out", str(out)])
    assert missing.exit_code == 1 and "no .wtb files" in missing.output
