# mypy: disable-error-code="no-any-return"
"""Train the alpha-beta agent's Othello pattern evaluation on WTHOR games.

Every position before a move of a game (from the mover's side, passes skipped) is one
least-squares example: the features are the pattern instances and mobility entries of
:mod:`imago.agents.othello.patterns` (one table per stage, weights tied under the board's
symmetries) and the target is the game's disc difference for the mover: with the ``mixed``
target, WTHOR's theoretical score (perfect play from the position with 24 empties) while at
least ``theory_empties`` squares are empty, the final score after that; with ``final``, the
final score throughout. Training is plain stochastic gradient
descent on the squared error in numba (one weight update per position, shuffled order,
learning rate decaying per epoch); games from ``validate_from`` on are held out and only
measured.

The result is an ``.npz`` file (see :func:`save_weights`) that ``imago.agents.othello.weights``
loads; it is written atomically after every epoch, so an interrupted run leaves the last
finished epoch and ``resume`` continues from it.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numba
import numpy as np

from imago.agents.othello import patterns as pat
from imago.agents.othello.weights import PATTERN_FORMAT, load_pattern_weights
from imago.core.files import atomic_write
from imago.games.othello.bitboard import flips, legal_moves, popcount
from imago.records.wthor import read_wtb

_U1 = np.uint64(1)
THEORY_EMPTIES = 24
"""WTHOR's theoretical score is perfect play from the position with 24 empty squares (games
that end earlier have none)."""


@dataclass(frozen=True)
class PatternTrainConfig:
    """How to train the pattern weights."""

    epochs: int = 10
    learning_rate: float = 0.002
    """Step per unit of error (in discs) and feature, first epoch."""
    decay: float = 0.7
    """The learning rate is multiplied by this after every epoch."""
    validate_from: int = 2023
    """Games of this year and later are held out (0: none)."""
    target: str = "mixed"
    """``mixed`` (theoretical score while >= ``theory_empties`` empties, then the final
    score) or ``final``."""
    theory_empties: int = 18
    """With ``mixed``: positions with this many empty squares or more take the theoretical
    score (the players' errors after 24 empties are noise on both targets; past the middle
    of the endgame the final score is the nearer one)."""
    seed: int = 1
    max_games: int = 0
    """Use at most this many training games (0: all), for quick runs and tests."""

    def check(self) -> None:
        """Raise ``ValueError`` for settings that cannot train."""
        if self.epochs < 1:
            raise ValueError("epochs must be >= 1")
        if not self.learning_rate > 0 or not 0 < self.decay <= 1:
            raise ValueError("learning_rate must be > 0 and decay in (0, 1]")
        if self.target not in ("mixed", "final"):
            raise ValueError(f"target must be 'mixed' or 'final', not {self.target!r}")
        if not 0 <= self.theory_empties <= 60:
            raise ValueError("theory_empties must be in 0..60")
        if self.max_games < 0:
            raise ValueError("max_games must be >= 0")


@dataclass(frozen=True)
class Positions:
    """Training examples: bitboards from the mover's side and the target in discs."""

    p: np.ndarray
    o: np.ndarray
    target: np.ndarray
    games: int

    def __len__(self) -> int:
        return int(self.p.shape[0])


@dataclass(frozen=True)
class EpochReport:
    """What one epoch did: root-mean-square errors in discs (validation ``nan`` if none)."""

    epoch: int
    learning_rate: float
    train_rmse: float
    valid_rmse: float
    valid_mae: float
    valid_stage_rmse: tuple[float, ...]


ProgressCallback = Callable[[int, int, int], None]
"""``(epoch, positions done, positions in the epoch)``."""


# -- positions from WTHOR --------------------------------------------------------------------


@numba.njit(cache=True)
def _replay(
    squares: np.ndarray,
    lengths: np.ndarray,
    final: np.ndarray,
    theory: np.ndarray,
    theory_empties: int,
    out_p: np.ndarray,
    out_o: np.ndarray,
    out_t: np.ndarray,
) -> tuple[int, int]:
    """Replay games (``squares``: ``row * 8 + col`` per move) and write every position before
    a move; ``final`` / ``theory`` are Black's disc differences (``theory`` < -64: none).
    Returns (positions written, games that replayed)."""
    n = 0
    good = 0
    for g in range(squares.shape[0]):
        start = n
        p = (_U1 << np.uint64(28)) | (_U1 << np.uint64(35))  # Black: d5, e4
        o = (_U1 << np.uint64(27)) | (_U1 << np.uint64(36))  # White: d4, e5
        black = True
        ok = True
        for k in range(lengths[g]):
            sq = squares[g, k]
            bit = _U1 << np.uint64(sq)
            if not legal_moves(p, o) & bit:
                p, o = o, p
                black = not black
                if not legal_moves(p, o) & bit:
                    ok = False
                    break
            empties = 64 - popcount(p | o)
            value = final[g]
            if empties >= theory_empties and theory[g] >= -64:
                value = theory[g]
            out_p[n] = p
            out_o[n] = o
            out_t[n] = value if black else -value
            n += 1
            f = flips(p, o, sq)
            p, o = o ^ f, p | f | bit
            black = not black
        if ok:
            good += 1
        else:
            n = start
    return n, good


def wthor_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The ``.wtb`` files of a folder, by name."""
    files = sorted(Path(folder).glob("*.wtb")) + sorted(Path(folder).glob("*.WTB"))
    if not files:
        raise ValueError(f"no .wtb files in {folder}")
    return files


def load_positions(
    files: Iterable[str | os.PathLike[str]],
    config: PatternTrainConfig,
) -> tuple[Positions, Positions]:
    """(training, validation) positions of the games of ``files``, split by year."""
    train: list[list[np.ndarray]] = [[], [], [], []]
    valid: list[list[np.ndarray]] = [[], [], [], []]
    taken = 0
    for path in files:
        header, games = read_wtb(path)
        if not games:
            continue
        held_out = bool(config.validate_from) and header.year >= config.validate_from
        if not held_out and config.max_games:
            games = games[: max(0, config.max_games - taken)]
            taken += len(games)
        if not games:
            continue
        squares = np.zeros((len(games), 60), dtype=np.int64)
        lengths = np.zeros(len(games), dtype=np.int64)
        for g, game in enumerate(games):
            actions = [m.to_action(8) for m in game.moves]
            squares[g, : len(actions)] = actions
            lengths[g] = len(actions)
        final = np.array([2 * g.black_score - 64 for g in games], dtype=np.int64)
        theory = np.array([2 * g.theoretical_score - 64 for g in games], dtype=np.int64)
        if config.target == "final":
            theory[:] = -100
        theory[lengths < 60 - THEORY_EMPTIES] = -100
        total = int(lengths.sum())
        out_p = np.empty(total, dtype=np.uint64)
        out_o = np.empty(total, dtype=np.uint64)
        out_t = np.empty(total, dtype=np.float32)
        n, good = _replay(
            squares, lengths, final, theory, config.theory_empties, out_p, out_o, out_t
        )
        bucket = valid if held_out else train
        bucket[0].append(out_p[:n])
        bucket[1].append(out_o[:n])
        bucket[2].append(out_t[:n])
        bucket[3].append(np.array([good]))
    return _join(train), _join(valid)


def _join(parts: list[list[np.ndarray]]) -> Positions:
    if not parts[0]:
        empty = np.empty(0, dtype=np.uint64)
        return Positions(empty, empty.copy(), np.empty(0, dtype=np.float32), 0)
    return Positions(
        np.concatenate(parts[0]),
        np.concatenate(parts[1]),
        np.concatenate(parts[2]),
        int(np.concatenate(parts[3]).sum()),
    )


# -- the regression ----------------------------------------------------------------------------


@numba.njit(cache=True)
def _sgd(
    p: np.ndarray,
    o: np.ndarray,
    target: np.ndarray,
    order: np.ndarray,
    weights: np.ndarray,
    compact_of: np.ndarray,
    rate: float,
) -> float:
    """One pass of SGD over ``order``; the sum of squared errors seen (before each update)."""
    idx = np.empty(pat.N_FEATURES, dtype=np.int64)
    sse = 0.0
    for n in order:
        pp = p[n]
        oo = o[n]
        s = pat.stage_of(pp, oo)
        pat.feature_indices(pp, oo, legal_moves(pp, oo), idx)
        pred = 0.0
        for k in range(pat.N_FEATURES):
            idx[k] = compact_of[idx[k]]
            pred += weights[s, idx[k]]
        err = target[n] - pred
        sse += err * err
        step = rate * err
        for k in range(pat.N_FEATURES):
            weights[s, idx[k]] += step
    return sse


@numba.njit(cache=True)
def _errors(
    p: np.ndarray,
    o: np.ndarray,
    target: np.ndarray,
    weights: np.ndarray,
    compact_of: np.ndarray,
    stage_sse: np.ndarray,
    stage_count: np.ndarray,
) -> float:
    """Squared errors per stage into ``stage_sse`` / ``stage_count``; the sum of |errors|."""
    idx = np.empty(pat.N_FEATURES, dtype=np.int64)
    sae = 0.0
    for n in range(p.shape[0]):
        pp = p[n]
        oo = o[n]
        s = pat.stage_of(pp, oo)
        pat.feature_indices(pp, oo, legal_moves(pp, oo), idx)
        pred = 0.0
        for k in range(pat.N_FEATURES):
            pred += weights[s, compact_of[idx[k]]]
        err = target[n] - pred
        stage_sse[s] += err * err
        stage_count[s] += 1
        sae += abs(err)
    return sae


def measure(positions: Positions, weights: np.ndarray) -> tuple[float, float, tuple[float, ...]]:
    """(RMSE, MAE, RMSE per stage) of ``weights`` (compact, in discs) on ``positions``."""
    if len(positions) == 0:
        return float("nan"), float("nan"), ()
    compact_of, _ = pat.tie_tables()
    sse = np.zeros(pat.STAGES)
    count = np.zeros(pat.STAGES)
    sae = _errors(positions.p, positions.o, positions.target, weights, compact_of, sse, count)
    stage = tuple(
        float(np.sqrt(s / c)) if c else float("nan") for s, c in zip(sse, count, strict=True)
    )
    return float(np.sqrt(sse.sum() / len(positions))), sae / len(positions), stage


def new_weights() -> np.ndarray:
    """Zero compact weights ``float64[STAGES, n]`` (the tied classes of every table)."""
    _, starts = pat.tie_tables()
    return np.zeros((pat.STAGES, int(starts[-1])), dtype=np.float64)


def train(
    train_set: Positions,
    valid_set: Positions,
    config: PatternTrainConfig,
    *,
    weights: np.ndarray | None = None,
    first_epoch: int = 0,
    on_epoch: Callable[[EpochReport, np.ndarray], None] | None = None,
    on_progress: ProgressCallback | None = None,
    block: int = 200_000,
) -> np.ndarray:
    """Fit compact weights (in discs) by SGD; ``on_epoch`` gets each epoch's report and
    weights (to save them), ``on_progress`` the position count as it goes."""
    config.check()
    if len(train_set) == 0:
        raise ValueError("no training positions")
    compact_of, _ = pat.tie_tables()
    w = new_weights() if weights is None else weights
    rng = np.random.default_rng(config.seed + first_epoch)
    n = len(train_set)
    for epoch in range(first_epoch, config.epochs):
        rate = config.learning_rate * config.decay**epoch
        order = rng.permutation(n)
        sse = 0.0
        for begin in range(0, n, block):
            chunk = order[begin : begin + block]
            sse += _sgd(train_set.p, train_set.o, train_set.target, chunk, w, compact_of, rate)
            if on_progress:
                on_progress(epoch, min(begin + block, n), n)
        rmse, mae, stages = measure(valid_set, w)
        report = EpochReport(epoch, rate, float(np.sqrt(sse / n)), rmse, mae, stages)
        if on_epoch:
            on_epoch(report, w)
    return w


# -- the weights file --------------------------------------------------------------------------


def save_weights(
    path: str | os.PathLike[str], weights: np.ndarray, *, info: dict[str, object]
) -> None:
    """Write compact weights (in discs) as the agent's ``.npz`` pattern file, atomically:
    ``w_<pattern>`` and ``mobility`` tables ``int16[STAGES, n]`` in hundredths of a disc."""
    _, starts = pat.tie_tables()
    scaled = np.clip(np.rint(weights * pat.UNIT), -32767, 32767).astype(np.int16)
    arrays: dict[str, np.ndarray] = {
        "format": np.array(PATTERN_FORMAT),
        "info": np.array(json.dumps(info, sort_keys=True)),
    }
    for k, pattern in enumerate(pat.PATTERNS):
        arrays[f"w_{pattern.name}"] = scaled[:, starts[k] : starts[k + 1]]
    arrays["mobility"] = scaled[:, starts[pat.N_PATTERNS] :]
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    atomic_write(path, buffer.getvalue())
    os.chmod(path, 0o644)  # a data file for every reader, like the package's others


def read_weights(path: str | os.PathLike[str]) -> tuple[np.ndarray, dict[str, object]]:
    """Compact weights (in discs) and the info of a pattern file (to resume training)."""
    load_pattern_weights(Path(path))  # validates
    _, starts = pat.tie_tables()
    with np.load(path, allow_pickle=False) as data:
        info = json.loads(str(data["info"])) if "info" in data.files else {}
        parts = [data[f"w_{pattern.name}"] for pattern in pat.PATTERNS] + [data["mobility"]]
    weights = np.concatenate(parts, axis=1).astype(np.float64) / pat.UNIT
    assert weights.shape[1] == starts[-1]
    return weights, info


def config_info(config: PatternTrainConfig) -> dict[str, object]:
    """The config as plain data for the file's ``info``."""
    return asdict(config)


__all__ = [
    "EpochReport",
    "PatternTrainConfig",
    "Positions",
    "config_info",
    "load_positions",
    "measure",
    "new_weights",
    "read_weights",
    "save_weights",
    "train",
    "wthor_files",
]
