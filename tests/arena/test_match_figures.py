"""``bench/match_figures.py``: per-player figures read back from match folders."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from imago.arena.match import GameRecord, MatchFolder
from repo_scripts import load_script


def _script() -> ModuleType:
    return load_script("bench/match_figures.py")


#  ply  player  move   comment                         after a pass?
#  0    a (B)   D6     1.00 s, winrate 50.0%, 1200 nodes
#  1    b (W)   pass   0.01 s
#  2    a (B)   E5     800 nodes                        yes
#  3    b (W)   pass   0.01 s
#  4    a (B)   pass   300 nodes                        no: a pass
_SGF = (
    "(;GM[1]SZ[9]KM[7];B[dd]C[1.00 s, winrate 50.0%, 1200 nodes];W[]C[0.01 s]"
    ";B[ee]C[800 nodes];W[]C[0.01 s];B[]C[300 nodes])"
)
# seconds a ply; the first ply is a random opening move, not counted
_SECONDS = (1.0, 0.01, 0.5, 0.02, 0.3)
_RECORD = GameRecord(
    0,
    "a",
    "b",
    None,
    "0",
    "score",
    moves=("D6", "pass", "E5", "pass", "pass"),
    seconds=_SECONDS,
    opening_plies=1,
)


def test_nodes_and_plays_after_a_pass_are_read_per_player(tmp_path: Path) -> None:
    figures = _script()
    assert figures.player_figures(_RECORD, _SGF) == {"a": ([1200, 800, 300], 1), "b": ([], 0)}
    folder = MatchFolder(tmp_path)
    folder.save(_RECORD, _SGF)
    swapped = GameRecord(
        1, "b", "a", None, "0", "score", moves=_RECORD.moves, seconds=_SECONDS, opening_plies=1
    )
    folder.save(swapped, _SGF)
    assert figures.folder_figures(tmp_path) == {
        "a": (5, 800, 1, [0.5, 0.3, 0.01, 0.02]),
        "b": (5, 800, 1, [0.01, 0.02, 0.5, 0.3]),
    }


def test_seconds_spread_is_percentiles_and_the_longest() -> None:
    spread = _script().spread
    assert spread([float(x) for x in range(1, 12)]) == "1.20 / 6.00 / 10.80 / 11.00"
    assert spread([1.0]) == "-"
