"""SGF games: properties mapped to the rules, setup, passes, charsets, errors, writing."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from record_helpers import clean, diagram, signature

from imago.core import Color, IllegalMoveError, Move, Point
from imago.records import sgf
from imago.records.sgf_grammar import SgfError
from imago.records.sgf_properties import (
    escape_text,
    parse_point_list,
    parse_real,
    parse_result,
    unescape_simple_text,
    unescape_text,
)
from imago.records.tree import Setup


def gtp(game: sgf.Game, size: int) -> list[str]:  # type: ignore[name-defined]
    return [f"{n.color.letter} {n.move.to_gtp(size)}" for n in game.mainline()]  # type: ignore[union-attr]


def test_a_go_game_with_rules_komi_and_handicap() -> None:
    text = (
        "(;GM[1]FF[4]SZ[9]RU[Chinese]KM[7.5]HA[2]AB[cc][gg]PB[Ann]PW[Bob]RE[W+R]DT[2024-01-02]"
        ";W[ee];B[tt];W[])"
    )
    game = sgf.read_game(text)
    state = game.state
    rules = state.rules  # type: ignore[attr-defined]
    assert (rules.ko.value, rules.komi) == ("positional", 7.5)
    assert state.to_play is Color.WHITE, "after handicap stones White plays first"
    assert game.setup == Setup((Point(2, 2), Point(6, 6)), to_play=Color.WHITE)
    assert (game.black_player, game.white_player, game.result, game.date) == (
        "Ann",
        "Bob",
        "W+R",
        "2024-01-02",
    )
    assert game.outcome is not None and game.outcome.by_resignation
    assert gtp(game, 9) == ["W E5", "B pass", "W pass"]
    assert game.end().state.is_over()


def test_handicap_without_stones_places_the_fixed_points() -> None:
    game = sgf.read_game("(;GM[1]SZ[9]HA[2];W[ee])")
    assert diagram(game.state) == clean(
        """
        .........
        .........
        ......X..
        .........
        .........
        .........
        ..X......
        .........
        .........
        """
    )


def test_japanese_rules_and_old_komi_notation() -> None:
    game = sgf.read_game("(;SZ[13]RU[Japanese]KM[5 1/2])")
    assert game.state.rules.komi == 5.5  # type: ignore[attr-defined]
    assert game.state.rules.ko.value == "simple"  # type: ignore[attr-defined]
    assert parse_real("6,5") == 6.5 and parse_real("-0.5") == -0.5


def test_moves_replay_with_captures() -> None:
    game = sgf.read_game("(;SZ[5];B[ba];W[aa];B[ab])")
    assert diagram(game.end().state) == clean(
        """
        .X...
        X....
        .....
        .....
        .....
        """
    )


def test_compressed_point_lists_and_empty_setup() -> None:
    game = sgf.read_game("(;SZ[5]AB[aa:bc]AW[dd];AE[ab])")
    assert diagram(game.state) == clean(
        """
        XX...
        XX...
        XX...
        ...O.
        .....
        """
    )
    assert diagram(game.end().state).splitlines()[1] == ".X..."
    assert parse_point_list(["ca:ab"], 5) == [
        Point(0, 0),
        Point(0, 1),
        Point(0, 2),
        Point(1, 0),
        Point(1, 1),
        Point(1, 2),
    ]


def test_ff3_files_mixed_case_identifiers_and_tt_passes() -> None:
    game = sgf.read_game("(;GaMe[1]FF[3]SiZe[9]AddBlack[aa]CoPyright[me];B[tt];White[bb])")
    assert game.size == 9
    assert game.setup is not None and game.setup.black == (Point(0, 0),)
    assert game.properties["CP"] == ["me"]
    assert game.mainline_moves() == [Move.PASS, Move.play(Point(1, 1))]


def test_escapes_and_soft_line_breaks() -> None:
    raw = "a \\] b \\\\ c\\\nd\te\r\nf"
    assert unescape_text(raw) == "a ] b \\ cd e\nf"
    assert unescape_simple_text(raw) == "a ] b \\ cd e f"
    assert unescape_text(escape_text("x]y\\z")) == "x]y\\z"
    game = sgf.read_game("(;C[multi\\\nline \\] text])")
    assert game.comment == "multiline ] text"


def test_results() -> None:
    assert str(parse_result("B+3.5")) == "B+3.5"
    assert str(parse_result("W+Resign")) == "W+R"
    outcome = parse_result("0")
    assert outcome is not None and outcome.is_draw
    assert parse_result("Void") is None
    won = parse_result("B+T")
    assert won is not None and won.winner is Color.BLACK


def test_unknown_and_private_properties_survive_a_round_trip() -> None:
    text = "(;GM[1]SZ[9]XYZ[private][two]MULTIGOGM[1]LB[aa:A\\]];B[ee]TR[aa][bb]FOO[])"
    game = sgf.read_game(text)
    again = sgf.read_game(sgf.write_string(game))
    assert signature(again) == signature(game)
    assert again.properties["XYZ"] == ["private", "two"]
    assert again.properties["LB"] == ["aa:A\\]"]


def test_several_games_and_variations_round_trip() -> None:
    text = "(;SZ[9];B[ee](;W[ce];B[dd])(;W[gc]))(;GM[2];B[fe])"
    games = sgf.read_string(text)
    assert [g.game_name for g in games] == ["go", "othello"]
    assert [len(g.next().children) for g in games if g.next() is not None] == [2, 0]  # type: ignore[union-attr]
    again = sgf.read_string(sgf.write_string(games))
    assert [signature(g) for g in again] == [signature(g) for g in games]


def test_othello_sgf() -> None:
    game = sgf.read_game("(;GM[2]SZ[8];B[fe];W[df];B[cd])")
    assert game.game_name == "othello"
    assert [m.to_algebraic() for m in game.mainline_moves()] == ["f5", "d6", "c4"]
    assert game.end().state.to_play is Color.WHITE


def test_charsets_are_decoded() -> None:
    korean = "(;CA[EUC-KR]PB[이세돌];B[pd])".encode("euc_kr")
    assert sgf.read_bytes(korean)[0].black_player == "이세돌"
    shift_jis = "(;CA[Shift_JIS]PB[ソ]C[ソ];B[pd])".encode("shift_jis")  # ソ ends in a 0x5C byte
    game = sgf.read_bytes(shift_jis)[0]
    assert (game.black_player, game.comment) == ("ソ", "ソ")
    utf16 = "\ufeff(;PB[Ωmega];B[pd])".encode("utf-16-le")
    assert sgf.read_bytes(utf16)[0].black_player == "Ωmega"
    latin = "(;PB[Müller];B[pd])".encode("latin-1")
    assert sgf.read_bytes(latin)[0].black_player == "Müller"


def test_an_illegal_move_is_reported_where_it_is_and_kept() -> None:
    text = "(;SZ[9]\n;B[ee]\n;W[ee]\n;B[dd])"
    collection = sgf.read_string(text)
    assert len(collection.errors) == 1
    error = collection.errors[0]
    assert (error.line, error.column) == (3, 1)
    assert "occupied" in error.message
    nodes = list(collection[0].mainline())
    assert nodes[1].illegal is not None
    assert nodes[2].state.board()[3, 3] == Color.BLACK, "the record goes on after it"
    with pytest.raises(SgfError) as raised:
        sgf.read_string(text, strict=True)
    assert raised.value.line == 3


def test_strict_mode_raises_on_damaged_syntax() -> None:
    with pytest.raises(SgfError):
        sgf.read_string("(;SZ[9];B[ee]", strict=True)
    collection = sgf.read_string("(;SZ[9];B[ee]")
    assert len(collection) == 1 and len(collection.errors) == 1


def test_bad_input_changes_nothing_and_says_why() -> None:
    assert sgf.read_string("").errors[0].message == "no SGF game tree found"
    bad_size = sgf.read_string("(;SZ[30];B[aa])")
    assert len(bad_size) == 0 and "SZ[30]" in bad_size.errors[0].message
    chess = sgf.read_string("(;GM[3];B[aa])")
    assert "GM[3]" in chess.errors[0].message
    with pytest.raises(SgfError):
        sgf.read_game("garbage")


def test_lazy_replay_finds_illegal_moves_when_asked() -> None:
    games = sgf.read_string("(;SZ[9];B[ee];W[ee])", replay=False)
    assert not games.errors
    with pytest.raises(IllegalMoveError):
        games[0].end().state  # noqa: B018


def test_writing_is_atomic_and_reads_back(tmp_path: Path) -> None:
    game = sgf.read_game("(;SZ[9]PB[x];B[ee];W[dd])")
    path = tmp_path / "game.sgf"
    sgf.write_file(path, game)
    assert [p.name for p in tmp_path.iterdir()] == ["game.sgf"]
    assert signature(sgf.read_file(path)[0]) == signature(game)


def test_moves_after_the_game_ended_resume_play() -> None:
    game = sgf.read_game("(;SZ[9];B[ee];W[];B[];W[dd];B[])")
    assert not game.errors
    assert game.end().state.board()[3, 3] == Color.WHITE


_PIECES = st.sampled_from(
    [
        "(;",
        ")",
        "(",
        ";",
        "B[",
        "W[",
        "AB[",
        "AW[",
        "AE[",
        "PL[",
        "SZ[",
        "GM[",
        "HA[",
        "KM[",
        "RU[",
        "C[",
        "]",
        "[",
        "\\",
        "aa",
        "ee",
        "tt",
        "a",
        "zz",
        ":",
        "1",
        "2",
        "9",
        "19",
        "-3",
        "B",
        "W",
        "x",
        " ",
        "\n",
        "é",
        "\x00",
    ]
)


@settings(max_examples=300, deadline=3000)
@given(st.lists(_PIECES, max_size=80).map("".join))
def test_fuzz_games_never_crash(text: str) -> None:
    collection = sgf.read_string(text)
    for game in collection:
        for node in game.walk():
            node.state  # noqa: B018 - every kept node has a position
        assert signature(sgf.read_string(sgf.write_string(game))[0]) == signature(game)
    with contextlib.suppress(SgfError):
        sgf.read_string(text, strict=True)
