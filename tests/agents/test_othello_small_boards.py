"""Othello on 6x6 (and 4x4): the exact solver against plain negamax over the public rules API,
the alpha-beta agent, the weights files, and ``imago solve`` on a 36-character board.

The reference, :func:`negamax`, knows nothing of bitboards: it walks :class:`OthelloState`
(``legal_moves`` with its forced passes, ``play``, ``is_over``, ``outcome``), so a wrong mask,
empty count, parity region or stability bound in the solver shows up as a different score.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from imago.agents import Limit, make_agent
from imago.agents.othello import _kernels as kernels
from imago.agents.othello.endgame import EndgameSolver, parse_board
from imago.agents.othello.weights import WeightsError, load_evaluation, load_othello_weights
from imago.cli.app import app
from imago.core.color import Color
from imago.core.errors import InvalidMoveError
from imago.games.othello import OthelloState, new_game


def negamax(state: OthelloState, alpha: int = -100, beta: int = 100) -> int:
    """The exact final disc difference for the side to move (empty squares to the winner), by
    alpha-beta over the rules API: the root value is exact for a full window."""
    if state.is_over():
        outcome = state.outcome(empties_to_winner=True)
        assert outcome is not None and outcome.black_score is not None
        assert outcome.white_score is not None
        diff = int(outcome.black_score - outcome.white_score)
        return diff if state.to_play is Color.BLACK else -diff
    best = -100
    for move in state.legal_moves():  # a forced pass is the only legal move
        value = -negamax(state.play(move), -beta, -max(alpha, best))
        if value > best:
            best = value
            if best >= beta:
                break
    return best


def random_positions(
    count: int, size: int, max_empties: int, seed: int, min_empties: int = 1
) -> list[OthelloState]:
    """Positions of random games on a ``size`` board, stopped at a random number of empties."""
    rng = np.random.default_rng(seed)
    positions: list[OthelloState] = []
    while len(positions) < count:
        target = int(rng.integers(min_empties, max_empties + 1))
        state = new_game(size)
        while not state.is_over() and int(np.count_nonzero(state.board() == 0)) > target:
            moves = state.legal_moves()
            state = state.play(moves[int(rng.integers(len(moves)))])
        if not state.is_over():
            positions.append(state)
    return positions


# -- hand-checked positions: ASCII diagrams (row 1 at the top), side to move, exact score -------
DIAGRAMS = [
    (
        # f6 flips e6 (row) and f5 (column): all 36 discs are Black's.
        """
        X X X X X X
        X X X X X X
        X X X X X X
        X X X X X X
        X X X X X O
        X X X X O -
        """,
        "X",
        36,
        "f6",
    ),
    (
        # White has no disc and no move, Black cannot move either: 34-0, the 2 empties to
        # Black, so White (to move) has lost by 36 (an 8x8 count would say 62).
        """
        X X X X X X
        X X X X X X
        X X X X X X
        X X X X X X
        X X X X X X
        X X X X - -
        """,
        "O",
        -36,
        "pass",
    ),
    (
        # White's only empty square f6 flips nothing; g2 would flip b2-f2 on an 8x8 board but
        # is off this one. White passes, Black's f6 flips e6: 35-1.
        """
        X X X X X X
        O X X X X X
        X X X X X X
        X X X X X X
        X X X X X X
        X X X X O -
        """,
        "O",
        -34,
        "pass",
    ),
    (
        # 4x4: c4 flips c3 (a4 flips nothing); White then has no move, Black's a4 flips b4:
        # 12-4.
        """
        O X X X
        O O X X
        O X O X
        - O - X
        """,
        "X",
        8,
        "c4",
    ),
]


@pytest.mark.parametrize(("diagram", "side", "score", "move"), DIAGRAMS)
def test_diagrams(diagram: str, side: str, score: int | None, move: str | None) -> None:
    state = OthelloState.from_board_string(diagram, side)
    expected = negamax(state)
    if score is not None:
        assert expected == score  # the reference agrees with the hand count
    result = EndgameSolver(table_bits=12).solve_state(state)
    assert result.score == expected
    if move is not None:
        assert result.move.to_algebraic() == move


def test_solver_agrees_with_negamax_on_6x6() -> None:
    """Hundreds of positions of random 6x6 games with 1-12 empties (most with few: the
    reference is slow), each with its exact score and a move that reaches it."""
    solver = EndgameSolver(table_bits=16)
    positions = (
        random_positions(300, 6, 8, seed=61)
        + random_positions(40, 6, 10, seed=62, min_empties=9)
        + random_positions(6, 6, 12, seed=63, min_empties=11)
    )
    mismatches = []
    for state in positions:
        expected = negamax(state)
        result = solver.solve_state(state)
        child = state.play(result.move)
        reached = negamax(child) * (1 if child.to_play is state.to_play else -1)
        if (result.score, reached) != (expected, expected):
            mismatches.append((state.board_string(), state.to_play, result.score, expected))
    assert not mismatches, mismatches[:5]


def test_every_move_exact_on_6x6() -> None:
    """``exact_all`` scores every root move: each equals the reference's value of its child."""
    solver = EndgameSolver(table_bits=16)
    for state in random_positions(25, 6, 9, seed=64, min_empties=6):
        result = solver.solve_state(state, exact_all=True)
        for move, score in result.move_scores:
            child = state.play(move)
            assert score == -negamax(child), (state.board_string(), move)


def test_deep_6x6_positions_with_null_windows() -> None:
    """Beyond the reference's reach (14-20 empties, the table and the stability cutoff at
    work): the default root (null-window probes from a guess) and a full window on every
    move agree, for any guess."""
    fast, full = EndgameSolver(table_bits=18), EndgameSolver(table_bits=18)
    for state in random_positions(6, 6, 20, seed=65, min_empties=14):
        p, o = state.bitboards()
        exact = dict(full.solve_state(state, exact_all=True).move_scores)
        for guess in (None, -36, 36):
            fast.clear()
            got = fast.solve(p, o, size=6, guess=guess)
            assert got.score == max(exact.values())
            assert exact[got.move] == got.score


def test_4x4_start_position() -> None:
    state = new_game(4)
    result = EndgameSolver(table_bits=14).solve_state(state, exact_all=True)
    assert result.score == negamax(state)
    for move, score in result.move_scores:
        assert score == -negamax(state.play(move))


def test_8x8_scores_unchanged_by_the_board_geometry() -> None:
    """The same bitboards as an 8x8 position and as a 6x6 one are different games."""
    state = OthelloState.from_board_string(DIAGRAMS[1][0], DIAGRAMS[1][1])
    p, o = state.bitboards()
    solver = EndgameSolver(table_bits=12)
    assert solver.solve(p, o, size=6).score == -36
    # On 8x8 the 28 squares beyond the 6x6 corner are empty too; White still has no move.
    assert solver.solve(p, o, size=8).score == -64


def test_solver_rejects_discs_off_the_board() -> None:
    with pytest.raises(ValueError, match="off the 6x6 board"):
        EndgameSolver(table_bits=10).solve(1 << 7, 1, size=6)
    with pytest.raises(ValueError, match="boards"):
        EndgameSolver(table_bits=10).solve(1, 2, size=5)


def test_parse_board_sizes() -> None:
    p, o = parse_board("X" + "-" * 34 + "O", "X")
    assert (p, o) == (1, 1 << (5 * 8 + 5))
    p, o = parse_board("O" + "-" * 15, "O")
    assert (p, o) == (1, 0)
    with pytest.raises(InvalidMoveError, match="36 on 6x6"):
        parse_board("X" * 35, "X")


def test_kernel_geometry_of_6x6() -> None:
    geo = kernels.geometry(6)
    assert list(geo) == list(kernels.GEOMETRY[6])
    mask = int(geo[kernels.G_MASK])
    assert mask.bit_count() == 36 and int(geo[kernels.G_SQUARES]) == 36
    corners = [sq for sq in range(64) if int(geo[kernels.G_CORNERS]) >> sq & 1]
    assert corners == [0, 5, 40, 45]
    quadrants = [int(geo[kernels.G_QUADRANTS + q]) for q in range(4)]
    assert all(q.bit_count() == 9 for q in quadrants)
    assert sum(quadrants) == mask
    assert int(geo[kernels.G_NEXT_TO_CORNERS]).bit_count() == 12
    with pytest.raises(ValueError):
        kernels.geometry(5)


# -- the alpha-beta agent on 6x6 -----------------------------------------------------------------
def _play(size: int, black: str, white: str, limit: Limit, seed: int) -> OthelloState:
    agents = {
        Color.BLACK: make_agent(black, "othello", seed=seed),
        Color.WHITE: make_agent(white, "othello", seed=seed + 1),
    }
    state = new_game(size)
    while not state.is_over():
        result = agents[state.to_play].select_move(state, limit)
        assert state.is_legal(result.move), (state.board_string(), result.move)
        state = state.play(result.move)
    return state


def test_alphabeta_beats_random_on_6x6() -> None:
    wins = 0
    for seed in range(4):
        black, white = ("alphabeta", "random") if seed % 2 == 0 else ("random", "alphabeta")
        final = _play(6, black, white, Limit(depth=3), seed)
        outcome = final.outcome()
        assert outcome is not None
        ours = Color.BLACK if black == "alphabeta" else Color.WHITE
        wins += outcome.winner is ours
    assert wins == 4


def test_alphabeta_solves_6x6_endgames_exactly() -> None:
    agent = make_agent("alphabeta", "othello", {"endgame_empties": "12"})
    for state in random_positions(8, 6, 10, seed=66, min_empties=6):
        result = agent.select_move(state, Limit(time=30))
        assert result.value == negamax(state)
        assert result.move.is_pass or state.is_legal(result.move)


def test_alphabeta_midgame_search_on_6x6_reports_its_moves() -> None:
    agent = make_agent("alphabeta", "othello", {"endgame_empties": "0"})
    state = new_game(6)
    result = agent.select_move(state, Limit(depth=4))
    assert result.depth == 4
    assert {c.move for c in result.candidates} == set(state.legal_moves())
    assert all(state.is_legal(m) for m in result.pv[:1])
    # The same agent then plays 8x8 (its tables are cleared on the change of size).
    eight = new_game(8)
    assert eight.is_legal(agent.select_move(eight, Limit(depth=3)).move)


def test_weights_files_by_size(tmp_path: Path) -> None:
    six = load_othello_weights(size=6)
    assert six.shape[1] == 70
    board = int(kernels.geometry(6)[kernels.G_MASK])
    off_board = [sq for sq in range(64) if not board >> sq & 1]
    assert not six[:, off_board].any()  # the 36 numbers sit on the 6x6 squares
    assert load_evaluation(None, 6)[0] == "mask"
    assert load_evaluation(None, 8)[0] == "patterns"
    assert load_evaluation("patterns", 8)[1] is load_evaluation(None, 8)[1]  # by name too
    assert load_evaluation("mask", 8)[0] == "mask"
    with pytest.raises(WeightsError, match="built-in patterns are for 8x8"):
        load_evaluation("patterns", 6)
    with pytest.raises(WeightsError, match="8x8"):
        load_othello_weights(_write(tmp_path, 8, 64), size=6)
    with pytest.raises(WeightsError, match="36 numbers"):
        load_othello_weights(_write(tmp_path, 6, 64))
    custom = _write(tmp_path, 6, 36)
    agent = make_agent("alphabeta", "othello", {"weights": str(custom), "endgame_empties": "0"})
    state = new_game(6)
    assert state.is_legal(agent.select_move(state, Limit(depth=2)).move)
    with pytest.raises(WeightsError, match="6x6"):
        agent.select_move(new_game(8), Limit(depth=2))


def _write(folder: Path, size: int, squares: int) -> Path:
    path = folder / f"w{size}_{squares}.json"
    phase = {
        "name": "all",
        "min_empties": 0,
        "mask": [1] * squares,
        "mobility": 10,
        "potential_mobility": 0,
        "corners": 50,
        "stable": 0,
        "discs": 0,
    }
    path.write_text(json.dumps({"size": size, "phases": [phase]}))
    return path


def test_solve_command_on_a_6x6_board() -> None:
    state = random_positions(1, 6, 10, seed=67, min_empties=9)[0]
    side = "X" if state.to_play is Color.BLACK else "O"
    result = CliRunner().invoke(app, ["solve", "--all", "--", state.board_string(), side])
    assert result.exit_code == 0, result.output
    assert f"score {negamax(state):+d}" in result.output
