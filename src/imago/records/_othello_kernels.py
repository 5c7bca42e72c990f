"""Numba kernel that checks a whole Othello move list (passes implicit) in one call.

WTHOR records and move transcripts leave passes out: a move the side to move cannot make
means that side passed. :func:`implicit_colors` walks the list on bitboards and says who
played each move, or where the first illegal one is; the tree then builds its nodes with
those colours and computes each position (an ``OthelloState``) only when it is asked for.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from imago.games.othello.bitboard import flips, legal_moves

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=True)
def implicit_colors(
    position: npt.NDArray[np.uint64], squares: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.int8], int]:
    """``(colour of each move, index of the first illegal move or -1)``.

    ``position`` is ``[black discs, white discs, board mask, side to move]`` (bit
    ``row * 8 + col``; side 1 black, 2 white) and ``squares`` the moves as ``row * 8 + col``
    (each < 64). A move is illegal when neither the side to move nor (if that side has no
    move at all, so it passed) its opponent can make it; the colours after it are undefined.
    """
    n = squares.shape[0]
    colors = np.zeros(n, np.int8)
    mask = position[2]
    color = np.int64(position[3])
    if color == 1:
        p, o = position[0], position[1]
    else:
        p, o = position[1], position[0]
    for i in range(n):
        x = _ONE << np.uint64(squares[i])
        moves = legal_moves(p, o) & mask
        if moves & x == _ZERO:
            if moves != _ZERO:
                return colors, i
            p, o = o, p  # the side to move has no move: it passed
            color = 3 - color
            if legal_moves(p, o) & mask & x == _ZERO:
                return colors, i
        f = flips(p, o, int(squares[i]))
        colors[i] = color
        p, o = o ^ f, p | f | x
        color = 3 - color
    return colors, -1
