"""The 8 symmetries of the square board (both games, any size): points, actions, per-action
arrays and feature planes.

Symmetry ``sym`` (0..7) applies, in order: a transpose (``(r, c) -> (c, r)``) when ``sym & 4``,
a top-bottom mirror when ``sym & 1``, a left-right mirror when ``sym & 2``. 0 is the identity;
pass (action ``size * size``) is its own image. The same numbering is used by
:func:`imago.games.othello.bitboard.symmetry` and
:meth:`OthelloState.transform <imago.games.othello.OthelloState.transform>`, so for any state
``s``::

    s.transform(sym).legal_mask() == transform_policy(s.legal_mask(), sym, s.size)

Everything is a gather with one table: ``source = gather_table(sym, size)`` has
``transformed[..., i] = original[..., source[i]]`` over flattened points (or actions), so the
same table transforms numpy arrays and torch tensors (as :mod:`imago.nn` does)::

    planes_t = planes.reshape(n, c, size * size)[..., source[:-1]].reshape(n, c, size, size)
    policy_t = policy[..., source]
    target_t = image_table(sym, size)[target]        # an action index moves forward

>>> image_table(4, 3)   # the transpose on 3x3: action 1 (row 0, col 1) becomes 3
array([0, 3, 6, 1, 4, 7, 2, 5, 8, 9])
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from imago.core.move import Point

SYMMETRIES: tuple[int, ...] = tuple(range(8))
"""Every symmetry index; 0 is the identity."""

IntArray = npt.NDArray[np.int64]

_INVERSE = (0, 1, 2, 3, 4, 6, 5, 7)  # transpose-then-mirror on one axis = mirror the other first


def _check(sym: int, size: int) -> None:
    if sym not in SYMMETRIES:
        raise ValueError(f"symmetry must be 0..7, not {sym!r}")
    if size < 1:
        raise ValueError(f"board size must be positive, not {size}")


def transform_point(point: Point, sym: int, size: int) -> Point:
    """The image of ``point`` under symmetry ``sym`` on a ``size`` x ``size`` board."""
    row, col = divmod(int(image_table(sym, size)[point.row * size + point.col]), size)
    return Point(row, col)


@functools.cache
def image_table(sym: int, size: int) -> IntArray:
    """``image[a]`` = the action that action ``a`` becomes under ``sym`` (length ``N*N + 1``;
    read-only, it is shared)."""
    _check(sym, size)
    rows, cols = np.divmod(np.arange(size * size), size)
    if sym & 4:
        rows, cols = cols, rows
    if sym & 1:
        rows = size - 1 - rows
    if sym & 2:
        cols = size - 1 - cols
    table = np.append(rows * size + cols, size * size).astype(np.int64)
    table.flags.writeable = False
    return table


@functools.cache
def gather_table(sym: int, size: int) -> IntArray:
    """``source[i]`` = the action whose value lands on ``i`` under ``sym`` (the inverse image;
    read-only, it is shared)."""
    image = image_table(sym, size)
    source = np.empty_like(image)
    source[image] = np.arange(len(image))
    source.flags.writeable = False
    return source


def inverse(sym: int) -> int:
    """The symmetry that undoes ``sym``."""
    _check(sym, 1)
    return _INVERSE[sym]


def transform_action(action: int, sym: int, size: int) -> int:
    """The image of one action index (pass stays pass)."""
    return int(image_table(sym, size)[action])


def transform_actions(actions: npt.NDArray[np.integer], sym: int, size: int) -> IntArray:
    """Action indices moved by ``sym`` (pass stays pass)."""
    moved: IntArray = image_table(sym, size)[actions]
    return moved


def transform_policy(
    policy: npt.NDArray[np.generic], sym: int, size: int
) -> npt.NDArray[np.generic]:
    """A per-action array ``(..., N*N + 1)`` (probabilities, a legal mask) as seen after
    ``sym``."""
    return policy[..., gather_table(sym, size)]


def transform_planes(planes: npt.NDArray[np.generic], sym: int) -> npt.NDArray[np.generic]:
    """Planes ``(..., size, size)`` as seen after ``sym`` (a contiguous copy)."""
    _check(sym, planes.shape[-1])
    out = planes
    if sym & 4:
        out = np.swapaxes(out, -1, -2)
    if sym & 1:
        out = out[..., ::-1, :]
    if sym & 2:
        out = out[..., :, ::-1]
    return np.ascontiguousarray(out)
