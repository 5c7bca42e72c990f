"""The shared contract every game state must keep (``imago.core.GameState``), per game."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from imago.core import GameState, IllegalMoveError, InvalidMoveError, Move, Point
from imago.games import make

GAMES = [
    pytest.param(("go", {"size": 9}), id="go-9"),
    pytest.param(("go", {"size": 19}), id="go-19"),
    pytest.param(("othello", {}), id="othello"),
]


@pytest.fixture(params=GAMES)
def start(request: pytest.FixtureRequest) -> GameState:
    name, options = request.param
    return make(name, **options)  # a game that fails to import fails here, loudly


def snapshot(state: GameState) -> tuple[object, ...]:
    return (
        state.board().tobytes(),
        state.key,
        state.to_play,
        state.move_number,
        state.legal_mask().tobytes(),
        state.is_over(),
    )


def random_line(state: GameState, seed: int, limit: int) -> list[GameState]:
    rng = random.Random(seed)
    line = [state]
    while not state.is_over() and len(line) < limit:
        sensible = getattr(state, "sensible_moves", None)
        moves = list(sensible()) if sensible else list(state.legal_moves())
        plays = [m for m in moves if m.is_play]
        state = state.play(rng.choice(plays) if plays else Move.PASS)
        line.append(state)
    return line


def test_protocol(start: GameState):
    assert isinstance(start, GameState)
    assert start.num_actions == start.size * start.size + 1
    assert start.previous is None and start.last_move is None and start.move_number == 0
    assert start.outcome() is None


def test_random_games_reach_the_end(start: GameState):
    for seed in range(2):
        line = random_line(start, seed, limit=5 * start.size * start.size)
        end = line[-1]
        assert end.is_over(), f"{start.game} game did not end in {len(line)} moves"
        outcome = end.outcome()
        assert outcome is not None and outcome.result()
        assert end.legal_mask().sum() == 0 and len(end.legal_moves()) == 0


def test_play_never_mutates_and_links_history(start: GameState):
    line = random_line(start, 7, 60)
    for before, after in itertools.pairwise(line):
        assert after.previous is before
        assert after.move_number == before.move_number + 1
        saved = snapshot(before)
        assert after.last_move is not None
        replay = before.play(after.last_move)
        assert snapshot(before) == saved
        assert replay.key == after.key


def test_legal_mask_agrees_with_legal_moves(start: GameState):
    for state in random_line(start, 3, 40):
        mask = state.legal_mask()
        assert mask.dtype == np.bool_ and mask.shape == (state.num_actions,)
        actions = [m.to_action(state.size) for m in state.legal_moves()]
        assert actions == sorted(actions)
        assert set(actions) == set(np.flatnonzero(mask).tolist())
        for move in state.legal_moves():
            assert state.is_legal(move)


def test_action_index_round_trips(start: GameState):
    for state in random_line(start, 5, 20):
        for move in state.legal_moves():
            action = move.to_action(state.size)
            assert Move.from_action(action, state.size) == move
            assert state.play_action(action).key == state.play(move).key


def test_parse_and_format_round_trip(start: GameState):
    size = start.size
    for action in range(size * size + 1):
        move = Move.from_action(action, size)
        text = start.format_move(move)
        assert start.parse_move(text) == move
        assert start.parse_move(text.lower()) == move
    with pytest.raises(InvalidMoveError):
        start.parse_move("zz99")


def test_with_setup(start: GameState):
    state = random_line(start, 11, 10)[-1]
    board = state.board()
    empty = [Point(r, c) for r in range(state.size) for c in range(state.size) if board[r, c] == 0]
    black = [Point(r, c) for r in range(state.size) for c in range(state.size) if board[r, c] == 1]
    saved = snapshot(state)
    edited = state.with_setup(white=empty[:1], empty=black[:1], to_play=state.to_play.opponent)
    assert snapshot(state) == saved
    assert edited.move_number == state.move_number
    assert edited.to_play is state.to_play.opponent
    after = edited.board()
    assert after[empty[0].row, empty[0].col] == 2
    assert after[black[0].row, black[0].col] == 0
    assert edited.key != state.key


def test_illegal_move_raises_and_changes_nothing(start: GameState):
    state = random_line(start, 13, 6)[-1]
    board = state.board()
    occupied = next(
        Point(r, c) for r in range(state.size) for c in range(state.size) if board[r, c]
    )
    move = Move.play(occupied)
    saved = snapshot(state)
    assert not state.is_legal(move)
    with pytest.raises(IllegalMoveError):
        state.play(move)
    assert snapshot(state) == saved
    with pytest.raises(InvalidMoveError):
        state.play(Move.play(Point(state.size, 0)))
    assert snapshot(state) == saved
