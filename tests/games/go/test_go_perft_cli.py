"""``imago perft``: the command prints the leaf count the library computes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from imago.games.go import perft


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "imago", "perft", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(("depth", "size"), [(2, 9), (4, 3), (3, 2)])
def test_go_perft_command(depth: int, size: int):
    result = run(str(depth), "--game", "go", "--size", str(size))
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) == perft(depth, size)


def test_perft_bad_input_is_a_clear_error():
    result = run("2", "--game", "go", "--size", "30")
    assert result.returncode != 0 and "2..25" in result.stderr
    result = run("2", "--game", "chess")
    assert result.returncode != 0 and "unknown game" in result.stderr
    result = run("-1")
    assert result.returncode != 0
