"""imago's GTP engine against programs nobody here wrote, over pipes.

GNU Go: a full 9x9 game, imago (random agent) against ``gnugo --mode gtp``, each move sent to
the other program; afterwards both hold the same stones and their ``final_score`` agree.

What agreement is expected, and why: both count Chinese area scoring with komi 7 (imago
``--rules chinese``; GNU Go ``--chinese-rules``), the game ends by two passes, and the random
agent passes only when every move left to it would fill its own true eye, so nothing is left
undecided: each string still on the board is either clearly alive or (a random stone left inside
GNU Go's area) clearly dead. Then GNU Go's dead-stone judgement and imago's count
(:func:`imago.games.go.count`) name the same dead stones, and area counting with the same dead
stones is exact, so the two results must be the same string of points, not just the same
winner. The test also counts GNU Go's own dead stones with imago's scoring, which checks the
counting alone.

GRhino: a full Othello game against ``gtp-rhino`` with Othello vertices (row 1 at the top).
GRhino rejects ``play <colour> pass`` and passes by itself: a colour with no move is skipped,
its next ``play`` for the other colour is an implicit pass, and our controller never sends a
pass to it. Both programs must agree on every position and on the final disc count.
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

import pytest
from gtp_helpers import Pipe, ask, make_server, refuse

from imago.core.color import Color
from imago.core.move import Move, Point
from imago.games.go import GoRules, new_game, score

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def imago_gtp(*args: str) -> Pipe:
    return Pipe([sys.executable, "-m", "imago", "gtp", "--move-time", "1", *args])


def stones(pipe: Pipe) -> tuple[set[str], set[str]]:
    return (
        {v.upper() for v in pipe.ok("list_stones black").split()},
        {v.upper() for v in pipe.ok("list_stones white").split()},
    )


def grid(pipe: Pipe) -> list[str]:
    """The rows of an Othello ``showboard`` (both programs draw row 1 at the top)."""
    rows = [re.match(r"^\s*(\d+)\s+([.XO ]+)$", line) for line in pipe.ok("showboard").split("\n")]
    found = [m.group(2).replace(" ", "") for m in rows if m]
    assert len(found) == 8, found
    return found


def points(vertices: str, size: int) -> list[Point]:
    result = []
    for vertex in vertices.split():
        point = Move.from_gtp(vertex, size).point
        assert point is not None
        result.append(point)
    return result


@pytest.mark.parametrize("seed", [3, 11])
def test_full_game_against_gnu_go(gnugo: str, seed: int):
    imago = imago_gtp(
        "--game", "go", "--agent", "random", "--seed", str(seed), "--rules", "chinese"
    )
    gnu = Pipe([gnugo, "--mode", "gtp", "--level", "1", "--chinese-rules"])
    players = (
        {Color.BLACK: imago, Color.WHITE: gnu}
        if seed % 2
        else {Color.BLACK: gnu, Color.WHITE: imago}
    )
    try:
        for pipe in (imago, gnu):
            pipe.ok("boardsize 9")
            pipe.ok("clear_board")
            pipe.ok("komi 7")
        color, passes, moves = Color.BLACK, 0, []
        while passes < 2 and len(moves) < 400:
            vertex = players[color].ok(f"genmove {color}").upper()
            assert vertex != "RESIGN", f"{color} resigned"
            players[color.opponent].ok(f"play {color} {vertex}")
            moves.append(vertex)
            passes = passes + 1 if vertex == "PASS" else 0
            color = color.opponent
        assert passes == 2, "the game did not end by two passes"
        assert stones(imago) == stones(gnu)
        ours, theirs = imago.ok("final_score"), gnu.ok("final_score")
        gnu_dead = gnu.ok("final_status_list dead")
        our_dead = imago.ok("final_status_list dead")
        assert set(our_dead.split()) == set(gnu_dead.split())
        assert _same_score(ours, theirs), (ours, theirs, moves)
        # imago's counting with GNU Go's dead stones gives GNU Go's result.
        position = new_game(9, GoRules.preset("chinese").with_komi(7))
        for index, vertex in enumerate(moves):
            position = position.play(
                Move.from_gtp(vertex, 9), Color.BLACK if index % 2 == 0 else Color.WHITE
            )
        counted = score(position, points(gnu_dead, 9))
        assert _same_score(counted.result(), theirs)
    finally:
        imago.close()
        gnu.close()


def _same_score(a: str, b: str) -> bool:
    """``B+3`` and ``B+3.0`` are the same result; ``0`` is a draw."""
    if a == "0" or b == "0":
        return a == b
    return a[0].upper() == b[0].upper() and float(a[2:]) == float(b[2:])


def test_full_othello_game_against_gtp_rhino(gtp_rhino: str):
    imago = imago_gtp("--game", "othello", "--agent", "random", "--seed", "5")
    rhino = Pipe([gtp_rhino])
    players = {Color.BLACK: rhino, Color.WHITE: imago}
    try:
        for pipe in (imago, rhino):
            pipe.ok("boardsize 8")
            pipe.ok("clear_board")
        color, passes, plies = Color.BLACK, 0, 0
        while passes < 2 and plies < 130:
            plies += 1
            vertex = players[color].ok(f"genmove {color}").upper()
            if vertex == "PASS":
                passes += 1
            else:
                passes = 0
                players[color.opponent].ok(f"play {color} {vertex}")
                assert grid(imago) == grid(rhino)
            color = color.opponent
        assert passes == 2
        cells = "".join(grid(rhino))
        black, white = cells.count("X"), cells.count("O")
        assert (black, white) == tuple(len(s) for s in stones(imago))
        # the empty squares of a game that ends early count for the winner (the world
        # federation's rule, which imago follows; rhino's random play ends some games early)
        margin = abs(black - white) + (64 - black - white)
        expected = "0" if black == white else f"{'B' if black > white else 'W'}+{margin}"
        assert imago.ok("final_score") == expected
        assert imago.ok("genmove black").lower() == "pass"
    finally:
        imago.close()
        rhino.close()


def _ogs_games(data_dir: Path, count: int, target: Path) -> list[Path]:
    """The first ``count`` real 9x9 OGS games (handicap games included), extracted."""
    paths = []
    with tarfile.open(data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz") as archive:
        for member in archive:
            if member.isfile() and member.name.endswith(".sgf"):
                extracted = archive.extractfile(member)
                assert extracted is not None
                path = target / Path(member.name).name
                path.write_bytes(extracted.read())
                paths.append(path)
                if len(paths) == count:
                    break
    return paths


def test_loadsgf_agrees_with_gnu_go_on_real_games(gnugo: str, data_dir: Path, tmp_path: Path):
    """``loadsgf FILE [MOVE]`` on real OGS records: the same stones and captures as GNU Go's
    ``loadsgf`` at the end and in the middle of every game."""
    gnu = Pipe([gnugo, "--mode", "gtp"])
    ours = make_server("go")
    compared = 0
    try:
        for path in _ogs_games(data_dir, 25, tmp_path):
            for where in ("", " 20"):
                succeeded, _ = gnu.send(f"loadsgf {path}{where}")
                if not succeeded:
                    continue  # a record GNU Go refuses
                assert ask(ours, f"loadsgf {path}{where}") == ""
                compared += 1
                for color in ("black", "white"):
                    line = f"list_stones {color}"
                    assert set(ask(ours, line).split()) == set(gnu.ok(line).split()), path
                    line = f"captures {color}"
                    assert ask(ours, line) == gnu.ok(line), (path, where)
        assert compared >= 45
        assert refuse(ours, f"loadsgf {tmp_path / 'missing.sgf'}") == "cannot load file"
    finally:
        gnu.close()
