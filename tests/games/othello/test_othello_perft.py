"""Perft from the start position against the published counts and a plain reference mover."""

from __future__ import annotations

import pytest
from othello_reference import perft as reference_perft
from othello_reference import start

from imago.games.othello import bitboard, perft

# Aart Bik, "Perft for Reversi" (2009), confirmed by Egaroucid's technical notes and other
# engines: passes count as a ply, a game finished early is a leaf.
PUBLISHED = {
    1: 4,
    2: 12,
    3: 56,
    4: 244,
    5: 1_396,
    6: 8_200,
    7: 55_092,
    8: 390_216,
    9: 3_005_288,
    10: 24_571_284,
    11: 212_258_800,
}


@pytest.mark.parametrize(("depth", "leaves"), sorted(PUBLISHED.items()))
def test_perft_matches_published_counts(depth: int, leaves: int):
    assert perft(depth) == leaves


def test_perft_depth_zero_and_bad_arguments():
    assert perft(0) == 1
    with pytest.raises(ValueError):
        perft(-1)
    with pytest.raises(ValueError):
        perft(3, size=7)


def test_bitboard_perft_is_the_same_count():
    p, o = bitboard.start_position(8)
    assert bitboard.perft(p, o, 7) == PUBLISHED[7]


@pytest.mark.parametrize(("size", "depth"), [(4, 9), (6, 6), (8, 5)])
def test_perft_agrees_with_reference_mover(size: int, depth: int):
    # 4x4 trees have passes and finished games from depth 6 on.
    for d in range(depth + 1):
        assert perft(d, size=size) == reference_perft(start(size), 1, d), (size, d)
