"""Exact value targets for late Othello positions (``LoopConfig.exact_targets``): checked
against a plain minimax over the public rules API, never against the solver itself."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from imago.core.color import Color
from imago.games.othello import OthelloState
from imago.rl.config import LoopConfig, smoke_config
from imago.rl.examples import ExactResults, _value_targets
from imago.rl.selfplay import FinishedGame, GameSpec


def _minimax_lead(state: OthelloState) -> int:
    """The final disc difference for the side to move with perfect play (empties to the
    winner), by visiting every line of play."""
    if state.is_over():
        outcome = state.outcome()
        assert outcome is not None
        lead = int(outcome.margin)
        return lead if outcome.winner is state.to_play else -lead if outcome.winner else 0
    mover = state.to_play
    best = -100
    for move in state.legal_moves():
        child = state.play(move)
        value = _minimax_lead(child)
        best = max(best, value if child.to_play is mover else -value)
    return best


def _late_positions(size: int, empties: int, games: int, seed: int) -> list[OthelloState]:
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = OthelloState(size)
        while not state.is_over():
            left = int(np.count_nonzero(_board(state) == 0))
            if left <= empties:
                found.append(state)
            state = state.play(rng.choice(state.legal_moves()))
    return found


def _board(state: OthelloState) -> np.ndarray:
    return np.asarray(state.board(), dtype=np.int8).ravel()


@pytest.mark.parametrize(("size", "empties"), [(6, 7), (8, 6)])
def test_exact_leads_are_those_of_perfect_play(size: int, empties: int) -> None:
    exact = ExactResults(empties, size)
    positions = _late_positions(size, empties, games=6, seed=size)
    assert len(positions) > 20
    for state in positions:
        lead = exact.lead(_board(state), int(state.to_play))
        assert lead == _minimax_lead(state), state


def test_positions_with_more_empties_are_left_to_the_game() -> None:
    exact = ExactResults(4, 6)
    start = OthelloState(6)
    assert exact.lead(_board(start), int(start.to_play)) is None
    assert exact.solved == 0


def test_only_late_examples_take_the_exact_result() -> None:
    """A game Black won, with one early and two late examples: the late ones get the exact
    results (whatever the game's), the early one keeps the game's."""
    size, empties = 6, 6
    late = _late_positions(size, empties, games=3, seed=11)
    early = OthelloState(6)
    examples = [early, *late[:2]]
    record = FinishedGame(index=0, actions=[], winner=int(Color.BLACK), score=4.0)
    record.boards = [_board(s)[None, :] for s in examples]
    record.values = [0.75, 0.5, 0.5]  # the search's win rates for the player to move
    to_play = np.array([int(s.to_play) for s in examples], dtype=np.int8)
    exact = ExactResults(6, 6)
    results, margins, searched, solved = _value_targets(record, to_play, size * size, exact)
    assert solved == 2
    assert results[0] == record.outcome_for(int(early.to_play))
    assert searched[0] == 0.5  # the search's win rate 0.75 on [-1, 1]
    for i, state in enumerate(examples[1:], start=1):
        lead = _minimax_lead(state)
        assert results[i] == int(np.sign(lead))
        assert margins[i] == pytest.approx(lead / (size * size))
        assert searched[i] == int(np.sign(lead))  # perfect play's result, not the search's


def _one_game(size: int, seed: int) -> list[OthelloState]:
    """Every position of one random game, in order, the finished one left out."""
    rng = random.Random(seed)
    state, positions = OthelloState(size), []
    while not state.is_over():
        positions.append(state)
        state = state.play(rng.choice(state.legal_moves()))
    return positions


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_backup_gives_earlier_examples_the_first_solved_result(seed: int) -> None:
    """With ``backup``, every example before the first solved one takes that position's exact
    result, seen from its own player to move; the search's values stay the search's."""
    size, empties = 6, 6
    game = _one_game(size, seed)
    first_late = next(i for i, s in enumerate(game) if np.count_nonzero(_board(s) == 0) <= empties)
    examples = [game[1], game[2], game[first_late - 3], game[first_late], game[first_late + 1]]
    to_play = np.array([int(s.to_play) for s in examples], dtype=np.int8)
    truth = _minimax_lead(game[first_late])
    for winner in (Color.BLACK, Color.WHITE):  # the game's result must not matter
        record = FinishedGame(index=0, actions=[], winner=int(winner), score=2.0)
        record.boards = [_board(s)[None, :] for s in examples]
        record.values = [0.75] * len(examples)
        exact = ExactResults(empties, size, backup=True)
        results, margins, searched, solved = _value_targets(record, to_play, size * size, exact)
        assert solved == 2
        for i, state in enumerate(examples[:3]):
            own = truth if state.to_play is game[first_late].to_play else -truth
            assert results[i] == int(np.sign(own)), i
            assert margins[i] == pytest.approx(own / (size * size))
            assert searched[i] == 0.5
        assert results[4] == int(np.sign(_minimax_lead(examples[4])))


def test_backup_leaves_a_game_without_solved_examples_to_its_result() -> None:
    game = _one_game(6, 7)
    record = FinishedGame(index=0, actions=[], winner=int(Color.WHITE), score=-2.0)
    record.boards = [_board(s)[None, :] for s in game[:3]]
    record.values = [0.5] * 3
    to_play = np.array([int(s.to_play) for s in game[:3]], dtype=np.int8)
    exact = ExactResults(4, 6, backup=True)
    results, _, _, solved = _value_targets(record, to_play, 36, exact)
    assert solved == 0
    assert results == [record.outcome_for(int(c)) for c in to_play]


def test_exact_backup_is_refused_without_exact_targets() -> None:
    with pytest.raises(ValueError, match="exact_backup needs exact_targets"):
        LoopConfig(spec=GameSpec("othello", 8), exact_backup=True)
    assert LoopConfig(spec=GameSpec("othello", 8), exact_targets=12, exact_backup=True)


def test_exact_targets_are_refused_for_go_and_below_zero() -> None:
    with pytest.raises(ValueError, match="Othello"):
        LoopConfig(spec=GameSpec("go", 9), exact_targets=10)
    with pytest.raises(ValueError, match=">= 0"):
        LoopConfig(spec=GameSpec("othello", 6), exact_targets=-1)


@pytest.mark.slow
def test_self_play_writes_exact_targets_for_late_positions(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from imago.nn.dataset import unpack
    from imago.nn.rl_train import load_window
    from imago.rl.folder import RunFolder, read_infos
    from imago.rl.stages import bootstrap, init, self_play

    folder = RunFolder(tmp_path / "run")
    config = smoke_config(GameSpec("othello", 6)).with_changes(
        {"exact_targets": 8, "selfplay.max_moves": 0, "selfplay.parallel": 4}
    )
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=4, worker="w")
    files = folder.example_files(0)
    infos = [i for path in files for i in read_infos(path)]
    window = load_window(files)
    batch = unpack(window, 4, 6)  # legal4: own stones, opponent's stones, legal, ones
    bits = np.array([1 << (r * 8 + c) for r in range(6) for c in range(6)], dtype=object)
    late = 0
    for planes, value in zip(batch.planes, batch.value, strict=True):
        own, opponent = (int(bits[plane.ravel() > 0].sum()) for plane in planes[:2])
        if 36 - (own | opponent).bit_count() > 8:
            continue
        late += 1
        state = OthelloState.from_bitboards(own, opponent, Color.BLACK, size=6)
        assert value == np.sign(_minimax_lead(state))  # the exact result, not the game's
    assert late > 0 and sum(i["exact_examples"] for i in infos) == late
