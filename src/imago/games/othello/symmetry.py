"""The 8 symmetries of the square board, for points, action indices, masks and feature planes.

Symmetry ``sym`` (0..7) applies, in order: a transpose (``(r, c) -> (c, r)``) when ``sym & 4``,
a top-bottom mirror when ``sym & 1``, a left-right mirror when ``sym & 2``. 0 is the identity.
The same numbering is used by :func:`imago.games.othello.bitboard.symmetry` and
:meth:`OthelloState.transform <imago.games.othello.OthelloState.transform>`, so for any state
``s``::

    s.transform(sym).legal_mask() == transform_mask(s.legal_mask(), sym, s.size)

Training augmentation of a policy target ``pi`` (one value per action)::

    perm = symmetry_permutation(sym, size)
    augmented = np.empty_like(pi); augmented[perm] = pi      # or: pi[perm_of_inverse]
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from imago.core.move import Point

SYMMETRIES: tuple[int, ...] = tuple(range(8))
"""Every symmetry index; 0 is the identity."""


def _check(sym: int) -> None:
    if sym not in SYMMETRIES:
        raise ValueError(f"symmetry must be 0..7, not {sym!r}")


def transform_point(point: Point, sym: int, size: int) -> Point:
    """The image of ``point`` under symmetry ``sym`` on a ``size`` x ``size`` board."""
    _check(sym)
    row, col = point.row, point.col
    if sym & 4:
        row, col = col, row
    if sym & 1:
        row = size - 1 - row
    if sym & 2:
        col = size - 1 - col
    return Point(row, col)


def transform_action(action: int, sym: int, size: int) -> int:
    """The image of an action index (pass, ``size * size``, is its own image)."""
    return int(symmetry_permutation(sym, size)[action])


@functools.cache
def symmetry_permutation(sym: int, size: int) -> npt.NDArray[np.int64]:
    """``perm`` with ``perm[a]`` = the image of action ``a`` (length ``size * size + 1``).

    The array is read-only (it is shared).
    """
    _check(sym)
    perm = np.arange(size * size + 1, dtype=np.int64)
    for index in range(size * size):
        perm[index] = transform_point(Point.from_index(index, size), sym, size).index(size)
    perm.flags.writeable = False
    return perm


_INVERSE = (0, 1, 2, 3, 4, 6, 5, 7)  # transpose-then-mirror on one axis = mirror the other first


def inverse_symmetry(sym: int) -> int:
    """The symmetry that undoes ``sym``."""
    _check(sym)
    return _INVERSE[sym]


def transform_mask(mask: npt.NDArray[np.bool_], sym: int, size: int) -> npt.NDArray[np.bool_]:
    """The image of a legal mask (or any per-action vector) under symmetry ``sym``."""
    out = np.empty_like(mask)
    out[symmetry_permutation(sym, size)] = mask
    return out


def transform_planes(planes: npt.NDArray[np.generic], sym: int) -> npt.NDArray[np.generic]:
    """The image of feature planes ``(..., size, size)`` (a copy) under symmetry ``sym``."""
    _check(sym)
    out = planes
    if sym & 4:
        out = np.swapaxes(out, -1, -2)
    if sym & 1:
        out = out[..., ::-1, :]
    if sym & 2:
        out = out[..., :, ::-1]
    return np.ascontiguousarray(out)
