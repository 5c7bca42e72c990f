# mypy: disable-error-code="no-any-return,return-value,assignment"
"""The Othello pattern evaluation (Logistello / Edax style): its patterns, stages and tables, as
numba kernels that the search calls and `imago.train` fits (the one definition of both).

A position is the two bitboards ``p`` (side to move) and ``o``; square ``row * 8 + col`` is
bit ``row * 8 + col`` (``a1`` = 0). The evaluation is a sum of table lookups: every *instance*
of a pattern (a list of squares) reads its squares as a base-3 number (digit ``i`` is square
``i``: 0 empty, 1 the mover's disc, 2 the opponent's), and that number indexes the pattern's
table of the position's *stage* (by disc count). Two more tables take the mobility of each
side. Every pattern's instances are the images of one base instance under the 8 symmetries
of the board, and its table is tied under the symmetries that map the base instance onto
itself (:func:`canonical_map`), so the evaluation is the same for all 8 transformed
positions.

Speed: the 8 transformed boards are made once per evaluation with shifts and masks (mirror,
byte swap, transpose); every instance then reads runs of bits from one of them ("chunks": a
row run, or a diagonal gathered into one byte by a multiplication) and turns each run into
base-3 with a 256-entry table, so no loop runs over single squares.

Weights: ``table int32[stages, TABLE_SIZE]`` in hundredths of a disc; pattern ``k`` owns
``table[:, OFFSETS[k]:OFFSETS[k] + 3**len(k)]``, then come the two mobility tables of
``MOBILITY_SIZE`` entries each.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numba
import numpy as np

from imago.games.othello.bitboard import legal_moves, popcount

STAGES = 15
"""Stage ``(discs - 4) // 4``: plies 0-3 are stage 0, ..., plies 56-59 stage 14."""
MOBILITY_SIZE = 64
UNIT = 100
"""Table values are in hundredths of a disc."""


@dataclass(frozen=True)
class Pattern:
    """A pattern: its base squares ``(row, col)`` on a transformed board, in digit order,
    and the instances: ``(board, chunks)`` where ``board`` is the transform (see
    :func:`board_square`) and ``chunks`` the runs of bits that read the squares there."""

    name: str
    squares: tuple[tuple[int, int], ...]
    instances: tuple[tuple[int, tuple[tuple[int, int, int, int, int], ...]], ...]


def board_square(board: int, row: int, col: int) -> tuple[int, int]:
    """The square of the real board seen at ``(row, col)`` of transformed board ``board``.

    Boards: 0 itself, 1 mirrored left-right, 2 flipped top-bottom, 3 both, and 4-7 the
    transposes of 0-3.
    """
    if board >= 4:
        row, col = col, row
        board -= 4
    if board & 1:
        col = 7 - col
    if board & 2:
        row = 7 - row
    return row, col


def _row_run(row: int, col: int, length: int, power: int) -> tuple[int, int, int, int, int]:
    """A chunk reading ``length`` squares of ``row`` from ``col`` on (digit weight ``power``)."""
    return (-1, 1, row * 8 + col, (1 << length) - 1, power)


def _diagonal(offset: int) -> tuple[int, int, int, int, int]:
    """A chunk reading the diagonal ``col - row == offset``, squares by increasing column."""
    mask = 0
    cols = []
    for row in range(8):
        col = row + offset
        if 0 <= col < 8:
            mask |= 1 << (row * 8 + col)
            cols.append(col)
    return (mask, 0x0101010101010101, 56 + min(cols), (1 << len(cols)) - 1, 1)


def _diagonal_squares(offset: int) -> tuple[tuple[int, int], ...]:
    return tuple((col - offset, col) for col in range(8) if 0 <= col - offset < 8)


def _patterns() -> tuple[Pattern, ...]:
    patterns = [
        Pattern(
            "edge2x",
            (*((0, c) for c in range(8)), (1, 1), (1, 6)),
            tuple(
                (b, (_row_run(0, 0, 8, 1), _row_run(1, 1, 1, 3**8), _row_run(1, 6, 1, 3**9)))
                for b in (0, 2, 4, 5)
            ),
        ),
        Pattern(
            "corner3x3",
            tuple((r, c) for r in range(3) for c in range(3)),
            tuple(
                (b, (_row_run(0, 0, 3, 1), _row_run(1, 0, 3, 27), _row_run(2, 0, 3, 729)))
                for b in range(4)
            ),
        ),
        Pattern(
            "corner2x5",
            tuple((r, c) for r in range(2) for c in range(5)),
            tuple((b, (_row_run(0, 0, 5, 1), _row_run(1, 0, 5, 243))) for b in range(8)),
        ),
    ]
    for row in (1, 2, 3):
        patterns.append(
            Pattern(
                f"line{row + 1}",
                tuple((row, c) for c in range(8)),
                tuple((b, (_row_run(row, 0, 8, 1),)) for b in (0, 2, 4, 5)),
            )
        )
    patterns.append(
        Pattern("diag8", _diagonal_squares(0), ((0, (_diagonal(0),)), (1, (_diagonal(0),))))
    )
    for length in (7, 6, 5, 4):
        k = 8 - length
        patterns.append(
            Pattern(
                f"diag{length}",
                _diagonal_squares(k),
                tuple((b, (_diagonal(k),)) for b in (0, 4, 1, 5)),
            )
        )
    return tuple(patterns)


PATTERNS = _patterns()
N_PATTERNS = len(PATTERNS)
N_INSTANCES = sum(len(p.instances) for p in PATTERNS)


def _tables() -> tuple[np.ndarray, ...]:
    offsets = np.zeros(N_PATTERNS + 1, dtype=np.int64)
    for k, pattern in enumerate(PATTERNS):
        offsets[k + 1] = offsets[k] + 3 ** len(pattern.squares)
    inst_board, inst_offset, inst_pattern, chunk_start = [], [], [], [0]
    chunks: list[tuple[int, int, int, int, int]] = []
    for k, pattern in enumerate(PATTERNS):
        for board, runs in pattern.instances:
            inst_board.append(board)
            inst_offset.append(int(offsets[k]))
            inst_pattern.append(k)
            chunks.extend(runs)
            chunk_start.append(len(chunks))
    chunk_mask = np.array([c[0] & 0xFFFFFFFFFFFFFFFF for c in chunks], dtype=np.uint64)
    chunk_mul = np.array([c[1] for c in chunks], dtype=np.uint64)
    chunk_shift = np.array([c[2] for c in chunks], dtype=np.uint64)
    chunk_bits = np.array([c[3] for c in chunks], dtype=np.uint64)
    chunk_power = np.array([c[4] for c in chunks], dtype=np.int64)
    return (
        offsets,
        np.array(inst_board, dtype=np.int64),
        np.array(inst_offset, dtype=np.int64),
        np.array(inst_pattern, dtype=np.int64),
        np.array(chunk_start, dtype=np.int64),
        chunk_mask,
        chunk_mul,
        chunk_shift,
        chunk_bits,
        chunk_power,
    )


(
    OFFSETS,
    INST_BOARD,
    INST_OFFSET,
    INST_PATTERN,
    CHUNK_START,
    CHUNK_MASK,
    CHUNK_MUL,
    CHUNK_SHIFT,
    CHUNK_BITS,
    CHUNK_POWER,
) = _tables()
MOBILITY_OFFSET = int(OFFSETS[-1])
TABLE_SIZE = MOBILITY_OFFSET + 2 * MOBILITY_SIZE
BASE3 = np.array([sum(3**i for i in range(8) if b >> i & 1) for b in range(256)], dtype=np.int64)


def instance_squares() -> list[list[int]]:
    """Every instance's squares (``row * 8 + col`` of the real board), in digit order, in
    the order the kernels number the instances (the slow reference for tests)."""
    out = []
    for pattern in PATTERNS:
        for board, _ in pattern.instances:
            out.append([r * 8 + c for r, c in (board_square(board, *sq) for sq in pattern.squares)])
    return out


# -- symmetry: the weight ties ---------------------------------------------------------------


def _symmetries() -> list[tuple[tuple[int, int], ...]]:
    """The 8 board symmetries as maps of all 64 squares."""
    return [tuple(board_square(b, r, c) for r in range(8) for c in range(8)) for b in range(8)]


def canonical_map(pattern: Pattern) -> tuple[np.ndarray, int]:
    """For every code of ``pattern`` its tied class (``0..n-1``), and ``n``.

    Two codes are tied when a board symmetry maps the base instance's squares onto themselves
    (as a set) and carries one code to the other.
    """
    base = list(pattern.squares)
    n = len(base)
    position = {sq: i for i, sq in enumerate(base)}
    perms = []
    for sym in _symmetries():
        image = [sym[r * 8 + c] for r, c in base]
        if set(image) == set(base):
            perms.append([position[sq] for sq in image])
    codes = np.arange(3**n, dtype=np.int64)
    digits = (codes[:, None] // 3 ** np.arange(n)) % 3
    powers = 3 ** np.arange(n, dtype=np.int64)
    best = codes.copy()
    for perm in perms:
        moved = np.zeros_like(codes)
        for i, j in enumerate(perm):
            moved += digits[:, i] * powers[j]
        best = np.minimum(best, moved)
    classes, inverse = np.unique(best, return_inverse=True)
    return inverse.astype(np.int64), len(classes)


@functools.cache
def tie_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(compact_of, compact_offsets)``: the compact (tied) index of every entry of a stage's
    table, and where each pattern's compact weights start (last: the mobility tables).
    Computed once per process; callers must not modify the arrays."""
    compact_of = np.empty(TABLE_SIZE, dtype=np.int64)
    starts = np.zeros(N_PATTERNS + 2, dtype=np.int64)
    at = 0
    for k, pattern in enumerate(PATTERNS):
        classes, n = canonical_map(pattern)
        compact_of[OFFSETS[k] : OFFSETS[k + 1]] = classes + at
        starts[k] = at
        at += n
    starts[N_PATTERNS] = at
    compact_of[MOBILITY_OFFSET:] = np.arange(2 * MOBILITY_SIZE) + at
    at += 2 * MOBILITY_SIZE
    starts[N_PATTERNS + 1] = at
    return compact_of, starts


# -- kernels -----------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _mirror(x: np.uint64) -> np.uint64:
    x = ((x >> np.uint64(1)) & np.uint64(0x5555555555555555)) | (
        (x & np.uint64(0x5555555555555555)) << np.uint64(1)
    )
    x = ((x >> np.uint64(2)) & np.uint64(0x3333333333333333)) | (
        (x & np.uint64(0x3333333333333333)) << np.uint64(2)
    )
    return ((x >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | (
        (x & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4)
    )


@numba.njit(cache=True, inline="always")
def _flip(x: np.uint64) -> np.uint64:
    x = ((x >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | (
        (x & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8)
    )
    x = ((x >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | (
        (x & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16)
    )
    return (x >> np.uint64(32)) | (x << np.uint64(32))


@numba.njit(cache=True, inline="always")
def _transpose(x: np.uint64) -> np.uint64:
    t = np.uint64(0x0F0F0F0F00000000) & (x ^ (x << np.uint64(28)))
    x ^= t ^ (t >> np.uint64(28))
    t = np.uint64(0x3333000033330000) & (x ^ (x << np.uint64(14)))
    x ^= t ^ (t >> np.uint64(14))
    t = np.uint64(0x5500550055005500) & (x ^ (x << np.uint64(7)))
    x ^= t ^ (t >> np.uint64(7))
    return x


@numba.njit(cache=True, inline="always")
def _boards(x: np.uint64, out: np.ndarray) -> None:
    out[0] = x
    out[1] = _mirror(x)
    out[2] = _flip(x)
    out[3] = _flip(out[1])
    out[4] = _transpose(x)
    out[5] = _transpose(out[1])
    out[6] = _transpose(out[2])
    out[7] = _transpose(out[3])


@numba.njit(cache=True)
def pattern_codes(p: np.uint64, o: np.uint64, out: np.ndarray) -> None:
    """Write every instance's base-3 code (without the table offset) to ``out``."""
    bp = np.empty(8, dtype=np.uint64)
    bo = np.empty(8, dtype=np.uint64)
    _boards(p, bp)
    _boards(o, bo)
    for i in range(N_INSTANCES):
        xp = bp[INST_BOARD[i]]
        xo = bo[INST_BOARD[i]]
        code = 0
        for j in range(CHUNK_START[i], CHUNK_START[i + 1]):
            m = CHUNK_MASK[j]
            k = CHUNK_MUL[j]
            s = CHUNK_SHIFT[j]
            b = CHUNK_BITS[j]
            cp = (((xp & m) * k) >> s) & b
            co = (((xo & m) * k) >> s) & b
            code += CHUNK_POWER[j] * (BASE3[cp] + 2 * BASE3[co])
        out[i] = code


@numba.njit(cache=True, inline="always")
def stage_of(p: np.uint64, o: np.uint64) -> int:
    """The stage of a position: ``(discs - 4) // 4``, at most ``STAGES - 1``."""
    return min((popcount(p | o) - 4) >> 2, STAGES - 1)


@numba.njit(cache=True)
def feature_indices(p: np.uint64, o: np.uint64, moves: np.uint64, out: np.ndarray) -> None:
    """Every table index the evaluation of ``(p, o)`` reads (``moves``: ``p``'s legal
    moves): the instances' ``OFFSETS + code``, then the two mobility entries."""
    pattern_codes(p, o, out)
    for i in range(N_INSTANCES):
        out[i] += INST_OFFSET[i]
    out[N_INSTANCES] = MOBILITY_OFFSET + min(popcount(moves), MOBILITY_SIZE - 1)
    out[N_INSTANCES + 1] = (
        MOBILITY_OFFSET + MOBILITY_SIZE + min(popcount(legal_moves(o, p)), MOBILITY_SIZE - 1)
    )


N_FEATURES = N_INSTANCES + 2


@numba.njit(cache=True)
def evaluate(p: np.uint64, o: np.uint64, moves: np.uint64, table: np.ndarray) -> int:
    """The evaluation for the player ``p`` to move (``moves``: its legal moves), in
    hundredths of a disc."""
    row = table[stage_of(p, o)]
    bp = np.empty(8, dtype=np.uint64)
    bo = np.empty(8, dtype=np.uint64)
    _boards(p, bp)
    _boards(o, bo)
    score = 0
    for i in range(N_INSTANCES):
        xp = bp[INST_BOARD[i]]
        xo = bo[INST_BOARD[i]]
        code = INST_OFFSET[i]
        for j in range(CHUNK_START[i], CHUNK_START[i + 1]):
            m = CHUNK_MASK[j]
            k = CHUNK_MUL[j]
            s = CHUNK_SHIFT[j]
            b = CHUNK_BITS[j]
            cp = (((xp & m) * k) >> s) & b
            co = (((xo & m) * k) >> s) & b
            code += CHUNK_POWER[j] * (BASE3[cp] + 2 * BASE3[co])
        score += row[code]
    score += row[MOBILITY_OFFSET + min(popcount(moves), MOBILITY_SIZE - 1)]
    score += row[
        MOBILITY_OFFSET + MOBILITY_SIZE + min(popcount(legal_moves(o, p)), MOBILITY_SIZE - 1)
    ]
    return score
