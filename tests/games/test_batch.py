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
            back = state  # history: the board k moves back (the oldest repeated before them)
            for k in range(batch.history):
                assert (batch.boards[i, k] == back.board().ravel()).all(), k
                back = back.previous or back
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


def _play_out(batch: GoBatch | OthelloBatch, rng: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        mask = batch.legal_mask()
        live = ~batch.done
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        batch.step(actions, live)


@pytest.mark.parametrize("game", ["go", "othello"])
def test_reset_games_equal_a_fresh_batch(game: str) -> None:
    # The reset kernel puts every array of a game back as a new batch has it.
    def new() -> GoBatch | OthelloBatch:
        return GoBatch(6, 5, history=3) if game == "go" else OthelloBatch(6, 6, history=3)

    batch, fresh = new(), new()
    _play_out(batch, np.random.default_rng(3), 30)
    batch.reset([1, 4])
    arrays = ("fulls",) if game == "go" else ("black", "white", "colors")
    for i in (1, 4):
        for name in (*arrays, "boards", "moves", "done"):
            assert (getattr(batch, name)[i] == getattr(fresh, name)[i]).all(), name
        assert (batch.legal_mask()[i] == fresh.legal_mask()[i]).all()
    assert batch.moves[0] == 30  # the others are untouched
    with pytest.raises(IndexError):
        batch.reset([6])


def test_over_tells_the_rules_end_from_the_move_cap() -> None:
    go = GoBatch(2, 5, max_moves=3)
    go.step(np.array([25, 0]))  # game 0 passes, game 1 plays
    go.step(np.array([25, 1]))  # game 0: two passes, over by the rules
    assert go.done[0] and go.over()[0]
    go.step(np.array([0, 2]), ~go.done)  # game 1: third move, stopped by the cap
    assert go.done[1] and not go.over()[1]
    othello = OthelloBatch(1, 6, max_moves=2)
    othello.step(othello.legal_mask().argmax(axis=1))
    assert not othello.done[0]
    othello.step(othello.legal_mask().argmax(axis=1))
    assert othello.done[0] and not othello.over()[0] and not othello.legal_mask()[0].any()


@pytest.mark.parametrize("rules", ["chinese", "japanese"])
def test_go_games_come_out_as_positions_scored_by_their_rules(rules: str) -> None:
    preset = GoRules.preset(rules)
    rng = np.random.default_rng(11)
    states = [make("go", size=5, rules=preset) for _ in range(8)]
    batch = GoBatch(8, 5, preset, max_moves=200)
    while not batch.done.all():
        mask = batch.legal_mask()
        actions = np.zeros(8, dtype=np.int64)
        for i, state in enumerate(states):
            if not batch.done[i]:
                actions[i] = rng.choice(np.flatnonzero(mask[i]))
                states[i] = state.play_action(int(actions[i]))
        batch.step(actions, ~batch.done)
    scores = batch.scores(np.arange(8), scoring=preset.scoring)
    for i, state in enumerate(states):
        position = batch.position(i)
        assert (position.board() == state.board()).all()
        assert position.move_number == state.move_number
        assert position.captures(state.to_play) == state.captures(state.to_play)
        outcome = state.outcome()
        assert outcome is not None and outcome.black_score is not None
        assert outcome.white_score is not None
        assert scores[i] == pytest.approx(outcome.black_score - outcome.white_score)
    assert (batch.scores([5, 2]) == batch.scores()[[5, 2]]).all()


def test_a_position_from_the_batch_keeps_the_superko_history() -> None:
    # Random 4x4 games reach positions where positional superko forbids moves that simple ko
    # allows; the position taken out of the batch forbids exactly what the public API does.
    from imago.games.go import fastpath

    rules = GoRules.preset("chinese")
    rng = np.random.default_rng(5)
    no_keys = np.zeros(0, dtype=np.int64)
    buffer = np.zeros(17, dtype=np.int64)
    superko_mattered = 0
    for _ in range(30):
        batch = GoBatch(1, 4, rules, max_moves=200)
        state = make("go", size=4, rules=rules)
        while not batch.done[0]:
            action = int(rng.choice(np.flatnonzero(batch.legal_mask()[0])))
            batch.step(np.array([action]))
            state = state.play_action(action)
            position = batch.position(0)
            assert (position.legal_mask() == state.legal_mask()).all()
            simple = fastpath.legal_actions(
                position.arrays(), 4, int(state.to_play), False, fastpath.KO_SIMPLE, no_keys, buffer
            )
            superko_mattered += simple != len(state.legal_moves()) and not state.is_over()
    assert superko_mattered > 0


def test_othello_states_come_out_of_the_batch() -> None:
    batch = OthelloBatch(3, 6)
    _play_out(batch, np.random.default_rng(2), 9)
    for i in range(3):
        state = batch.state(i)
        assert (state.board() == batch.board(i)).all()
        assert int(state.to_play) == batch.to_play()[i]
        assert (state.legal_mask() == batch.legal_mask()[i]).all()
        assert state.move_number == batch.moves[i]


@pytest.mark.parametrize("draw", [0.0, 0.24, 0.5, 0.77, 0.999999])
def test_go_random_legal_reads_the_draws_share_of_the_legal_list(draw: float) -> None:
    """The ``floor(draw * k)``-th of a game's ``k`` legal actions, as the mask orders them
    (pass last); 0 for a game that is over."""
    batch = GoBatch(32, 7, GoRules.preset("chinese"))
    rng = np.random.default_rng(4)
    for _ in range(40):
        masks = batch.legal_mask()
        picks = batch.random_legal(np.full(batch.n, draw))
        for i in range(batch.n):
            columns = np.flatnonzero(masks[i])
            expected = int(columns[int(draw * len(columns))]) if len(columns) else 0
            assert picks[i] == expected
        batch.step(batch.random_legal(rng.random(batch.n)))
    batch.done[3] = True
    assert batch.random_legal(np.full(batch.n, draw))[3] == 0
    with pytest.raises(ValueError, match="expected 32 draws"):
        batch.random_legal(np.zeros(5))
