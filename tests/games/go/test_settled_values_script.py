"""``bench/settled_values.py``: a network's value against the game's result on settled
endings, read from SGF files."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from imago.core.color import Color
from repo_scripts import load_script


@pytest.mark.parametrize(
    ("result", "winner"),
    [("B+R", Color.BLACK), ("W+7", Color.WHITE), ("0", None), ("Void", None), ("", None)],
)
def test_the_winner_an_sgf_result_names(result: str, winner: Color | None) -> None:
    assert load_script("bench/settled_values.py").game_winner(result) is winner


@pytest.mark.parametrize(
    ("black", "white", "winner", "player", "outcome"),
    [
        ("az:mix=0.35", "gtp:pachi", Color.BLACK, "az", "won"),
        ("gtp:pachi", "az:mix=0.35", Color.BLACK, "az", "lost"),
        ("gtp:pachi", "gnugo", Color.WHITE, "az", ""),  # neither side is the player
        ("az", "gtp:pachi", Color.WHITE, "", ""),  # no player asked for
    ],
)
def test_a_players_outcome(
    black: str, white: str, winner: Color, player: str, outcome: str
) -> None:
    script = load_script("bench/settled_values.py")
    assert script.player_outcome(black, white, winner, player) == outcome


@dataclass
class _Values:
    value: np.ndarray


class _Network:
    """Gives every position the value +0.5 for its player to move."""

    def evaluate(self, positions: list[Any]) -> _Values:
        return _Values(np.full(len(positions), 0.5))


# An empty 9x9 board, both players pass, White wins by komi (W+7). The count settles both
# positions before the game's end (no stones, nothing unsettled):
#   move 0, Black to move: +0.5 for Black, who lost    -> wrong
#   move 1, White to move: +0.5 for White, who won     -> right
def test_a_value_for_the_loser_is_counted_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "game.sgf").write_text(
        "(;GM[1]SZ[9]KM[7]RU[Chinese]RE[W+7]PB[az]PW[pachi];B[];W[])"
    )
    script = load_script("bench/settled_values.py")
    games = list(script.settled_games(tmp_path, 10))
    script.measure(_Network(), tmp_path, games, 0.2, "az")
    out = capsys.readouterr().out
    assert "2 settled positions of 1 games; value wrong on 1 (50.0 %" in out
    assert "games az lost (1): 1 of 2" in out


@pytest.mark.parametrize(
    ("only_first", "only_second", "p"),
    [
        (0, 0, 1.0),  # they never disagree
        (3, 3, 1.0),
        (0, 5, 2 / 32),  # all five disagreements one way: 2 * (1/2)^5
        (1, 9, 2 * 11 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2^10
        (30, 10, 2 * sum(math.comb(40, k) for k in range(11)) / 2**40),
    ],
)
def test_the_sign_test_of_two_networks_disagreements(
    only_first: int, only_second: int, p: float
) -> None:
    script = load_script("bench/settled_values.py")
    assert script.sign_test(only_first, only_second) == pytest.approx(p)
    assert script.sign_test(only_second, only_first) == pytest.approx(p)


# Three games, the flags of each network position by position (x: wrong):
#   game 1   a: x x .   b: x . .    a more wrong
#   game 2   a: . .     b: . x      b more wrong
#   game 3   a: x       b: .        a more wrong
def test_two_networks_are_compared_on_the_same_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = load_script("bench/settled_values.py")
    flags_a = [[True, True, False], [False, False], [True]]
    flags_b = [[True, False, False], [False, True], [False]]
    script.compare(flags_a, flags_b, tmp_path, ("a.pt", "b.pt"))
    out = capsys.readouterr().out
    assert "6 settled positions; wrong for both 1, only a.pt 2, only b.pt 1" in out
    assert "of 3 games, more wrong for a.pt in 2, for b.pt in 1 (p = 1.000)" in out
    with pytest.raises(ValueError):
        script.compare(flags_a, flags_b[:2], tmp_path, ("a.pt", "b.pt"))


def test_measure_returns_a_flag_for_each_settled_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "game.sgf").write_text(
        "(;GM[1]SZ[9]KM[7]RU[Chinese]RE[W+7]PB[az]PW[pachi];B[];W[])"
    )
    script = load_script("bench/settled_values.py")
    flags = script.measure(_Network(), tmp_path, list(script.settled_games(tmp_path, 10)), 0.2, "")
    capsys.readouterr()
    assert flags == [[False, True]]  # newest first: White to move (right), Black to move (wrong)
