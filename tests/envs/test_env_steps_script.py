"""``bench/env_steps.py`` times each game's vector environment and prints its rate."""

from __future__ import annotations

import sys

import pytest

from repo_scripts import load_script


@pytest.mark.parametrize(
    ("game", "shown"), [("go", "go 9x9 minigo17"), ("othello", "othello 8x8 legal4")]
)
def test_the_script_reports_a_rate_for_each_game(
    game: str, shown: str, monkeypatch: pytest.MonkeyPatch, capsys
):
    script = load_script("bench/env_steps.py")
    argv = ["env_steps.py", "--game", game, "--seconds", "0.05", "--rounds", "2"]
    monkeypatch.setattr(sys, "argv", argv)
    script.main()
    first, rounds = capsys.readouterr().out.splitlines()
    assert first.startswith(f"{shown}: ") and first.endswith(" steps/CPU-s")
    assert float(first.split(": ")[1].split()[0].replace(",", "")) > 0
    assert rounds.startswith("rounds: ") and rounds.count(",") >= 1


@pytest.mark.parametrize("what", ["observe", "observe-one"])
def test_the_script_times_observations(what: str, monkeypatch: pytest.MonkeyPatch, capsys):
    script = load_script("bench/env_steps.py")
    argv = ["env_steps.py", "--what", what, "--seconds", "0.05", "--rounds", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    script.main()
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"go 9x9 minigo17, {what}: ") and first.endswith(" us an observation")
    assert float(first.split(": ")[1].split()[0]) > 0
