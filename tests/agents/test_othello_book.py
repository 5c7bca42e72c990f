"""The Othello opening book: statistics per symmetry class of positions, main lines first, the
shipped WTHOR book, and the alpha-beta agent playing from it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from imago.agents import AgentError, Limit, make_agent
from imago.agents.othello.book import BookError, OpeningBook
from imago.cli.app import app
from imago.core.move import Move
from imago.games import make
from imago.records.wthor import WthorGame, read_games

WTHOR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "wthor"


def game(line: str, black_discs: int) -> WthorGame:
    """A WTHOR record of the moves ``line`` ("f5 d6 ...") ending with Black on ``black_discs``."""
    moves = tuple(Move.from_algebraic(text) for text in line.split())
    return WthorGame(0, 0, 0, black_discs, black_discs, moves)


def after(line: str) -> tuple[int, int]:
    """The bitboards (mover, opponent) after the moves ``line`` from the start."""
    state = make("othello")
    for text in line.split():
        state = state.play(Move.from_algebraic(text))
    player, opponent = state.bitboards()
    return int(player), int(opponent)


def seen(book: OpeningBook, line: str, min_games: int = 1) -> list[tuple[str, int, float]]:
    return [(m.move.to_algebraic(), m.games, m.score) for m in book.moves(*after(line), min_games)]


# Three games; the second opens with d3, the mirror image of f5 (and d3 c3 mirrors f5 f6): a
# book of symmetry classes sees it as the same line.
GAMES = [
    ("f5 d6 c3", 40),  # Black wins 40-24: +16 for Black
    ("d3 c3", 30),  # Black loses 30-34: -4 for Black
    ("f5 f6 e6", 33),  # +2 for Black
]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # every game's first move, from Black's view: the four first moves are one (d3 stands
        # for them all, the smallest square of the class)
        ("", [("d3", 3, (16 - 4 + 2) / 3)]),
        ("f5", [("d6", 1, -16.0), ("f6", 2, (4 - 2) / 2)]),  # White's view: f6 is main
        ("d3", [("c5", 1, -16.0), ("c3", 2, 1.0)]),  # the same position, mirrored
        ("f5 d6", [("c3", 1, 16.0)]),
        ("f5 d6 c3", []),  # past the games' moves
    ],
)
def test_a_book_counts_each_line_once_per_symmetry_class(line, expected) -> None:
    book = OpeningBook.build([game(*g) for g in GAMES], plies=20, min_games=1)
    assert sorted(seen(book, line)) == sorted(expected)


def test_a_rare_winning_move_never_outranks_a_main_line() -> None:
    # f6 is played 30 times (+1 each for White), d6 10 times (+5), f4 twice (+30): d6 is a
    # main move (a third of f6's games) with the better mean, f4 is not main whatever its mean.
    games = [game("f5 f6", 32 - 1)] * 30 + [game("f5 d6", 32 - 5)] * 10 + [game("f5 f4", 2)] * 2
    book = OpeningBook.build(games, min_games=1)
    assert [m[0] for m in seen(book, "f5")] == ["d6", "f6", "f4"]
    assert [m[0] for m in seen(book, "f5", min_games=5)] == ["d6", "f6"]
    pruned = OpeningBook.build(games, min_games=5)  # f4's two games are not kept at all
    assert [m[0] for m in seen(pruned, "f5")] == ["d6", "f6"]


def test_a_book_file_round_trips_and_bad_files_are_clear_errors(tmp_path: Path) -> None:
    book = OpeningBook.build([game(*g) for g in GAMES], min_games=1)
    book.save(tmp_path / "book.npz")
    again = OpeningBook.load(tmp_path / "book.npz")
    assert len(again) == len(book) == 4  # the start, f5, f5 d6, f5 f6 (= d3 c3)
    for line in ("", "f5", "d3", "f5 d6"):
        assert seen(again, line) == seen(book, line)
    OpeningBook.build([], min_games=1).save(tmp_path / "empty.npz")
    assert len(OpeningBook.load(tmp_path / "empty.npz")) == 0  # an empty book is still a book
    with pytest.raises(BookError, match="no such book file"):
        OpeningBook.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.arange(3))
    with pytest.raises(BookError, match="not an imago Othello book"):
        OpeningBook.load(tmp_path / "other.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(BookError, match="not an imago Othello book"):
        OpeningBook.load(tmp_path / "junk.npz")


def test_the_shipped_book_knows_the_main_lines_of_the_wthor_games() -> None:
    book = OpeningBook.load("wthor")
    replies = seen(book, "f5", min_games=100)
    # the perpendicular, parallel and diagonal openings, most played first in WTHOR
    assert sorted(replies, key=lambda m: -m[1])[0][0] == "d6"
    assert {move for move, _, _ in replies} == {"d6", "f6", "f4"}
    assert seen(book, "") == [("d3", 137_548, pytest.approx(-0.23, abs=0.01))]  # every game


def test_alphabeta_plays_from_the_book_then_searches() -> None:
    agent = make_agent("alphabeta", "othello", {"book": "wthor"})
    state = make("othello")
    first = agent.select_move(state, Limit(time=5))
    assert first.move == Move.from_algebraic("d3") and first.depth == 0 and first.seconds < 1
    state = make("othello")
    line = "f5 d6 c3 d3 c4 f4 f6 g5 e6 d7 c7 g6 e3 c6 c5 b6 f7 f3 g4 b5"  # 20 plies: out of book
    for text in line.split(" "):
        state = state.play(Move.from_algebraic(text))
    searched = agent.select_move(state, Limit(depth=3))
    assert searched.depth == 3 and state.is_legal(searched.move)
    with pytest.raises(ValueError, match="no such book file"):
        make_agent("alphabeta", "othello", {"book": "/nowhere/book.npz"})
    for game, size in (("othello", 6), ("go", 9)):  # said at once, not silently ignored
        with pytest.raises(AgentError, match="opening book is for 8x8 Othello"):
            make_agent("alphabeta", game, {"book": "wthor"}, size=size)


@pytest.mark.skipif(not WTHOR.is_dir(), reason="the shared WTHOR data is not here")
def test_imago_train_book_builds_a_book_from_wthor_files(tmp_path: Path) -> None:
    out = tmp_path / "book.npz"
    result = CliRunner().invoke(
        app, ["train", "book", str(WTHOR / "WTH_1980.wtb"), "--out", str(out), "--min-games", "2"]
    )
    assert result.exit_code == 0, result.output
    book = OpeningBook.load(out)
    games = len(read_games(WTHOR / "WTH_1980.wtb"))
    assert len(book) > 10 and seen(book, "")[0][:2] == ("d3", games)
    missing = CliRunner().invoke(app, ["train", "book", str(tmp_path / "x.wtb"), "-o", str(out)])
    assert missing.exit_code != 0 and "no such file or folder" in missing.output
