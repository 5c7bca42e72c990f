"""Multi-ProbCut for the Othello alpha-beta search: the bounds, the calibration fit on real
WTHOR positions, its file, and the pruning it buys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from imago.agents._table import new_table
from imago.agents.othello import _alphabeta as search
from imago.agents.othello import probcut
from imago.agents.othello._kernels import new_scratch
from imago.agents.othello.weights import (
    PROBCUT_FORMAT,
    WeightsError,
    builtin_probcut,
    load_pattern_weights,
    load_probcut,
)
from imago.cli.app import app
from imago.train import othello_probcut as pc

YEAR = "WTH_2023.wtb"  # held out from the built-in patterns' fit


@pytest.mark.parametrize(
    ("depth", "shallow"),
    [(3, 1), (4, 2), (5, 3), (6, 2), (7, 3), (8, 4), (9, 5), (10, 4), (11, 5), (12, 6)],
)
def test_the_shallow_search_is_about_half_as_deep_with_the_same_parity(
    depth: int, shallow: int
) -> None:
    assert search.probcut_depth(depth) == shallow
    assert shallow % 2 == depth % 2 and 0 < shallow < depth


def _calibration(a: float, b: float, sigma: float) -> np.ndarray:
    table = np.zeros((5, 7, 3))
    table[3:, :] = (a, b, sigma)
    return table


# Board for the bounds: 40 empties (bucket 4).
P, O = np.uint64(0xFFFFFF), np.uint64(0)
WIN = search.WIN


@pytest.mark.parametrize(
    ("calibration", "depth", "alpha", "beta", "t", "expected"),
    [
        # deep ~ shallow, sigma 1 disc, t 1.5: each bound moves out by 150.
        (_calibration(1.0, 0.0, 100.0), 4, -50, 50, 1.5, (200, -200)),
        # deep ~ 2 shallow + 10: the shallow bounds are (bound -+ t sigma - b) / a.
        (_calibration(2.0, 10.0, 100.0), 4, 0, 1, 1.0, (46, -55)),
        # the last row serves deeper nodes
        (_calibration(1.0, 0.0, 100.0), 12, -50, 50, 1.0, (150, -150)),
        # a cell without a fit (sigma 0), or no calibration: no test
        (_calibration(1.0, 0.0, 0.0), 4, -50, 50, 1.5, (WIN, -WIN)),
        (search.NO_PROBCUT, 4, -50, 50, 1.5, (WIN, -WIN)),
        # a bound that is a won or lost game is never predicted
        (_calibration(1.0, 0.0, 100.0), 4, -search.INF, 50, 1.5, (200, -WIN)),
        (_calibration(1.0, 0.0, 100.0), 4, -50, WIN + 3, 1.5, (WIN, -200)),
    ],
)
def test_probcut_bounds(
    calibration: np.ndarray,
    depth: int,
    alpha: int,
    beta: int,
    t: float,
    expected: tuple[int, int],
) -> None:
    assert search.probcut_bounds(P, O, depth, alpha, beta, calibration, t) == expected


def test_the_fit_recovers_a_known_line_per_bucket() -> None:
    rng = np.random.default_rng(3)
    n = 4000
    p = np.zeros(n, dtype=np.uint64)
    empties = rng.integers(20, 50, n)
    # Empty squares are the low bits, so `empties` reads back as the count of zeros.
    p[:] = [np.uint64(((1 << 64) - 1) ^ ((1 << int(e)) - 1)) for e in empties]
    values = np.zeros((n, 7), dtype=np.int64)
    shallow = rng.normal(0, 800, (n, 7))
    values[:] = shallow.astype(np.int64)
    noise = np.where(empties >= 40, 300.0, 100.0)
    deep = 1.5 * values[:, search.probcut_depth(6)] - 40 + rng.normal(0, 1, n) * noise
    values[:, 6] = deep.astype(np.int64)
    values[:5, 6] = search.WIN + 10  # finished games are left out of the fit
    measured = pc.Measured(p, np.zeros(n, dtype=np.uint64), values)
    table = pc.fit(measured, 6)
    assert table.shape == (7, 64 // search.PROBCUT_BUCKET_EMPTIES + 1, 3)
    for bucket, sigma in ((2, 100.0), (3, 100.0), (4, 300.0)):
        a, b, s = table[6, bucket]
        assert a == pytest.approx(1.5, abs=0.03)
        assert b == pytest.approx(-40, abs=12)
        assert s == pytest.approx(sigma, rel=0.08)
    # an empty bucket takes the fit over every bucket; shallower rows stay off
    assert table[6, 0, 0] == pytest.approx(1.5, abs=0.03) and table[6, 0, 2] > 100
    assert not table[: search.PROBCUT_MIN_DEPTH].any()


@pytest.fixture(scope="module")
def measured(data_dir: Path) -> pc.Measured:
    config = pc.ProbCutConfig(positions=48, max_depth=6)
    positions = pc.held_out_positions([data_dir / "wthor" / YEAR], config)
    sample = pc.sample_positions(positions, config)
    return pc.Measured(*sample, probcut.search_values(*sample, 6, 16))


def test_real_positions_are_sampled_in_range_and_measured(measured: pc.Measured) -> None:
    assert len(set(zip(measured.p, measured.o, strict=True))) == 48
    assert ((measured.empties >= 19) & (measured.empties <= 54)).all()
    assert (measured.p & measured.o == 0).all()
    table = load_pattern_weights()
    for i in (0, 17, 40):  # spot check: the same search run alone
        keys, data = new_table(16)
        stats = np.zeros(3, dtype=np.int64)
        value = search.negamax(
            measured.p[i], measured.o[i], 5, -search.INF, search.INF, 1, 0, search.EVAL_PATTERNS,
            search.NO_WEIGHTS, table, 8, stats, keys, data, search.NO_PROBCUT, 0.0, new_scratch(),
        )  # fmt: skip
        assert value == measured.values[i, 5]
    # Real positions: the shallow search predicts the deep one well.
    for depth, shallow, sigma, r in pc.summary(measured, pc.fit(measured, 6)):
        assert shallow < depth and r > 0.9 and 0 < sigma < 800, (depth, sigma, r)


def test_measuring_resumes_from_its_checkpoint(measured: pc.Measured, tmp_path: Path) -> None:
    config = pc.ProbCutConfig(positions=48, max_depth=4, table_bits=14)
    p, o = measured.p[:20], measured.o[:20]
    checkpoint = tmp_path / "c.values.npz"
    marked = np.full((20, 5), 7777, dtype=np.int64)
    pc._save_checkpoint(checkpoint, p, o, marked, 16, config)  # as if killed after a chunk
    seen: list[int] = []
    result = pc.measure(p, o, config, checkpoint, progress=lambda done, total: seen.append(done))
    assert (result.values[:16] == 7777).all()  # kept, not measured again
    assert (result.values[16:, 1:] == measured.values[16:20, 1:5]).all()
    assert seen == [16, 20]
    # A checkpoint of other settings is not used.
    other = pc.ProbCutConfig(positions=48, max_depth=4, table_bits=14, seed=2)
    pc._save_checkpoint(checkpoint, p, o, marked, 16, other)
    again = pc.measure(p, o, config, checkpoint)
    assert (again.values[:, 1:] == measured.values[:20, 1:5]).all()


def test_probcut_prunes_and_mostly_keeps_the_search_value(measured: pc.Measured) -> None:
    """With the shipped calibration, depth-6 searches visit fewer nodes and land close to the
    full search (t = 2: about 95 % of the cuts are right)."""
    table = load_pattern_weights()
    calibration = builtin_probcut()
    nodes = {0.0: 0, 2.0: 0}
    close = 0
    for i in range(len(measured.p)):
        values = {}
        for t in nodes:
            keys, data = new_table(16)
            stats = np.zeros(3, dtype=np.int64)
            values[t] = search.negamax(
                measured.p[i], measured.o[i], 6, -search.INF, search.INF, 1, 0,
                search.EVAL_PATTERNS, search.NO_WEIGHTS, table, 8, stats, keys, data,
                calibration, t, new_scratch(),
            )  # fmt: skip
            nodes[t] += int(stats[0])
        assert values[0.0] == measured.values[i, 6]
        close += abs(values[2.0] - values[0.0]) <= 300
    assert nodes[2.0] < 0.8 * nodes[0.0]
    assert close >= 0.85 * len(measured.p)


def test_the_calibration_file_round_trips(tmp_path: Path) -> None:
    table = _calibration(1.1, -3.0, 250.0)
    pc.save_calibration(tmp_path / "c.npz", table, {"note": "test"})
    assert np.array_equal(load_probcut(tmp_path / "c.npz"), table)
    shipped = builtin_probcut()
    assert shipped.shape[2] == 3 and shipped[search.PROBCUT_MIN_DEPTH :, :, 2].min() > 0


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        (None, "not a ProbCut calibration file"),
        ({"calibration": np.zeros((4, 7, 3))}, "not an imago ProbCut calibration file"),
        ({"format": PROBCUT_FORMAT, "calibration": np.zeros((4, 7))}, "shape"),
        ({"format": PROBCUT_FORMAT, "calibration": np.zeros((4, 7, 3), dtype=int)}, "floats"),
        ({"format": PROBCUT_FORMAT, "calibration": np.full((4, 7, 3), np.nan)}, "non-finite"),
    ],
)
def test_a_bad_calibration_file_is_refused(
    tmp_path: Path, arrays: dict[str, np.ndarray] | None, message: str
) -> None:
    path = tmp_path / "bad.npz"
    if arrays is None:
        path.write_bytes(b"not a zip file")
    else:
        np.savez(path, **arrays)  # type: ignore[arg-type]
    with pytest.raises(WeightsError, match=message):
        load_probcut(path)


def test_train_probcut_command_writes_a_calibration(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs" / "pc.npz"
    wthor = str(data_dir / "wthor" / YEAR)
    args = ["train", "probcut", wthor, "--out", str(out), "--positions", "40", "--max-depth", "4"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "depth  4 from 2" in result.output
    table = load_probcut(out)
    assert table.shape[0] == 5 and table[4, :, 2].max() > 0
    assert (tmp_path / "runs" / "pc.npz.values.npz").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--positions", "5"], "positions must be at least"),
        (["--max-depth", "2"], "max_depth must be in"),
        (["--min-empties", "30", "--max-empties", "20"], "min_empties <= max_empties"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--positions", "100000"], "ask for fewer --positions"),
        (["--validate-from", "2030"], "give --validate-from an earlier year"),
    ],
)
def test_train_probcut_refuses_bad_settings(
    data_dir: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    wthor = str(data_dir / "wthor" / YEAR)
    out = str(tmp_path / "x.npz")
    result = CliRunner().invoke(app, ["train", "probcut", wthor, "--out", out, *args])
    assert result.exit_code != 0
    assert message in result.output
    assert not (tmp_path / "x.npz").exists()


def test_train_probcut_needs_a_wthor_source(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["train", "probcut", str(tmp_path / "none"), "--out", str(tmp_path / "x.npz")]
    )
    assert result.exit_code != 0 and "no such file or folder" in result.output


def test_train_probcut_killed_and_run_again_ends_as_one_run(
    data_dir: Path, tmp_path: Path, kill_when: Any
) -> None:
    """kill -9 after the first saved chunk; the same command then measures only the rest and
    writes the calibration an uninterrupted run writes."""
    import subprocess
    import sys

    wthor = str(data_dir / "wthor" / YEAR)
    settings = ["--positions", "48", "--max-depth", "7"]

    def command(out: Path) -> list[str]:
        return [sys.executable, "-m", "imago", "train", "probcut", wthor, "--out", str(out)]

    whole = tmp_path / "whole.npz"
    subprocess.run([*command(whole), *settings], check=True, capture_output=True, timeout=600)
    killed = tmp_path / "killed.npz"
    checkpoint = tmp_path / "killed.npz.values.npz"
    kill_when([*command(killed), *settings], checkpoint.exists)
    with np.load(checkpoint) as saved:
        assert 0 < int(saved["done"]) < 48
    assert not killed.exists()
    again = subprocess.run(
        [*command(killed), *settings], capture_output=True, text=True, timeout=600
    )
    assert again.returncode == 0, again.stderr
    assert np.array_equal(load_probcut(killed), load_probcut(whole))
