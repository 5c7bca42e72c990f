# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels over Othello bitboards for the searches: board geometry, scores and
evaluation features, a random move (not a rules module).

A position is two ``uint64`` words: ``p`` (the discs of the player to move) and ``o`` (the
opponent's). Square ``sq = row * 8 + col`` (``a1`` = 0, top-left; ``h8`` = 63) is bit ``sq``.
Moves and flips are the rules' own (:mod:`imago.games.othello.bitboard`).

Smaller boards (6x6, 4x4) sit in the top-left corner, as in :mod:`imago.games.othello.bitboard`.
Kernels take the board ``size`` and read what they need to know of the board from
:data:`GEOMETRY`: the mask of its squares (AND it with the legal moves and with the empty
squares), its corners, the squares next to the corners, the four parity quadrants, its number
of squares. Flips need no mask: a run of opponent discs never leaves the board.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from imago.core.rng import next_u64
from imago.games.othello.bitboard import lowest_square, popcount

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
def board_squares(size: int) -> int:
    """The number of squares of a ``size`` board (an ``int64``)."""
    return np.int64(GEOMETRY[size, G_SQUARES])


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


_LINE_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))
"""The four line directions as (row, column) steps: east, south, south-east, south-west."""
_LINE_SHIFTS = (1, 8, 9, 7)
"""The same directions as bit steps."""


def _line_edges() -> np.ndarray:
    """``LINE_EDGES[size, 2 * d + side]``: the squares of a ``size`` board whose neighbour in
    line direction ``d`` (``side`` 0: the step of :data:`_LINE_SHIFTS`, 1: the opposite one) is
    off the board."""
    edges = np.zeros((9, 8), dtype=np.uint64)
    for size in SIZES:
        for d, (dr, dc) in enumerate(_LINE_STEPS):
            for side, sign in ((0, 1), (1, -1)):
                bits = 0
                for r in range(size):
                    for c in range(size):
                        rr, cc = r + sign * dr, c + sign * dc
                        if not (0 <= rr < size and 0 <= cc < size):
                            bits |= 1 << (r * 8 + c)
                edges[size, 2 * d + side] = bits
    return edges


LINE_EDGES = _line_edges()


@numba.njit(cache=True, inline="always")
def _full_lines(occupied: np.uint64, d: int, size: int) -> np.uint64:
    """The occupied squares whose whole line in direction ``d`` is occupied: those joined to
    the board's edge by occupied squares on both sides."""
    step = np.uint64(_LINE_SHIFTS[d])
    ahead = occupied & LINE_EDGES[size, 2 * d]
    behind = occupied & LINE_EDGES[size, 2 * d + 1]
    for _ in range(size - 1):
        ahead |= occupied & (ahead >> step)
        behind |= occupied & (behind << step)
    return ahead & behind


@numba.njit(cache=True)
def stable_discs(p: np.uint64, o: np.uint64, size: int) -> np.uint64:
    """Discs of ``p`` that can never flip on a ``size`` board: those that in each of the four
    line directions lie on a full line, on the board's edge, or next to a stable own disc
    (grown from the corners until nothing changes). A superset of the corner-anchored edge
    runs that the midgame evaluation counts (:func:`edge_stable`,
    a feature of seed 002's evaluation, kept as it is so that its weights keep their meaning)."""
    occupied = p | o
    h = _full_lines(occupied, 0, size) | LINE_EDGES[size, 0] | LINE_EDGES[size, 1]
    v = _full_lines(occupied, 1, size) | LINE_EDGES[size, 2] | LINE_EDGES[size, 3]
    d9 = _full_lines(occupied, 2, size) | LINE_EDGES[size, 4] | LINE_EDGES[size, 5]
    d7 = _full_lines(occupied, 3, size) | LINE_EDGES[size, 6] | LINE_EDGES[size, 7]
    stable = U0
    while True:
        grown = p & (h | (stable << _S1) | (stable >> _S1))
        grown &= v | (stable << _S8) | (stable >> _S8)
        grown &= d9 | (stable << _S9) | (stable >> _S9)
        grown &= d7 | (stable << _S7) | (stable >> _S7)
        if grown == stable:
            return stable
        stable = grown


# -- move lists -------------------------------------------------------------------------------
SCRATCH_SQUARE = 0
"""Columns of a scratch row from here: the moves, sorted by their keys (lowest first)."""
SCRATCH_KEY = 64
"""From here: the ordering keys."""
SCRATCH_FLIPS = 128
"""From here: each move's flips (the word's bits as an ``int64``)."""


def new_scratch() -> npt.NDArray[np.int64]:
    """Move lists for a search (row = number of empty squares; see the module docstring)."""
    return np.zeros((65, 192), dtype=np.int64)


@numba.njit(cache=True, inline="always")
def insert_move(scratch: np.ndarray, n: int, count: int, sq: int, key: int, f: np.uint64) -> None:
    """Insert a move into row ``n``'s ``count`` moves sorted by key (lowest first, stable for
    ties), indexing the scratch array directly: a row view would cost two reference-count
    updates per node."""
    i = count
    while i > 0 and scratch[n, SCRATCH_KEY + i - 1] > key:
        scratch[n, SCRATCH_KEY + i] = scratch[n, SCRATCH_KEY + i - 1]
        scratch[n, SCRATCH_SQUARE + i] = scratch[n, SCRATCH_SQUARE + i - 1]
        scratch[n, SCRATCH_FLIPS + i] = scratch[n, SCRATCH_FLIPS + i - 1]
        i -= 1
    scratch[n, SCRATCH_KEY + i] = key
    scratch[n, SCRATCH_SQUARE + i] = sq
    scratch[n, SCRATCH_FLIPS + i] = np.int64(f)


@numba.njit(cache=True)
def random_square(bits: np.uint64, state: np.ndarray) -> int:
    """A uniformly random set bit of a non-zero word (from the top 32 bits of the next output of
    the generator :mod:`imago.core.rng` on ``state``)."""
    n = popcount(bits)
    k = np.int64(next_u64(state) >> np.uint64(32)) % n
    for _ in range(k):
        bits &= bits - U1
    return lowest_square(bits)
