"""The Othello pattern evaluation: indices, symmetry, the weights file, and the search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from imago.agents._table import new_table
from imago.agents.alphabeta import AlphaBetaAgent, AlphaBetaOptions
from imago.agents.othello import _alphabeta as search
from imago.agents.othello import patterns as pat
from imago.agents.othello._kernels import new_scratch
from imago.agents.othello.weights import (
    PATTERN_FORMAT,
    WeightsError,
    load_evaluation,
    load_pattern_weights,
)
from imago.games.othello.bitboard import flips, legal_moves

# The first instance of some patterns: the digit of each square (a1 top-left), "." outside.
DIAGRAMS = {
    "edge2x": """
        0 1 2 3 4 5 6 7
        . 8 . . . . 9 .
    """,
    "corner3x3": """
        0 1 2
        3 4 5
        6 7 8
    """,
    "corner2x5": """
        0 1 2 3 4
        5 6 7 8 9
    """,
    "line3": """
        . . . . . . . .
        . . . . . . . .
        0 1 2 3 4 5 6 7
    """,
    "diag6": """
        . . 0 . . . . .
        . . . 1 . . . .
        . . . . 2 . . .
        . . . . . 3 . .
        . . . . . . 4 .
        . . . . . . . 5
    """,
}


def _diagram_squares(text: str) -> list[int]:
    found: dict[int, int] = {}
    for row, line in enumerate(text.strip().splitlines()):
        for col, cell in enumerate(line.split()):
            if cell != ".":
                found[int(cell)] = row * 8 + col
    return [found[digit] for digit in sorted(found)]


def _first_instances() -> dict[str, list[int]]:
    squares = pat.instance_squares()
    out, at = {}, 0
    for pattern in pat.PATTERNS:
        out[pattern.name] = squares[at]
        at += len(pattern.instances)
    return out


@pytest.mark.parametrize("name", sorted(DIAGRAMS))
def test_first_instance_squares(name: str) -> None:
    assert _first_instances()[name] == _diagram_squares(DIAGRAMS[name])


def test_instances_cover_the_symmetric_images() -> None:
    squares = pat.instance_squares()
    at = 0
    for pattern in pat.PATTERNS:
        mine = {frozenset(s) for s in squares[at : at + len(pattern.instances)]}
        at += len(pattern.instances)
        base = squares[at - len(pattern.instances)]
        images = {frozenset(_transform_square(sq, sym) for sq in base) for sym in range(8)}
        assert mine == images, pattern.name
        assert len(mine) == len(pattern.instances), pattern.name


def _transform_square(sq: int, sym: int) -> int:
    row, col = divmod(sq, 8)
    if sym & 4:
        row, col = col, row
    if sym & 1:
        col = 7 - col
    if sym & 2:
        row = 7 - row
    return row * 8 + col


def _transform(bits: int, sym: int) -> int:
    return sum(1 << _transform_square(sq, sym) for sq in range(64) if bits >> sq & 1)


def _random_positions(count: int, seed: int) -> list[tuple[int, int]]:
    """Positions of random games (and a few random boards) as (mover, opponent) words."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count // 2):
        cells = rng.integers(0, 3, 64)
        out.append(
            (
                sum(1 << i for i in range(64) if cells[i] == 1),
                sum(1 << i for i in range(64) if cells[i] == 2),
            )
        )
    while len(out) < count:
        p, o = (1 << 28) | (1 << 35), (1 << 27) | (1 << 36)
        for _ in range(int(rng.integers(1, 58))):
            moves = int(legal_moves(np.uint64(p), np.uint64(o)))
            if not moves:
                p, o = o, p
                continue
            squares = [sq for sq in range(64) if moves >> sq & 1]
            sq = int(rng.choice(squares))
            f = int(flips(np.uint64(p), np.uint64(o), sq))
            p, o = o ^ f, p | f | (1 << sq)
        out.append((p, o))
    return out


def test_codes_equal_the_slow_reference() -> None:
    squares = pat.instance_squares()
    out = np.empty(pat.N_INSTANCES, dtype=np.int64)
    for p, o in _random_positions(200, seed=3):
        pat.pattern_codes(np.uint64(p), np.uint64(o), out)
        expected = [
            sum(3**i * ((p >> sq & 1) + 2 * (o >> sq & 1)) for i, sq in enumerate(instance))
            for instance in squares
        ]
        assert out.tolist() == expected


def _random_table(seed: int) -> np.ndarray:
    compact_of, starts = pat.tie_tables()
    rng = np.random.default_rng(seed)
    compact = rng.integers(-3000, 3000, size=(pat.STAGES, int(starts[-1]))).astype(np.int32)
    return np.ascontiguousarray(compact[:, compact_of])


def test_evaluation_is_the_same_under_the_8_symmetries() -> None:
    table = _random_table(5)
    for p, o in _random_positions(120, seed=7):
        values = set()
        for sym in range(8):
            tp, to = np.uint64(_transform(p, sym)), np.uint64(_transform(o, sym))
            values.add(int(pat.evaluate(tp, to, np.uint64(legal_moves(tp, to)), table)))
        assert len(values) == 1


def test_evaluation_sums_the_indexed_entries() -> None:
    table = _random_table(11)
    idx = np.empty(pat.N_FEATURES, dtype=np.int64)
    for p, o in _random_positions(40, seed=13):
        bp, bo = np.uint64(p), np.uint64(o)
        moves = np.uint64(legal_moves(bp, bo))
        pat.feature_indices(bp, bo, moves, idx)
        stage = min((bin(p | o).count("1") - 4) // 4, pat.STAGES - 1)
        assert int(pat.evaluate(bp, bo, moves, table)) == int(table[stage, idx].sum())


def _minimax(p: int, o: int, depth: int, table: np.ndarray) -> int:
    bp, bo = np.uint64(p), np.uint64(o)
    moves = int(legal_moves(bp, bo))
    if not moves:
        if not int(legal_moves(bo, bp)):
            return int(search.terminal_value(bp, bo))
        return -_minimax(o, p, depth, table)
    if depth == 0:
        return int(pat.evaluate(bp, bo, np.uint64(moves), table))
    best = -search.INF
    for sq in range(64):
        if moves >> sq & 1:
            f = int(flips(bp, bo, sq))
            best = max(best, -_minimax(o ^ f, p | f | (1 << sq), depth - 1, table))
    return best


def test_pattern_negamax_equals_plain_minimax() -> None:
    table = load_pattern_weights()
    for p, o in _random_positions(16, seed=17)[8:]:
        keys, data = new_table(12)
        for depth in (1, 2, 3):
            stats = np.zeros(3, dtype=np.int64)
            value = search.negamax(
                np.uint64(p), np.uint64(o), depth, -search.INF, search.INF, 0, 0,
                search.EVAL_PATTERNS, search.NO_WEIGHTS, table, 8, stats, keys, data,
                search.NO_PROBCUT, 0.0, new_scratch(),
            )  # fmt: skip
            assert value == _minimax(p, o, depth, table)


def test_builtin_weights_predict_real_results(data_dir: Path) -> None:
    """On held-out WTHOR games (2024) the evaluation at 20-32 empties predicts the winner."""
    from imago.train.othello_patterns import PatternTrainConfig, load_positions

    table = load_pattern_weights()
    assert table.shape == (pat.STAGES, pat.TABLE_SIZE) and table.dtype == np.int32
    config = PatternTrainConfig(target="final", validate_from=2024, max_games=1)
    _, held_out = load_positions([data_dir / "wthor" / "WTH_2024.wtb"], config)
    values, results = [], []
    rows = zip(held_out.p[:20000], held_out.o[:20000], held_out.target[:20000], strict=True)
    for p, o, result in rows:
        empties = 64 - bin(int(p) | int(o)).count("1")
        if 20 <= empties <= 32 and result != 0:
            values.append(int(pat.evaluate(p, o, np.uint64(legal_moves(p, o)), table)))
            results.append(float(result))
    agree = np.mean(np.sign(values) == np.sign(results))
    assert len(values) > 3000 and agree > 0.7
    assert np.corrcoef(values, results)[0, 1] > 0.6


def test_malformed_weight_files_are_rejected(tmp_path: Path) -> None:
    text = tmp_path / "bad.npz"
    text.write_text("not a zip")
    with pytest.raises(WeightsError, match="not a pattern weights file"):
        load_pattern_weights(text)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.zeros(3))
    with pytest.raises(WeightsError, match="not an imago pattern weights file"):
        load_pattern_weights(foreign)

    short = tmp_path / "short.npz"
    np.savez(short, format=np.array(PATTERN_FORMAT), w_edge2x=np.zeros((2, 5), dtype=np.int16))
    with pytest.raises(WeightsError, match="w_edge2x"):
        load_pattern_weights(short)
    with pytest.raises(WeightsError, match=r"\.npz pattern file or a \.json"):
        load_evaluation(tmp_path / "weights.txt")
    with pytest.raises(ValueError):
        AlphaBetaAgent(AlphaBetaOptions(weights=str(foreign)), np.random.default_rng())
    assert load_evaluation("mask")[0] == "mask"
    assert load_evaluation("")[0] == "patterns"


class _ScriptedBackend:
    """Root moves with scripted values per depth; ``None`` aborts the search there."""

    keeps_partial = True

    def __init__(self, script: dict[int, list[int | None]]) -> None:
        from imago.core.move import Move, Point

        self.script = script
        self.moves = [Move.play(Point(0, c)) for c in range(3)]

    def search(self, index: int, depth: int, alpha: int, beta: int, stats: np.ndarray) -> int:
        stats[0] += 1
        value = self.script[depth][index]
        if value is None:
            stats[2] = 1
            return 0
        return value

    def pv(self, index: int) -> tuple[object, ...]:
        return (self.moves[index],)

    def describe(self, value: int) -> tuple[float, float]:
        return value / 100, 0.5


@pytest.mark.parametrize(
    ("depth2", "best", "depth"),
    [
        ([2, 7, None], 1, 2),  # a move searched after the previous best beat it: kept
        ([2, 1, None], 0, 1),  # nothing beat the previous best: the last full depth stands
        ([None, 9, 9], 0, 1),  # the previous best was not finished: nothing to compare
    ],
)
def test_interrupted_iteration_keeps_a_proven_better_move(
    depth2: list[int | None], best: int, depth: int
) -> None:
    import time

    from imago.agents.base import Limit

    agent = AlphaBetaAgent(AlphaBetaOptions(), np.random.default_rng())
    backend = _ScriptedBackend({1: [5, 3, 1], 2: depth2, 3: [0, 0, 0]})
    result = agent._deepen(backend, Limit(depth=3), time.perf_counter(), None, None)  # type: ignore[arg-type]
    assert result.move == backend.moves[best]
    assert result.depth == depth
