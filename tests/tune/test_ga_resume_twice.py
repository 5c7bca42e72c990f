"""Issue 44: ``imago tune ga`` run twice on one folder says that nothing is left."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from imago.cli.app import app


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def test_ga_run_twice_says_nothing_is_left(tmp_path: Path) -> None:
    out = tmp_path / "ga"
    args = ("tune", "ga", "--out", str(out), "--size", "6", "--population", "4",
            "--depth", "1", "--games-per-pair", "1", "--no-references", "--no-final",
            "--no-plot")  # fmt: skip
    code, output = _invoke(*args, "--generations", "2")
    assert code == 0, output
    code, output = _invoke(*args, "--generations", "2")
    assert code == 0, output
    assert "all 2 generations are already in" in output and "nothing left" in output
    code, output = _invoke(*args, "--generations", "3")
    assert code == 0, output
    assert "2 of 3 generations finished, 1 left" in output
    assert sorted(p.name for p in out.glob("gen_*")) == ["gen_000", "gen_001", "gen_002"]


def test_final_round_robin_is_not_replayed_and_follows_new_generations(tmp_path: Path) -> None:
    out = tmp_path / "ga"
    args = ("tune", "ga", "--out", str(out), "--size", "6", "--population", "3",
            "--depth", "1", "--games-per-pair", "1", "--no-references", "--no-plot")  # fmt: skip
    code, output = _invoke(*args, "--generations", "1")
    assert code == 0, output
    games = out / "gen_000" / "final" / "games"
    stamps = {path.name: path.stat().st_mtime_ns for path in games.iterdir()}
    assert len(stamps) == 6  # 3 pairs, an .sgf and a .json each
    code, output = _invoke(*args, "--generations", "1")
    assert code == 0, output
    assert f"all 3 games are already in {out / 'gen_000' / 'final'}: nothing left to play" in output
    assert {path.name: path.stat().st_mtime_ns for path in games.iterdir()} == stamps
    # One generation more: its own round robin, the first one kept as it was.
    code, output = _invoke(*args, "--generations", "2")
    assert code == 0, output
    assert "round robin of the last generation (3 games)" in output
    assert len(list((out / "gen_001" / "final" / "games").glob("*.json"))) == 3
    assert {path.name: path.stat().st_mtime_ns for path in games.iterdir()} == stamps


def test_killed_run_resumes_without_playing_a_game_twice(tmp_path: Path) -> None:
    import json
    import signal
    import subprocess
    import sys
    import time

    from imago.tune.genetic import GAConfig, GeneticRun

    out = tmp_path / "ga"
    args = ["tune", "ga", "--out", str(out), "--size", "6", "--population", "4", "--depth",
            "1", "--games-per-pair", "1", "--no-references", "--no-plot", "--generations",
            "3"]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "imago", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while process.poll() is None and len(list(out.glob("gen_*/games/*.json"))) < 6:
        assert time.monotonic() < deadline, "no game finished within a minute"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    code, output = _invoke(*args)
    assert code == 0, output
    assert "generations finished" in output or "nothing left" in output
    run = GeneticRun(out, GAConfig.from_json(json.loads((out / "ga.json").read_text())))
    assert [generation.number for generation in run.history()] == [0, 1, 2]
    for number in range(3):
        folder = out / f"gen_{number:03d}" / "games"
        indexes = sorted(json.loads(path.read_text())["index"] for path in folder.glob("*.json"))
        assert indexes == list(range(len(run.schedule(number))))
    assert len(list((out / "gen_002" / "final" / "games").glob("*.json"))) == 6  # 4 choose 2
