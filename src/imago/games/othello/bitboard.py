"""Othello on 64-bit bitboards: the public array-level API for numba code (search, solvers).

A position is two ``uint64``: ``p``, the discs of the player to move, and ``o``, the
opponent's. Square ``sq = row * 8 + col`` is bit ``sq`` (row 0 at the top, so ``a1`` is bit 0,
``h1`` bit 7, ``a8`` bit 56). Smaller boards (6x6) sit in the top-left corner: AND the legal
squares with :func:`board_mask` ``(size)``.

Every function here is ``@njit`` with an explicit signature, so it can be called both from
Python (with ``int`` or ``np.uint64`` arguments) and from other numba kernels::

    from imago.games.othello import bitboard as bb

    @numba.njit
    def negamax(p, o, depth):
        moves = bb.legal_moves(p, o)
        ...
        while moves:
            sq = bb.lowest_square(moves)
            moves &= moves - np.uint64(1)
            child_p, child_o = bb.play(p, o, sq)   # already swapped: opponent to move
            ...

>>> from imago.games.othello import bitboard as bb
>>> p, o = bb.start_position(8)
>>> bb.popcount(bb.legal_moves(p, o))
4
>>> bb.perft(p, o, 6)
8200
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.games.othello import _kernels as _k
from imago.games.othello._kernels import I64, Bits

__all__ = [
    "board_mask",
    "final_score",
    "flips",
    "legal_moves",
    "lowest_square",
    "nth_square",
    "perft",
    "play",
    "popcount",
    "start_position",
    "symmetry",
]


@njit("uint64(uint64, uint64)", cache=True)
def legal_moves(p: Bits, o: Bits) -> Bits:
    """The squares (a bit set) where the player with discs ``p`` may play against ``o``."""
    return _k.legal(p, o)


@njit("uint64(uint64, uint64, int64)", cache=True)
def flips(p: Bits, o: Bits, sq: int) -> Bits:
    """The opponent discs flipped by a disc of ``p`` on the empty square ``sq`` (0: illegal).

    ``sq`` must be empty; the result is undefined for an occupied square.
    """
    return _k.flips(p, o, sq)


@njit("UniTuple(uint64, 2)(uint64, uint64, int64)", cache=True)
def play(p: Bits, o: Bits, sq: int) -> tuple[Bits, Bits]:
    """Play the legal move ``sq`` for ``p``; returns ``(o after, p after)``: the position with
    the opponent to move, ready for the next ply. Check legality first (no validation here)."""
    f = _k.flips(p, o, sq)
    return o ^ f, p | f | (_k.ONE << np.uint64(sq))


@njit("int64(uint64)", cache=True)
def popcount(x: Bits) -> I64:
    """The number of set bits (discs, moves) in ``x``."""
    return _k.popcount(x)


@njit("int64(uint64)", cache=True)
def lowest_square(x: Bits) -> I64:
    """The square of the lowest set bit of ``x``; 64 when ``x`` is 0."""
    return _k.lowest_square(x)


@njit("int64(uint64, int64)", cache=True)
def nth_square(x: Bits, n: int) -> I64:
    """The square of the ``n``-th set bit of ``x`` (0 = lowest); 64 when there are fewer."""
    return _k.nth_square(x, n)


@njit("int64(uint64, uint64, int64)", cache=True)
def perft(p: Bits, o: Bits, depth: int) -> I64:
    """The 8x8 perft count: leaves of the tree ``depth`` plies deep from ``(p, o)``.

    A pass is a ply, a finished game is a leaf wherever it ends, the last ply is bulk-counted.
    """
    return _k.perft(p, o, depth, _k.FULL)


@njit("int64(uint64, uint64, int64)", cache=True)
def final_score(p: Bits, o: Bits, squares: int) -> I64:
    """The final disc difference for ``p`` on a board of ``squares`` squares (64 on 8x8, 36 on
    6x6), the empty squares given to the winner (the World Othello Federation rule that the
    FFO scores use)."""
    mine = _k.popcount(p)
    theirs = _k.popcount(o)
    empties = squares - mine - theirs
    if mine > theirs:
        return mine - theirs + empties
    if theirs > mine:
        return mine - theirs - empties
    return np.int64(0)


@njit("uint64(int64)", cache=True)
def board_mask(size: int) -> Bits:
    """The squares of a ``size`` x ``size`` board in the top-left corner (all 64 for 8)."""
    row = (_k.ONE << np.uint64(size)) - _k.ONE
    mask = _k.ZERO
    for r in range(size):
        mask |= row << np.uint64(8 * r)
    return mask


@njit("UniTuple(uint64, 2)(int64)", cache=True)
def start_position(size: int) -> tuple[Bits, Bits]:
    """``(black, white)`` at the start of a game on an even ``size`` board; black moves first."""
    h = size // 2
    black = (_k.ONE << np.uint64(8 * h + h - 1)) | (_k.ONE << np.uint64(8 * (h - 1) + h))
    white = (_k.ONE << np.uint64(8 * (h - 1) + h - 1)) | (_k.ONE << np.uint64(8 * h + h))
    return black, white


@njit("uint64(uint64, int64, int64)", cache=True)
def symmetry(x: Bits, sym: int, size: int) -> Bits:
    """Board symmetry ``sym`` (0..7, 0 = identity) of ``x`` on a ``size`` board: transpose when
    ``sym & 4``, then mirror top-bottom when ``sym & 1``, then mirror left-right when ``sym & 2``.
    """
    return _k.symmetry(x, sym, size)
