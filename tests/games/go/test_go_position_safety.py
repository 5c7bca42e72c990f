"""Go positions are values: immutable from outside, safe to share between threads."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

from imago.core.move import Move
from imago.games import make
from imago.games.go import GoPosition, GoRules, new_game


def test_internal_arrays_are_never_handed_out_writable() -> None:
    position = make("go", size=9).play(Move.from_gtp("E5", 9))
    with pytest.raises(ValueError, match="read-only"):
        position.legal_actions()[0] = 7
    keys = position.superko_keys()
    keys[0] = 7  # a copy: the position's history does not change
    assert position.superko_keys()[0] != 7
    copy = position.arrays()
    copy[0] = 2  # a copy: the position does not change
    assert position.board()[0, 0] == 0


def test_a_resigned_position_leaves_its_parent_intact() -> None:
    # A resignation (which has no board of its own to make) must not change its parent's,
    # nor free it for another position, when it dies.
    parent = make("go", size=9).play(Move.from_gtp("E5", 9))
    before = parent.board().copy()
    resigned = parent.play(Move.RESIGN)
    del resigned
    state = make("go", size=9)
    for point in ("A1", "B2", "C3", "D4", "F6", "G7"):
        state = state.play(Move.from_gtp(point, 9))
    assert (parent.board() == before).all()
    assert parent.is_legal(Move.from_gtp("A1", 9))


def test_value_equality_ignores_the_move_order() -> None:
    start = make("go", size=9)
    a = start.play(Move.from_gtp("C3", 9)).play(Move.from_gtp("G7", 9)).play(Move.from_gtp("E5", 9))
    b = start.play(Move.from_gtp("E5", 9)).play(Move.from_gtp("G7", 9)).play(Move.from_gtp("C3", 9))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != a.play(Move.PASS)  # the side to move differs
    assert a != start and a != "a position"


def test_threads_playing_at_once_keep_every_position_right() -> None:
    # Three threads play and drop random games at once (positions die in any thread); every
    # position must stay what it was made.
    errors: list[str] = []

    def play(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(30):
            states: list[GoPosition] = [make("go", size=7)]  # type: ignore[list-item]
            boards = [states[0].board().copy()]
            while not states[-1].is_over() and len(states) < 80:
                moves = states[-1].legal_moves()
                states.append(states[-1].play(moves[int(rng.integers(len(moves)))]))
                boards.append(states[-1].board().copy())
            for state, board in zip(states, boards, strict=True):
                if not (state.board() == board).all():
                    errors.append(f"seed {seed}: a position changed under another thread")
                    return

    threads = [threading.Thread(target=play, args=(seed,)) for seed in (1, 2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_a_pickled_position_keeps_its_history_and_rules() -> None:
    # positions travel to worker processes (the arena, self-play) by pickle
    position = new_game(9, GoRules.preset("japanese"))
    for text in ("E5", "D5", "pass"):
        position = position.play(position.parse_move(text))
    copy = pickle.loads(pickle.dumps(position))
    assert copy == position and copy.rules == position.rules
    assert [m.to_gtp(9) for m in copy.legal_moves()] == [
        m.to_gtp(9) for m in position.legal_moves()
    ]
    assert copy.previous == position.previous and copy.previous.previous is not None
    assert copy.superko_keys().tolist() == position.superko_keys().tolist()
    assert copy.play(copy.parse_move("C3")) == position.play(position.parse_move("C3"))
    assert copy._f is position._f  # the game's shared frame, not a copy per position
