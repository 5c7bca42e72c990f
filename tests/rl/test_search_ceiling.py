"""``bench/search_ceiling.py``: the az search with the exact solver's values at its leaves."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from repo_scripts import load_script

pytest.importorskip("torch")

from imago.rl.config import smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import init
from imago.rl.validate import solver_positions


def _script() -> ModuleType:
    return load_script("bench/search_ceiling.py")


def _positions(tmp_path: Path, count: int) -> tuple[Path, list[Any], np.ndarray]:
    """A run folder with ``count`` solver-labelled 6x6 positions of at most 8 empties, and
    the positions with their moves' exact scores."""
    run = tmp_path / "run"
    config = smoke_config(GameSpec("othello", 6)).with_changes(
        {"solver_positions": count, "solver_empties": 8}
    )
    init(RunFolder(run), config)
    states, scores = solver_positions(RunFolder(run), config)
    return run, states, scores


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_a_leaf_is_worth_its_best_moves_exact_score(tmp_path: Path, weight: float) -> None:
    _, states, scores = _positions(tmp_path, 4)
    evaluator = _script().SolverValues(6, weight)
    for state, row in zip(states, scores, strict=True):
        top = int(row.max())  # the position's exact score: its best move's
        expected = 0.5 + 0.5 * ((1 - weight) * np.sign(top) + weight * top / 36)
        board = state.board().reshape(-1)  # 0 empty, 1 black, 2 white, as the leaves keep it
        assert evaluator.value(board, int(state.to_play)) == pytest.approx(expected)


def test_the_ceiling_of_a_runs_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, _, _ = _positions(tmp_path, 4)
    args = [str(run), "--positions", "4", "--empties", "8", "--simulations", "40"]
    assert _script().main([*args, "--score-weight", "0", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines] == ["score_weight 0", "score_weight 1"]
    for line in lines:
        best = float(line.split("best move ")[1].split(",")[0])
        kept = float(line.split("result kept ")[1].split(" ")[0])
        assert 0 <= best <= kept <= 1  # a largest-margin move keeps the result
        assert "(4 positions)" in line
