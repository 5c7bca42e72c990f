"""The bitboard move generator (four-lane vector code) against the plain reference mover on
any pair of disjoint bitboards, reachable in a game or not (edges, wrap-round, full lines)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from othello_reference import flips as reference_flips

from imago.games.othello.bitboard import flips, legal_moves

WORDS = st.integers(min_value=0, max_value=(1 << 64) - 1)


def _grid(p: int, o: int) -> list[list[int]]:
    """``p`` as colour 1 and ``o`` as colour 2 on the reference's 8x8 grid."""
    return [
        [1 if p >> (r * 8 + c) & 1 else (2 if o >> (r * 8 + c) & 1 else 0) for c in range(8)]
        for r in range(8)
    ]


def _check(p: int, o: int) -> None:
    grid = _grid(p, o)
    expected_moves = 0
    for sq in range(64):
        if (p | o) >> sq & 1:
            continue
        expected = sum(1 << (r * 8 + c) for r, c in reference_flips(grid, 1, sq // 8, sq % 8))
        assert int(flips(np.uint64(p), np.uint64(o), sq)) == expected, (hex(p), hex(o), sq)
        if expected:
            expected_moves |= 1 << sq
    assert int(legal_moves(np.uint64(p), np.uint64(o))) == expected_moves, (hex(p), hex(o))


@settings(max_examples=400, deadline=None)
@given(WORDS, WORDS, st.integers(min_value=0, max_value=3))
def test_flips_and_moves_agree_with_reference_on_any_board(a: int, b: int, density: int) -> None:
    # Thin out the empty squares by ``density`` to reach crowded boards (long runs, full lines).
    occupied = a | b
    for k in range(density):
        occupied |= (a >> (k + 1)) | (b << (k + 1)) & ((1 << 64) - 1)
    _check(a & occupied, ~a & occupied & ((1 << 64) - 1))


RUNS_TO_EVERY_EDGE = [
    # (p, o): runs of the opponent that end on each edge, and runs that would wrap round a
    # side if the masks were wrong (h-file to the next rank's a-file).
    (0x0000000000000001, 0x00000000000000FE),  # a1, b1-h1: the run reaches the edge, no move
    (0x0000000000000080, 0x000000000000007F),
    (0x0000000000000001, 0x0101010101010100),
    (0x8000000000000000, 0x0040201008040200),
    (0x0000000000008000, 0x0000000000010000),  # h2 and a3 touch only across the wrap
    (0x0000000000000100, 0x0000000000000080),
    (0x0000001000000000, 0x0000000818000000),  # e5 against d4, d5, e4: the start, crowded
]


def test_flips_and_moves_on_runs_to_the_edges() -> None:
    for p, o in RUNS_TO_EVERY_EDGE:
        _check(p, o & ~p)
        _check(o & ~p, p)
