"""``bench/playout_calibration.py``: which records it judges, and a clear error when there are
none."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from repo_scripts import load_script


def _script() -> ModuleType:
    load_script("bench/settled_values.py")  # imported by its bare name, as from bench/
    return load_script("bench/playout_calibration.py")


@pytest.mark.parametrize(
    ("properties", "judged"),
    [
        ("RE[B+R]", True),  # resignation
        ("RE[W+7.5]", True),  # count
        ("RE[W+T]", False),  # on time
        ("RE[B+F]", False),  # forfeit
        ("RE[0]", False),  # a draw: no winner to judge against
        ("", False),  # no result
        ("RE[B+R]HA[2]AB[cc][gg]", False),  # handicap stones
    ],
)
def test_only_games_won_on_the_board_are_judged(
    tmp_path: Path, properties: str, judged: bool
) -> None:
    (tmp_path / "game.sgf").write_text(f"(;GM[1]SZ[9]KM[7]{properties};B[ee];W[cc])")
    games = _script().decided_games([tmp_path], 10, seed=0)
    assert len(games) == int(judged)


def test_a_file_with_no_game_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "not-sgf.sgf").write_text("hello")  # no game tree: an empty collection
    (tmp_path / "good.sgf").write_text("(;GM[1]SZ[9]KM[7]RE[W+R];B[ee];W[cc])")
    [(positions, winner)] = _script().decided_games([tmp_path], 10, seed=0)
    assert winner == 2 and len(positions) == 2  # the position before each move


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda folder: folder / "missing", "no such file or folder"),
        (lambda folder: folder, "no game to judge in"),  # a folder of undecided games
    ],
)
def test_no_games_to_judge_is_an_error_naming_the_path(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], Path],
    message: str,
) -> None:
    (tmp_path / "draw.sgf").write_text("(;GM[1]SZ[9]KM[7]RE[0];B[ee];W[cc])")
    source = make(tmp_path)
    monkeypatch.setattr(sys, "argv", ["playout_calibration.py", str(source)])
    with pytest.raises(SystemExit) as exit_info:
        _script().main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and str(source) in err
