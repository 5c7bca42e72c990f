"""``bench/start_values.py``: self-play's win rates against results, games from start positions
apart from the others."""

from __future__ import annotations

from typing import Any

import pytest

from repo_scripts import load_script


def _info(winner: int, start: int, examples: list[tuple[int, float]]) -> dict[str, Any]:
    return {
        "winner": winner,
        "start_moves": start,
        "example_moves": [move for move, _ in examples],
        "values": [value for _, value in examples],
    }


#  game  winner  start  example (move: win rate of the player to move)   wrong?
#  1     Black   30     30: 0.8 (Black to move, backs the winner)         no
#                       31: 0.8 (White to move, backs White, the loser)   yes, 1 after the start
#                       50: 0.55 (Black: within the margin)               no
#  2     White   0      40: 0.2 (Black to move, backs White)              no
#                       41: 0.3 (White to move, backs Black)              yes
#                       12: 0.9 (before --from-move: not counted)         -
#  3     draw    0      45: 0.9                                           left out
#  4     Black   10     11: 0.9 (before --from-move: not counted)         -
_GAMES = [
    _info(1, 30, [(30, 0.8), (31, 0.8), (50, 0.55)]),
    _info(2, 0, [(12, 0.9), (40, 0.2), (41, 0.3)]),
    _info(0, 0, [(45, 0.9)]),
    _info(1, 10, [(11, 0.9)]),
]


def test_wrong_win_rates_are_counted_by_moves_since_the_start() -> None:
    started, others = load_script("bench/start_values.py").tally(_GAMES, 30, 0.1)
    assert started[(0, 5)] == [1, 2]
    assert started[(15, 40)] == [0, 1]  # move 50 is 20 after the start
    assert started[(5, 15)] == [0, 0] and started[(40, 1000)] == [0, 0]
    assert others == [1, 2]


@pytest.mark.parametrize(
    ("winner", "move", "win_rate", "wrong"),
    [
        (1, 0, 0.61, False),  # Black to move and won: a high win rate is right
        (1, 1, 0.61, True),  # White to move and lost
        (2, 1, 0.39, True),  # White to move and won: a low win rate is wrong
        (2, 0, 0.45, False),  # within the margin
    ],
)
def test_a_win_rate_is_wrong_when_it_backs_the_loser(
    winner: int, move: int, win_rate: float, wrong: bool
) -> None:
    script = load_script("bench/start_values.py")
    assert script.wrong({"winner": winner}, move, win_rate, 0.1) is wrong
