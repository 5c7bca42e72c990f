"""The value head against WTHOR's perfect-play results (``exact`` rows of a run).

WTHOR files give each game's *theoretical score*: Black's discs under perfect play from the
position with the header's number of empty squares (24 in recent files), computed by WTHOR's
own solver. The position there, with that result for the player to move, labels a value head
without the blunders of the rest of the human game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from imago.agents.othello.endgame import EndgameSolver
from imago.core.color import Color
from imago.core.move import Move
from imago.games.othello import OthelloState
from imago.records.wthor import WthorGame, WthorHeader, pack_games
from imago.rl.config import smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init
from imago.rl.validate import exact_value, exact_value_positions, wthor_files


def _wthor_config(path: Path, year: int) -> object:
    return smoke_config(GameSpec("othello", 8)).with_changes(
        {"records": [str(path)], "records_years": [year, year]}
    )


def test_positions_sit_at_the_depth_and_agree_with_an_exact_solver(
    tmp_path: Path, data_dir: Path
) -> None:
    wthor = data_dir / "wthor" / "WTH_2025.wtb"
    if not wthor.is_file():
        pytest.skip("WTH_2025.wtb is not in the shared data")
    folder = RunFolder(tmp_path / "run")
    states, result = exact_value_positions(folder, _wthor_config(wthor, 2025))
    assert len(states) == len(result) > 2000
    for state in states[:50]:
        black, white = state.discs()
        assert 64 - black - white == 24  # the 2025 file's depth
    # WTHOR's label against imago's own solver (a few seconds at 24 empties)
    score = EndgameSolver(table_bits=20).solve_state(states[1]).score
    assert result[1] == np.sign(score)
    assert set(np.unique(result)) <= {-1, 0, 1}


def _random_game_with_an_early_pass(
    seed: int,
) -> tuple[list[Move], list[OthelloState], int] | None:
    """A random game's moves (plays only), the position after each of them, and the empty
    squares left when its first pass came, if one came with at least 8 empty squares left."""
    rng = np.random.default_rng(seed)
    state, moves, after, passed_at = OthelloState(8), [], [], None
    while not state.is_over():
        legal = state.legal_moves()
        move = legal[int(rng.integers(len(legal)))]
        if move.is_pass and passed_at is None:
            black, white = state.discs()
            passed_at = 64 - black - white
        state = state.play(move)
        if move.is_play:
            moves.append(move)
            after.append(state)
    return (moves, after, passed_at) if passed_at is not None and passed_at >= 8 else None


def test_a_game_with_a_pass_before_the_depth_is_replayed_and_labelled_for_the_player_to_move(
    tmp_path: Path,
) -> None:
    """Passes are implicit in WTHOR: the position at the depth (and who is to move there) is
    the one the game reached, its passes played."""
    found = next(g for g in map(_random_game_with_an_early_pass, range(5000)) if g is not None)
    moves, after, passed_at = found
    depth = min(passed_at - 1, 12)
    state = after[60 - depth - 1]  # the game's own position with `depth` empty squares
    score = EndgameSolver(table_bits=16).solve_state(state).score  # for the player to move
    black_margin = score if state.to_play is Color.BLACK else -score
    record = WthorGame(0, 0, 0, 32, (black_margin + 64) // 2, tuple(moves), 2030)
    header = WthorHeader((2030, 1, 1), 1, 2030, 8, 0, depth)
    path = tmp_path / "WTH_2030.wtb"
    path.write_bytes(pack_games([record], header=header))

    states, result = exact_value_positions(RunFolder(tmp_path / "run"), _wthor_config(path, 2030))
    assert [s.board_string() for s in states] == [state.board_string()]
    assert states[0].to_play == state.to_play
    assert result.tolist() == [int(np.sign(score))]


def test_a_generation_is_measured_once_and_shown_by_status(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wthor = data_dir / "wthor" / "WTH_2025.wtb"
    if not wthor.is_file():
        pytest.skip("WTH_2025.wtb is not in the shared data")
    from typer.testing import CliRunner

    from imago.cli._common import console
    from imago.cli.app import app

    monkeypatch.setattr(console, "_width", 240)  # a table wide enough for every column

    config = _wthor_config(wthor, 2025)
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    row = exact_value(folder, config, 0)
    assert row is not None and row["positions"] > 2000
    assert 0 <= row["value_mse"] <= 4 and 0 <= row["sign"] <= 1
    assert exact_value(folder, config, 0) == row
    assert len(folder.metrics("exact")) == 1  # logged once
    shown = CliRunner().invoke(app, ["rl", "status", str(folder.root)])
    assert shown.exit_code == 0, shown.output
    assert "perfect play" in shown.output and f"{row['sign']:.1%}" in shown.output


@pytest.mark.parametrize(
    ("game", "records"),
    [
        ("go", []),  # Go has no perfect-play labels
        ("othello", []),  # no validation records
    ],
)
def test_runs_without_wthor_records_have_no_exact_rows(
    tmp_path: Path, game: str, records: list[str]
) -> None:
    config = smoke_config(GameSpec(game, 8 if game == "othello" else 9)).with_changes(
        {"records": records}
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    assert wthor_files(config) == []
    assert exact_value(folder, config, 0) is None
    assert folder.metrics("exact") == []


def test_other_validation_years_make_other_positions(tmp_path: Path, data_dir: Path) -> None:
    folder_path = data_dir / "wthor"
    if not (folder_path / "WTH_2024.wtb").is_file() or not (folder_path / "WTH_2025.wtb").is_file():
        pytest.skip("WTH_2024.wtb and WTH_2025.wtb are not in the shared data")
    folder = RunFolder(tmp_path / "run")
    one, _ = exact_value_positions(folder, _wthor_config(folder_path, 2025))
    two, _ = exact_value_positions(folder, _wthor_config(folder_path, 2024))
    again, _ = exact_value_positions(folder, _wthor_config(folder_path, 2025))
    assert one[0].board_string() != two[0].board_string() or len(one) != len(two)
    assert [s.board_string() for s in again] == [s.board_string() for s in one]
    assert len(list(folder.validation_dir.glob("wthor-exact-*.npz"))) == 2  # one file each
