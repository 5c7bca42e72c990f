"""The game tree: editing and navigation in the manner of python-chess's pgn module."""

from __future__ import annotations

import pytest
from record_helpers import clean, diagram

from imago.core import Color, IllegalMoveError, Move, Point
from imago.records.tree import Cursor, Game, GameNode, RecordError, Setup, game_from_moves


def m(text: str, size: int = 9) -> Move:
    return Move.from_gtp(text, size)


@pytest.fixture
def game() -> Game:
    """E5 D5 (main) / E5 C3 (side line), with D5 followed by F5."""
    game = Game.new("go", size=9)
    e5 = game.add_variation(m("E5"))
    d5 = e5.add_variation(m("D5"))
    e5.add_variation(m("C3"))
    d5.add_variation(m("F5"))
    return game


def test_main_line_and_navigation(game: Game) -> None:
    assert [x.to_gtp(9) for x in game.mainline_moves()] == ["E5", "D5", "F5"]
    end = game.end()
    assert end.move == m("F5") and end.color is Color.BLACK
    assert [n.describe() for n in end.path()] == ["root", "B E5", "W D5", "B F5"]
    assert end.depth() == 3 and end.is_mainline() and end.is_end()
    side = game.next().variation(1)  # type: ignore[union-attr]
    assert side.starts_variation() and not side.is_mainline()
    assert game.next().variation(m("C3")) is side  # type: ignore[union-attr]
    assert game.next().has_variation(m("C3"), Color.WHITE)  # type: ignore[union-attr]
    with pytest.raises(KeyError):
        game.variation(3)


def test_promote_demote_remove(game: Game) -> None:
    e5 = game.next()
    assert e5 is not None
    d5, c3 = e5.children
    e5.promote_to_main(c3)
    assert e5.children == [c3, d5]
    e5.demote(c3)
    assert e5.children == [d5, c3]
    e5.promote(c3)
    assert e5.children == [c3, d5]
    e5.remove_variation(d5)
    assert e5.children == [c3] and d5.parent is None
    assert [x.to_gtp(9) for x in game.mainline_moves()] == ["E5", "C3"]


def test_add_main_variation_and_illegal_moves(game: Game) -> None:
    e5 = game.next()
    assert e5 is not None
    g7 = e5.add_main_variation(m("G7"))
    assert e5.children[0] is g7
    before = list(e5.children)
    with pytest.raises(IllegalMoveError):
        e5.add_variation(m("E5"))  # occupied
    assert e5.children == before, "a refused move changes nothing"


def test_positions_are_cached_and_correct() -> None:
    game = Game.new("go", size=5)
    node: GameNode = game
    for text in ("B5", "A5", "A4"):
        node = node.add_variation(Move.from_gtp(text, 5))
    assert diagram(node.state) == clean(
        """
        .X...
        X....
        .....
        .....
        .....
        """
    )
    assert node.state is node.state, "computed once, then cached"
    fresh = GameNode(node, Move.from_gtp("C3", 5), Color.WHITE)
    node.children.append(fresh)
    assert fresh.state.board()[2, 2] == Color.WHITE


def test_setup_nodes_and_editing_setup() -> None:
    game = Game.new("go", size=5)
    setup = game.add_setup_node(Setup(black=(Point(0, 0),), to_play=Color.WHITE))
    assert setup.state.to_play is Color.WHITE and setup.state.board()[0, 0] == Color.BLACK
    white = setup.add_variation(Move.from_gtp("B5", 5))
    assert white.color is Color.WHITE
    setup.set_setup(Setup(black=(Point(0, 0), Point(1, 0)), to_play=Color.WHITE))
    assert white.state.board()[1, 0] == Color.BLACK, "positions below were recomputed"


def test_cursor(game: Game) -> None:
    cursor = Cursor(game)
    assert not cursor.back()
    assert cursor.forward() and cursor.forward(1)
    assert cursor.node.move == m("C3")
    assert cursor.previous_variation() and cursor.node.move == m("D5")
    assert not cursor.previous_variation()
    assert cursor.next_variation() and not cursor.next_variation()
    cursor.to_start()
    cursor.to_end()
    assert cursor.node is game.end()
    assert [mv.to_gtp(9) for _, mv in cursor.path_moves()] == ["E5", "D5", "F5"]
    cursor.back()
    existing = cursor.play(m("F5"))
    assert existing is game.end(), "playing a known move follows it"
    cursor.back()
    new = cursor.play(m("A1"))
    assert new in cursor.node.parent.children  # type: ignore[union-attr]
    assert len(cursor.siblings()) == 2
    other = Game.new("go", size=9)
    with pytest.raises(ValueError):
        cursor.go_to(other)


def test_comments_and_properties(game: Game) -> None:
    node = game.end()
    node.comment = "a ] tricky \\ comment"
    assert node.properties["C"] == ["a \\] tricky \\\\ comment"]
    assert node.comment == "a ] tricky \\ comment"
    node.comment = ""
    assert "C" not in node.properties


def test_deep_trees_need_no_recursion() -> None:
    game = Game.new("go", size=9)
    node: GameNode = game
    for _ in range(3000):
        node = node.add_variation(Move.PASS, node.state.to_play)
        node._state = None  # force a long recomputation below
    game.end().state  # noqa: B018
    assert game.end().depth() == 3000
    assert len(list(game.walk())) == 3001


def test_othello_implicit_passes() -> None:
    from imago.games import make

    # A game where White has no move after Black's fourth move: the 5th disc is Black's again.
    moves = [Move.from_algebraic(x) for x in ("f5", "f6", "e6", "f4", "e3", "c5", "c4", "d3")]
    game = game_from_moves(make("othello"), moves)
    assert [n.color for n in game.mainline()][:4] == [
        Color.BLACK,
        Color.WHITE,
        Color.BLACK,
        Color.WHITE,
    ]
    with pytest.raises(RecordError) as raised:
        game_from_moves(make("othello"), [Move.from_algebraic("a1")])
    assert raised.value.index == 0


def test_a_go_game_resumed_after_two_passes_still_enforces_superko() -> None:
    # Black takes the ko on C4; both pass (the game is over); the record goes on, as OGS and
    # Japanese-rules disputes allow. White's retake on B4 would recreate the position before
    # Black's capture: positional superko forbids it, resumed game or not.
    from imago.core.errors import IllegalReason
    from imago.games.go import GoPosition, GoRules

    start = GoPosition.from_diagram(
        """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """,
        rules=GoRules.preset("chinese"),
    )
    game = Game(start)
    node = game.add_variation(Move.from_gtp("C4", 5))
    node = node.add_variation(Move.PASS).add_variation(Move.PASS)
    assert node.state.is_over()
    with pytest.raises(IllegalMoveError) as raised:
        node.add_variation(Move.from_gtp("B4", 5))
    assert raised.value.reason is IllegalReason.SUPERKO
    resumed = node.add_variation(Move.from_gtp("E1", 5), Color.WHITE)
    assert resumed.state.move_number == 4  # the history is kept: move numbers go on
    assert resumed.state.captures(Color.BLACK) == 1
