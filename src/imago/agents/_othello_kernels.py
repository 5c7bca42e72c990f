# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels over Othello bitboards, tuned for search (not a rules module).

A position is two ``uint64`` words: ``p`` (the discs of the player to move) and ``o`` (the
opponent's). Square ``sq = row * 8 + col`` (``a1`` = 0, top-left; ``h8`` = 63) is bit ``sq``.
These kernels are the search's own tight versions (move generation by shifts, flips by rays,
parity, evaluation features, a random playout); the rules themselves live in
:mod:`imago.games.othello`, which tests compare against.
"""

from __future__ import annotations

import numba
import numpy as np

U0 = np.uint64(0)
U1 = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_NOT_EDGE_COLS = np.uint64(0x7E7E7E7E7E7E7E7E)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_S1 = np.uint64(1)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)
_S56 = np.uint64(56)
_S58 = np.uint64(58)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array(
    [
        0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6,
    ],
    dtype=np.int64,
)  # fmt: skip

CORNERS = np.uint64(0x8100000000000081)
X_SQUARES = np.uint64(0x0042000000004200)
C_SQUARES = np.uint64(0x4281000000008142)

# Quadrant of each square (0: top-left, 1: top-right, 2: bottom-left, 3: bottom-right).
QUADRANT = np.array([(sq // 32) * 2 + (sq % 8) // 4 for sq in range(64)], dtype=np.int64)
QUADRANT_MASK = np.array(
    [sum(1 << sq for sq in range(64) if (sq // 32) * 2 + (sq % 8) // 4 == q) for q in range(4)],
    dtype=np.uint64,
)

_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))
"""The first four go up in bit index (east, south, south-east, south-west), the rest down."""


def _rays() -> np.ndarray:
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


def _neighbours() -> np.ndarray:
    table = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        bits = 0
        for dr, dc in _DIRECTIONS:
            r, c = sq // 8 + dr, sq % 8 + dc
            if 0 <= r < 8 and 0 <= c < 8:
                bits |= 1 << (r * 8 + c)
        table[sq] = bits
    return table


NEIGHBOURS = _neighbours()


@numba.njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:
    """The number of set bits."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> _S56)


@numba.njit(cache=True, inline="always")
def lowest_square(x: np.uint64) -> int:
    """The index of the lowest set bit of a non-zero word."""
    return int(_DEBRUIJN_INDEX[int(((x & (U0 - x)) * _DEBRUIJN) >> _S58)])


@numba.njit(cache=True, inline="always")
def _high_bit(x: np.uint64) -> np.uint64:
    x |= x >> _S1
    x |= x >> np.uint64(2)
    x |= x >> np.uint64(4)
    x |= x >> _S8
    x |= x >> np.uint64(16)
    x |= x >> np.uint64(32)
    return x & ~(x >> _S1)


@numba.njit(cache=True)
def legal_moves(p: np.uint64, o: np.uint64) -> np.uint64:
    """The squares where the player to move may play (Kogge-Stone style shifts)."""
    empty = ~(p | o)
    oh = o & _NOT_EDGE_COLS
    moves = U0
    t = oh & (p << _S1)
    t |= oh & (t << _S1)
    t |= oh & (t << _S1)
    t |= oh & (t << _S1)
    t |= oh & (t << _S1)
    t |= oh & (t << _S1)
    moves |= t << _S1
    t = oh & (p >> _S1)
    t |= oh & (t >> _S1)
    t |= oh & (t >> _S1)
    t |= oh & (t >> _S1)
    t |= oh & (t >> _S1)
    t |= oh & (t >> _S1)
    moves |= t >> _S1
    t = o & (p << _S8)
    t |= o & (t << _S8)
    t |= o & (t << _S8)
    t |= o & (t << _S8)
    t |= o & (t << _S8)
    t |= o & (t << _S8)
    moves |= t << _S8
    t = o & (p >> _S8)
    t |= o & (t >> _S8)
    t |= o & (t >> _S8)
    t |= o & (t >> _S8)
    t |= o & (t >> _S8)
    t |= o & (t >> _S8)
    moves |= t >> _S8
    t = oh & (p << _S7)
    t |= oh & (t << _S7)
    t |= oh & (t << _S7)
    t |= oh & (t << _S7)
    t |= oh & (t << _S7)
    t |= oh & (t << _S7)
    moves |= t << _S7
    t = oh & (p >> _S7)
    t |= oh & (t >> _S7)
    t |= oh & (t >> _S7)
    t |= oh & (t >> _S7)
    t |= oh & (t >> _S7)
    t |= oh & (t >> _S7)
    moves |= t >> _S7
    t = oh & (p << _S9)
    t |= oh & (t << _S9)
    t |= oh & (t << _S9)
    t |= oh & (t << _S9)
    t |= oh & (t << _S9)
    t |= oh & (t << _S9)
    moves |= t << _S9
    t = oh & (p >> _S9)
    t |= oh & (t >> _S9)
    t |= oh & (t >> _S9)
    t |= oh & (t >> _S9)
    t |= oh & (t >> _S9)
    t |= oh & (t >> _S9)
    moves |= t >> _S9
    return moves & empty


@numba.njit(cache=True)
def flips(p: np.uint64, o: np.uint64, sq: int) -> np.uint64:
    """The opponent discs that a disc of the player on empty square ``sq`` would flip."""
    flipped = U0
    notp = ~o
    for d in range(4):
        line = RAYS[d, sq]
        blockers = line & notp
        first = blockers & (U0 - blockers)
        if first & p:
            flipped |= (first - U1) & line
    for d in range(4, 8):
        line = RAYS[d, sq]
        blockers = line & notp
        if blockers:
            first = _high_bit(blockers)
            if first & p:
                flipped |= line & ~((first << _S1) - U1)
    return flipped


@numba.njit(cache=True)
def final_score(p: np.uint64, o: np.uint64) -> int:
    """The final disc difference for the player ``p`` when the game is over.

    Empty squares go to the winner (the World Othello Federation rule the FFO scores use).
    """
    np_ = popcount(p)
    no = popcount(o)
    diff = np_ - no
    empties = 64 - np_ - no
    if diff > 0:
        return diff + empties
    if diff < 0:
        return diff - empties
    return 0


@numba.njit(cache=True)
def potential_mobility(p: np.uint64, o: np.uint64) -> int:
    """Empty squares next to the opponent's discs (where the player may later play)."""
    empty = ~(p | o)
    oh = o & _NOT_EDGE_COLS
    around = (o << _S8) | (o >> _S8) | (oh << _S1) | (oh >> _S1)
    around |= (oh << _S7) | (oh >> _S7) | (oh << _S9) | (oh >> _S9)
    return popcount(around & empty)


@numba.njit(cache=True)
def edge_stable(p: np.uint64, o: np.uint64) -> np.uint64:
    """A subset of the player's stable discs: runs along the edges anchored in the corners."""
    stable = U0
    # For each corner and the two edges leaving it, walk while the player's discs continue.
    corners = (0, 7, 56, 63)
    steps = ((1, 8), (-1, 8), (1, -8), (-1, -8))
    for k in range(4):
        corner = corners[k]
        if not (p >> np.uint64(corner)) & U1:
            continue
        for j in range(2):
            step = steps[k][j]
            sq = corner
            for _ in range(8):
                if not (p >> np.uint64(sq)) & U1:
                    break
                stable |= U1 << np.uint64(sq)
                nxt = sq + step
                if nxt < 0 or nxt > 63 or (step in (1, -1) and nxt // 8 != sq // 8):
                    break
                sq = nxt
    return stable


@numba.njit(cache=True)
def rng_next(state: np.ndarray) -> np.uint64:
    """xorshift64* step on ``state[0]`` (a deterministic generator the caller seeds)."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@numba.njit(cache=True)
def random_square(bits: np.uint64, state: np.ndarray) -> int:
    """A uniformly random set bit of a non-zero word."""
    n = popcount(bits)
    k = int((rng_next(state) >> np.uint64(32)) % np.uint64(n))
    for _ in range(k):
        bits &= bits - U1
    return lowest_square(bits)


@numba.njit(cache=True)
def random_playout(p: np.uint64, o: np.uint64, state: np.ndarray) -> int:
    """Play uniformly random moves to the end; the final disc difference for ``p``'s side."""
    sign = 1
    passes = 0
    while passes < 2:
        moves = legal_moves(p, o)
        if moves == U0:
            passes += 1
        else:
            passes = 0
            sq = random_square(moves, state)
            f = flips(p, o, sq)
            p |= f | (U1 << np.uint64(sq))
            o ^= f
        p, o = o, p
        sign = -sign
    return sign * final_score(p, o)
