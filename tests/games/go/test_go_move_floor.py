"""``bench/go_move_floor.py`` runs, plays whole games each of its four ways, and prints every
figure its docstring names."""

from __future__ import annotations

import random
import sys

import pytest

from repo_scripts import load_script


def test_the_kernel_loop_plays_a_game_to_its_end():
    probe = load_script("bench/go_move_floor.py")
    moves, seconds = probe._kernel(random.Random(5))
    assert moves > 40 and seconds > 0  # a random 9x9 game lasts about 100 moves or more


def test_the_probe_reports_its_figures(monkeypatch: pytest.MonkeyPatch, capsys):
    pytest.importorskip("pyspiel")  # a peer, from imago[bench]
    probe = load_script("bench/go_move_floor.py")
    monkeypatch.setattr(sys, "argv", ["go_move_floor.py", "--games", "2", "--rounds", "1"])
    probe.main()
    out = capsys.readouterr().out
    for name in ("public", "kernel", "openspiel", "openspiel_index"):
        assert f"\n{name} " in "\n" + out
    assert "public / openspiel:" in out and "kernel / openspiel_index:" in out
