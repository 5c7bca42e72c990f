"""Private numba kernels of Othello on 64-bit bitboards.

Layout: bit ``sq = row * 8 + col`` (row 0 at the top, col 0 on the left), for every board size;
a smaller board (6x6, 4x4) lives in the top-left corner and ``mask`` (see :func:`board_mask`)
keeps moves on it. The kernels work on ``(p, o)``: the discs of the player to move and of the
opponent. Legal moves follow directions as shifts: east ``<< 1``, south ``<< 8``, south-east
``<< 9``, south-west ``<< 7`` and their right-shift opposites; masking the opponent with the
inner columns stops horizontal and diagonal runs from wrapping round the board edge. Flips
follow rays from a table (:data:`RAYS`). These are the only move generator of imago: the
searches and solvers use them through :mod:`.bitboard`.

Kernels return status codes; the public classes turn them into typed errors.

Numba's on-disk cache checks only the file of each cached function: after editing this module,
delete ``__pycache__/*.nbi`` / ``*.nbc`` of this package and of the agents' kernels, or
the kernels that call this one keep old code.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic

Bits: TypeAlias = Any
"""A ``uint64`` bitboard inside numba (a Python ``int`` or ``np.uint64`` from Python)."""
I64: TypeAlias = Any
"""An ``int64`` inside numba (a Python ``int`` from Python)."""

OK = 0
OCCUPIED = 1
NO_FLIPS = 2

ONE = np.uint64(1)
ZERO = np.uint64(0)
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)
INNER_COLS = np.uint64(0x7E7E7E7E7E7E7E7E)
S1 = np.uint64(1)
S7 = np.uint64(7)
S8 = np.uint64(8)
S9 = np.uint64(9)
S2 = np.uint64(2)
S14 = np.uint64(14)
S16 = np.uint64(16)
S18 = np.uint64(18)


# -- bit tricks -------------------------------------------------------------------------------
@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):  # type: ignore[no-untyped-def]
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def popcount(x: Bits) -> I64:
    """The number of set bits of ``x``."""
    return np.int64(_ctpop(x))  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def lowest_square(x: Bits) -> I64:
    """The index of the lowest set bit of ``x`` (64 when ``x`` is 0)."""
    return np.int64(_cttz(x))  # type: ignore[call-arg]


# -- move generation --------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _candidates_left(p: Bits, m: Bits, s: Bits, s2: Bits) -> Bits:
    # Kogge-Stone fill: runs of 1, 2, then 4 and 6 opponent discs (s2 = 2 * s)
    t = m & (p << s)
    t |= m & (t << s)
    m2 = m & (m << s)
    t |= m2 & (t << s2)
    t |= m2 & (t << s2)
    return t << s


@njit(cache=True, inline="always")
def _candidates_right(p: Bits, m: Bits, s: Bits, s2: Bits) -> Bits:
    t = m & (p >> s)
    t |= m & (t >> s)
    m2 = m & (m >> s)
    t |= m2 & (t >> s2)
    t |= m2 & (t >> s2)
    return t >> s


@njit(cache=True)
def legal(p: Bits, o: Bits) -> Bits:
    """The squares where the player with discs ``p`` may play against ``o`` (8x8)."""
    mo = o & INNER_COLS
    moves = _candidates_left(p, mo, S1, S2) | _candidates_right(p, mo, S1, S2)
    moves |= _candidates_left(p, o, S8, S16) | _candidates_right(p, o, S8, S16)
    moves |= _candidates_left(p, mo, S7, S14) | _candidates_right(p, mo, S7, S14)
    moves |= _candidates_left(p, mo, S9, S18) | _candidates_right(p, mo, S9, S18)
    return moves & ~(p | o)


_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))
"""The first four go up in bit index (east, south, south-east, south-west), the rest down."""


def _rays() -> npt.NDArray[np.uint64]:
    rays = np.zeros((8, 64), dtype=np.uint64)
    for d, (dr, dc) in enumerate(_DIRECTIONS):
        for sq in range(64):
            r, c, bits = sq // 8 + dr, sq % 8 + dc, 0
            while 0 <= r < 8 and 0 <= c < 8:
                bits |= 1 << (r * 8 + c)
                r, c = r + dr, c + dc
            rays[d, sq] = bits
    return rays


RAYS = _rays()
"""``RAYS[d, sq]``: the squares from ``sq`` (excluded) to the board's edge in direction ``d``."""


@njit(cache=True, inline="always")
def _high_bit(x: Bits) -> Bits:
    x |= x >> S1
    x |= x >> S2
    x |= x >> np.uint64(4)
    x |= x >> S8
    x |= x >> S16
    x |= x >> np.uint64(32)
    return x & ~(x >> S1)


@njit(cache=True)
def flips(p: Bits, o: Bits, sq: int) -> Bits:
    """The opponent discs that a disc of ``p`` on empty square ``sq`` flips (0: none).

    Along each ray from ``sq``, the first square that is not the opponent's closes a run of
    flips when it is the player's (a table of rays: faster here than shifts)."""
    flipped = ZERO
    not_o = ~o
    for d in range(4):  # up in bit index: the nearest blocker is the lowest bit
        line = RAYS[d, sq]
        blockers = line & not_o
        first = blockers & (ZERO - blockers)
        if first & p:
            flipped |= (first - ONE) & line
    for d in range(4, 8):  # down: the highest bit
        line = RAYS[d, sq]
        blockers = line & not_o
        if blockers:
            first = _high_bit(blockers)
            if first & p:
                flipped |= line & ~((first << S1) - ONE)
    return flipped


# -- whole moves, as the public state uses them ------------------------------------------------
@njit("Tuple((uint64, boolean))(uint64, uint64, uint64)", cache=True)
def status(p: Bits, o: Bits, mask: Bits) -> tuple[Bits, bool]:
    """``(legal squares of p, game over)`` for the position ``(p, o)`` on ``mask``."""
    moves = legal(p, o) & mask
    if moves:
        return moves, False
    return moves, (legal(o, p) & mask) == ZERO


@njit("Tuple((int64, uint64, uint64, uint64, boolean))(uint64, uint64, int64, uint64)", cache=True)
def play(p: Bits, o: Bits, sq: int, mask: Bits) -> tuple[I64, Bits, Bits, Bits, bool]:
    """Play ``sq`` for ``p``: ``(status, p after, o after, o's legal squares, game over)``."""
    x = ONE << np.uint64(sq)
    if (p | o) & x:
        return OCCUPIED, p, o, ZERO, False
    f = flips(p, o, sq)
    if f == ZERO:
        return NO_FLIPS, p, o, ZERO, False
    p2 = p | f | x
    o2 = o ^ f
    moves = legal(o2, p2) & mask
    if moves:
        return OK, p2, o2, moves, False
    return OK, p2, o2, moves, (legal(p2, o2) & mask) == ZERO


# -- perft and random games -------------------------------------------------------------------
@njit(cache=True)
def perft(p: Bits, o: Bits, depth: int, mask: Bits) -> I64:
    """Leaf count of the game tree ``depth`` plies deep (a pass is a ply; a finished game is a
    leaf wherever it ends), with bulk counting at the last ply."""
    if depth <= 0:
        return np.int64(1)
    moves = legal(p, o) & mask
    if moves == ZERO:
        if depth == 1 or (legal(o, p) & mask) == ZERO:
            return np.int64(1)
        return perft(o, p, depth - 1, mask)
    if depth == 1:
        return popcount(moves)
    total = np.int64(0)
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(p, o, sq)
        total += perft(o ^ f, p | f | (ONE << np.uint64(sq)), depth - 1, mask)
    return total


@njit(cache=True, inline="always")
def nth_square(moves: Bits, n: int) -> I64:
    """The index of the ``n``-th (from 0, lowest first) set bit of ``moves``."""
    for _ in range(n):
        moves &= moves - ONE
    return lowest_square(moves)


@njit("Tuple((int64, int64))(int64, int64, uint64, uint64, uint64)", cache=True)
def random_games(games: int, seed: int, black: Bits, white: Bits, mask: Bits) -> tuple[I64, I64]:
    """Play ``games`` uniformly random games from ``(black, white)``, black to move.

    Returns ``(plies played, sum of final disc differences black - white)``.
    """
    np.random.seed(seed)
    plies = np.int64(0)
    diff = np.int64(0)
    for _ in range(games):
        p = black
        o = white
        sign = 1
        passed = False
        while True:
            moves = legal(p, o) & mask
            if moves == ZERO:
                if passed:
                    break
                passed = True
            else:
                passed = False
                sq = nth_square(moves, np.random.randint(0, popcount(moves)))
                f = flips(p, o, sq)
                p = p | f | (ONE << np.uint64(sq))
                o = o ^ f
            p, o = o, p
            sign = -sign
            plies += 1
        diff += sign * (popcount(p) - popcount(o))
    return plies, diff


# -- symmetries and hashing ---------------------------------------------------------------------
@njit(cache=True)
def flip_rows(x: Bits) -> Bits:
    """Mirror the 8x8 board top to bottom (row r goes to row 7 - r)."""
    x = ((x >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | (
        (x & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8)
    )
    x = ((x >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | (
        (x & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16)
    )
    return (x >> np.uint64(32)) | (x << np.uint64(32))


@njit(cache=True)
def flip_cols(x: Bits) -> Bits:
    """Mirror the 8x8 board left to right (col c goes to col 7 - c)."""
    k1 = np.uint64(0x5555555555555555)
    k2 = np.uint64(0x3333333333333333)
    k4 = np.uint64(0x0F0F0F0F0F0F0F0F)
    x = ((x >> np.uint64(1)) & k1) | ((x & k1) << np.uint64(1))
    x = ((x >> np.uint64(2)) & k2) | ((x & k2) << np.uint64(2))
    return ((x >> np.uint64(4)) & k4) | ((x & k4) << np.uint64(4))


@njit(cache=True)
def transpose(x: Bits) -> Bits:
    """Reflect the 8x8 board in its main diagonal ((r, c) goes to (c, r))."""
    k1 = np.uint64(0x5500550055005500)
    k2 = np.uint64(0x3333000033330000)
    k4 = np.uint64(0x0F0F0F0F00000000)
    t = k4 & (x ^ (x << np.uint64(28)))
    x ^= t ^ (t >> np.uint64(28))
    t = k2 & (x ^ (x << np.uint64(14)))
    x ^= t ^ (t >> np.uint64(14))
    t = k1 & (x ^ (x << np.uint64(7)))
    x ^= t ^ (t >> np.uint64(7))
    return x


@njit("uint64(uint64, int64, int64)", cache=True)
def symmetry(x: Bits, sym: int, size: int) -> Bits:
    """Symmetry ``sym`` (0..7) of a board of ``size`` in the top-left corner: transpose when
    ``sym & 4``, then mirror rows when ``sym & 1``, then mirror columns when ``sym & 2``."""
    if sym & 4:
        x = transpose(x)
    if sym & 1:
        x = flip_rows(x) >> np.uint64(8 * (8 - size))
    if sym & 2:
        x = flip_cols(x) >> np.uint64(8 - size)
    return x


@njit("uint64(uint64, uint64, uint64, uint64[:, :, :])", cache=True)
def zobrist(black: Bits, white: Bits, side: Bits, table: Any) -> Bits:
    """XOR of ``table[colour, byte index, byte value]`` over the bytes of both boards, and
    ``side`` (0 when black is to play). ``table[c, i, 0]`` must be 0."""
    key = side
    for i in range(8):
        shift = np.uint64(8 * i)
        key ^= table[0, i, np.int64((black >> shift) & np.uint64(255))]
        key ^= table[1, i, np.int64((white >> shift) & np.uint64(255))]
    return key


@njit(cache=True)
def write_board(black: Bits, white: Bits, size: int, out: np.ndarray) -> None:
    """``out[row * size + col]``: 0 empty, 1 black, 2 white (``out`` flat, ``size * size``)."""
    for r in range(size):
        for c in range(size):
            bit = ONE << np.uint64(r * 8 + c)
            out[r * size + c] = 1 if black & bit else (2 if white & bit else 0)


@njit(cache=True)
def write_squares(bits: Bits, size: int, out: np.ndarray) -> None:
    """``out[row * size + col]``: whether bit ``row * 8 + col`` of ``bits`` is set."""
    for r in range(size):
        for c in range(size):
            out[r * size + c] = (bits >> np.uint64(r * 8 + c)) & ONE
