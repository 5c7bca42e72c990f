"""Issue 44: ``imago match --out`` and ``imago tournament --out`` run twice on one folder."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from imago.cli.app import app


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def test_match_run_twice_says_nothing_is_left(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ("match", "--game", "othello", "--size", "6", "--black", "random", "--white",
            "random", "--games", "4", "--out", str(out), "--seed", "1")  # fmt: skip
    code, output = _invoke(*args)
    assert code == 0, output
    assert "nothing left" not in output and "resuming" not in output
    code, output = _invoke(*args)
    assert code == 0, output
    assert "all 4 games are already in" in output and "nothing left to play" in output
    assert len(list((out / "games").glob("*.sgf"))) == 4  # no game doubled


def test_tournament_run_twice_says_nothing_is_left(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ("tournament", "--agents", "a=random", "b=random", "--games-per-pair", "2",
            "--game", "othello", "--size", "6", "--out", str(out), "--seed", "1")  # fmt: skip
    code, output = _invoke(*args)
    assert code == 0, output
    code, output = _invoke(*args)
    assert code == 0, output
    assert "all 2 games are already in" in output and "nothing left to play" in output
    assert len(list((out / "games").glob("*.sgf"))) == 2
