"""``imago solve`` on an FFO position, and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from imago.cli.app import app


def test_solve_prints_score_move_and_speed(data_dir: Path) -> None:
    lines = (data_dir / "ffo" / "ffo_1_19.txt").read_text().splitlines()
    fields = next(line.split() for line in lines if line.startswith("2 "))
    result = CliRunner().invoke(app, ["solve", "--all", "--", fields[1], fields[2]])
    assert result.exit_code == 0, result.output
    assert f"score {fields[4]}" in result.output
    assert f"best move {fields[3].split(',')[0]}" in result.output
    assert "nodes/s" in result.output
    for item in fields[9].split(","):
        assert item in result.output


def test_solve_rejects_bad_boards() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["solve", "XO", "X"]).exit_code == 1
    assert runner.invoke(app, ["solve", "--", "-" * 64, "Q"]).exit_code == 1
    dotted = runner.invoke(app, ["solve", "X" * 30 + "O" * 30 + "....", "O"])
    assert dotted.exit_code == 0 and "best move" in dotted.output


def test_a_board_starting_with_a_dash_needs_no_double_dash() -> None:
    board = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--"  # FFO #1
    runner = CliRunner()
    for board_text in (board, "-X" + board[2:]):  # read as options "--..." and "-X..."
        result = runner.invoke(app, ["solve", board_text, "X"])
        assert result.exit_code == 0, result.output
        assert "best move g8" in result.output
    result = runner.invoke(app, ["solve", "--all", board, "X"])
    assert result.exit_code == 0 and "g8:+18" in result.output, result.output


@pytest.mark.parametrize("cold", [True, False])
def test_a_cold_start_says_it_compiles_on_standard_error(
    cold: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the kernels were never compiled the first solve waits for the compiler: it says so
    (on standard error, so the answer on standard output stays parseable), and only then."""
    import imago.cli.warmup

    monkeypatch.setattr(imago.cli.warmup, "cold", lambda game: cold and game == "othello")
    board = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--"  # FFO #1
    result = CliRunner().invoke(app, ["solve", board, "X"])
    assert result.exit_code == 0, result.output
    assert ("compiling the solver's kernels" in result.stderr) is cold
    assert "compiling" not in result.stdout
