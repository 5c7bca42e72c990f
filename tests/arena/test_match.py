"""Matches: fairness, misbehaving programs, resuming, parallel play, SGF output, real engines."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from imago.arena.game import GameSettings
from imago.arena.match import (
    GameRecord,
    MatchFolder,
    MatchSettings,
    Player,
    distinct,
    match_schedule,
    opening_moves,
    read_openings,
    run_games,
)
from imago.arena.stats import score_interval

FAKE = Path(__file__).resolve().parent / "fake_engine.py"


def fake_player(label: str, *flags: str) -> Player:
    command = " ".join([sys.executable, str(FAKE), *flags])
    return Player.parse(f'{label}=gtp:command="{command}",move_timeout=1,timeout=5')


def same_games(records: list[GameRecord]) -> list[GameRecord]:
    """The records without their timings (which differ from run to run)."""
    return [dataclasses.replace(r, seconds=()) for r in records]


def tally(records: list[GameRecord], label: str) -> tuple[int, int, int]:
    points = [r.points(label) for r in records]
    return points.count(1.0), points.count(0.5), points.count(0.0)


def test_player_labels() -> None:
    assert Player.parse("random") == Player("random", "random")
    assert Player.parse("mcts:playouts=8") == Player("mcts:playouts=8", "mcts:playouts=8")
    assert Player.parse("m8=mcts:playouts=8") == Player("m8", "mcts:playouts=8")
    assert Player.parse('g=gtp:command="a=b"') == Player("g", 'gtp:command="a=b"')
    assert Player.parse('gtp:command="x --y=1"').label == 'gtp:command="x --y=1"'
    a, b = distinct([Player.parse("random"), Player.parse("random")])
    assert (a.label, b.label) == ("random#1", "random#2")
    with pytest.raises(ValueError):
        Player.parse("mcts:playouts")


def test_random_against_random_is_fair() -> None:
    settings = MatchSettings(GameSettings("othello", 8), seed=2024)
    a, b = distinct([Player.parse("random")] * 2)
    records = run_games(settings, match_schedule(a, b, 200))
    assert len(records) == 200 and all(r.reason == "score" for r in records)
    wins, draws, losses = tally(records, a.label)
    # Two copies of one agent: an even score must lie inside the 99% interval.
    interval = score_interval(wins, draws, losses, 0.99)
    assert interval.low <= 0.5 <= interval.high
    assert {r.black for r in records} == {a.label, b.label}  # colours alternated


def test_random_go_games_end_and_are_counted() -> None:
    settings = MatchSettings(GameSettings("go", 7, komi=9.0), seed=5)
    a, b = distinct([Player.parse("random")] * 2)
    records = run_games(settings, match_schedule(a, b, 10))
    for record in records:
        assert record.reason == "score" and record.result[:2] in ("B+", "W+")
        assert len(record.moves) == len(record.seconds) > 20


@pytest.mark.parametrize(
    ("flags", "reason", "letter"),
    [
        (("--illegal-at", "2"), "illegal", "F"),
        (("--die-at", "2"), "crash", "F"),
        (("--garbage-at", "2"), "crash", "F"),
        (("--hang-at", "2"), "timeout", "T"),
    ],
)
def test_misbehaving_program_loses_and_the_match_goes_on(
    flags: tuple[str, ...], reason: str, letter: str
) -> None:
    settings = MatchSettings(GameSettings("go", 9), seed=1)
    bad = fake_player("bad", "--first-free", *flags)
    good = Player.parse("random")
    records = run_games(settings, match_schedule(bad, good, 2))
    assert len(records) == 2
    for record in records:
        assert record.winner_label == "random" and record.reason == reason
        assert record.result.endswith(f"+{letter}")
        assert record.detail.startswith(("black", "white"))
        assert len(record.moves) in (2, 3)  # the bad program's first move was played


def test_interrupted_match_resumes_to_the_same_games(tmp_path: Path) -> None:
    settings = MatchSettings(GameSettings("go", 5, komi=3.0), seed=9, opening_plies=2)
    a, b = distinct([Player.parse("random")] * 2)
    schedule = match_schedule(a, b, 8)
    full = run_games(settings, schedule, folder=tmp_path / "full")

    half = tmp_path / "half"
    MatchFolder(half).open(settings, [a, b], "match")
    seen: list[int] = []
    run_games(
        settings, schedule, folder=half, on_result=lambda r: seen.append(r.index) or len(seen) == 3
    )
    first = {p: p.stat().st_mtime_ns for p in (half / "games").iterdir()}
    assert len(first) == 6  # three games, .sgf and .json each
    resumed = run_games(settings, schedule, folder=half)
    assert same_games(resumed) == same_games(full)
    assert all(p.stat().st_mtime_ns == t for p, t in first.items())  # not replayed
    assert same_games(list(MatchFolder(half).records().values())) == same_games(full)
    assert not list(half.glob("games/.*"))  # no temporary files left behind


def test_a_folder_holding_another_match_is_refused(tmp_path: Path) -> None:
    a, b = distinct([Player.parse("random")] * 2)
    MatchFolder(tmp_path).open(MatchSettings(GameSettings("go", 9)), [a, b], "match")
    with pytest.raises(ValueError, match="other settings"):
        MatchFolder(tmp_path).open(MatchSettings(GameSettings("go", 13)), [a, b], "match")
    with pytest.raises(ValueError, match="player"):
        MatchFolder(tmp_path).open(
            MatchSettings(GameSettings("go", 9)), [Player("random#1", "mcts")], "match"
        )


def test_parallel_processes_play_the_same_games() -> None:
    settings = MatchSettings(GameSettings("othello", 6), seed=3, opening_plies=2)
    a, b = distinct([Player.parse("random")] * 2)
    schedule = match_schedule(a, b, 6)
    parallel = run_games(settings, schedule, jobs=2)
    assert same_games(parallel) == same_games(run_games(settings, schedule, jobs=1))


def test_openings_are_shared_by_colour_swapped_pairs(tmp_path: Path) -> None:
    settings = MatchSettings(GameSettings("othello"), seed=4, opening_plies=4)
    assert opening_moves(settings, 0) == opening_moves(settings, 0)
    assert opening_moves(settings, 0) != opening_moves(settings, 1)
    a, b = distinct([Player.parse("random")] * 2)
    records = run_games(settings, match_schedule(a, b, 4))
    assert records[0].moves[:4] == records[1].moves[:4]
    assert all(r.opening_plies == 4 for r in records)
    path = tmp_path / "openings.txt"
    path.write_text("# two openings\nf5d6c3\nf5 f6 e6\n")
    assert read_openings(path) == (("f5", "d6", "c3"), ("f5", "f6", "e6"))
    fixed = MatchSettings(GameSettings("othello"), openings=read_openings(path))
    assert [m.to_algebraic() for m in opening_moves(fixed, 1)] == ["f5", "f6", "e6"]


def test_sgf_files_read_back_with_sgfmill(tmp_path: Path) -> None:
    sgf = pytest.importorskip("sgfmill.sgf")
    settings = MatchSettings(GameSettings("go", 9, komi=7.0, time_per_move=1.0), seed=8)
    bad = fake_player("bad", "--first-free", "--illegal-at", "3")
    records = run_games(settings, match_schedule(Player.parse("random"), bad, 2), folder=tmp_path)
    for record in records:
        text = MatchFolder(tmp_path).game_path(record.index, ".sgf").read_bytes()
        game = sgf.Sgf_game.from_bytes(text)
        root = game.get_root()
        assert root.get("PB") == record.black and root.get("PW") == record.white
        assert root.get("RE") == record.result and game.get_komi() == 7.0
        played = [node.get_move() for node in game.get_main_sequence()[1:]]
        assert len(played) == len(record.moves)
        assert all("s" in node.get("C") for node in game.get_main_sequence()[1:])


@pytest.mark.parametrize("game", ["go", "othello"])
def test_sgf_files_read_back_with_imago_records(tmp_path: Path, game: str) -> None:
    from imago.records.sgf import read_file

    settings = MatchSettings(GameSettings(game), seed=3, opening_plies=2)
    a, b = distinct([Player.parse("random")] * 2)
    records = run_games(settings, match_schedule(a, b, 2, alternate=True), folder=tmp_path)
    for record in records:
        (tree,) = read_file(MatchFolder(tmp_path).game_path(record.index, ".sgf"))
        assert tree.errors == []
        assert (tree.black_player, tree.white_player, tree.result) == (
            record.black,
            record.white,
            record.result,
        )
        moves = [tree.end().state.format_move(m) for m in tree.mainline_moves()]
        assert moves == list(record.moves)
        assert tree.end().state.is_over()
        comments = [node.comment for node in tree.mainline()]
        assert comments[:2] == ["opening", "opening"] and comments[2].endswith(" s")


@pytest.mark.engine
def test_gnugo_against_gnugo_is_counted_and_cross_checked(gnugo: str) -> None:
    command = f"{gnugo} --mode gtp --level 1 --chinese-rules --positional-superko"
    one = Player.parse(f'g1=gtp:command="{command}"')
    two = Player.parse(f'g2=gtp:command="{command} --seed 5"')
    settings = MatchSettings(GameSettings("go", 9, komi=7.0), seed=1)
    (record,) = run_games(settings, match_schedule(one, two, 1))
    assert record.reason in ("score", "resign")
    if record.reason == "score":
        assert set(record.engine_scores) == {"B", "W"}
        for text in record.engine_scores.values():
            assert text[0] == record.result[0]  # GNU Go and imago agree on the winner
        assert bool(record.disagreement) == any(
            t != record.result for t in record.engine_scores.values()
        )


@pytest.mark.engine
def test_random_against_gtp_rhino(gtp_rhino: str) -> None:
    rhino = Player.parse(f'rhino=gtp:command="{gtp_rhino} --level 1"')
    settings = MatchSettings(GameSettings("othello"), seed=6)
    records = run_games(settings, match_schedule(Player.parse("random"), rhino, 4))
    for record in records:
        assert record.reason == "score", record.detail  # every rhino move was legal here
    assert sum(r.points("rhino") for r in records) >= 3


def test_imago_over_gtp_plays_like_a_builtin_agent() -> None:
    # imago's own GTP engine as an external program: same notation, passes and final count.
    command = f"{sys.executable} -m imago gtp --game othello --agent random --seed 4"
    imago_gtp = Player.parse(f'imago-gtp=gtp:command="{command}"')
    settings = MatchSettings(GameSettings("othello"), seed=2)
    records = run_games(settings, match_schedule(imago_gtp, Player.parse("random"), 2))
    for record in records:
        assert record.reason == "score", record.detail
        assert len(record.moves) >= 58


def test_openings_from_a_wthor_file(data_dir: Path) -> None:
    path = data_dir / "wthor" / "WTH_1990.wtb"
    openings = read_openings(path, 6)
    assert len(openings) > 20 and len(set(openings)) == len(openings)
    assert {o[0] for o in openings} <= {"f5", "d3", "c4", "e6"}  # Black's four first moves
    settings = MatchSettings(GameSettings("othello"), openings=openings)
    for round_ in range(len(openings)):
        assert len(opening_moves(settings, round_)) == 6  # each replays legally
    with pytest.raises(ValueError, match="plies"):
        read_openings(path, 0)
