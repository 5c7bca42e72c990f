"""Issue 44: ``imago analyze`` run twice on one game: the second run says what it does."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from imago.cli.app import app


def test_analyze_run_twice_says_it_reviews_again(tmp_path: Path) -> None:
    record = tmp_path / "g.sgf"
    record.write_text("(;GM[1]FF[4]SZ[5]KM[0];B[cc];W[bb];B[dd])")
    args = ["analyze", str(record), "--agent", "mcts", "--playouts", "20"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "reviewing again" not in first.output
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "reviewing again" in " ".join(again.output.split())
    assert not list(tmp_path.glob("*.partial.json"))  # no checkpoint left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-analyzed.sgf", "g.sgf"]
