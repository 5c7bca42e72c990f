# mypy: disable-error-code="no-any-return"
"""Private numba kernels: Benson's unconditional life, and connected components.

Boards here are plain ``int64`` arrays of ``size * size`` cells (0 empty, 1 black, 2 white): the
first cells of a state array of :mod:`imago.games.go._kernels` are one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.games.go._kernels import EMPTY, _neighbors


@njit(cache=True)
def label_components(member: np.ndarray, size: int, label: np.ndarray, stack: np.ndarray) -> int:
    """Label the 4-connected components of the ``member`` points (``label[p]`` from 0; -1 for
    other points); returns how many there are."""
    nn = size * size
    for p in range(nn):
        label[p] = -1
    n = 0
    for p in range(nn):
        if not member[p] or label[p] >= 0:
            continue
        label[p] = n
        top = 0
        stack[0] = p
        while top >= 0:
            q = stack[top]
            top -= 1
            for t in _neighbors(q, size):
                if t >= 0 and member[t] and label[t] < 0:
                    label[t] = n
                    top += 1
                    stack[top] = t
        n += 1
    return n


BENSON_INTS = 16
"""``int64`` workspace :func:`benson_into` needs, in units of ``size * size``."""
BENSON_BOOLS = 6
"""``bool`` workspace :func:`benson_into` needs, in units of ``size * size``."""


@njit(cache=True)
def benson(
    board: np.ndarray, size: int, color: int, alive: np.ndarray, territory: np.ndarray
) -> None:
    """:func:`benson_into` with its own workspace."""
    nn = size * size
    ints = np.empty(BENSON_INTS * nn, dtype=np.int64)
    bools = np.empty(BENSON_BOOLS * nn, dtype=np.bool_)
    benson_into(board, size, color, alive, territory, ints, bools)


@njit(cache=True)
def benson_into(
    board: np.ndarray,
    size: int,
    color: int,
    alive: np.ndarray,
    territory: np.ndarray,
    ints: np.ndarray,
    bools: np.ndarray,
) -> None:
    """Benson's unconditional life for ``color`` on ``board`` (``nn`` cells: 0, 1, 2).

    Sets ``alive[p]`` for the stones of the chains that no sequence of opponent moves can
    capture, even if ``color`` always passes, and ``territory[p]`` for the points (empty, or the
    opponent's stones, which are dead) of the regions enclosed by those chains in which every
    empty point touches them, so that the opponent can never make an eye there. Other entries
    are left unchanged. ``ints`` and ``bools`` are workspace (``BENSON_INTS * nn`` and
    ``BENSON_BOOLS * nn`` entries), so that reading can call this at every position.

    Benson (1976): a region (a connected set of points without ``color`` stones) is *vital* to
    a bordering chain when all its empty points are liberties of the chain; repeatedly drop the
    chains with fewer than two vital regions left, and the regions bordered by a dropped chain.
    """
    nn = size * size
    chain = ints[0:nn]
    region = ints[nn : 2 * nn]
    stack = ints[2 * nn : 3 * nn]
    empties = ints[3 * nn : 4 * nn]
    interior = ints[4 * nn : 5 * nn]
    start = ints[5 * nn : 6 * nn + 1]
    order = ints[6 * nn + 1 : 7 * nn + 1]
    stamp = ints[7 * nn + 1 : 8 * nn + 1]
    tally = ints[8 * nn + 1 : 9 * nn + 1]
    seen = ints[9 * nn + 1 : 10 * nn + 1]
    pair_r = ints[10 * nn + 1 : 12 * nn + 1]  # pairs are fewer than the board's 2nn edges
    pair_c = ints[12 * nn + 1 : 14 * nn + 1]
    count = ints[14 * nn + 1 : 15 * nn + 1]
    member = bools[0:nn]
    vital = bools[nn : 3 * nn]
    chain_ok = bools[3 * nn : 4 * nn]
    region_ok = bools[4 * nn : 5 * nn]
    bordered = bools[5 * nn : 6 * nn]
    for p in range(nn):
        member[p] = board[p] == color
    nc = label_components(member, size, chain, stack)
    if nc == 0:
        return
    for p in range(nn):
        member[p] = board[p] != color
    nr = label_components(member, size, region, stack)
    # the points of each region together (a counting sort by region)
    for r in range(nr + 1):
        start[r] = 0
    for r in range(nr):
        empties[r] = 0
        interior[r] = 0
    for p in range(nn):
        r = region[p]
        if r >= 0:
            start[r + 1] += 1
    for r in range(nr):
        start[r + 1] += start[r]
    for r in range(nr):
        seen[r] = start[r]
    for p in range(nn):
        r = region[p]
        if r >= 0:
            order[seen[r]] = p
            seen[r] += 1
    # (region, chain) pairs, and whether the region is vital to the chain
    for c in range(nc):
        stamp[c] = -1
    m = 0
    for r in range(nr):
        first = m
        for k in range(start[r], start[r + 1]):
            p = order[k]
            is_empty = board[p] == EMPTY
            if is_empty:
                empties[r] += 1
            touches = False
            for t in _neighbors(p, size):
                if t < 0 or chain[t] < 0:
                    continue
                touches = True
                c = chain[t]
                if stamp[c] != r:
                    stamp[c] = r
                    tally[c] = 0
                    seen[c] = -1  # last empty point counted for this chain
                    pair_r[m] = r
                    pair_c[m] = c
                    m += 1
                if is_empty and seen[c] != p:
                    seen[c] = p
                    tally[c] += 1
            if is_empty and not touches:
                interior[r] += 1
        for k in range(first, m):
            c = pair_c[k]
            vital[k] = empties[r] > 0 and tally[c] == empties[r]
    for c in range(nc):
        chain_ok[c] = True
    for r in range(nr):
        region_ok[r] = True
        bordered[r] = False
    for k in range(m):
        bordered[pair_r[k]] = True
    changed = True
    while changed:
        changed = False
        for c in range(nc):
            count[c] = 0
        for k in range(m):
            if vital[k] and region_ok[pair_r[k]]:
                count[pair_c[k]] += 1
        for c in range(nc):
            if chain_ok[c] and count[c] < 2:
                chain_ok[c] = False
                changed = True
        for k in range(m):
            if region_ok[pair_r[k]] and not chain_ok[pair_c[k]]:
                region_ok[pair_r[k]] = False
                changed = True
    for p in range(nn):
        if chain[p] >= 0 and chain_ok[chain[p]]:
            alive[p] = True
        r = region[p]
        if r >= 0 and region_ok[r] and bordered[r] and interior[r] == 0:
            territory[p] = True
