"""The 8 symmetries of the square board as index permutations, for planes and policies alike.

Numpy only. Symmetry ``sym`` (0..7) transposes when ``sym & 4``, then mirrors top-bottom when
``sym & 1`` and left-right when ``sym & 2`` (the numbering of
:mod:`imago.games.othello.symmetry`); 0 is the identity. Pass (action ``size * size``) is its own
image.

Everything is a gather with one table: ``source = gather_table(sym, size)`` has
``transformed[..., i] = original[..., source[i]]`` over flattened points (or actions), so the same
table transforms numpy arrays and torch tensors::

    planes_t = planes.reshape(n, c, size * size)[..., source[:-1]].reshape(n, c, size, size)
    policy_t = policy[..., source]
    target_t = image_table(sym, size)[target]        # an action index moves forward
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

SYMMETRIES: tuple[int, ...] = tuple(range(8))
IntArray = npt.NDArray[np.int64]


def _check(sym: int, size: int) -> None:
    if sym not in SYMMETRIES:
        raise ValueError(f"symmetry must be 0..7, not {sym!r}")
    if size < 1:
        raise ValueError(f"board size must be positive, not {size}")


@functools.cache
def image_table(sym: int, size: int) -> IntArray:
    """``image[a]`` = the action that action ``a`` becomes under ``sym`` (length ``N*N + 1``)."""
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
    """``source[i]`` = the action whose value lands on ``i`` under ``sym`` (the inverse image)."""
    image = image_table(sym, size)
    source = np.empty_like(image)
    source[image] = np.arange(len(image))
    source.flags.writeable = False
    return source


def inverse(sym: int) -> int:
    """The symmetry that undoes ``sym``."""
    _check(sym, 1)
    # A transpose followed by mirrors: its inverse swaps which mirror comes first.
    if sym & 4 and (sym & 3) in (1, 2):
        return sym ^ 3
    return sym


def transform_planes(planes: npt.NDArray[np.generic], sym: int) -> npt.NDArray[np.generic]:
    """Planes ``(..., size, size)`` as seen after ``sym``."""
    size = planes.shape[-1]
    source = gather_table(sym, size)[:-1]
    flat = planes.reshape(*planes.shape[:-2], size * size)
    return flat[..., source].reshape(planes.shape)


def transform_policy(
    policy: npt.NDArray[np.generic], sym: int, size: int
) -> npt.NDArray[np.generic]:
    """A per-action array ``(..., N*N + 1)`` (probabilities, a mask) as seen after ``sym``."""
    return policy[..., gather_table(sym, size)]


def transform_actions(actions: npt.NDArray[np.integer], sym: int, size: int) -> IntArray:
    """Action indices moved by ``sym`` (pass stays pass)."""
    moved: IntArray = image_table(sym, size)[actions]
    return moved
