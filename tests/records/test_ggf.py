"""GGF records: real games of the GGS Othello server, round trips, damaged text read leniently
or refused strictly, and ``imago records convert`` between GGF, SGF, WTHOR and transcripts.

``data/ggs_games.ggf`` holds three games played on GGS (M. Buro's Generic Game Server), as its
archive records them: Saio1200-Saio3000 2003 (a pass, a 32-32 draw), ming1014-ant 2010 (a komi
game, ``TY[8k]``, ``KM[-0.500]``, ``RE[+8.500]``) and Saio7000-SaioQuad 2011 (a synchro-random
start, ``TY[s8r19]``, White to move first). Replaying them by imago's rules must reach the
results GGS recorded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from imago.cli.app import app
from imago.core.color import Color
from imago.core.move import Move
from imago.records import ggf, sgf, transcript, wthor
from imago.records.tree import Game

DATA = Path(__file__).parent / "data" / "ggs_games.ggf"
runner = CliRunner()


def _games() -> ggf.GgfCollection:
    return ggf.read_file(DATA, strict=True)


def test_real_games_replay_to_their_recorded_results() -> None:
    draw, komi, synchro = _games()
    # 60 discs and Black's pass before White's a1; a full board shared 32-32: RE[+0.000]
    assert len(draw.mainline_moves()) == 61
    assert draw.mainline_moves()[58] == Move.PASS
    assert draw.end().state.is_over() and draw.end().state.discs() == (32, 32)
    assert draw.result == "0"
    # Black wins by 36-28; GGS subtracts the komi (-0.5) from Black's margin: +8.5
    assert komi.end().state.discs() == (36, 28)
    assert (komi.result, komi.get_text("KM"), komi.get_text("TY")) == ("B+8.5", "-0.500", "8k")
    # a random start with White to move: the setup holds it, the replay gives 36-28, RE[+8.000]
    assert synchro.setup is not None and synchro.state.to_play is Color.WHITE
    assert synchro.end().state.discs() == (36, 28) and synchro.result == "B+8"
    assert (draw.black_player, draw.white_player) == ("Saio1200", "Saio3000")
    assert draw.get_text("BR") == "2197.01"  # GGF's RB: the SGF BR
    second = draw.mainline()
    next(second)
    first_move = next(second)
    assert first_move.properties == {"TU": ["0.01"]}  # B[d3//0.01]: no eval, 0.01 s


def test_round_trip_keeps_everything_ggf_says() -> None:
    games = _games()
    text = ggf.write_string(games)
    again = ggf.read_string(text, strict=True)
    assert ggf.write_string(again) == text
    for before, after in zip(games, again, strict=True):
        assert before.properties == after.properties
        assert before.mainline_plays() == after.mainline_plays()
        assert before.state == after.state
    original = DATA.read_text().splitlines()[0]
    # the same record but for the upper-case moves imago writes
    assert text.splitlines()[0].lower() == original.lower()


def test_six_by_six_games() -> None:
    game = Game.new("othello", size=6)
    node = game
    for text in ("c2", "b2", "b3"):
        node = node.add_variation(node.state.parse_move(text))
    text = ggf.write_string(game)
    assert "BO[6 ------ ------ --O*-- --*O-- ------ ------ *]" in text
    assert "TY[6]" in text
    back = ggf.read_game(text, strict=True)
    assert back.size == 6 and back.mainline_moves() == game.mainline_moves()


BROKEN = [
    # (text, message, line, column, moves kept)
    ("(;GM[Othello]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *]B[f5]W[f5];)",
     "illegal", 1, 91, 1),
    ("(;GM[Othello]\nB[f5]\nW[z9];)", "not a move", 3, 1, 1),
    ("(;GM[Othello]B[f5]W[f6]", "not closed", 1, 1, 2),
    ("(;GM[Othello]BO[10 ---];)", "board size", 1, 14, 0),
    ("(;GM[Othello]BO[8 --- *];)", "squares", 1, 14, 0),
    ("(;GM[Othello]RE[black wins]B[f5];)", "not a result", 1, 3, 1),
    ("(;GM[Othello]B[f5] junk W[f6];)", "not a property", 1, 20, 2),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message", "line", "column", "kept"), BROKEN)
def test_damaged_records_lenient_and_strict(
    text: str, message: str, line: int, column: int, kept: int
) -> None:
    games = ggf.read_string(text)
    assert games.errors, text
    error = games.errors[0]
    assert message in error.message
    assert (error.line, error.column) == (line, column)
    assert len(games) == 1 and len(games[0].mainline_moves()) == kept
    with pytest.raises(ggf.GgfError, match=message):
        ggf.read_string(text, strict=True)


def test_other_games_and_empty_text() -> None:
    chess = ggf.read_string("(;GM[Chess]PB[a];)")
    assert not chess and "Othello games only" in chess.errors[0].message
    assert ggf.read_string("hello").errors[0].message.startswith("no game")
    with pytest.raises(ggf.GgfError):
        ggf.read_game("")
    with pytest.raises(ValueError, match="Othello"):
        ggf.write_string(Game.new("go", size=9))


@pytest.mark.parametrize(
    ("ggf_result", "sgf_result", "back"),
    [
        ("+0.000", "0", "+0.000"),
        ("-40.00", "W+40", "-40.000"),
        ("+8.500", "B+8.5", "+8.500"),
        ("+64.00:r", "B+R", "+64.000:r"),
        ("-12.000:t", "W+T", "-64.000:t"),
        ("+2.000:s", "B+2", "+2.000"),
        ("?", None, "?"),
    ],
)
def test_results(ggf_result: str, sgf_result: str | None, back: str) -> None:
    assert ggf.result_from_ggf(ggf_result) == sgf_result
    assert ggf.result_to_ggf(sgf_result) == back


def test_convert_between_ggf_sgf_wthor_and_transcripts(tmp_path: Path, data_dir: Path) -> None:
    games = _games()
    steps = [("a.sgf", sgf.read_file), ("b.ggf", ggf.read_file), ("c.txt", None)]
    source = DATA
    for name, _ in steps:
        target = tmp_path / name
        result = runner.invoke(app, ["records", "convert", str(source), str(target)])
        assert result.exit_code == 0, result.output
        assert "wrote 3 games" in result.output
        source = target
    back = ggf.read_file(tmp_path / "b.ggf", strict=True)
    for before, after in zip(games, back, strict=True):
        assert before.mainline_plays() == after.mainline_plays()
        assert (before.result, before.black_player) == (after.result, after.black_player)
    lines = (tmp_path / "c.txt").read_text().split()
    assert lines[0] == transcript.game_transcript(games[0])
    # real WTHOR games to GGF and back to WTHOR: the same moves, players and scores
    wtb = data_dir / "wthor" / "WTH_1982.wtb"
    if not wtb.is_file():
        pytest.skip("no WTHOR 1982 file")
    out = runner.invoke(app, ["records", "convert", str(wtb), str(tmp_path / "w.ggf")])
    assert out.exit_code == 0, out.output
    again = runner.invoke(
        app, ["records", "convert", str(tmp_path / "w.ggf"), str(tmp_path / "w.wtb")]
    )
    assert again.exit_code == 0, again.output
    original = wthor.read_games(wtb)
    converted = ggf.read_file(tmp_path / "w.ggf", strict=True)
    assert len(converted) == len(original)
    for record, game in zip(original, converted, strict=True):
        assert [m for m in game.mainline_moves() if m.is_play] == list(record.moves)
        assert game.result == record.result()
    assert [g.moves for g in wthor.read_games(tmp_path / "w.wtb")] == [g.moves for g in original]
