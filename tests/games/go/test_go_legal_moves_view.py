"""``GoPosition.legal_moves()``: a read-only sequence laid over the words in front of the
position's kernel arrays, where the kernel wrote the addresses of the legal moves' cached
``Move`` objects::

    arena:  [header][move table: nn + 1 addresses][legal moves' addresses | full array] ...
                                                   ^ the view             ^ the position

Whatever made the position (a move, a constructor, unpickling, a new arena), the view gives
``moves_table(size)[a]`` for each of ``legal_actions()``, the very objects, and stays valid
as long as it lives.
"""

from __future__ import annotations

import copy
import gc
import itertools
import pickle
import threading
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason
from imago.core.move import Move, Point
from imago.games.go import GoPosition, LegalMoves, moves_table, new_game
from imago.games.go import position as go_position


def _played(size: int, moves: int, seed: int = 1) -> GoPosition:
    rng = np.random.default_rng(seed)
    position = new_game(size)
    for _ in range(moves):
        if position.is_over():
            break
        legal = position.legal_actions()
        position = position.play_action(int(legal[rng.integers(len(legal) - 1 or 1)]))
    return position


def _passed_twice() -> GoPosition:
    return new_game(9).play(Move.PASS).play(Move.PASS)


_DIAGRAM = """
    . X O . .
    X . X O .
    . X O . .
    . . . . .
    . . . . .
"""

# how each position was made: every path that writes a position's list of moves
_MADE: dict[str, Callable[[], GoPosition]] = {
    "empty 9x9": lambda: new_game(9),
    "empty 19x19": lambda: new_game(19),
    "empty 2x2": lambda: new_game(2),
    "handicap 4": lambda: new_game(19, handicap=4),
    "from a diagram (ko and suicide points)": lambda: GoPosition.from_diagram(_DIAGRAM),
    "with_setup": lambda: new_game(9).with_setup(black=[Point(4, 4)], white=[Point(3, 4)]),
    "played 40 moves": lambda: _played(9, 40),
    "played into several arenas": lambda: _played(9, 150, seed=3),
    "played 13x13, 120 moves": lambda: _played(13, 120),
    "resumed after two passes": lambda: _passed_twice().resume(),
    "from_state": lambda: GoPosition.from_state(_played(9, 20).arrays(), _played(9, 19)),
    "unpickled": lambda: pickle.loads(pickle.dumps(_played(9, 30))),
    "a move of another colour": lambda: _played(9, 10).play(
        _played(9, 10).legal_moves()[0], Color.WHITE
    ),
}


@pytest.mark.parametrize("make", _MADE.values(), ids=_MADE.keys())
def test_the_view_gives_the_cached_move_of_each_legal_action(
    make: Callable[[], GoPosition],
) -> None:
    position = make()
    table = moves_table(position.size)
    actions = position.legal_actions().tolist()
    moves = position.legal_moves()
    assert len(moves) == len(actions) > 0
    assert all(moves[i] is table[a] for i, a in enumerate(actions))
    assert list(moves) == [table[a] for a in actions]
    assert moves[-1] is Move.PASS and moves[-len(actions)] is table[actions[0]]


def test_a_finished_game_has_no_legal_moves() -> None:
    over = _passed_twice()
    assert len(over.legal_moves()) == 0 and list(over.legal_moves()) == []
    with pytest.raises(IndexError):
        over.legal_moves()[0]


def test_the_view_is_a_sequence_of_moves() -> None:
    position = _played(9, 25)
    moves = position.legal_moves()
    expected = tuple(moves_table(9)[a] for a in position.legal_actions().tolist())
    assert isinstance(moves, Sequence) and isinstance(moves, LegalMoves)
    assert moves[2:5] == list(expected[2:5])  # a slice is a list
    assert list(reversed(moves)) == list(reversed(expected))
    assert moves.as_tuple() == expected and tuple(moves) == expected
    assert moves == expected and moves == list(expected) and moves == position.legal_moves()
    assert moves != expected[:-1] and hash(moves) == hash(expected)
    assert moves.index(expected[3]) == 3 and moves.count(expected[3]) == 1
    with pytest.raises(IndexError):
        moves[len(expected)]


@pytest.mark.parametrize(
    ("move", "inside"),
    [
        (Move.PASS, True),
        (Move.RESIGN, False),
        (Move.play(Point(40, 0)), False),  # off the board
        ("D4", False),  # not a move
    ],
)
def test_membership(move: object, inside: bool) -> None:
    assert (move in new_game(9).legal_moves()) is inside


def test_occupied_points_are_not_members() -> None:
    position = new_game(9).play(Move.play(Point(4, 4)))
    moves = position.legal_moves()
    assert Move.play(Point(4, 4)) not in moves and Move.play(Point(4, 5)) in moves
    assert moves.count(Move.play(Point(4, 4))) == 0
    with pytest.raises(ValueError):
        moves.index(Move.play(Point(4, 4)))


def test_the_view_cannot_be_changed() -> None:
    position = _played(9, 12)
    moves = position.legal_moves()
    before = list(moves)
    with pytest.raises(TypeError):
        moves[0] = Move.PASS
    with pytest.raises(TypeError):
        del moves[0]
    assert list(moves) == before == list(position.legal_moves())


def test_the_view_outlives_its_position_and_its_game() -> None:
    moves = _played(9, 60, seed=5).legal_moves()
    expected = [str(m) for m in moves]
    gc.collect()
    for seed in range(6):  # other games take memory the old one might have left
        _played(9, 120, seed=seed)
    gc.collect()
    assert [str(m) for m in moves] == expected


@pytest.mark.parametrize(
    "clone", [copy.copy, copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))]
)
def test_a_copied_view_is_the_same_moves(clone: Callable[[LegalMoves], LegalMoves]) -> None:
    moves = _played(9, 33).legal_moves()
    assert clone(moves) == moves


def test_a_resigned_game_is_over_and_refuses_every_move() -> None:
    position = _played(9, 15)
    resigned = position.play(Move.RESIGN)
    assert isinstance(resigned, GoPosition) and resigned.is_over()
    assert resigned.resigned == position.to_play and len(resigned.legal_moves()) == 0
    for move in (position.legal_moves()[0], Move.PASS, Move.RESIGN):
        with pytest.raises(IllegalMoveError) as refused:
            resigned.play(move)
        assert refused.value.reason is IllegalReason.GAME_OVER
    again = pickle.loads(pickle.dumps(resigned))
    assert again.resigned == resigned.resigned and again == resigned
    assert position.play(position.legal_moves()[0]).resigned is None


def test_views_are_made_right_when_threads_meet_new_board_sizes() -> None:
    sizes = [3, 4, 6, 8, 10, 11, 12, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24, 25]
    errors: list[BaseException] = []

    def work(size: int) -> None:
        try:
            position = _played(size, 8)
            assert list(position.legal_moves()) == [
                moves_table(size)[a] for a in position.legal_actions().tolist()
            ]
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(size,)) for size in sizes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    views = go_position._VIEW_AT
    assert all(len(view(0)) == n for n, view in enumerate(views))  # a view's type, its length


def test_a_long_game_takes_ever_larger_arenas_up_to_the_cap() -> None:
    position = new_game(19)
    sizes: list[int] = []
    arena = None
    rng = np.random.default_rng(2)
    for _ in range(400):
        if position._s is not arena:
            arena = position._s
            sizes.append(arena.shape[0])
        legal = position.legal_actions()
        position = position.play_action(int(legal[rng.integers(len(legal) - 1)]))
    most = go_position._ARENA_MOST_WORDS
    assert sizes[0] == go_position._ARENA_WORDS and len(sizes) > 4
    assert all(b == min(2 * a, most) for a, b in itertools.pairwise(sizes))
    assert sizes[-1] == most


def test_writing_through_a_numpy_array_of_a_view_frees_no_move() -> None:
    # np.asarray shares a ctypes array's memory, and each write drops a reference from the
    # object the item held: the table's moves have a margin no program can use up
    table = moves_table(9)
    kept = _played(9, 30, seed=11)
    actions = kept.legal_actions().tolist()
    for seed in range(40):
        position = _played(9, 30, seed=seed)
        shared = np.asarray(position.legal_moves())
        assert not shared.flags.owndata
        shared[:] = None
    gc.collect()
    assert [m.to_gtp(9) for m in table] == [Move.from_action(a, 9).to_gtp(9) for a in range(82)]
    assert kept.legal_actions().tolist() == actions
    assert list(kept.legal_moves()) == [table[a] for a in actions]
    copied = np.array(kept.legal_moves())  # a copy: its writes stay in it
    copied[:] = None
    assert list(kept.legal_moves()) == [table[a] for a in actions]


def test_a_full_array_adopted_into_a_full_arena_is_refused() -> None:
    from imago.games.go import _kernels as K

    position = _played(9, 5)
    full = position._full()
    arena = go_position._new_arena(position._f, full.shape[0])
    first = K.adopt(arena, full, 9)
    assert first > 0 and arena[first : first + full.shape[0]].tolist() == full.tolist()
    while K.adopt(arena, full, 9) > 0:
        pass
    assert K.adopt(arena, full, 9) == -1  # no room: nothing written
