"""Coordinates: every system round-trips exactly, bad text is an InvalidMoveError."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from imago.core import Color, InvalidMoveError, Move, Point

# size, Point, GTP, SGF, algebraic, action
TABLE = [
    (9, Point(0, 0), "A9", "aa", "a1", 0),
    (9, Point(8, 8), "J1", "ii", "i9", 80),
    (9, Point(6, 2), "C3", "cg", "c7", 56),
    (19, Point(3, 15), "Q16", "pd", "p4", 72),
    (19, Point(18, 7), "H1", "hs", "h19", 349),
    (19, Point(18, 8), "J1", "is", "i19", 350),
    (25, Point(0, 24), "Z25", "ya", "y1", 24),
    (8, Point(4, 5), "F4", "fe", "f5", 37),
]


@pytest.mark.parametrize(("size", "point", "gtp", "sgf", "alg", "action"), TABLE)
def test_coordinate_table(size: int, point: Point, gtp: str, sgf: str, alg: str, action: int):
    move = Move.play(point)
    assert move.to_gtp(size) == gtp
    assert Move.from_gtp(gtp.lower(), size) == move
    assert move.to_sgf(size) == sgf
    assert Move.from_sgf(sgf, size) == move
    assert move.to_algebraic() == alg
    assert Move.from_algebraic(alg, size) == move
    assert move.to_action(size) == action
    assert Move.from_action(action, size) == move


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("I5", 9),
        ("K1", 9),
        ("A10", 9),
        ("A0", 9),
        ("", 9),
        ("5A", 9),
        ("Z26", 25),
        ("A-1", 9),
        ("A\u00b2", 9),
        ("A\u0663", 9),
    ],
)
def test_bad_gtp_vertices_are_invalid(text: str, size: int):
    with pytest.raises(InvalidMoveError):
        Move.from_gtp(text, size)


def test_pass_and_resign_round_trips():
    assert Move.from_gtp("PASS", 19) == Move.PASS
    assert Move.from_gtp("resign", 19) == Move.RESIGN
    assert Move.from_sgf("", 19) == Move.PASS
    assert Move.from_sgf("tt", 19) == Move.PASS
    assert Move.from_sgf("tt", 21) == Move.play(Point(19, 19))
    assert Move.PASS.to_sgf(19) == ""
    assert Move.from_action(81, 9) == Move.PASS
    assert Move.PASS.to_action(9) == 81
    assert not Move.PASS and not Move.RESIGN and Move.play(Point(0, 0))
    with pytest.raises(InvalidMoveError):
        Move.RESIGN.to_action(9)


@given(st.integers(1, 25).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n * n))))
def test_action_round_trip(size_action: tuple[int, int]):
    size, action = size_action
    move = Move.from_action(action, size)
    assert move.to_action(size) == action
    assert Move.from_gtp(move.to_gtp(size), size) == move
    assert Move.from_sgf(move.to_sgf(size), size) == move


def test_repr_pastes_back():
    move = Move.play(Point(2, 3))
    assert eval(repr(move)) == move
    assert repr(Move.PASS) == "Move.PASS"


def test_color():
    assert Color.BLACK.opponent is Color.WHITE
    assert Color.WHITE.opponent is Color.BLACK
    assert Color.parse("W") is Color.WHITE and Color.parse("black") is Color.BLACK
    with pytest.raises(ValueError):
        Color.parse("red")


@given(st.text(max_size=6))
def test_any_text_is_a_move_or_an_invalid_move_error(text: str):
    for parse in (Move.from_gtp, Move.from_algebraic):
        try:
            move = parse(text, 9)
        except InvalidMoveError:
            continue
        assert move.is_pass or move.is_resign or move.point is not None


def test_moves_print_board_free_coordinates() -> None:
    assert str(Move.from_gtp("D6", 9)) == "(3, 3)" == str(Point(3, 3))
    assert str(Move.PASS) == "pass" and str(Move.RESIGN) == "resign"
    assert f"{Move.from_algebraic('f5')}" == "(4, 5)"
    assert repr(Move.from_gtp("D6", 9)) == "Move.play(Point(3, 3))"
