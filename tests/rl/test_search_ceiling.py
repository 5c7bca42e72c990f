"""``bench/search_ceiling.py``: the az search with the exact solver's values at its leaves."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("torch")

from imago.rl.config import smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import init

_SCRIPT = Path(__file__).parents[2] / "bench" / "search_ceiling.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("search_ceiling", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# White to move, five empty squares; the exact solver's best is a3, winning by 36 discs.
ALL_WINS = """
O X X X - X O O
X X X X X X O O
- X X X O O O O
O X X O O X O O
O X O X X X X O
O X O O X O X O
X X O O O X X O
- - O O X - X O
"""


@pytest.mark.parametrize(
    ("weight", "to_play", "value"),
    [
        (0.0, 2, 1.0),  # White wins: a win is worth 1 on the results' scale
        (1.0, 2, 0.5 + 0.5 * 36 / 64),  # by 36 discs of 64
        (0.5, 2, 0.5 + 0.5 * (0.5 + 0.5 * 36 / 64)),
    ],
)
def test_a_leaf_is_worth_its_exact_score(weight: float, to_play: int, value: float) -> None:
    board = np.array(
        [{"-": 0, "X": 1, "O": 2}[ch] for ch in ALL_WINS.split()], dtype=np.int8
    )  # row by row from a1, as the leaves keep it
    evaluator = _script().SolverValues(8, weight)
    assert evaluator.value(board, to_play) == pytest.approx(value)


def test_the_ceiling_of_a_runs_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    config = smoke_config(GameSpec("othello", 6)).with_changes(
        {"solver_positions": 4, "solver_empties": 8}
    )
    init(RunFolder(run), config)
    args = [str(run), "--positions", "4", "--empties", "8", "--simulations", "40"]
    assert _script().main([*args, "--score-weight", "0", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines] == ["score_weight 0", "score_weight 1"]
    for line in lines:
        best = float(line.split("best move ")[1].split(",")[0])
        kept = float(line.split("result kept ")[1].split(" ")[0])
        assert 0 <= best <= kept <= 1  # a largest-margin move keeps the result
        assert "(4 positions)" in line
