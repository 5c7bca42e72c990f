"""The alpha-beta agent: legal moves, limits, search information, weights, both games."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from imago.agents import Limit, SearchResult, make_agent
from imago.agents.alphabeta import AlphaBetaAgent, AlphaBetaOptions
from imago.agents.othello.weights import load_othello_weights
from imago.core.move import Move
from imago.games import make
from imago.games.go import GoPosition
from imago.games.othello import OthelloState


def _play_game(game: str, seed: int, limit: Limit, **options: str) -> tuple[float, int]:
    """alphabeta (black) against random (white); returns (black's margin, moves)."""
    black = make_agent("alphabeta", game, options, seed=seed)
    white = make_agent("random", game, {}, seed=seed + 1)
    state = make(game) if game == "othello" else make(game, size=7)
    while not state.is_over():
        agent = black if state.to_play == 1 else white
        result = agent.select_move(state, limit)
        assert result.move.is_pass or state.is_legal(result.move), result.move
        state = state.play(result.move)
    outcome = state.outcome()
    assert outcome is not None
    margin = outcome.margin if outcome.winner == 1 else -outcome.margin
    return margin, state.move_number


def test_othello_beats_random() -> None:
    for seed in range(2):
        margin, _ = _play_game("othello", seed, Limit(depth=3), endgame_empties="10")
        assert margin > 0


def test_go_beats_random() -> None:
    margin, _ = _play_game("go", 3, Limit(depth=2), top_k="6")
    assert margin > 0


def test_depth_limit_and_search_info() -> None:
    agent = make_agent("alphabeta", "othello", {"endgame_empties": "0"})
    state = make("othello")
    seen: list[SearchResult] = []
    result = agent.select_move(state, Limit(depth=4), on_info=seen.append)
    assert result.depth == 4
    assert [r.depth for r in seen] == [1, 2, 3, 4]
    assert result.nodes > 0
    assert {c.move for c in result.candidates} == set(state.legal_moves())
    assert result.pv[0] == result.move
    assert len(result.pv) >= 2
    assert result.candidates[0].move == result.move


def test_time_limit_always_finishes_depth_one() -> None:
    agent = make_agent("alphabeta", "othello", {"endgame_empties": "0"})
    state = make("othello").play(Move.from_algebraic("f5"))
    result = agent.select_move(state, Limit(time=1e-6))
    assert result.depth >= 1
    assert state.is_legal(result.move)


def test_stop_flag_returns_a_completed_depth() -> None:
    agent = make_agent("alphabeta", "othello", {"endgame_empties": "0"})
    stop = threading.Event()
    stop.set()
    result = agent.select_move(make("othello"), Limit(depth=30), stop=stop)
    assert result.depth == 1


def test_deterministic_under_depth_limit() -> None:
    state = make("othello").play(Move.from_algebraic("f5")).play(Move.from_algebraic("d6"))
    moves = [
        make_agent("alphabeta", "othello", {"top_k": "4"}, seed=s)
        .select_move(state, Limit(depth=5))
        .move
        for s in (1, 2)
    ]
    assert moves[0] == moves[1]


def test_endgame_solver_is_used_and_exact(data_dir: Path) -> None:
    lines = (data_dir / "ffo" / "ffo_1_19.txt").read_text().splitlines()
    fields = next(line.split() for line in lines if line.startswith("1 "))
    assert (fields[3], fields[4]) == ("g8", "+18")  # FFO #1, 14 empties
    state = OthelloState.from_board_string(fields[1], fields[2])
    agent = make_agent("alphabeta", "othello", {"endgame_empties": "16"})
    result = agent.select_move(state, Limit(time=30))
    assert result.move == Move.from_algebraic("g8")
    assert result.value == 18
    assert result.winrate == 1.0


def test_top_k_prunes_nodes() -> None:
    state = make("othello").play(Move.from_algebraic("f5"))
    full = make_agent("alphabeta", "othello", {}).select_move(state, Limit(depth=5))
    pruned = make_agent("alphabeta", "othello", {"top_k": "2"}).select_move(state, Limit(depth=5))
    assert pruned.nodes < full.nodes


def test_probcut_prunes_nodes_only_with_the_builtin_patterns() -> None:
    state = make("othello")
    for move in ("f5", "f6", "e6", "f4", "e3", "c5", "c4", "d3"):
        state = state.play(Move.from_algebraic(move))
    limit = Limit(depth=8)
    full = make_agent("alphabeta", "othello", {"probcut": "0"}).select_move(state, limit)
    cut = make_agent("alphabeta", "othello", {}).select_move(state, limit)  # 1.5 by default
    assert cut.nodes < 0.7 * full.nodes
    assert state.is_legal(cut.move)
    # The calibration belongs to the built-in patterns: the mask evaluation ignores it.
    mask = {"weights": "mask"}
    plain = make_agent("alphabeta", "othello", mask).select_move(state, limit)
    also = make_agent("alphabeta", "othello", {**mask, "probcut": "1.5"}).select_move(state, limit)
    assert (also.nodes, also.move) == (plain.nodes, plain.move)


@pytest.mark.parametrize("value", [-1.0, 10.5])
def test_probcut_option_out_of_range_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="probcut"):
        AlphaBetaAgent(AlphaBetaOptions(probcut=value), np.random.default_rng())


def test_go_capture_is_found() -> None:
    # Black to play can capture the white stone in atari at C3 by playing D3.
    position = GoPosition.from_diagram(
        """
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
        """
    )
    agent = make_agent("alphabeta", "go", {})
    result = agent.select_move(position, Limit(depth=2))
    assert result.move == position.parse_move("D3")


def test_weights_file_round_trip_and_errors(tmp_path: Path) -> None:
    table = load_othello_weights()
    assert table.shape[1] == 70
    assert list(table[:, -1]) == sorted(table[:, -1], reverse=True)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"phases": [{"name": "x", "mask": [0] * 63}]}))
    with pytest.raises(ValueError, match="64"):
        load_othello_weights(bad)
    bad.write_text(json.dumps({"phases": [{"name": "x", "mask": [0] * 64}]}))
    with pytest.raises(ValueError, match="lacks"):
        load_othello_weights(bad)
    with pytest.raises(ValueError):
        AlphaBetaAgent(AlphaBetaOptions(depth=0), np.random.default_rng())


def test_game_over_passes() -> None:
    state = OthelloState.from_board_string("X" * 64, "O")
    assert state.is_over()
    agent = make_agent("alphabeta", "othello", {})
    assert agent.select_move(state, Limit(depth=2)).move == Move.PASS
