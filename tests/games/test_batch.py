"""Batches of games stepped together agree with the rules' public API, move by move."""

from __future__ import annotations

import numpy as np
import pytest

from imago.core.errors import IllegalMoveError
from imago.games import make
from imago.games.go import GoRules
from imago.games.go.batch import GoBatch
from imago.games.othello.batch import OthelloBatch


def _random_games(game: str, size: int, rules: GoRules | None, n: int, seed: int) -> None:
    """Play ``n`` random games in a batch and through the public API side by side."""
    rng = np.random.default_rng(seed)
    options = {"size": size} if rules is None else {"size": size, "rules": rules}
    states = [make(game, **options) for _ in range(n)]
    batch = (
        GoBatch(n, size, rules, history=3, max_moves=500)
        if game == "go"
        else OthelloBatch(n, size, history=3)
    )
    for _ in range(400):
        if all(s.is_over() for s in states):
            break
        mask = batch.legal_mask()
        actions = np.zeros(n, dtype=np.int64)
        for i, state in enumerate(states):
            assert batch.done[i] == state.is_over()
            if state.is_over():
                assert not mask[i].any()
                continue
            assert (mask[i] == state.legal_mask()).all()
            assert (batch.board(i) == state.board()).all()
            assert batch.to_play()[i] == int(state.to_play)
            previous = state.previous
            if previous is not None:  # history: the board one move back
                assert (batch.boards[i, 1] == previous.board().ravel()).all()
            actions[i] = rng.choice(np.flatnonzero(mask[i]))
        active = ~batch.done
        status = batch.step(actions, active)
        assert (status[active] == 0).all()
        for i in np.flatnonzero(active):
            states[i] = states[i].play_action(int(actions[i]))
    for i, state in enumerate(states):
        outcome = state.outcome()
        area = rules is not None and rules.scoring.value == "area"
        if outcome is not None and area:  # the batch counts area, as self-play scores
            b, w = outcome.black_score, outcome.white_score
            assert b is not None and w is not None
            assert batch.scores()[i] == pytest.approx(b - w)


@pytest.mark.parametrize(
    ("game", "size", "rules"),
    [
        ("go", 5, GoRules.preset("chinese")),
        ("go", 7, GoRules.preset("japanese")),
        ("go", 9, GoRules.preset("tromp-taylor")),
        ("othello", 4, None),
        ("othello", 6, None),
        ("othello", 8, None),
    ],
)
def test_batches_agree_with_the_public_api(game: str, size: int, rules: GoRules | None) -> None:
    _random_games(game, size, rules, 12, seed=size)


def test_othello_scores_give_the_empties_to_the_winner() -> None:
    # White has been wiped out with squares still empty: Black wins by discs + empties.
    from imago.games.othello import OthelloState

    state = OthelloState.from_board_string("X" * 20 + "-" * 16, "O", size=6)
    batch = OthelloBatch.from_states([state])
    assert batch.done[0]
    assert batch.scores()[0] == 36


def test_a_refused_move_changes_nothing_and_says_why() -> None:
    batch = GoBatch(2, 5)
    batch.step(np.array([12, 12]))  # both play the centre
    before = batch.fulls.copy()
    status = batch.step(np.array([12, 6]))  # game 0: occupied
    assert status[0] != 0 and status[1] == 0
    assert (batch.fulls[0] == before[0]).all()
    with pytest.raises(IllegalMoveError, match="game 0"):
        batch.step_strict(np.array([12, 7]))
    with pytest.raises(ValueError, match="outside"):
        batch.step(np.array([99, 0]))
    with pytest.raises(ValueError, match="expected 2 actions"):
        batch.step(np.array([0]))
    othello = OthelloBatch(1, 6)
    assert othello.step(np.array([36]))[0] != 0  # passing with moves available


def test_positions_with_history_come_in_whole() -> None:
    state = make("go", size=9)
    for text in ("E5", "C3", "pass"):
        state = state.play(state.parse_move(text))
    batch = GoBatch.from_positions([state], history=4)
    assert batch.moves[0] == 3
    assert (batch.boards[0, 0] == state.board().ravel()).all()
    assert (batch.boards[0, 3] == 0).all()  # the empty board, repeated before the start
    assert not batch.done[0]
    batch.step(np.array([81]))  # a second pass ends it
    assert batch.done[0] and not batch.legal_mask()[0].any()
    batch.reset()
    assert batch.moves[0] == 0 and not batch.done[0]
