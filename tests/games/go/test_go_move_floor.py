"""``bench/go_move_floor.py`` runs, plays whole games each of its four ways, and prints every
figure its docstring names."""

from __future__ import annotations

import random
import sys

import pytest

from repo_scripts import load_script


def test_the_kernel_loop_plays_a_game_to_its_end():
    probe = load_script("bench/go_move_floor.py")
    moves, seconds = probe._kernel(random.Random(5), 9)
    assert moves > 40 and seconds > 0  # a random 9x9 game lasts about 100 moves or more
    moves, _ = probe._kernel(random.Random(5), 19)
    assert moves > 300  # a random 19x19 game: longer than one arena holds (three positions)


def test_the_probe_reports_its_figures(monkeypatch: pytest.MonkeyPatch, capsys):
    pytest.importorskip("pyspiel")  # a peer, from imago[bench]
    probe = load_script("bench/go_move_floor.py")
    argv = ["go_move_floor.py", "--size", "7", "--games", "2", "--rounds", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    probe.main()
    out = capsys.readouterr().out
    for name in ("public", "kernel", "openspiel", "openspiel_index"):
        assert f"\n{name} " in "\n" + out
    assert "public / openspiel:" in out and "kernel / openspiel_index:" in out


def test_the_probe_refuses_a_board_size_with_a_reason(monkeypatch: pytest.MonkeyPatch, capsys):
    probe = load_script("bench/go_move_floor.py")
    monkeypatch.setattr(sys, "argv", ["go_move_floor.py", "--size", "25"])
    with pytest.raises(SystemExit):
        probe.main()
    assert "--size must be 2 to 19" in capsys.readouterr().err
