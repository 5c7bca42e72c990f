"""OthelloState as a GameState: notation, actions and masks, errors, setup, bitboards, Zobrist
keys, symmetries, FFO positions, and random games checked move by move against a plain mover."""

from __future__ import annotations

import random
import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from othello_reference import legal as reference_legal
from othello_reference import play as reference_play
from othello_reference import start as reference_start

from imago.core import (
    Color,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Outcome,
    Point,
)
from imago.games import make
from imago.games.othello import OthelloState, bitboard, new_game
from imago.games.symmetry import (
    SYMMETRIES,
    image_table,
    inverse,
    transform_action,
    transform_planes,
    transform_point,
    transform_policy,
)


def random_states(size: int, games: int, seed: int) -> list[OthelloState]:
    """Every state of ``games`` random games."""
    rng = random.Random(seed)
    states = []
    for _ in range(games):
        state = new_game(size)
        states.append(state)
        while not state.is_over():
            state = state.play(rng.choice(state.legal_moves()))
            states.append(state)
    return states


def test_start_position_and_registry():
    state = make("othello")
    assert isinstance(state, OthelloState) and isinstance(state, GameState)
    assert state.game == "othello" and state.size == 8 and state.num_actions == 65
    assert state.to_play is Color.BLACK and state.move_number == 0
    assert state.previous is None and state.last_move is None
    board = state.board()
    assert board.shape == (8, 8) and board.dtype == np.int8
    assert board[3, 3] == board[4, 4] == Color.WHITE  # d4, e5
    assert board[4, 3] == board[3, 4] == Color.BLACK  # d5, e4
    assert int(np.count_nonzero(board)) == 4
    assert [state.format_move(m) for m in state.legal_moves()] == ["d3", "c4", "f5", "e6"]
    assert make("othello", size=6).board().shape == (6, 6)
    with pytest.raises(ValueError):
        make("othello", size=7)
    with pytest.raises(TypeError):
        make("othello", komi=1)


def test_notation_and_actions_round_trip():
    state = new_game()
    f5 = state.parse_move("F5")
    assert f5 == Move.play(Point(4, 5)) and state.format_move(f5) == "f5"
    assert f5.to_action(8) == 37 and state.play_action(37) == state.play(f5)
    assert state.parse_move("pass") == Move.PASS
    for text in ("i1", "a9", "a0", "f", "55", "", "ff"):
        with pytest.raises(InvalidMoveError):
            state.parse_move(text)
    six = new_game(6)
    with pytest.raises(InvalidMoveError):
        six.parse_move("g1")
    with pytest.raises(InvalidMoveError):
        six.play(Move.play(Point(6, 0)))
    with pytest.raises(InvalidMoveError):
        state.play_action(65)
    assert not state.is_legal(Move.play(Point(9, 9)))


def test_resignation():
    state = new_game().play_action(37)
    assert state.is_legal(Move.RESIGN) and Move.RESIGN not in state.legal_moves()
    over = state.play(Move.RESIGN)
    assert over.is_over() and over.resigned is Color.WHITE and over.previous is state
    outcome = over.outcome()
    assert outcome is not None and outcome.result() == "B+R"
    assert state.play(Move.RESIGN, Color.BLACK).outcome() == Outcome(
        Color.WHITE, by_resignation=True
    )
    assert over.legal_moves() == () and not over.legal_mask().any()
    with pytest.raises(IllegalMoveError):
        over.play(Move.RESIGN)


@pytest.mark.parametrize("size", [8, 6])
def test_random_games_agree_with_reference_mover(size: int):
    rng = random.Random(size)
    for _ in range(30):
        state = new_game(size)
        grid, color = reference_start(size), 1
        while True:
            expected = reference_legal(grid, color)
            if not expected:
                color = 3 - color
                if not reference_legal(grid, color):
                    assert state.is_over() and state.legal_moves() == ()
                    break
                assert state.legal_moves() == (Move.PASS,)
                state = state.play(Move.PASS)
                continue
            assert [m.point for m in state.legal_moves()] == [Point(*rc) for rc in expected]
            mask = state.legal_mask()
            actions = [m.to_action(size) for m in state.legal_moves()]
            assert mask.nonzero()[0].tolist() == actions == state.legal_actions().tolist()
            row, col = rng.choice(expected)
            before = state.board().copy()
            child = state.play_action(row * size + col)
            assert (state.board() == before).all()  # play never mutates
            grid, color, state = reference_play(grid, color, row, col), 3 - color, child
            assert state.board().tolist() == grid
            assert state.to_play == color


def test_contract_properties_on_random_states():
    for state in random_states(8, 5, seed=1):
        assert state.previous is None or state.previous.move_number == state.move_number - 1
        moves = state.legal_moves()
        for move in moves:
            assert state.is_legal(move)
            assert Move.from_action(move.to_action(8), 8) == move
        assert state.legal_mask().sum() == len(moves)
        black, white = state.discs()
        assert black + white == int(np.count_nonzero(state.board()))


def test_with_setup_and_board_strings():
    state = new_game().play_action(37)
    setup = state.with_setup(
        black=[Point(0, 0)], white=[Point(4, 5)], empty=[Point(3, 4)], to_play=Color.BLACK
    )
    assert setup.board()[0, 0] == 1 and setup.board()[4, 5] == 2 and setup.board()[3, 4] == 0
    assert setup.move_number == state.move_number and setup.last_move == state.last_move
    assert state.board()[4, 5] == 1  # unchanged
    with pytest.raises(InvalidMoveError):
        state.with_setup(black=[Point(8, 0)])
    text = setup.board_string()
    assert len(text) == 64 and OthelloState.from_board_string(text, "X") == setup
    assert eval(repr(setup), {"OthelloState": OthelloState}) == setup
    assert "a b c d e f g h" in str(setup)
    for bad in ("X" * 63, "Q" * 64, "X" * 50):
        with pytest.raises(ValueError):
            OthelloState.from_board_string(bad)
    assert OthelloState.from_board_string("-" * 36, "white").size == 6


def test_bitboards_round_trip():
    for state in random_states(8, 2, seed=2) + random_states(6, 2, seed=3):
        p, o = state.bitboards()
        assert isinstance(p, np.uint64) and isinstance(o, np.uint64)
        back = OthelloState.from_bitboards(p, o, state.to_play, state.size)
        assert back == state and back.key == state.key
        assert back.legal_moves() == state.legal_moves() and back.is_over() == state.is_over()
        legal = bitboard.legal_moves(p, o) & bitboard.board_mask(state.size)
        assert int(legal) == state.legal_squares()
        for move in state.legal_moves():
            if move.point is not None:
                sq = move.point.row * 8 + move.point.col
                child_p, child_o = bitboard.play(p, o, sq)
                child = state.play(move)
                assert (child_p, child_o) == child.bitboards()
                assert bitboard.popcount(bitboard.flips(p, o, sq)) + 1 == bitboard.popcount(
                    child_o
                ) - bitboard.popcount(p)
    with pytest.raises(ValueError):
        OthelloState.from_bitboards(3, 1)
    with pytest.raises(ValueError):
        OthelloState.from_bitboards(1 << 7, 0, size=6)


def test_zobrist_keys():
    # every line 4 plies deep: transpositions must share a key, other positions must not
    lines = [new_game()]
    for _ in range(4):
        lines = [state.play(move) for state in lines for move in state.legal_moves()]
    assert len(lines) == 244
    keys: dict[tuple[str, Color], set[int]] = {}
    for state in lines:
        keys.setdefault((state.board_string(), state.to_play), set()).add(state.key)
    assert len(keys) < len(lines)  # there are transpositions
    assert all(len(group) == 1 for group in keys.values())
    assert len({key for group in keys.values() for key in group}) == len(keys)
    states = random_states(8, 30, seed=4)
    positions = {(s.board_string(), s.to_play) for s in states}
    assert len({s.key for s in states}) == len(positions)
    start = new_game()
    assert start.key != start.with_setup(to_play=Color.WHITE).key
    assert new_game().key == start.key and hash(new_game()) == hash(start)
    assert new_game(6).key != start.key


def test_symmetries_of_points_actions_and_states():
    assert sorted({transform_point(Point(0, 1), s, 8) for s in SYMMETRIES}) == sorted(
        {Point(0, 1), Point(1, 0), Point(0, 6), Point(6, 0), Point(7, 1), Point(1, 7),
         Point(7, 6), Point(6, 7)}
    )  # fmt: skip
    for size in (8, 6):
        for sym in SYMMETRIES:
            perm = image_table(sym, size)
            assert sorted(perm.tolist()) == list(range(size * size + 1))
            assert perm[-1] == size * size
            undo = image_table(inverse(sym), size)
            assert (undo[perm] == np.arange(size * size + 1)).all()
            assert transform_action(size * size, sym, size) == size * size
    distinct = set()
    for state in random_states(8, 2, seed=5)[::7] + random_states(6, 2, seed=6)[::5]:
        images = []
        for sym in SYMMETRIES:
            image = state.transform(sym)
            assert (image.board() == transform_planes(state.board(), sym)).all()
            assert (
                image.legal_mask() == transform_policy(state.legal_mask(), sym, state.size)
            ).all()
            back = image.transform(inverse(sym))
            assert back == state
            images.append(image.board_string())
        distinct.add((state.size, len(set(images))))
    assert {(8, 8), (6, 8)} <= distinct  # asymmetric positions have 8 distinct images


def ffo_positions(data_dir: Path) -> list[list[str]]:
    lines = []
    for path in sorted((data_dir / "ffo").glob("*.txt")):
        lines += [line.split() for line in path.read_text().splitlines() if line[:1].isdigit()]
    return lines


def test_ffo_positions(data_dir: Path):
    """Edax scores every legal move of the 'all' positions: its move lists must be ours."""
    positions = ffo_positions(data_dir)
    assert len(positions) >= 70
    for number, board, side, best, _score, empties, n_black, n_white, listed, scores in positions:
        state = OthelloState.from_board_string(board, side)
        assert state.to_play is (Color.BLACK if side == "X" else Color.WHITE)
        assert state.discs() == (int(n_black), int(n_white)), number
        assert 64 - sum(state.discs()) == int(empties)
        legal = {state.format_move(m) for m in state.legal_moves()}
        assert set(best.split(",")) <= legal, number
        scored = {item.split(":")[0] for item in scores.split(",")}
        if listed == "all":
            assert scored == legal, number
        else:
            assert scored <= legal, number


def test_errors_leave_the_state_alone():
    state = new_game()
    snapshot = (state.board_string(), state.to_play, state.key, state.move_number)
    for move in (state.parse_move("a1"), state.parse_move("d4"), Move.PASS):
        with pytest.raises(IllegalMoveError):
            state.play(move)
    with pytest.raises(IllegalMoveError):
        state.play(state.parse_move("f5"), Color.WHITE)
    assert (state.board_string(), state.to_play, state.key, state.move_number) == snapshot


def test_random_games_agree_with_openspiel():
    """OpenSpiel's Othello (same action encoding, pass = 64) is an independent implementation."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("othello")
    rng = random.Random(7)
    for _ in range(100):
        theirs = game.new_initial_state()
        ours = new_game()
        while not theirs.is_terminal():
            assert not ours.is_over()
            actions = theirs.legal_actions()
            assert ours.legal_actions().tolist() == actions
            assert ours.to_play == (Color.BLACK if theirs.current_player() == 0 else Color.WHITE)
            action = rng.choice(actions)
            theirs.apply_action(action)
            ours = ours.play_action(action)
        assert ours.is_over()
        outcome = ours.outcome()
        assert outcome is not None
        black_return = theirs.returns()[0]
        expected = Color.BLACK if black_return > 0 else Color.WHITE if black_return < 0 else None
        assert outcome.winner == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="XOxo*-. \nQ1", max_size=80), st.sampled_from(["X", "O", "black", "w"]))
def test_board_string_fuzz(text: str, side: str):
    try:
        state = OthelloState.from_board_string(text, side)
    except ValueError:
        return
    cells = "".join(text.split())
    assert len(cells) == state.size**2
    black, white = state.discs()
    assert black == sum(c in "Xx*" for c in cells) and white == sum(c in "Oo" for c in cells)
    assert OthelloState.from_board_string(state.board_string(), state.to_play) == state


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.printable, max_size=6))
def test_parse_move_fuzz(text: str):
    state = new_game()
    try:
        move = state.parse_move(text)
    except InvalidMoveError:
        return
    assert move.is_pass or move.is_resign or (move.point is not None and move.point.on_board(8))
    assert state.parse_move(state.format_move(move)) == move
