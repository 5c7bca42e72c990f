"""Issue 44: ``imago rl loop --test`` stops by itself, also when run again on the same folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from imago.rl.folder import RunFolder

IMAGO = [sys.executable, "-m", "imago"]


def _imago(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*IMAGO, *args], capture_output=True, text=True, timeout=timeout)
    done.stdout = " ".join(done.stdout.split())  # as one line, however the console wrapped it
    done.stderr = " ".join(done.stderr.split())
    return done


def test_test_loop_run_twice_plays_two_more_rounds_each_time(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = _imago("rl", "loop", str(run), "--test", "--game", "othello", "--size", "6")
    assert first.returncode == 0, first.stderr
    assert "stopped: 2 rounds done" in first.stdout
    assert RunFolder(run).latest() == 2
    again = _imago("rl", "loop", str(run), "--test")  # ends by itself (timeout otherwise)
    assert again.returncode == 0, again.stderr
    assert "stopped: 2 rounds done" in again.stdout and "generation 4" in again.stdout
    assert RunFolder(run).latest() == 4
    models = sorted(p.name for p in (run / "models").glob("*.pt"))
    assert len(models) == 5  # generations 0..4, none doubled


def test_test_loop_refuses_a_run_that_is_not_a_test_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert _imago("rl", "init", str(run), "--game", "othello", "--size", "6").returncode == 0
    refused = _imago("rl", "loop", str(run), "--test", timeout=60)
    assert refused.returncode != 0
    assert "is not a test run" in refused.stderr
    assert RunFolder(run).latest() is None  # nothing played


class _StopAtStage:
    """A stop flag set once the loop reports ``stage`` ``after`` times (a Ctrl-C then)."""

    def __init__(self, stage: str, after: int) -> None:
        self.stage, self.after, self.seen = stage, after, 0

    def report(self, stage: str, done: float, total: float, text: str) -> None:
        if stage == self.stage:
            self.seen += 1

    def is_set(self) -> bool:
        return self.seen >= self.after


@pytest.mark.parametrize("stage", ["evaluate", "references"])
def test_a_loop_stopped_while_it_measured_a_generation_finishes_that_first(
    tmp_path: Path, stage: str
) -> None:
    from imago.rl.config import smoke_config
    from imago.rl.selfplay import GameSpec
    from imago.rl.stages import init, loop

    config = smoke_config(GameSpec("othello", 6)).with_changes({"references.every": 1})
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    stop = _StopAtStage(stage, after=2)  # one game of the match played
    assert loop(folder, config, rounds=1, stop=stop, report=stop.report) == 1
    assert not [row for row in folder.metrics(stage) if row.get("generation") == 1]
    # started again with nothing more to train: it measures generation 1 and stops
    assert loop(folder, config, rounds=0) == 1
    assert len([row for row in folder.metrics(stage) if row.get("generation") == 1]) == 1
    games = config.evaluation.games if stage == "evaluate" else config.references.games
    match = folder.root / ("eval" if stage == "evaluate" else "refs")
    played = [p for p in match.rglob("*.json") if p.name != "match.json"]
    per_opponent = len(config.references.opponents) + 1 if stage == "references" else 1
    assert len(played) == games * per_opponent  # the stopped match resumed, no game doubled
    assert folder.metrics("evaluate")[-1]["generation"] == 1
