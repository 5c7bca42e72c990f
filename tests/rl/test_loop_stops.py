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
