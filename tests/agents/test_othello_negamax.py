"""The one depth-limited Othello search (``_alphabeta.negamax``) with each evaluation, against
a plain minimax written here over the rules' bitboard functions.

The search's pruning (alpha-beta, PVS, the table, the frontier loop, the move lists in a
scratch array) must never change a full-window value, on 8x8 and on 6x6 (the board in the
top-left corner of the bitboards), including positions where a side must pass:

    6x6, Black (X) to move           the mobility evaluation orders the exact solver's
      a b c d e f                    moves on every board; the masks play 6x6 games
    1 . . . . . .
    2 . . . . . .
    3 . . X O . .
    4 . . O X . .
    5 . . . . . .
    6 . . . . . .
"""

from __future__ import annotations

import numpy as np
import pytest

from imago.agents._table import new_table
from imago.agents.othello import _alphabeta as search
from imago.agents.othello._kernels import G_MASK, GEOMETRY, new_scratch
from imago.agents.othello.weights import load_othello_weights, load_pattern_weights
from imago.games.othello.bitboard import flips, legal_moves

NO_WEIGHTS = search.NO_WEIGHTS
NO_TABLE = np.zeros((0, 0), dtype=np.int32)


def _leaf(p: int, o: int, moves: int, evaluation: int, weights: np.ndarray, table: np.ndarray,
          size: int) -> int:  # fmt: skip
    bp, bo = np.uint64(p), np.uint64(o)
    if evaluation == search.EVAL_PATTERNS:
        from imago.agents.othello import patterns

        return int(patterns.evaluate(bp, bo, np.uint64(moves), table))
    if evaluation == search.EVAL_MOBILITY:
        return int(search.evaluate_mobility(bp, bo, np.uint64(moves), size))
    return int(search.evaluate(bp, bo, np.uint64(moves), weights, size))


def _minimax(p: int, o: int, depth: int, evaluation: int, weights: np.ndarray,
             table: np.ndarray, size: int) -> int:  # fmt: skip
    """Plain negamax, every move, no pruning: a pass keeps the depth, the end is the count."""
    mask = int(GEOMETRY[size, G_MASK])
    moves = int(legal_moves(np.uint64(p), np.uint64(o))) & mask
    if not moves:
        if not int(legal_moves(np.uint64(o), np.uint64(p))) & mask:
            return int(search.terminal_value(np.uint64(p), np.uint64(o), size * size))
        return -_minimax(o, p, depth, evaluation, weights, table, size)
    if depth == 0:
        return _leaf(p, o, moves, evaluation, weights, table, size)
    best = -search.INF
    for sq in range(64):
        if moves >> sq & 1:
            f = int(flips(np.uint64(p), np.uint64(o), sq))
            child = -_minimax(o ^ f, p | f | (1 << sq), depth - 1, evaluation, weights, table, size)
            best = max(best, child)
    return best


def _positions(size: int, count: int, seed: int) -> list[tuple[int, int]]:
    """(mover, opponent) after random games of every length on a ``size`` board, passes
    included; the last ones near the end, where passes and finished games are common."""
    rng = np.random.default_rng(seed)
    mask = int(GEOMETRY[size, G_MASK])
    lo, hi = size // 2 - 1, size // 2
    start_p = (1 << (lo * 8 + hi)) | (1 << (hi * 8 + lo))
    start_o = (1 << (lo * 8 + lo)) | (1 << (hi * 8 + hi))
    out = []
    for k in range(count):
        p, o = start_p, start_o
        plies = int(rng.integers(2, size * size - 4)) if k < count // 2 else size * size - 8
        for _ in range(plies):
            moves = int(legal_moves(np.uint64(p), np.uint64(o))) & mask
            if not moves:
                if not int(legal_moves(np.uint64(o), np.uint64(p))) & mask:
                    break
                p, o = o, p
                continue
            sq = int(rng.choice([s for s in range(64) if moves >> s & 1]))
            f = int(flips(np.uint64(p), np.uint64(o), sq))
            p, o = o ^ f, p | f | (1 << sq)
        out.append((p, o))
    return out


CASES = [
    # (evaluation, board size, depths)
    (search.EVAL_PATTERNS, 8, (1, 2, 3)),
    (search.EVAL_MOBILITY, 8, (1, 2, 3)),
    (search.EVAL_MASKS, 8, (1, 2, 3)),
    (search.EVAL_MOBILITY, 6, (1, 2, 3, 4)),
    (search.EVAL_MASKS, 6, (1, 2, 3, 4)),
]


@pytest.mark.parametrize(("evaluation", "size", "depths"), CASES)
def test_negamax_equals_plain_minimax(evaluation: int, size: int, depths: tuple[int, ...]) -> None:
    table = load_pattern_weights() if evaluation == search.EVAL_PATTERNS else NO_TABLE
    weights = load_othello_weights(size=size) if evaluation == search.EVAL_MASKS else NO_WEIGHTS
    scratch = new_scratch()
    for p, o in _positions(size, 12, seed=size * 10 + evaluation):
        keys, data = new_table(12)  # shared across depths, as iterative deepening shares it
        for depth in depths:
            stats = np.zeros(3, dtype=np.int64)
            value = search.negamax(
                np.uint64(p), np.uint64(o), depth, -search.INF, search.INF, 0, 0, evaluation,
                weights, table, size, stats, keys, data, search.NO_PROBCUT, 0.0, scratch,
            )  # fmt: skip
            assert value == _minimax(p, o, depth, evaluation, weights, table, size), (p, o, depth)
            assert stats[0] >= 1


@pytest.mark.parametrize(
    ("evaluation", "size"),
    [(search.EVAL_PATTERNS, 8), (search.EVAL_MOBILITY, 8), (search.EVAL_MOBILITY, 6)],
)
def test_frontier_equals_one_ply_minimax(evaluation: int, size: int) -> None:
    """The solver's one-ply ordering probe calls the frontier loop directly."""
    table = load_pattern_weights() if evaluation == search.EVAL_PATTERNS else NO_TABLE
    mask = int(GEOMETRY[size, G_MASK])
    for p, o in _positions(size, 60, seed=5):
        moves = int(legal_moves(np.uint64(p), np.uint64(o))) & mask
        if not moves:
            continue
        stats = np.zeros(3, dtype=np.int64)
        value = search.frontier(
            np.uint64(p), np.uint64(o), np.uint64(moves), -search.INF, search.INF, evaluation,
            table, size, stats,
        )  # fmt: skip
        assert value == _minimax(p, o, 1, evaluation, NO_WEIGHTS, table, size)
        assert stats[0] >= moves.bit_count()


def test_scratch_contents_never_leak_into_the_search() -> None:
    """Move lists are written before they are read: a scratch array full of junk (flips
    included, which the search trusts when non-zero) gives the same values and nodes."""
    table = load_pattern_weights()
    rng = np.random.default_rng(3)
    for evaluation in (search.EVAL_PATTERNS, search.EVAL_MOBILITY):
        for p, o in _positions(8, 6, seed=11):
            results = []
            for scratch in (new_scratch(), rng.integers(-(2**62), 2**62, (65, 192))):
                keys, data = new_table(12)
                stats = np.zeros(3, dtype=np.int64)
                value = search.negamax(
                    np.uint64(p), np.uint64(o), 4, -search.INF, search.INF, 0, 0, evaluation,
                    NO_WEIGHTS, table, 8, stats, keys, data, search.NO_PROBCUT, 0.0,
                    np.ascontiguousarray(scratch, dtype=np.int64),
                )  # fmt: skip
                results.append((value, int(stats[0])))
            assert results[0] == results[1]
