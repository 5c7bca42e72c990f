"""Calibrate multi-ProbCut for the Othello alpha-beta search (Buro 1997).

ProbCut predicts a deep search's value from a shallow one: on positions from real games, the
value at depth ``d`` is close to ``a * v + b`` where ``v`` is the value at the shallower
:func:`~imago.agents.othello.probcut.shallow_depth` ``(d)``, with a spread ``sigma`` that
depends on the depth and on the stage of the game. This module measures both searches on
WTHOR positions (by default games from 2023 on, which the built-in pattern evaluation was not
fitted on), fits ``a``, ``b`` and ``sigma`` per depth and per bucket of empty squares, and
writes the calibration the agent's ``probcut`` option reads
(:func:`imago.agents.othello.weights.load_probcut`).

The searches are the agent's own (:func:`imago.agents.othello.probcut.search_values`: the
pattern evaluation, full window, no pruning), one fresh transposition table per position,
depths 1 to ``max_depth`` in turn. Measuring is the long part: the values are saved after every
chunk of positions (atomically, beside the output as ``<out>.values.npz``), and a run started
again with the same settings carries on from there.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from imago.agents.othello import probcut
from imago.agents.othello.weights import PROBCUT_FORMAT
from imago.core.files import atomic_write
from imago.games.othello.bitboard import legal_moves, popcount

ProgressCallback = Callable[[int, int], None]
"""``(positions measured, positions in all)``."""

CHUNK = 16
"""Positions measured between two saves (and per task of a worker process)."""
MIN_SAMPLES = 40
"""A (depth, bucket) cell with fewer usable pairs takes the fit of all buckets at its depth."""


@dataclass(frozen=True)
class ProbCutConfig:
    """What to measure."""

    positions: int = 2000
    """Positions sampled from the games."""
    max_depth: int = 10
    """The deepest search measured (deeper nodes use this depth's fit)."""
    min_empties: int = 19
    """Sample positions with at least this many empty squares (the exact solver plays the
    rest)."""
    max_empties: int = 54
    """... and at most this many."""
    validate_from: int = 2023
    """Sample games of this year and later (0: every game)."""
    seed: int = 1
    """Seed of the sampling."""
    table_bits: int = 18
    """Transposition table entries per search, as a power of two."""

    def check(self) -> None:
        """Raise ``ValueError`` for settings that cannot work."""
        if self.positions < MIN_SAMPLES:
            raise ValueError(f"positions must be at least {MIN_SAMPLES}")
        if not probcut.MIN_DEPTH <= self.max_depth <= 20:
            raise ValueError(f"max_depth must be in {probcut.MIN_DEPTH}..20")
        if not 1 <= self.min_empties <= self.max_empties <= 60:
            raise ValueError("need 1 <= min_empties <= max_empties <= 60")
        if not 10 <= self.table_bits <= 24:
            raise ValueError("table_bits must be in 10..24")


@dataclass(frozen=True)
class Measured:
    """Each position's search values: ``values[i, d]`` is the depth-``d`` value (hundredths of
    a disc, the mover's view; column 0 unused)."""

    p: npt.NDArray[np.uint64]
    o: npt.NDArray[np.uint64]
    values: npt.NDArray[np.int64]

    @property
    def empties(self) -> npt.NDArray[np.int64]:
        return empty_squares(self.p, self.o)


def empty_squares(p: npt.NDArray[np.uint64], o: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """The empty squares of each 8x8 position."""
    return 64 - np.array([popcount(x) for x in p | o], dtype=np.int64)


# -- sampling and measuring ----------------------------------------------------------------------


def sample_positions(
    positions: tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]], config: ProbCutConfig
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """``config.positions`` distinct positions (mover first) with empties in range and a move
    to play, drawn without replacement by ``config.seed``."""
    all_p, all_o = positions
    if not len(all_p):
        raise ValueError(
            f"no games from {config.validate_from} on in the WTHOR files: give "
            "--validate-from an earlier year (0: every game)"
        )
    empties = empty_squares(all_p, all_o)
    keep = (empties >= config.min_empties) & (empties <= config.max_empties)
    keep &= np.array([legal_moves(p, o) != 0 for p, o in zip(all_p, all_o, strict=True)])
    candidates = np.flatnonzero(keep)
    pairs = np.unique(np.stack([all_p[candidates], all_o[candidates]], axis=1), axis=0)
    if len(pairs) < config.positions:
        raise ValueError(
            f"only {len(pairs):,} distinct positions with {config.min_empties}-"
            f"{config.max_empties} empty squares: ask for fewer --positions or give more games"
        )
    rng = np.random.default_rng(config.seed)
    chosen = np.sort(rng.choice(len(pairs), size=config.positions, replace=False))
    return pairs[chosen, 0].copy(), pairs[chosen, 1].copy()


def _measure_chunk(args: tuple[np.ndarray, np.ndarray, int, int]) -> np.ndarray:
    return probcut.search_values(*args)


def measure(
    p: npt.NDArray[np.uint64],
    o: npt.NDArray[np.uint64],
    config: ProbCutConfig,
    checkpoint: Path,
    *,
    jobs: int = 1,
    progress: ProgressCallback | None = None,
) -> Measured:
    """Measure every position, saving to ``checkpoint`` after each chunk and carrying on from
    a checkpoint of the same positions and settings."""
    values = np.zeros((len(p), config.max_depth + 1), dtype=np.int64)
    done = _resume(checkpoint, p, o, config, values)
    chunks = [(s, min(s + CHUNK, len(p))) for s in range(done, len(p), CHUNK)]
    if progress:
        progress(done, len(p))

    def keep(start: int, stop: int, chunk: np.ndarray) -> None:
        nonlocal done
        values[start:stop] = chunk
        done = stop
        _save_checkpoint(checkpoint, p, o, values, done, config)
        if progress:
            progress(done, len(p))

    work = [(p[a:b], o[a:b], config.max_depth, config.table_bits) for a, b in chunks]
    if jobs <= 1:
        for (a, b), args in zip(chunks, work, strict=True):
            keep(a, b, _measure_chunk(args))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for (a, b), chunk in zip(chunks, pool.map(_measure_chunk, work), strict=True):
                keep(a, b, chunk)  # in order, so the checkpoint is always a prefix
    return Measured(p, o, values)


def _config_key(config: ProbCutConfig) -> str:
    return json.dumps(asdict(config), sort_keys=True)


def _save_checkpoint(
    path: Path, p: np.ndarray, o: np.ndarray, values: np.ndarray, done: int, config: ProbCutConfig
) -> None:
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer, p=p, o=o, values=values, done=np.int64(done), config=np.str_(_config_key(config))
    )
    atomic_write(path, buffer.getvalue())


def _resume(
    path: Path, p: np.ndarray, o: np.ndarray, config: ProbCutConfig, values: np.ndarray
) -> int:
    """Copy a matching checkpoint's values into ``values``; how many positions it had done
    (0 when there is none, or it is of other positions or settings)."""
    if not path.exists():
        return 0
    try:
        with np.load(path, allow_pickle=False) as saved:
            same = (
                str(saved["config"]) == _config_key(config)
                and np.array_equal(saved["p"], p)
                and np.array_equal(saved["o"], o)
                and saved["values"].shape == values.shape
            )
            if not same:
                return 0
            done = int(saved["done"])
            values[:done] = saved["values"][:done]
            return done
    except (OSError, ValueError, KeyError, EOFError):
        return 0


# -- the fit -----------------------------------------------------------------------------------


def fit(measured: Measured, max_depth: int) -> npt.NDArray[np.float64]:
    """The calibration ``float64[max_depth + 1, buckets, 3]``: per depth ``d`` (from
    ``probcut.MIN_DEPTH``) and bucket of empties, least squares ``a, b`` of the depth-``d``
    value on the value at :func:`~imago.agents.othello.probcut.shallow_depth` ``(d)``, and
    ``sigma`` the residuals' standard deviation. Pairs with a won or lost game on either side
    are left out; a bucket with too few pairs takes its depth's fit over all buckets."""
    buckets = 64 // probcut.BUCKET_EMPTIES + 1
    out = np.zeros((max_depth + 1, buckets, 3), dtype=np.float64)
    which = measured.empties // probcut.BUCKET_EMPTIES
    for depth in range(probcut.MIN_DEPTH, max_depth + 1):
        x = measured.values[:, probcut.shallow_depth(depth)].astype(np.float64)
        y = measured.values[:, depth].astype(np.float64)
        usable = (np.abs(x) < probcut.WIN // 2) & (np.abs(y) < probcut.WIN // 2)
        overall = _line(x[usable], y[usable])
        for bucket in range(buckets):
            cell = usable & (which == bucket)
            out[depth, bucket] = _line(x[cell], y[cell]) if cell.sum() >= MIN_SAMPLES else overall
    return out


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """``(a, b, sigma)`` of the least-squares line ``y = a x + b`` (sigma 0: too few points,
    which turns the cell off)."""
    if len(x) < 3 or np.ptp(x) == 0:
        return 0.0, 0.0, 0.0
    a, b = np.polyfit(x, y, 1)
    sigma = float(np.std(y - (a * x + b), ddof=2))
    return float(a), float(b), sigma


def summary(measured: Measured, calibration: np.ndarray) -> list[tuple[int, int, float, float]]:
    """Per depth: ``(depth, shallow depth, sigma over all positions, correlation)``."""
    rows = []
    for depth in range(probcut.MIN_DEPTH, calibration.shape[0]):
        shallow = probcut.shallow_depth(depth)
        x = measured.values[:, shallow].astype(np.float64)
        y = measured.values[:, depth].astype(np.float64)
        usable = (np.abs(x) < probcut.WIN // 2) & (np.abs(y) < probcut.WIN // 2)
        sigma = _line(x[usable], y[usable])[2]
        r = float(np.corrcoef(x[usable], y[usable])[0, 1]) if usable.sum() > 2 else 0.0
        rows.append((depth, shallow, sigma, r))
    return rows


def save_calibration(
    path: str | os.PathLike[str], calibration: np.ndarray, info: dict[str, object]
) -> None:
    """Write the calibration file ``load_probcut`` reads (atomically)."""
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        format=np.str_(PROBCUT_FORMAT),
        calibration=calibration.astype(np.float64),
        info=np.str_(json.dumps(info, sort_keys=True)),
    )
    atomic_write(path, buffer.getvalue())


def held_out_positions(
    files: Sequence[str | os.PathLike[str]] | Iterable[Path], config: ProbCutConfig
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Every position of the games of ``files`` from ``config.validate_from`` on (all games
    when it is 0), mover first."""
    from imago.train.othello_patterns import PatternTrainConfig, load_positions

    pattern_config = PatternTrainConfig(target="final", validate_from=config.validate_from)
    train, valid = load_positions(list(files), pattern_config)
    chosen = valid if config.validate_from else train
    return chosen.p, chosen.o
