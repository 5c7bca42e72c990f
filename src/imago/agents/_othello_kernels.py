# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels over Othello bitboards, tuned for search (not a rules module).

A position is two ``uint64`` words: ``p`` (the discs of the player to move) and ``o`` (the
opponent's). Square ``sq = row * 8 + col`` (``a1`` = 0, top-left; ``h8`` = 63) is bit ``sq``.
These kernels are the search's own tight versions (move generation by shifts, flips by rays,
parity, evaluation features, a random playout); the rules themselves live in
:mod:`imago.games.othello`, which tests compare against.

Smaller boards (6x6, 4x4) sit in the top-left corner, as in :mod:`imago.games.othello.bitboard`.
Kernels take the board ``size`` and read what they need to know of the board from
:data:`GEOMETRY`: the mask of its squares (AND it with :func:`legal_moves` and with the empty
squares), its corners, the squares next to the corners, the four parity quadrants, its number
of squares. Flips need no mask: a run of opponent discs never leaves the board.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

# The rules' bit tricks (LLVM ctpop / cttz intrinsics), re-exported for the search kernels.
from imago.games.othello._kernels import lowest_square as lowest_square
from imago.games.othello._kernels import popcount as popcount

U0 = np.uint64(0)
U1 = np.uint64(1)
_NOT_EDGE_COLS = np.uint64(0x7E7E7E7E7E7E7E7E)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_S1 = np.uint64(1)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)

# -- board geometry ---------------------------------------------------------------------------
G_MASK = 0
"""Column of :data:`GEOMETRY`: the squares of the board."""
G_CORNERS = 1
"""The four corners."""
G_NEXT_TO_CORNERS = 2
"""The X and C squares (the neighbours of the corners)."""
G_QUADRANTS = 3
"""Columns 3..6: the four parity quadrants (top-left, top-right, bottom-left, bottom-right)."""
G_SIZE = 7
"""The side length of the board."""
G_SQUARES = 8
"""The number of squares of the board."""
SIZES = (4, 6, 8)
"""The board sizes of :data:`GEOMETRY`."""


def _bit_of(row: int, col: int) -> int:
    return 1 << (row * 8 + col)


def _geometry_row(size: int) -> list[int]:
    last, half = size - 1, size // 2
    mask = sum(_bit_of(r, c) for r in range(size) for c in range(size))
    corners = [(0, 0), (0, last), (last, 0), (last, last)]
    near = 0
    for r, c in corners:
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc = r + dr, c + dc
                if (dr or dc) and 0 <= rr < size and 0 <= cc < size:
                    near |= _bit_of(rr, cc)
    quadrants = [
        sum(
            _bit_of(r, c)
            for r in range(size)
            for c in range(size)
            if (r >= half) == bool(q & 2) and (c >= half) == bool(q & 1)
        )
        for q in range(4)
    ]
    return [mask, sum(_bit_of(r, c) for r, c in corners), near, *quadrants, size, size * size]


GEOMETRY = np.zeros((9, 9), dtype=np.uint64)
"""``GEOMETRY[size, G_*]``: what the search needs to know of a ``size`` board (rows 4, 6, 8;
a numba global, so reading it costs a load from constant memory)."""
QUADRANT = np.zeros((9, 64), dtype=np.int64)
"""``QUADRANT[size, square]``: the parity quadrant (0..3, as in :data:`GEOMETRY`) of a square."""
for _size in SIZES:
    GEOMETRY[_size] = _geometry_row(_size)
    for _sq in range(64):
        QUADRANT[_size, _sq] = 2 * int(_sq // 8 >= _size // 2) + int(_sq % 8 >= _size // 2)


def geometry(size: int) -> npt.NDArray[np.uint64]:
    """The row of :data:`GEOMETRY` of a ``size`` x ``size`` board (4, 6 or 8)."""
    if size not in SIZES:
        raise ValueError(f"Othello boards are 4x4, 6x6 or 8x8, not {size}x{size}")
    return GEOMETRY[size].copy()


@numba.njit(cache=True, inline="always")
def board_mask(size: int) -> np.uint64:
    """The squares of a ``size`` board."""
    return GEOMETRY[size, G_MASK]


@numba.njit(cache=True, inline="always")
def board_squares(size: int) -> int:
    """The number of squares of a ``size`` board (an ``int64``)."""
    return np.int64(GEOMETRY[size, G_SQUARES])


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
def final_score(p: np.uint64, o: np.uint64, squares: int = 64) -> int:
    """The final disc difference for the player ``p`` when the game is over, on a board of
    ``squares`` squares (64: 8x8; 36: 6x6).

    Empty squares go to the winner (the World Othello Federation rule the FFO scores use).
    """
    np_ = popcount(p)
    no = popcount(o)
    diff = np_ - no
    empties = squares - np_ - no
    if diff > 0:
        return diff + empties
    if diff < 0:
        return diff - empties
    return 0


@numba.njit(cache=True)
def potential_mobility(p: np.uint64, o: np.uint64, mask: np.uint64 = _ALL) -> int:
    """Empty squares of the board ``mask`` next to the opponent's discs (where the player may
    later play)."""
    empty = ~(p | o) & mask
    oh = o & _NOT_EDGE_COLS
    around = (o << _S8) | (o >> _S8) | (oh << _S1) | (oh >> _S1)
    around |= (oh << _S7) | (oh >> _S7) | (oh << _S9) | (oh >> _S9)
    return popcount(around & empty)


@numba.njit(cache=True)
def edge_stable(p: np.uint64, o: np.uint64, size: int = 8) -> np.uint64:
    """A subset of the player's stable discs on a ``size`` board: runs along the edges anchored
    in the corners."""
    stable = U0
    last = size - 1
    # From each corner, walk along both edges while the player's discs continue.
    for k in range(4):
        row = 0 if k < 2 else last
        col = 0 if k % 2 == 0 else last
        if not (p >> np.uint64(row * 8 + col)) & U1:
            continue
        for j in range(2):
            dr = 0 if j == 0 else (1 if row == 0 else -1)
            dc = 0 if j == 1 else (1 if col == 0 else -1)
            r, c = row, col
            while 0 <= r < size and 0 <= c < size:
                bit = U1 << np.uint64(r * 8 + c)
                if not p & bit:
                    break
                stable |= bit
                r += dr
                c += dc
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
