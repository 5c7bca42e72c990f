"""``bench/referee.py``: a match's games counted again by GNU Go, the independent referee."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from repo_scripts import load_script


def _script() -> ModuleType:
    return load_script("bench/referee.py")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two games of random against random on 9x9 (Chinese rules, komi 7), played by
    ``imago match``: games that end by two passes."""
    folder = tmp_path_factory.mktemp("match") / "out"
    command = [
        sys.executable, "-m", "imago", "match", "--game", "go", "--size", "9", "--komi", "7",
        "--rules", "chinese", "--black", "random", "--white", "random", "--games", "2",
        "--seed", "3", "--out", str(folder),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    return folder


def _copy(played: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "match"
    shutil.copytree(played, folder)
    return folder


def _records(folder: Path) -> list[Path]:
    return sorted((folder / "games").glob("*.json"))


def _edit(path: Path, **changes: object) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    record.update(changes)
    path.write_text(json.dumps(record), encoding="utf-8")


@pytest.mark.engine
def test_games_ended_by_passes_are_counted_by_gnu_go(gnugo: str, played: Path, tmp_path: Path):
    folder = _copy(played, tmp_path)
    first, _ = _records(folder)
    assert json.loads(first.read_text())["reason"] == "score"
    verdict = _script().referee(folder, f"{gnugo} --mode gtp --chinese-rules")
    assert verdict.counted == 2
    assert verdict.disagreements == []  # random games end with every group alive: no dispute
    assert sum(verdict.tally.values()) == 2

    # imago's count is not trusted: a record claiming the other winner is overruled
    truth = json.loads(first.read_text())["winner"]
    claimed = "B" if truth != "B" else "W"
    _edit(first, winner=claimed, result=f"{claimed}+99")
    overruled = _script().referee(folder, f"{gnugo} --mode gtp --chinese-rules")
    assert overruled.tally == verdict.tally
    assert overruled.disagreements == [f"{first.stem}: imago {claimed}+99, GNU Go {truth}"]


@pytest.mark.engine
def test_a_resignation_keeps_its_result(gnugo: str, played: Path, tmp_path: Path):
    folder = _copy(played, tmp_path)
    record, other = _records(folder)
    other.unlink()
    other.with_suffix(".sgf").unlink()
    game = json.loads(record.read_text())
    # the loser of the board resigned instead: the board's count must not decide the game
    board_winner = game["winner"]
    resigner = board_winner if board_winner in ("B", "W") else "B"
    winner = "W" if resigner == "B" else "B"
    _edit(record, reason="resign", winner=winner, result=f"{winner}+R")
    verdict = _script().referee(folder, f"{gnugo} --mode gtp --chinese-rules")
    assert verdict.counted == 0
    player_colour = "B"  # the default player is the first game's black player
    expected = "wins" if winner == player_colour else "losses"
    assert verdict.tally[expected] == 1


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("empty", "holds no games"),
        ("broken", "not a game record"),
        ("no_sgf", "is missing"),
    ],
)
def test_a_folder_that_is_not_a_match_is_a_clear_error(tmp_path: Path, setup: str, message: str):
    games = tmp_path / "games"
    games.mkdir()
    if setup == "broken":
        (games / "00001.json").write_text("{not json", encoding="utf-8")
    elif setup == "no_sgf":
        record = {"winner": "B", "black": "a", "reason": "score", "result": "B+3"}
        (games / "00001.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(SystemExit, match=message):
        _script().referee(tmp_path, "gnugo --mode gtp")


def test_an_engine_that_does_not_start_is_a_clear_error(tmp_path: Path):
    games = tmp_path / "games"
    games.mkdir()
    record = {"winner": "B", "black": "a", "reason": "resign", "result": "B+R"}
    (games / "00001.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(SystemExit, match="GNU Go did not start"):
        _script().referee(tmp_path, str(tmp_path / "no-such-gnugo"))


# Self-play records (``--sgf``): each record's RE against GNU Go's count. Two walls split the
# board: Black owns columns A-D, White columns E-J; in ``with_dead_stone`` a lone Black stone at
# H5 sits inside White's side.
#
#      A B C D E F G H J
#    9 . . . X O . . . .
#    ...                        (the D and E columns full, every row)
#    5 . . . X O . . X .        <- H5: alive by Tromp-Taylor (self-play's count),
#    ...                           dead for GNU Go
#    1 . . . X O . . . .
#
# Every stone alive: Black 36 + H5 = 37, White 9 (its side touches H5, so it is no one's):
# B+21 with komi 7. GNU Go removes H5: Black 36, White 45, W+16.
WALLS = (
    "AB" + "".join(f"[d{c}]" for c in "abcdefghi") + "AW" + "".join(f"[e{c}]" for c in "abcdefghi")
)


def _record(result: str, *, dead_stone: bool, passes: bool = True) -> str:
    black = WALLS.replace("AW", "[he]AW" if dead_stone else "AW")  # he: H5
    moves = ";B[];W[]" if passes else ";B[aa]"
    return f"(;FF[4]GM[1]SZ[9]KM[7]RU[Chinese]RE[{result}]{black}{moves})"


@pytest.mark.engine
def test_self_play_records_are_counted_by_gnu_go(gnugo: str, tmp_path: Path):
    records = tmp_path / "000007"
    records.mkdir()
    games = [
        _record("B+21", dead_stone=True),  # self-play's count, every stone alive: GNU Go says W
        _record("W+16", dead_stone=False),  # both counts agree
        _record("B+R", dead_stone=True, passes=False),  # not ended by passes: not counted
    ]
    (records / "w-00001-train.sgf").write_text("\n".join(games), encoding="utf-8")
    verdict = _script().referee_records(records, f"{gnugo} --mode gtp --chinese-rules")
    assert (verdict.games, verdict.counted) == (3, 2)
    assert verdict.disagreements == ["w-00001-train.sgf:0: record B+21, GNU Go W"]
    assert verdict.interval.score == 0.5


def test_a_folder_without_sgf_files_is_a_clear_error(tmp_path: Path):
    with pytest.raises(SystemExit, match="holds no SGF files"):
        _script().referee_records(tmp_path, "gnugo --mode gtp")
