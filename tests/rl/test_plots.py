"""A run's curves by compute: the points they are drawn from, and several runs on one figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from imago.rl.folder import RunFolder
from imago.rl.plots import anchor_curve, cpu_hours_by_generation, plot_runs, records_curve


def _score(wins: int, games: int, elo: float) -> dict[str, float]:
    return {
        "games": games,
        "wins": wins,
        "draws": 0,
        "score": wins / games,
        "elo": elo,
        "elo_low": elo - 50,
        "elo_high": elo + 50,
    }


def _run(root: Path, elos: dict[int, float], mses: dict[int, float]) -> RunFolder:
    """A run whose generations each cost 1,800 CPU-seconds (half an hour), measured against
    generation 0 at ``elos`` and validated on records at ``mses``."""
    folder = RunFolder(root)
    for generation in range(1, 1 + max([*elos, *mses])):
        folder.log("compute", generation=generation, cpu_s=1800.0, wall_s=1900.0)
    for generation, mse in mses.items():
        folder.log("validate", generation=generation, records={"top1": 0.5, "value_mse": mse})
    for generation, elo in elos.items():
        folder.log("references", generation=generation, scores={"gen0": _score(35, 60, elo)})
    return folder


def test_the_curves_place_each_generation_at_the_cpu_hours_spent_to_make_it(
    tmp_path: Path,
) -> None:
    # generation: 1     2     3     4
    # CPU-hours:  0.5   1.0   1.5   2.0
    folder = _run(tmp_path / "run", {2: 40.0, 4: 90.0}, {0: 0.85, 2: 0.80, 4: 0.75})
    assert cpu_hours_by_generation(folder) == {1: 0.5, 2: 1.0, 3: 1.5, 4: 2.0}
    assert anchor_curve(folder) == [(1.0, 40.0, -10.0, 90.0), (2.0, 90.0, 40.0, 140.0)]
    # generation 0 is validated before any compute: at 0 hours
    assert records_curve(folder) == [(0.0, 0.85), (1.0, 0.80), (2.0, 0.75)]


def test_a_generation_without_a_compute_row_is_left_off_the_curves(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.log("validate", generation=3, records={"value_mse": 0.9})
    folder.log("references", generation=3, scores={"gen0": _score(30, 60, 0.0)})
    assert records_curve(folder) == []
    assert anchor_curve(folder) == []


def test_several_runs_are_drawn_on_one_figure(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    go = _run(tmp_path / "go", {2: 40.0}, {0: 0.85, 2: 0.80})
    othello = _run(tmp_path / "othello", {2: -20.0, 4: 60.0}, {})
    out = tmp_path / "figures" / "compute.png"
    assert plot_runs([go, othello], out, ["Go", "Othello"]) == out
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="2 runs but 1 labels"):
        plot_runs([go, othello], out, ["Go"])


def test_runs_without_a_measured_generation_draw_nothing(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    empty = RunFolder(tmp_path / "empty")
    empty.log("compute", generation=1, cpu_s=10.0, wall_s=10.0)
    out = tmp_path / "compute.png"
    assert plot_runs([empty], out) is None
    assert not out.exists()
