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
TOP = np.uint64(0x8000000000000000)
INNER_COLS = np.uint64(0x7E7E7E7E7E7E7E7E)
S1 = np.uint64(1)
S7 = np.uint64(7)
S8 = np.uint64(8)
S9 = np.uint64(9)


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


_LANES = ir.VectorType(ir.IntType(64), 4)


def _splat(builder: Any, value: Any) -> Any:
    """A four-lane vector of ``value``."""
    lanes = builder.insert_element(
        ir.Constant(_LANES, ir.Undefined), value, ir.Constant(ir.IntType(32), 0)
    )
    return builder.shuffle_vector(
        lanes,
        ir.Constant(_LANES, ir.Undefined),
        ir.Constant(ir.VectorType(ir.IntType(32), 4), [0] * 4),
    )


def _lanes(value: int) -> Any:
    """A constant four-lane vector of ``value`` (a signed or unsigned 64-bit word)."""
    return ir.Constant(_LANES, [value] * 4)


def _vector_function(builder: Any, name: str, result: Any, arguments: list[Any]) -> Any:
    """The LLVM intrinsic ``name`` declared once in the module being built."""
    module = builder.module
    function = module.globals.get(name)
    if function is None:
        function = ir.Function(module, ir.FunctionType(result, arguments), name=name)
    return function


@njit(cache=True, inline="always")
def popcount(x: Bits) -> I64:
    """The number of set bits of ``x``."""
    return np.int64(_ctpop(x))  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def lowest_square(x: Bits) -> I64:
    """The index of the lowest set bit of ``x`` (64 when ``x`` is 0)."""
    return np.int64(_cttz(x))  # type: ignore[call-arg]


# -- move generation --------------------------------------------------------------------------
_LEFT = ir.Constant(_LANES, [1, 8, 9, 7])
"""The four line directions as shifts (east, south, south-east, south-west; the other four
are the same shifts to the right)."""
_INNER = int(INNER_COLS)
_EDGE_MASKS = ir.Constant(_LANES, [_INNER, -1, _INNER, _INNER])
"""Per direction, the squares an opponent run may cross without wrapping round a side edge."""


def _runs(builder: Any, shift: Any, player: Any, opponent: Any, step: Any, step2: Any) -> Any:
    """Kogge-Stone fill along the four directions at once: the squares just past runs of 1 to
    6 opponent discs that start next to a player's disc (``shift`` is ``shl`` or ``lshr``)."""
    t = builder.and_(opponent, shift(player, step))
    t = builder.or_(t, builder.and_(opponent, shift(t, step)))
    pairs = builder.and_(opponent, shift(opponent, step))
    t = builder.or_(t, builder.and_(pairs, shift(t, step2)))
    t = builder.or_(t, builder.and_(pairs, shift(t, step2)))
    return shift(t, step)


@intrinsic
def _vector_legal(typingctx, p, o):  # type: ignore[no-untyped-def]
    """:func:`legal` as four-lane vector code (the eight directions as two fills of four)."""
    if p != types.uint64 or o != types.uint64:
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        p_, o_ = args
        player = _splat(builder, p_)
        opponent = builder.and_(_splat(builder, o_), _EDGE_MASKS)
        step2 = builder.add(_LEFT, _LEFT)
        moves = builder.or_(
            _runs(builder, builder.shl, player, opponent, _LEFT, step2),
            _runs(builder, builder.lshr, player, opponent, _LEFT, step2),
        )
        reduce_or = _vector_function(
            builder, "llvm.vector.reduce.or.v4i64", ir.IntType(64), [_LANES]
        )
        occupied = builder.or_(p_, o_)
        empty = builder.xor(occupied, ir.Constant(ir.IntType(64), -1))
        return builder.and_(builder.call(reduce_or, [moves]), empty)

    return types.uint64(types.uint64, types.uint64), codegen


@njit(cache=True)
def legal(p: Bits, o: Bits) -> Bits:
    """The squares where the player with discs ``p`` may play against ``o`` (8x8): past a run
    of opponent discs that starts next to one of ``p``'s, in any of the eight directions
    (shifts; the opponent masked off the side columns for the directions that cross them)."""
    return _vector_legal(np.uint64(p), np.uint64(o))  # type: ignore[call-arg]


_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))
"""The first four go up in bit index (east, south, south-east, south-west), the rest down."""


def _rays() -> npt.NDArray[np.uint64]:
    rays = np.zeros((64, 8), dtype=np.uint64)
    for d, (dr, dc) in enumerate(_DIRECTIONS):
        for sq in range(64):
            r, c, bits = sq // 8 + dr, sq % 8 + dc, 0
            while 0 <= r < 8 and 0 <= c < 8:
                bits |= 1 << (r * 8 + c)
                r, c = r + dr, c + dc
            rays[sq, d] = bits
    return rays


RAYS = _rays()
"""``RAYS[sq, d]``: the squares from ``sq`` (excluded) to the board's edge in direction ``d``
(a square's eight rays share one cache line)."""


@intrinsic
def _ray_flips(typingctx, p, o, rays, sq):  # type: ignore[no-untyped-def]
    """:func:`flips` as four-lane vector code: the four rays that go up in bit index in one
    vector, the four that go down in another (LLVM turns it into the host's SIMD)."""
    if p != types.uint64 or o != types.uint64 or sq != types.int64:
        return None
    signature = types.uint64(types.uint64, types.uint64, rays, types.int64)

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        p_, o_, rays_, sq_ = args
        i64 = ir.IntType(64)
        table = context.make_array(sig.args[2])(context, builder, rays_).data
        row = builder.gep(table, [builder.mul(sq_, ir.Constant(i64, 8))])
        up = builder.load(builder.bitcast(row, _LANES.as_pointer()), align=8)
        down_row = builder.gep(row, [ir.Constant(i64, 4)])
        down = builder.load(builder.bitcast(down_row, _LANES.as_pointer()), align=8)
        player = _splat(builder, p_)
        not_opponent = builder.xor(_splat(builder, o_), _lanes(-1))
        zero = _lanes(0)
        # Up: the nearest square that is not the opponent's is the lowest bit of the blockers.
        blockers = builder.and_(up, not_opponent)
        first = builder.and_(blockers, builder.sub(zero, blockers))
        closed = builder.icmp_unsigned("!=", builder.and_(first, player), zero)
        run = builder.and_(builder.sub(first, _lanes(1)), up)
        flipped = builder.select(closed, run, zero)
        # Down: the highest bit (square 0 stands in when there is none: it is then the
        # opponent's or off the ray, so never closes a run).
        blockers = builder.or_(builder.and_(down, not_opponent), _lanes(1))
        ctlz = _vector_function(builder, "llvm.ctlz.v4i64", _LANES, [_LANES, ir.IntType(1)])
        zeros_above = builder.call(ctlz, [blockers, ir.Constant(ir.IntType(1), 0)])
        first = builder.lshr(_lanes(-(1 << 63)), zeros_above)  # the top bit, shifted down
        closed = builder.icmp_unsigned("!=", builder.and_(first, builder.and_(player, down)), zero)
        run = builder.and_(down, builder.sub(zero, builder.shl(first, _lanes(1))))
        flipped = builder.or_(flipped, builder.select(closed, run, zero))
        reduce_or = _vector_function(builder, "llvm.vector.reduce.or.v4i64", i64, [_LANES])
        return builder.call(reduce_or, [flipped])

    return signature, codegen


@njit(cache=True)
def flips(p: Bits, o: Bits, sq: int) -> Bits:
    """The opponent discs that a disc of ``p`` on empty square ``sq`` flips (0: none).

    Along each ray from ``sq`` (:data:`RAYS`), the first square that is not the opponent's
    closes a run of flips when it is the player's: the lowest such bit on the four rays that
    go up in bit index, the highest on the four that go down. The eight rays are computed as
    two four-lane vectors, without a branch (the searches call this on unpredictable
    positions: four times faster than a loop over the rays)."""
    return _ray_flips(np.uint64(p), np.uint64(o), RAYS, np.int64(sq))  # type: ignore[call-arg]


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
