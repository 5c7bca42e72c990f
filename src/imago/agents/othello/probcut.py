"""Multi-ProbCut for the Othello alpha-beta search: what a calibration needs from the search.

The pruning itself lives in the search kernel (:func:`imago.agents.othello._alphabeta.negamax`,
see :func:`~imago.agents.othello._alphabeta.probcut_bounds`); this module is its public face
for the tools that calibrate it (``imago train probcut``): which shallow depth predicts which
deep one, how the calibration's rows are laid out, and the search's values on a position at
every depth.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from imago.agents._table import new_table
from imago.agents.othello import _alphabeta as _search
from imago.agents.othello._kernels import new_scratch
from imago.agents.othello.weights import load_pattern_weights

MIN_DEPTH: int = _search.PROBCUT_MIN_DEPTH
"""Nodes with at least this many plies left try ProbCut."""
BUCKET_EMPTIES: int = _search.PROBCUT_BUCKET_EMPTIES
"""Calibration rows are per depth and per ``empties // BUCKET_EMPTIES``."""
WIN: int = _search.WIN
"""Search values at or beyond ``WIN // 2`` (in magnitude) are won or lost games."""


def shallow_depth(depth: int) -> int:
    """The depth of the search that predicts a ``depth`` search."""
    return int(_search.probcut_depth(depth))


def search_values(
    p: npt.NDArray[np.uint64],
    o: npt.NDArray[np.uint64],
    max_depth: int,
    table_bits: int = 18,
) -> npt.NDArray[np.int64]:
    """``values[i, d]``: the full-window value of position ``(p[i], o[i])`` (mover first) at
    every depth ``d`` from 1 to ``max_depth`` (column 0 unused), in hundredths of a disc:
    the agent's own search with the built-in pattern evaluation and no pruning, one fresh
    transposition table per position, deepening one ply at a time."""
    table = load_pattern_weights()
    out = np.zeros((len(p), max_depth + 1), dtype=np.int64)
    scratch = new_scratch()
    for i in range(len(p)):
        keys, data = new_table(table_bits)
        for depth in range(1, max_depth + 1):
            stats = np.zeros(3, dtype=np.int64)
            out[i, depth] = _search.negamax(
                np.uint64(p[i]), np.uint64(o[i]), depth, -_search.INF, _search.INF, 1, 0,
                _search.EVAL_PATTERNS, _search.NO_WEIGHTS, table, 8, stats, keys, data,
                _search.NO_PROBCUT, 0.0, scratch,
            )  # fmt: skip
    return out
