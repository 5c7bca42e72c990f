"""Issue 44: ``imago match --out`` and ``imago tournament`` killed (-9) in the middle, then
run again: the rerun plays only the games left, none twice."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from imago.cli.app import app


def _kill_after(args: list[str], games: Path, count: int) -> int:
    """Start ``imago ARGS``, SIGKILL it once ``games`` holds ``count`` finished games; how
    many it held then (the run may finish first on a fast machine)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "imago", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while process.poll() is None and len(list(games.glob("*.json"))) < count:
        assert time.monotonic() < deadline, "no game finished within a minute"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return len(list(games.glob("*.json")))


def _rerun(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def _indexes(games: Path) -> list[int]:
    return sorted(json.loads(path.read_text())["index"] for path in games.glob("*.json"))


def test_match_killed_then_rerun_plays_what_is_left(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["match", "--game", "othello", "--size", "6", "--black", "mcts:playouts=10",
            "--white", "random", "--games", "10", "--out", str(out), "--seed", "1"]  # fmt: skip
    before = _kill_after(args, out / "games", 2)
    output = _rerun(args)
    if before < 10:
        assert f"resuming {out}: {before} of 10 games already played, {10 - before} left" in output
    assert _indexes(out / "games") == list(range(10))
    assert len(list((out / "games").glob("*.sgf"))) == 10
    assert "nothing left to play" in _rerun(args)


def test_tournament_killed_then_rerun_plays_what_is_left(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["tournament", "--agents", "a=mcts:playouts=20", "b=random", "c=random",
            "--games-per-pair", "2", "--game", "othello", "--size", "6", "--out", str(out),
            "--seed", "1"]  # fmt: skip
    before = _kill_after(args, out / "games", 2)
    output = _rerun(args)
    if before < 6:
        assert f"{before} of 6 games already played, {6 - before} left" in output
    assert _indexes(out / "games") == list(range(6))
    assert len(list((out / "games").glob("*.sgf"))) == 6
    assert "nothing left to play" in _rerun(args)
