"""Issue 42: a Go position anyone can trust. Bad input raises a clear error (never a crash),
long games copy and pickle, crafted pickles are refused, views cannot be made writeable, and
the source holds no object-layout or raw-pointer tricks. Each test names the issue's item."""

from __future__ import annotations

import copy
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import imago
from imago.core import Color, Move, Point
from imago.games.go import GoPosition, GoRules, new_game
from imago.games.go import _kernels as K
from imago.games.go import position as go_position

SRC = Path(imago.__file__).parent
UNSAFE = re.compile(
    r"c_ssize_t\.from_address|py_object|from_address\(|pythonapi\.|inttoptr|meminfo|raw_memmove"
    r"|\bborrowed\(|int64_pointer|move_words"
)


def _random_line(size: int, moves: int, seed: int, rules: str = "computer") -> list[GoPosition]:
    """A random game of ``moves`` moves that passes only when it must (resumed when over)."""
    rng = np.random.default_rng(seed)
    line = [new_game(size, GoRules.preset(rules, size))]
    while len(line) <= moves:
        last = line[-1]
        if last.is_over():
            line.append(last.resume())
            continue
        legal = last.legal_moves()
        pick = int(rng.integers(len(legal) - 1)) if len(legal) > 1 else 0
        line.append(last.play(legal[pick]))
    return line


# -- item 1: colours --------------------------------------------------------------------------
@pytest.mark.parametrize("color", [3, 0, -1, 1_000_000, "black"])
def test_item1_a_bad_colour_raises_and_changes_nothing(color: object) -> None:
    position = new_game(9)
    move = Move.play(Point(4, 4))
    with pytest.raises(ValueError, match="colour"):
        position.play(move, color)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="colour"):
        position.is_legal(move, color)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="colour"):
        position.illegal_reason(move, color)  # type: ignore[arg-type]
    assert position == new_game(9) and position.to_play is Color.BLACK
    assert position.play(move, 2).color_at(Point(4, 4)) is Color.WHITE  # an int colour is fine


# -- item 2: history copied and pickled without recursion --------------------------------------
def test_item2_a_3000_move_game_pickles_and_deep_copies() -> None:
    last = _random_line(9, 3000, seed=2)[-1]
    assert copy.deepcopy(last) is last and copy.copy(last) is last  # immutable
    again = pickle.loads(pickle.dumps(last))
    walk_a: GoPosition | None = again
    walk_b: GoPosition | None = last
    while walk_b is not None:
        assert walk_a is not None and walk_a == walk_b
        assert walk_a.last_move == walk_b.last_move
        assert np.array_equal(walk_a.legal_actions(), walk_b.legal_actions())
        assert np.array_equal(walk_a.superko_keys(), walk_b.superko_keys())
        walk_a, walk_b = walk_a.previous, walk_b.previous
    assert walk_a is None


# -- item 3: no packed field that overflows ------------------------------------------------------
def test_item3_more_than_65536_superko_keys_keep_the_legal_count() -> None:
    size = 9
    frame = go_position._frame(size, GoRules.preset("computer", size))
    keys = np.unique(np.random.default_rng(3).integers(1, 2**62, 70_000, dtype=np.int64))
    full = K._finish(K.new_state(size), size, frame.suicide, frame.mode, keys, True, -1)
    position = GoPosition._make(full, frame, None, None)
    assert len(position.legal_moves()) == size * size + 1
    assert position.superko_keys().shape[0] == keys.shape[0] + 1
    child = position.play(Move.play(Point(4, 4)))
    assert len(child.legal_moves()) == size * size
    assert child.superko_keys().shape[0] == keys.shape[0] + 2
    assert child.color_at(Point(4, 4)) is Color.BLACK


# -- item 4: unpickled positions checked like any input -----------------------------------------
def _crafted(position: GoPosition, change: int) -> bytes:
    function, (size, rules, links) = position.__reduce__()
    board, header, last, resigned = links[-1]
    if change == 0:  # a stone of value 7
        board = b"\x07" + board[1:]
    elif change == 1:  # Black's turn to be 3
        header = (3, *header[1:])
    elif change == 2:  # a ko point off the board
        header = (header[0], 10_000, *header[2:])
    elif change == 3:  # a board of the wrong length
        board = board + b"\x00"
    elif change == 4:  # a group without liberties
        board = b"\x01\x02" + board[2:9] + b"\x02" + board[10:]
    elif change == 5:  # not a move
        last = "a1"
    links[-1] = (board, header, last, resigned)
    return pickle.dumps((function, size, rules, links))


@pytest.mark.parametrize("change", range(6))
def test_item4_a_crafted_pickle_raises_a_clear_error(change: int) -> None:
    position = new_game(9).play(Move.play(Point(6, 6)))
    function, size, rules, links = pickle.loads(_crafted(position, change))
    with pytest.raises(ValueError):
        function(size, rules, links)


def test_item4_unpickling_never_trusts_the_legal_list() -> None:
    # the legal list is not in the pickle at all: it is computed again
    position = new_game(5).play(Move.play(Point(2, 2)))
    _, (_, _, links) = position.__reduce__()
    assert all(len(link) == 4 for link in links)
    again = pickle.loads(pickle.dumps(position))
    assert not again.is_legal(Move.play(Point(2, 2)))
    assert 12 not in again.legal_actions().tolist()


# -- item 5: views cannot be made writeable -----------------------------------------------------
def test_item5_legal_actions_cannot_be_made_writeable() -> None:
    position = new_game(9).play(Move.play(Point(0, 0)))
    for actions in (position.legal_actions(), position.legal_moves().actions()):
        with pytest.raises(ValueError):
            actions.flags.writeable = True
        with pytest.raises(ValueError):
            actions[0] = 0
    from imago.core.errors import IllegalMoveError

    with pytest.raises(IllegalMoveError):
        position.play(Move.play(Point(0, 0)))


def test_item5_an_array_over_the_legal_moves_changes_no_position() -> None:
    position = new_game(5)
    moves = np.asarray(list(position.legal_moves()), dtype=object)
    moves[:] = None
    assert all(isinstance(m, Move) for m in position.legal_moves())
    assert position.play(position.legal_moves()[0]).move_number == 1


# -- items 6 and 7: no borrowed temporaries, nothing that depends on CPython's layout -----------
def test_items6_7_the_source_holds_no_raw_pointer_or_object_layout_tricks() -> None:
    found = [
        f"{path.relative_to(SRC)}:{number}"
        for path in sorted(SRC.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if UNSAFE.search(line)
    ]
    assert found == []
    assert "ctypes" not in (SRC / "games" / "go" / "position.py").read_text()


# -- item 8: memory proportional to what a position holds ---------------------------------------
def test_item8_children_and_copies_take_what_they_hold() -> None:
    line = _random_line(19, 200, seed=8)
    parent = line[-1]
    children = [parent.play(move) for move in parent.legal_moves()]
    held = parent._s.nbytes
    assert max(child._s.nbytes for child in children) <= held + 64 * 8 + 8
    again = pickle.loads(pickle.dumps(line[3]))
    assert again._s.nbytes < 40_000  # a 19x19 position's state and its few keys


# -- the step kernel checks what it is given (the public fastpath.advance and play's own entry) --
def test_the_step_kernel_refuses_arrays_and_arguments_that_do_not_fit() -> None:
    from imago.games.go import fastpath

    position = _random_line(9, 30, seed=6)[-1]
    full = position._s
    keys = int(full[position._f.length + position._f.nn + 2])
    room = np.full(position._f.keys_at + keys + 1, -7, dtype=np.int64)
    action = int(position.legal_actions()[0])
    assert fastpath.advance(full, room, 9, action, 0, False, K.KO_POSITIONAL) < 0  # it fits
    for out, size, move, color in [
        (room[:-1], 9, action, 0),  # no room for the new key
        (room, 9, 81 + 1, 0),  # off the board
        (room, 9, -1, 0),
        (room, 9, action, 3),  # not a colour
        (room, 9, action, 1_000_000),
        (room, 10, action, 0),  # a 10x10 board does not fit a 9x9 array
        (room, 1, 0, 0),
    ]:
        spare = np.full_like(out, -7)
        assert fastpath.advance(full, spare, size, move, color, False, 1) == K.BAD_INPUT
        assert (spare == -7).all()  # nothing written
    code = K.rules_code(9, False, K.KO_POSITIONAL)
    assert go_position._advance(full, room[:-1], code, action) == K.BAD_INPUT
    assert go_position._advance(full, room, code | 3 << 8, action) == K.BAD_INPUT
