"""WTHOR database, move transcripts, the eOthello CSV, and conversions to SGF GM[2]."""

from __future__ import annotations

import datetime
import itertools
from pathlib import Path

import pytest

from imago.core import Color, Move
from imago.games import make
from imago.records import sgf, transcript, wthor
from imago.records.tree import RecordError


@pytest.fixture(scope="module")
def wthor_dir(data_dir: Path) -> Path:
    folder = data_dir / "wthor"
    if not (folder / "WTH.JOU").is_file():
        pytest.skip("the WTHOR database is missing")
    return folder


def test_names(wthor_dir: Path) -> None:
    players = wthor.read_names(wthor_dir / "WTH.JOU")
    tournaments = wthor.read_names(wthor_dir / "WTH.TRN")
    assert (len(players), len(tournaments)) == (4448, 492)  # counts given in the README
    packed = wthor.pack_names(players, wthor.PLAYER_NAME_SIZE)
    assert len(packed) == (wthor_dir / "WTH.JOU").stat().st_size
    assert wthor.read_names_bytes(packed) == players


def test_the_readme_example_game(wthor_dir: Path) -> None:
    players = wthor.read_names(wthor_dir / "WTH.JOU")
    tournaments = wthor.read_names(wthor_dir / "WTH.TRN")
    first = wthor.read_games(wthor_dir / "WTH_2024.wtb")[0]
    assert first.transcript().startswith("f5d6c3d3c4f4f6g5e6f7")
    assert (first.black_score, first.theoretical_score) == (33, 37)
    game = first.to_game(players, tournaments)
    assert (game.black_player, game.white_player) == ("Urano Kento", "Ohno Tomohiro")
    assert game.event == "All Japan Championships"
    assert (game.date, game.result) == ("2024", "B+2")


@pytest.mark.slow
def test_every_wthor_file_reads_replays_and_writes_back(wthor_dir: Path) -> None:
    files = sorted(wthor_dir.glob("*.wtb"))
    total = agree = 0
    for path in files:
        header, games = wthor.read_wtb(path)
        assert wthor.pack_games(games, header=header) == path.read_bytes(), path.name
        for record in games:
            game = record.to_game()  # raises RecordError at an illegal move
            final = game.end().state
            board = final.board()
            black = int((board == 1).sum())
            white = int((board == 2).sum())
            empty = 64 - black - white
            if black > white:
                black += empty
            elif black == white:
                black += empty // 2
            agree += black == record.black_score
        total += len(games)
    assert total == 137_548
    assert agree == 137_166  # the README's count of games whose final count matches


def test_wthor_round_trip_through_sgf(wthor_dir: Path, tmp_path: Path) -> None:
    records = wthor.read_games(wthor_dir / "WTH_1990.wtb")[:200]
    games = [record.to_game() for record in records]
    again = sgf.read_string(sgf.write_string(games))
    assert not again.errors
    back = [
        wthor.from_game(game, tournament=r.tournament, black=r.black, white=r.white)
        for game, r in zip(again, records, strict=True)
    ]
    assert [b.moves for b in back] == [r.moves for r in records]
    assert [b.theoretical_score for b in back] == [r.theoretical_score for r in records]
    finished = [(b, r) for b, r in zip(back, records, strict=True) if len(r.moves) == 60]
    assert finished and all(b.black_score == r.black_score for b, r in finished)
    path = tmp_path / "out.wtb"
    wthor.write_games(path, back, year=1990, created=datetime.date(2024, 1, 2))
    assert [g.moves for g in wthor.read_games(path)] == [r.moves for r in records]


def test_bad_wthor_files_are_refused(tmp_path: Path) -> None:
    short = tmp_path / "short.wtb"
    short.write_bytes(b"\0" * 10)
    with pytest.raises(wthor.WthorError):
        wthor.read_games(short)
    record = wthor.WthorGame(0, 0, 0, 32, 32, (Move.from_algebraic("f5"),))
    data = bytearray(wthor.pack_games([record]))
    data[16 + 8] = 99  # not a square
    bad = tmp_path / "bad.wtb"
    bad.write_bytes(bytes(data))
    with pytest.raises(wthor.WthorError, match="not a square"):
        wthor.read_games(bad)
    data[16 + 8] = 11  # a1: not legal as the first move
    bad.write_bytes(bytes(data))
    with pytest.raises(RecordError) as raised:
        wthor.read_games(bad)[0].to_game()
    assert raised.value.index == 0


def test_transcripts() -> None:
    text = "f5d6c3d3c4f4f6g5e6f7"
    moves = transcript.parse_transcript(text)
    assert transcript.format_transcript(moves) == text
    assert transcript.parse_transcript("F5 d6  pass c3") == moves[:3]
    game = transcript.read_transcript(text)
    assert transcript.game_transcript(game) == text
    assert game.end().state.to_play is Color.BLACK
    with pytest.raises(transcript.TranscriptError):
        transcript.parse_transcript("f5z")
    with pytest.raises(RecordError):
        transcript.read_transcript("f5f5")


def test_transcript_files_and_sgf(tmp_path: Path) -> None:
    games = [transcript.read_transcript(t) for t in ("f5d6c3", "f5f6e6f4")]
    path = tmp_path / "games.txt"
    transcript.write_transcript_file(path, games)
    assert path.read_text() == "f5d6c3\nf5f6e6f4\n"
    again = transcript.read_transcript_file(path)
    text = sgf.write_string(again)
    assert "GM[2]" in text
    assert [transcript.game_transcript(g) for g in sgf.read_string(text)] == ["f5d6c3", "f5f6e6f4"]


def test_implicit_passes_survive_sgf() -> None:
    make("othello")
    game = transcript.read_transcript(  # WTHOR 1990: White passes before the last moves
        "f5f6e6f4g5e7f7h5e3d3g4h4f3g6c4d7d6c6e8d8h3c5c3g3h6b4b3e2e1d2c2a3a5a4a2b5c8c7a6b6f8f1"
        "d1f2h2g7h8h7g8h1g1c1g2b2a1b1a7b7b8a8"
    )
    colors = [n.color for n in game.mainline()]
    assert len(colors) == 60
    assert any(a == b for a, b in itertools.pairwise(colors)), "a pass is implied"
    again = sgf.read_game(sgf.write_string(game))
    assert [n.color for n in again.mainline()] == colors
    assert again.end().state.board().tolist() == game.end().state.board().tolist()


@pytest.mark.slow
def test_the_eothello_csv(data_dir: Path) -> None:
    path = data_dir / "othello-eothello-csv" / "othello_dataset.csv"
    if not path.is_file():
        pytest.skip("the eOthello CSV is missing")
    rows = list(transcript.read_eothello_csv(path))
    assert len(rows) == 25_657
    disagree = 0
    for row in rows[::10]:
        game = row.to_game()
        final = game.end().state
        outcome = final.outcome()
        winner = (
            0
            if outcome is None or outcome.winner is None
            else (1 if outcome.winner is Color.BLACK else -1)
        )
        disagree += final.is_over() and winner != row.winner
    assert disagree <= 1  # the README: one game's winner column disagrees with the board
