"""How much of a time limit a search uses: the early stops of ``imago.agents.mcts.timing``."""

from __future__ import annotations

import numpy as np
import pytest

from imago.agents import Limit, make_agent
from imago.agents.mcts.timing import MIN_SIMULATIONS, TimeUse
from imago.games import make
from imago.games.go import GoPosition


def _root(*moves: tuple[int, float]) -> tuple[np.ndarray, np.ndarray]:
    """Root totals from (visits, win rate) per move."""
    visits = np.array([float(n) for n, _ in moves])
    wins = np.array([n * rate for n, rate in moves])
    return visits, wins


# A search 1,000 simulations a second: at `elapsed` of a 2 s limit it can still run
# 1000 * (2 - elapsed) simulations.
RATE = 1000.0
LIMIT = 2.0


@pytest.mark.parametrize(
    ("name", "moves", "elapsed", "stops"),
    [
        # decided: a lead of 600 visits with 0.5 s (500 simulations) left
        ("decided", [(1000, 0.45), (100, 0.5), (400, 0.4)], 1.5, True),
        ("decided early", [(350, 0.45), (10, 0.5)], 0.2, False),  # 1,800 left: not decided
        # settled: 2.5x the runner-up and the best win rate, after the desired 1 s
        ("settled", [(500, 0.40), (200, 0.38), (100, 0.2)], 1.0, True),
        ("settled too soon", [(500, 0.40), (200, 0.38)], 0.7, False),
        ("ratio too low", [(500, 0.40), (210, 0.38)], 1.2, False),
        # a move with a tenth of the leader's visits and a better win rate keeps it looking
        ("better move", [(700, 0.40), (70, 0.45), (60, 0.2)], 1.2, False),
        ("better but unsearched", [(700, 0.40), (69, 0.45), (60, 0.2)], 1.2, True),
        # winning 90 %: stops after 1 + 1 * (1 - 0.8) = 1.2 s even unsettled
        ("sure win", [(500, 0.90), (400, 0.92)], 1.25, True),
        ("sure win, too soon", [(500, 0.90), (400, 0.92)], 1.15, False),
        ("losing, unsettled", [(500, 0.30), (450, 0.32)], 1.9, False),
    ],
)
def test_when_a_search_stops(
    name: str, moves: list[tuple[int, float]], elapsed: float, stops: bool
) -> None:
    visits, wins = _root(*moves)
    done = int(RATE * elapsed)
    rule = TimeUse(desired=0.5)
    assert (
        rule.should_stop(visits, wins, elapsed=elapsed, target=LIMIT, limit=LIMIT, done=done)
        is stops
    ), name


def test_the_whole_limit_by_default() -> None:
    visits, wins = _root((5000, 0.99), (1, 0.1))
    assert not TimeUse().should_stop(
        visits, wins, elapsed=1.99, target=LIMIT, limit=LIMIT, done=5000
    )


def test_no_stop_before_a_few_simulations() -> None:
    visits, wins = _root((MIN_SIMULATIONS - 1, 0.5), (0, 0.0))
    done = MIN_SIMULATIONS - 1
    assert not TimeUse(0.1).should_stop(
        visits, wins, elapsed=1.9, target=LIMIT, limit=LIMIT, done=done
    )


def test_settled_counts_from_the_target_not_the_banked_limit() -> None:
    # given 1 s with 1 s banked: settled after half the 1 s, not half the 2 s
    visits, wins = _root((500, 0.40), (100, 0.38))
    rule = TimeUse(desired=0.5, bank=1.0)
    assert rule.should_stop(visits, wins, elapsed=0.6, target=1.0, limit=2.0, done=600)
    assert not rule.should_stop(visits, wins, elapsed=0.4, target=1.0, limit=2.0, done=400)


@pytest.mark.parametrize(
    ("banked", "limit"),
    [(0.0, 1.0), (0.6, 1.6), (3.0, 2.0), (-0.2, 1.0)],
)
def test_a_move_may_take_what_is_banked_up_to_the_bank(banked: float, limit: float) -> None:
    assert TimeUse(desired=0.5, bank=1.0).move_limit(1.0, banked) == pytest.approx(limit)


@pytest.mark.parametrize(
    ("bank", "banked", "used", "after"),
    [
        (1.0, 0.5, 0.3, 1.0),  # 0.7 saved, kept up to one limit
        (1.0, 0.5, 1.4, 0.1),  # 0.4 taken from the bank
        (1.0, 0.0, 1.02, 0.0),  # an overrun leaves nothing, not a debt
        (0.0, 0.0, 0.3, 0.0),  # no bank: saved time is not kept
    ],
)
def test_what_a_move_leaves_in_the_bank(
    bank: float, banked: float, used: float, after: float
) -> None:
    assert TimeUse(0.5, bank=bank).banked_after(1.0, banked, used) == pytest.approx(after)


@pytest.mark.parametrize(
    ("desired", "ratio", "bank", "says"),
    [
        (0.0, 2.5, 0.0, "desired_time"),
        (1.5, 2.5, 0.0, "desired_time"),
        (0.5, 0.5, 0.0, "ratio"),
        (0.5, 2.5, -1.0, "time_bank"),
        (1.0, 2.5, 1.0, "time_bank needs desired_time < 1"),
    ],
)
def test_bad_settings_are_refused_by_their_option_names(
    desired: float, ratio: float, bank: float, says: str
) -> None:
    with pytest.raises(ValueError, match=says):
        TimeUse(desired, ratio, bank)


# The white group C4-D4-E4-D3 has one liberty, D2: Black's capture decides the game.
_CAPTURE = """
    . . . . . . .
    . . . . . . .
    . . X X X . .
    . X O O O X .
    . . X O X . .
    . . . . . . .
    . . . . . . .
    """


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_clear_move_is_played_before_the_limit(threads: str) -> None:
    position = GoPosition.from_diagram(_CAPTURE)
    options = {"threads": threads, "desired_time": "0.1", "resign": "0"}
    agent = make_agent("mcts", "go", options, seed=1)
    agent.select_move(position, Limit(playouts=8))  # compiled first
    agent.reset()
    result = agent.select_move(position, Limit(time=6.0))
    assert result.move == position.parse_move("D2")
    assert result.seconds < 3.0


def test_the_whole_limit_is_used_when_told() -> None:
    position = GoPosition.from_diagram(_CAPTURE)
    agent = make_agent("mcts", "go", {"resign": "0"}, seed=1)
    agent.select_move(position, Limit(playouts=8))
    agent.reset()
    assert agent.select_move(position, Limit(time=1.0)).seconds >= 1.0


def test_with_a_bank_a_game_takes_the_time_a_move_on_average_at_most() -> None:
    seconds, moves = 0.3, 10
    agent = make_agent(
        "mcts", "go", {"desired_time": "0.3", "time_bank": "1", "resign": "0"}, seed=3
    )
    state = make("go", size=7)
    agent.select_move(state, Limit(playouts=8))  # compiled first
    agent.reset()
    used = []
    for _ in range(moves):
        result = agent.select_move(state, Limit(time=seconds))
        used.append(result.seconds)
        state = state.play(result.move)
    assert sum(used) <= moves * seconds + 0.05
    assert max(used) <= 2 * seconds + 0.05
