# mypy: disable-error-code="no-any-return"
"""Private numba kernels of the end-of-game count: Benson's unconditional life, and the
deterministic playouts that judge every stone that analysis leaves open.

Points are flat indices ``row * size + col``. The state arrays are those of
:mod:`imago.games.go._kernels`, read through its accessors. See :mod:`imago.games.go.scoring`
for what the public :func:`~imago.games.go.scoring.count` makes of the results.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.games.go._kernels import (
    BLACK,
    EMPTY,
    F_HASH,
    F_KO,
    F_LAST,
    F_NEMPTY,
    F_PASSES,
    F_TO_PLAY,
    OK,
    WHITE,
    _neighbors,
    area,
    atari_liberty,
    check,
    empty_at,
    group_head,
    group_size,
    header,
    is_true_eye,
    zobrist,
    next_stone,
    play,
)

# -- per-point results --------------------------------------------------------------------------
ST_EMPTY = 0
ST_ALIVE = 1
ST_DEAD = 2
ST_SEKI = 3

FL_PROVEN = 1
"""The status is certain: Benson's unconditional life, or a stone inside the other colour's
unconditional territory."""
FL_UNSETTLED = 2
"""The playouts did not decide the stone: its status is only the likelier one."""
FL_READ = 4
"""The status comes from reading the closed fight the stone is in to the end."""
FL_SEARCHED = 8
"""The playouts left the stone in doubt; its status comes from a tree search with its
opponent moving first."""


# -- components ---------------------------------------------------------------------------------
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


# -- Benson -------------------------------------------------------------------------------------
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


# -- playout policy -----------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _rand(rng: np.ndarray, n: int) -> int:
    """A uniform integer in ``[0, n)`` from the xorshift64* state ``rng[0]``."""
    x = rng[0]
    x ^= (x >> 12) & 0x000FFFFFFFFFFFFF
    x ^= x << 25
    x ^= (x >> 27) & 0x0000001FFFFFFFFF
    rng[0] = x
    y = (x * 0x2545F4914F6CDD1D) >> 33
    return (y & 0x7FFFFFFF) % n


@njit(cache=True)
def _self_atari(s: np.ndarray, size: int, p: int, color: int, suicide: bool, work: np.ndarray) -> bool:
    """Whether ``color`` playing the legal ``p`` leaves its new group of two or more stones with
    at most one liberty."""
    nn = size * size
    other = 3 - color
    empties = 0
    friends = False
    lib = -1
    for q in _neighbors(p, size):
        if q < 0:
            continue
        v = s[q]
        if v == EMPTY:
            empties += 1
            lib = q
        elif v == color:
            friends = True
    if empties >= 2 or not friends:
        return False
    for q in _neighbors(p, size):
        if q >= 0 and s[q] == other and atari_liberty(s, nn, q) == p:
            for i in range(s.shape[0]):  # a capture: play it out on a copy
                work[i] = s[i]
            play(work, size, p, color, suicide)
            if work[p] != color:
                return True
            g = group_head(work, nn, p)
            return group_size(work, nn, g) >= 2 and atari_liberty(work, nn, p) >= 0
    g0 = -1
    g1 = -1
    g2 = -1
    for q in _neighbors(p, size):
        if q < 0 or s[q] != color:
            continue
        g = group_head(s, nn, q)
        if g == g0 or g == g1 or g == g2:  # noqa: SIM109 (plain compares for numba)
            continue
        if g0 < 0:
            g0 = g
        elif g1 < 0:
            g1 = g
        else:
            g2 = g
        x = g
        while True:
            for y in _neighbors(x, size):
                if y >= 0 and s[y] == EMPTY and y != p and y != lib:
                    if lib >= 0:
                        return False
                    lib = y
            x = next_stone(s, nn, x)
            if x == g:
                break
    return True


@njit(cache=True, inline="always")
def _capture_at(s: np.ndarray, size: int, q: int, color: int, suicide: bool, frozen: np.ndarray) -> int:
    """Where ``color`` captures the group on ``q`` (in atari), or -1."""
    lib = atari_liberty(s, size * size, q)
    if lib >= 0 and not frozen[lib] and check(s, size, lib, color, suicide) == OK:
        return lib
    return -1


@njit(cache=True)
def _escape_keeps(s: np.ndarray, size: int, p: int, color: int, suicide: bool, work: np.ndarray) -> bool:
    """Whether ``color`` extending on ``p`` leaves the new group at least two liberties."""
    for i in range(s.shape[0]):
        work[i] = s[i]
    if play(work, size, p, color, suicide) != OK or work[p] != color:
        return False
    return atari_liberty(work, size * size, p) < 0


@njit(cache=True)
def _tactical_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    frozen: np.ndarray,
    rng: np.ndarray,
    work: np.ndarray,
) -> int:
    """A capture next to the last move, else the escape of an own group the last move put in
    atari (capturing an attacker, or extending to two liberties or more); -1 when none."""
    nn = size * size
    last = s[header(size) + F_LAST]
    if last < 0 or last >= nn or s[last] == EMPTY:
        return -1
    other = 3 - color
    choice = -1
    n = 0
    if s[last] == other:
        lib = _capture_at(s, size, last, color, suicide, frozen)
        if lib >= 0:
            choice = lib
            n = 1
    for q in _neighbors(last, size):
        if q >= 0 and s[q] == other:
            lib = _capture_at(s, size, q, color, suicide, frozen)
            if lib >= 0:
                n += 1
                if _rand(rng, n) == 0:
                    choice = lib
    if n > 0:
        return choice
    for q in _neighbors(last, size):
        if q < 0 or s[q] != color:
            continue
        lib = atari_liberty(s, nn, q)
        if lib < 0:
            continue
        g = group_head(s, nn, q)
        x = g
        while True:
            for y in _neighbors(x, size):
                if y >= 0 and s[y] == other:
                    lib2 = _capture_at(s, size, y, color, suicide, frozen)
                    if lib2 >= 0:
                        n += 1
                        if _rand(rng, n) == 0:
                            choice = lib2
            x = next_stone(s, nn, x)
            if x == g:
                break
        if not frozen[lib] and _escape_keeps(s, size, lib, color, suicide, work):
            n += 1
            if _rand(rng, n) == 0:
                choice = lib
    return choice if n > 0 else -1


@njit(cache=True)
def _random_move(
    s: np.ndarray,
    size: int,
    color: int,
    suicide: bool,
    frozen: np.ndarray,
    rng: np.ndarray,
    buf: np.ndarray,
    work: np.ndarray,
) -> int:
    """A uniformly random legal move off the ``frozen`` points that neither fills one of
    ``color``'s true eyes nor puts a group of two or more stones in atari; pass when none."""
    nn = size * size
    n = s[header(size) + F_NEMPTY]
    for i in range(n):
        buf[i] = empty_at(s, nn, i)
    while n > 0:
        i = _rand(rng, n)
        p = buf[i]
        if (
            not frozen[p]
            and check(s, size, p, color, suicide) == OK
            and not is_true_eye(s, size, p, color)
            and not _self_atari(s, size, p, color, suicide, work)
        ):
            return p
        n -= 1
        buf[i] = buf[n]
    return nn


@njit(cache=True)
def _capture_any(
    s: np.ndarray, size: int, color: int, suicide: bool, frozen: np.ndarray, rng: np.ndarray
) -> int:
    """A capture of any opponent string in atari (random among them), or -1."""
    nn = size * size
    other = 3 - color
    choice = -1
    n = 0
    for p in range(nn):
        if s[p] == other and group_head(s, nn, p) == p:
            lib = _capture_at(s, size, p, color, suicide, frozen)
            if lib >= 0:
                n += 1
                if _rand(rng, n) == 0:
                    choice = lib
    return choice


@njit(cache=True)
def _playout(
    w: np.ndarray,
    size: int,
    suicide: bool,
    frozen: np.ndarray,
    max_moves: int,
    rng: np.ndarray,
    buf: np.ndarray,
    work: np.ndarray,
) -> None:
    """Play the policy on ``w`` in place until two passes (or ``max_moves``).

    The first move captures a string left in atari when there is one (a referee asks whether
    the stones can be captured with their opponent moving first); a ko once taken is filled at
    the taker's next turn (at the end of a game a ko may be retaken only after a pass, so it is
    won by whoever takes it first)."""
    nn = size * size
    h = header(size)
    moves = 0
    pending_b = -1  # the ko point to fill, by colour
    pending_w = -1
    while w[h + F_PASSES] < 2 and moves < max_moves:
        color = w[h + F_TO_PLAY]
        a = -1
        pending = pending_b if color == BLACK else pending_w
        if pending >= 0:
            if (
                w[pending] == EMPTY
                and check(w, size, pending, color, suicide) == OK
                and not _self_atari(w, size, pending, color, suicide, work)
            ):
                a = pending
            if color == BLACK:
                pending_b = -1
            else:
                pending_w = -1
        if a < 0 and moves == 0:
            a = _capture_any(w, size, color, suicide, frozen, rng)
        if a < 0:
            a = _tactical_move(w, size, color, suicide, frozen, rng, work)
        if a < 0:
            a = _random_move(w, size, color, suicide, frozen, rng, buf, work)
        if play(w, size, a, color, suicide) != OK:
            play(w, size, nn, color, suicide)
        elif a < nn and w[h + F_KO] >= 0:
            if color == BLACK:
                pending_b = w[h + F_KO]
            else:
                pending_w = w[h + F_KO]
        moves += 1


# -- the whole analysis -------------------------------------------------------------------------
@njit(cache=True)
def judge(
    s: np.ndarray,
    size: int,
    suicide: bool,
    playouts: int,
    sims: int,
    status: np.ndarray,
    alive_rate: np.ndarray,
    flags: np.ndarray,
) -> None:
    """Judge every stone of the finished position ``s`` (a state array; not changed).

    Fills, per point: ``status`` (``ST_*``), ``alive_rate`` (for a stone: the fraction of the
    playouts, with its opponent moving first, at whose end its point belongs to its colour) and
    ``flags`` (``FL_*``). Deterministic: the playouts' random generator is seeded from the
    position's own hash.
    """
    nn = size * size
    h = header(size)
    board = np.empty(nn, dtype=np.int64)
    for p in range(nn):
        board[p] = s[p]
        status[p] = ST_EMPTY
        alive_rate[p] = 0.0
        flags[p] = 0
    # certain: Benson for both colours
    safe = np.zeros(nn, dtype=np.bool_)
    owned_b = np.zeros(nn, dtype=np.bool_)
    owned_w = np.zeros(nn, dtype=np.bool_)
    benson(board, size, BLACK, safe, owned_b)
    benson(board, size, WHITE, safe, owned_w)
    fixed_owner = np.zeros(nn, dtype=np.int64)
    frozen = np.zeros(nn, dtype=np.bool_)
    for p in range(nn):
        if owned_b[p]:
            fixed_owner[p] = BLACK
        elif owned_w[p]:
            fixed_owner[p] = WHITE
        frozen[p] = fixed_owner[p] != EMPTY or safe[p]
    # playouts: half with Black moving first, half with White
    own = np.zeros((2, nn), dtype=np.int64)  # [first mover - 1, p]: playouts ending with p's own colour
    shared = np.zeros((2, nn), dtype=np.int64)  # ... with p's string touching a shared liberty
    rng = np.empty(1, dtype=np.int64)
    rng[0] = (s[h + F_HASH] ^ 0x2545F4914F6CDD1D) | 1
    w = np.empty_like(s)
    work = np.empty_like(s)
    buf = np.empty(nn, dtype=np.int64)
    owner = np.empty(nn, dtype=np.int64)
    most = max(playouts // 2, CHUNK)
    half = 0
    open_stones = 0
    for p in range(nn):
        if board[p] != EMPTY and not frozen[p]:
            open_stones += 1
    if open_stones == 0:
        most = 0  # nothing left to judge
        half = 1
    while half < most:
        for first in range(2):
            for _ in range(CHUNK):
                for i in range(s.shape[0]):
                    w[i] = s[i]
                w[h + F_TO_PLAY] = first + 1
                w[h + F_PASSES] = 0
                w[h + F_KO] = -1
                w[h + F_LAST] = -1
                _playout(w, size, suicide, frozen, 3 * nn + 50, rng, buf, work)
                area(w, size, owner)
                for p in range(nn):
                    c = board[p]
                    if c == EMPTY or frozen[p]:
                        continue
                    final = fixed_owner[p] if fixed_owner[p] != EMPTY else owner[p]
                    if final == c:
                        own[first, p] += 1
                        if w[p] == c and _touches_shared(w, size, p, frozen, fixed_owner):
                            shared[first, p] += 1
        half += CHUNK
        if half >= MIN_PLAYOUTS // 2 and _clear(board, frozen, own, shared, half):
            break
    # statuses: from the playouts, one per string, then the closed fights read out
    for p in range(nn):
        c = board[p]
        if c == EMPTY:
            continue
        if safe[p]:
            status[p] = ST_ALIVE
            alive_rate[p] = 1.0
            flags[p] = FL_PROVEN
            continue
        if fixed_owner[p] != EMPTY:
            status[p] = ST_DEAD
            flags[p] = FL_PROVEN
            continue
        opponent_first = 2 - c  # index of the batch where the other colour moved first
        alive_rate[p] = own[opponent_first, p] / half
        if shared[opponent_first, p] * 2 >= own[opponent_first, p] > 0:
            status[p] = ST_SEKI
    _by_strings(board, size, status, alive_rate, flags)
    _read_closed_fights(s, size, suicide, board, status, alive_rate, flags)
    _search_doubts(s, size, suicide, board, frozen, fixed_owner, status, alive_rate, flags, sims)


CHUNK = 32
"""Playouts run per side to move between the checks of whether more are needed."""
MIN_PLAYOUTS = 256
"""Playouts always run (half with each side moving first) before stopping early."""


@njit(cache=True)
def _clear(board: np.ndarray, frozen: np.ndarray, own: np.ndarray, shared: np.ndarray, n: int) -> bool:
    """Whether every stone's playouts so far are clear-cut: its colour keeps its point in at
    most 10 % or at least 90 % of the ``n`` playouts where the other colour moved first, and its
    shared-liberty count (seki) is as clear when it keeps it."""
    for p in range(board.shape[0]):
        c = board[p]
        if c == EMPTY or frozen[p]:
            continue
        kept = own[2 - c, p]
        if 0.1 * n < kept < 0.9 * n:
            return False
        if kept > 0 and 0.25 * kept < shared[2 - c, p] < 0.75 * kept:
            return False
    return True


@njit(cache=True)
def _touches_shared(
    w: np.ndarray, size: int, p: int, frozen: np.ndarray, fixed_owner: np.ndarray
) -> bool:
    """Whether the group of the stone on ``p`` has a liberty that living stones of the other
    colour also touch (a shared liberty left empty at the end of a playout: seki). Points of
    the certain territories, and the dead stones in them, do not count."""
    nn = size * size
    color = w[p]
    other = 3 - color
    g = group_head(w, nn, p)
    x = g
    while True:
        for y in _neighbors(x, size):
            if y >= 0 and w[y] == EMPTY and not frozen[y]:
                for z in _neighbors(y, size):
                    if z >= 0 and w[z] == other and fixed_owner[z] == EMPTY:
                        return True
        x = next_stone(w, nn, x)
        if x == g:
            break
    return False


@njit(cache=True)
def _by_strings(
    board: np.ndarray, size: int, status: np.ndarray, alive_rate: np.ndarray, flags: np.ndarray
) -> None:
    """Give every stone of a string its string's status: the one of the string's mean rate."""
    nn = size * size
    member = np.empty(nn, dtype=np.bool_)
    label = np.empty(nn, dtype=np.int64)
    stack = np.empty(nn, dtype=np.int64)
    for color in (BLACK, WHITE):
        for p in range(nn):
            member[p] = board[p] == color
        n = label_components(member, size, label, stack)
        total = np.zeros(n, dtype=np.float64)
        stones = np.zeros(n, dtype=np.int64)
        seki = np.zeros(n, dtype=np.int64)
        proven = np.zeros(n, dtype=np.bool_)
        for p in range(nn):
            k = label[p]
            if k >= 0:
                total[k] += alive_rate[p]
                stones[k] += 1
                seki[k] += status[p] == ST_SEKI
                proven[k] |= flags[p] & FL_PROVEN != 0
        for p in range(nn):
            k = label[p]
            if k < 0 or proven[k]:
                continue
            rate = total[k] / stones[k]
            alive_rate[p] = rate
            if rate >= 0.5:
                status[p] = ST_SEKI if seki[k] * 2 >= stones[k] else ST_ALIVE
            else:
                status[p] = ST_DEAD
            flags[p] = FL_UNSETTLED if 0.3 < rate < 0.7 else 0


@njit(cache=True)
def tally(
    board: np.ndarray, size: int, status: np.ndarray, owner: np.ndarray, territory: np.ndarray
) -> None:
    """Who owns each point once the dead stones are off the board.

    ``owner[p]``: the colour of a standing stone, or of the only colour an empty (or emptied)
    point's region reaches; 0 for dame (area counting). ``territory[p]``: that colour for an empty
    or emptied point whose region reaches one colour and no stone in seki, else 0 (territory
    counting).
    """
    nn = size * size
    cleared = np.empty(nn, dtype=np.int64)
    member = np.empty(nn, dtype=np.bool_)
    for p in range(nn):
        cleared[p] = EMPTY if status[p] == ST_DEAD else board[p]
        member[p] = cleared[p] == EMPTY
    label = np.empty(nn, dtype=np.int64)
    stack = np.empty(nn, dtype=np.int64)
    n = label_components(member, size, label, stack)
    touches = np.zeros(n, dtype=np.int64)
    seki = np.zeros(n, dtype=np.bool_)
    for p in range(nn):
        k = label[p]
        if k < 0:
            continue
        for t in _neighbors(p, size):
            if t >= 0 and cleared[t] != EMPTY:
                touches[k] |= cleared[t]
                if status[t] == ST_SEKI:
                    seki[k] = True
    for p in range(nn):
        k = label[p]
        if k < 0:
            owner[p] = cleared[p]
            territory[p] = 0
            continue
        single = touches[k] if touches[k] == BLACK or touches[k] == WHITE else 0
        owner[p] = single
        territory[p] = 0 if seki[k] else single


# -- local reading ------------------------------------------------------------------------------
V_DEAD = 0
V_SEKI = 1
V_ALIVE = 2
V_UNKNOWN = -1

MAX_REGION = 6
"""Regions (connected points without the defender's stones) up to this size are read as part of
a closed fight; larger ones are the outside world."""
MAX_ZONE = 9
"""The most points a closed fight may have."""
MAX_NODES = 20000
"""The most positions one reading may visit before it gives up (undecided)."""
_TT_BITS = 16


@njit(cache=True)
def closed_fight(
    board: np.ndarray,
    size: int,
    start: int,
    region: np.ndarray,
    region_size: np.ndarray,
    group: np.ndarray,
    zone: np.ndarray,
    walls: np.ndarray,
) -> int:
    """Collect the closed fight around the string on ``start`` (colour X, the defender).

    The group is that string and every X string it reaches through small regions
    (``region`` / ``region_size``: the components of the points without X stones, labelled for
    X); the zone is those small regions (the group's eye spaces, with any opponent stones in
    them) and the group's other liberties, each of which may touch only the group, other such
    liberties and opponent stones (the walls). Fills the masks ``group``, ``zone`` and
    ``walls`` (points of the walls' stones) and returns the number of zone points, or -1 when
    the fight is not closed (a liberty opens into the board) or is larger than ``MAX_ZONE``.
    """
    nn = size * size
    color = board[start]
    other = 3 - color
    for p in range(nn):
        group[p] = False
        zone[p] = False
        walls[p] = False
    stack = np.empty(nn, dtype=np.int64)
    top = 0
    stack[0] = start
    group[start] = True
    nzone = 0
    while top >= 0:
        p = stack[top]
        top -= 1
        for q in _neighbors(p, size):
            if q < 0:
                continue
            v = board[q]
            if v == color:
                if not group[q]:
                    group[q] = True
                    top += 1
                    stack[top] = q
                continue
            if v == other:
                walls[q] = True  # for now: every opponent stone next to the group
                continue
            if zone[q]:
                continue
            r = region[q]
            if region_size[r] <= MAX_REGION:
                for t in range(nn):  # the whole small region, and the X strings around it
                    if region[t] == r and not zone[t]:
                        zone[t] = True
                        nzone += 1
                        for u in _neighbors(t, size):
                            if u >= 0 and board[u] == color and not group[u]:
                                group[u] = True
                                top += 1
                                stack[top] = u
            else:
                zone[q] = True
                nzone += 1
                for u in _neighbors(q, size):
                    if u < 0:
                        continue
                    if board[u] == other:
                        walls[u] = True
                    elif board[u] == color and not group[u]:
                        group[u] = True
                        top += 1
                        stack[top] = u
            if nzone > MAX_ZONE:
                return -1
    # an outside liberty may not open into the board: its empty neighbours must be liberties
    # of the group too
    for p in range(nn):
        if not zone[p] or region_size[region[p]] <= MAX_REGION:
            continue
        for u in _neighbors(p, size):
            if u >= 0 and board[u] == EMPTY and not zone[u]:
                return -1
    # walls: the opponent's strings touching the group or its outside liberties (not the
    # stones inside its small regions)
    for p in range(nn):
        if walls[p] and zone[p]:
            walls[p] = False
    return nzone


@njit(cache=True)
def _string_liberties(b: np.ndarray, size: int, p: int, mark: np.ndarray, stamp: int, stack: np.ndarray) -> int:
    """The number of liberties of the string on ``p`` of the plain board ``b``, counted up to 2
    (``mark`` holds visit stamps; ``stamp`` must be new)."""
    color = b[p]
    top = 0
    stack[0] = p
    mark[p] = stamp
    libs = 0
    while top >= 0:
        q = stack[top]
        top -= 1
        for t in _neighbors(q, size):
            if t < 0 or mark[t] == stamp:
                continue
            v = b[t]
            if v == EMPTY:
                mark[t] = stamp
                libs += 1
                if libs >= 2:
                    return libs
            elif v == color:
                mark[t] = stamp
                top += 1
                stack[top] = t
    return libs


@njit(cache=True)
def _remove_string(b: np.ndarray, size: int, p: int, stack: np.ndarray) -> tuple[int, int]:
    """Take the string on ``p`` off the plain board ``b``; returns (stones removed, the Zobrist
    change of the board)."""
    color = b[p]
    top = 0
    stack[0] = p
    b[p] = EMPTY
    count = 0
    change = 0
    while top >= 0:
        q = stack[top]
        top -= 1
        count += 1
        change ^= zobrist(color, q)
        for t in _neighbors(q, size):
            if t >= 0 and b[t] == color:
                b[t] = EMPTY
                top += 1
                stack[top] = t
    return count, change


@njit(cache=True)
def _play_plain(
    b: np.ndarray,
    size: int,
    p: int,
    color: int,
    ko: int,
    mark: np.ndarray,
    stamps: np.ndarray,
    stack: np.ndarray,
) -> tuple[bool, int, int]:
    """Play ``color`` on the empty ``p`` of the plain board ``b`` (no suicide, simple ko against
    the point ``ko``). Returns (legal, the new ko point or -1, the Zobrist change); ``b`` is
    unchanged when the move is illegal."""
    if b[p] != EMPTY or p == ko:
        return False, -1, 0
    other = 3 - color
    b[p] = color
    change = zobrist(color, p)
    captured = 0
    last = -1
    for q in _neighbors(p, size):
        if q >= 0 and b[q] == other:
            stamps[0] += 1
            if _string_liberties(b, size, q, mark, stamps[0], stack) == 0:
                n, z = _remove_string(b, size, q, stack)
                captured += n
                change ^= z
                last = q
    stamps[0] += 1
    libs = _string_liberties(b, size, p, mark, stamps[0], stack)
    if libs == 0:
        b[p] = EMPTY
        return False, -1, 0
    new_ko = -1
    if captured == 1 and libs == 1:
        alone = True
        for q in _neighbors(p, size):
            if q >= 0 and b[q] == color:
                alone = False
        if alone:
            new_ko = last
    return True, new_ko, change


@njit(cache=True)
def read_fight(
    s: np.ndarray,
    size: int,
    moves: np.ndarray,
    nmoves: int,
    target: int,
    max_nodes: int,
) -> int:
    """Read the closed fight for the string on ``target`` with its opponent moving first.

    Both sides play only on ``moves[:nmoves]`` (the zone and the group's own points) or pass,
    without suicide and under simple ko, so that a ko is won by whoever takes it first (as in
    the confirmation of life and death at the end of a game, where a ko may only be retaken
    after a pass). Two passes end the line. Returns ``V_DEAD`` (the attacker captures the target
    whatever the defender does), ``V_ALIVE`` (the defender makes it unconditionally alive),
    ``V_SEKI`` (neither), or ``V_UNKNOWN`` when the reading needs more than ``max_nodes``
    positions. Positions are memoised, so a fight of ``k`` points has at most about ``3 ** k``
    of them.
    """
    nn = size * size
    defender = s[target]
    attacker = 3 - defender
    max_depth = min(2 * nmoves + 8, 48)
    boards = np.empty((max_depth + 1, nn), dtype=np.int64)
    hashes = np.zeros(max_depth + 1, dtype=np.int64)
    kos = np.full(max_depth + 1, -1, dtype=np.int64)
    passes = np.zeros(max_depth + 1, dtype=np.int64)
    cursor = np.zeros(max_depth + 1, dtype=np.int64)
    best = np.zeros(max_depth + 1, dtype=np.int64)
    keys = np.zeros(max_depth + 1, dtype=np.int64)
    tt_size = 1 << _TT_BITS
    tt_keys = np.zeros(tt_size, dtype=np.int64)
    tt_vals = np.full(tt_size, -1, dtype=np.int64)
    alive = np.empty(nn, dtype=np.bool_)
    scratch = np.empty(nn, dtype=np.bool_)
    ints = np.empty(BENSON_INTS * nn, dtype=np.int64)
    bools = np.empty(BENSON_BOOLS * nn, dtype=np.bool_)
    mark = np.zeros(nn, dtype=np.int64)
    stamps = np.zeros(1, dtype=np.int64)
    stack = np.empty(nn, dtype=np.int64)
    for p in range(nn):
        boards[0, p] = s[p]
    if _alive_now(boards[0], size, defender, target, alive, scratch, ints, bools):
        return V_ALIVE
    hashes[0] = s[header(size) + F_HASH]
    keys[0] = _fight_key(hashes[0], 0, -1, 0)
    best[0] = 3  # the attacker (to move at even depths) minimises: worse than any value
    nodes = 0
    depth = 0
    while True:
        mover = attacker if depth % 2 == 0 else defender
        i = cursor[depth]
        done = i > nmoves
        if mover == attacker and best[depth] == V_DEAD:
            done = True
        if mover == defender and best[depth] == V_ALIVE:
            done = True
        if done:
            value = best[depth]
            slot = keys[depth] & (tt_size - 1)
            tt_keys[slot] = keys[depth]
            tt_vals[slot] = value
            if depth == 0:
                return value
            depth -= 1
            if depth % 2 == 0:
                best[depth] = min(best[depth], value)
            else:
                best[depth] = max(best[depth], value)
            continue
        cursor[depth] = i + 1
        child = boards[depth + 1]
        value = -1
        if i < nmoves:
            move = moves[i]
            if boards[depth, move] != EMPTY or move == kos[depth]:
                continue
            for k in range(nn):
                child[k] = boards[depth, k]
            legal, ko, change = _play_plain(child, size, move, mover, kos[depth], mark, stamps, stack)
            if not legal:
                continue
            hashes[depth + 1] = hashes[depth] ^ change
            kos[depth + 1] = ko
            passes[depth + 1] = 0
            if child[target] != defender:
                value = V_DEAD
            elif mover == defender and _alive_now(
                child, size, defender, target, alive, scratch, ints, bools
            ):
                value = V_ALIVE
        else:
            for k in range(nn):
                child[k] = boards[depth, k]
            hashes[depth + 1] = hashes[depth]
            kos[depth + 1] = -1
            passes[depth + 1] = passes[depth] + 1
            if passes[depth + 1] >= 2:
                value = V_SEKI  # standing, and not unconditionally alive (that ends earlier)
        nodes += 1
        if nodes > max_nodes:
            return V_UNKNOWN
        if value < 0:
            key = _fight_key(hashes[depth + 1], (depth + 1) % 2, kos[depth + 1], passes[depth + 1])
            slot = key & (tt_size - 1)
            if tt_keys[slot] == key and tt_vals[slot] >= 0:
                value = tt_vals[slot]
            else:
                for d in range(depth + 1):
                    if keys[d] == key:
                        value = V_SEKI  # a cycle: neither side gets anywhere
                        break
                if value < 0 and depth + 1 >= max_depth:
                    value = V_SEKI
            if value < 0:
                depth += 1
                keys[depth] = key
                cursor[depth] = 0
                best[depth] = 3 if depth % 2 == 0 else -1
                continue
        if depth % 2 == 0:
            best[depth] = min(best[depth], value)
        else:
            best[depth] = max(best[depth], value)


@njit(cache=True)
def _alive_now(
    b: np.ndarray,
    size: int,
    color: int,
    target: int,
    alive: np.ndarray,
    scratch: np.ndarray,
    ints: np.ndarray,
    bools: np.ndarray,
) -> bool:
    """Whether the string on ``target`` is unconditionally alive on the plain board ``b``."""
    for p in range(size * size):
        alive[p] = False
    benson_into(b, size, color, alive, scratch, ints, bools)
    return alive[target]


@njit(cache=True, inline="always")
def _fight_key(board_hash: int, parity: int, ko: int, passes: int) -> int:
    key = board_hash ^ (parity * 0x5DEECE66D1A2B3C4)
    key ^= (ko + 2) * 0x2545F4914F6CDD1D
    return key ^ ((passes + 1) * 0x632BE59BD9B4E019)


@njit(cache=True)
def _walls_hold(
    board: np.ndarray,
    size: int,
    strings: np.ndarray,
    zone: np.ndarray,
    walls: np.ndarray,
    status: np.ndarray,
    alive_rate: np.ndarray,
    flags: np.ndarray,
    outside: np.ndarray,
) -> bool:
    """Whether the walls of a closed fight can be taken as safe while it is read: each wall
    string is proven alive, or the playouts found it alive at least 90 % of the time and it
    has two liberties or more outside the zone (so no play inside the fight can capture it;
    ``outside`` is scratch, one entry per string)."""
    nn = size * size
    for k in range(outside.shape[0]):
        outside[k] = 0
    for p in range(nn):
        if board[p] != EMPTY or zone[p]:
            continue
        a = -1
        b = -1
        c = -1
        for t in _neighbors(p, size):
            if t < 0 or strings[t] < 0:
                continue
            k = strings[t]
            if k == a or k == b or k == c:  # noqa: SIM109 (plain compares for numba)
                continue
            if a < 0:
                a = k
            elif b < 0:
                b = k
            else:
                c = k
            outside[k] += 1
    for q in range(nn):
        if not walls[q] or flags[q] & FL_PROVEN:
            continue
        if status[q] == ST_DEAD or alive_rate[q] < 0.9 or outside[strings[q]] < 2:
            return False
    return True


@njit(cache=True)
def _read_closed_fights(
    s: np.ndarray,
    size: int,
    suicide: bool,
    board: np.ndarray,
    status: np.ndarray,
    alive_rate: np.ndarray,
    flags: np.ndarray,
) -> None:
    """Read out every closed fight (see :func:`closed_fight`) whose walls the playouts judged
    alive, and let its result decide the statuses of the group and of the stones inside."""
    nn = size * size
    member = np.empty(nn, dtype=np.bool_)
    stack = np.empty(nn, dtype=np.int64)
    strings = np.empty(nn, dtype=np.int64)
    regions = np.empty((3, nn), dtype=np.int64)
    region_size = np.zeros((3, nn), dtype=np.int64)
    for color in (BLACK, WHITE):
        for p in range(nn):
            member[p] = board[p] != color
        label_components(member, size, regions[color], stack)
        for p in range(nn):
            if regions[color, p] >= 0:
                region_size[color, regions[color, p]] += 1
    for p in range(nn):  # strings: black ones numbered first, then white ones
        member[p] = board[p] == BLACK
    nb = label_components(member, size, strings, stack)
    white_labels = np.empty(nn, dtype=np.int64)
    for p in range(nn):
        member[p] = board[p] == WHITE
    label_components(member, size, white_labels, stack)
    for p in range(nn):
        if white_labels[p] >= 0:
            strings[p] = nb + white_labels[p]
    group = np.empty(nn, dtype=np.bool_)
    zone = np.empty(nn, dtype=np.bool_)
    walls = np.empty(nn, dtype=np.bool_)
    decided = np.zeros(nn, dtype=np.bool_)
    moves = np.empty(nn, dtype=np.int64)
    string_size = np.zeros(2 * nn, dtype=np.int64)
    outside = np.zeros(2 * nn, dtype=np.int64)
    for p in range(nn):
        if strings[p] >= 0:
            string_size[strings[p]] += 1
    for start in range(nn):
        color = board[start]
        if color == EMPTY or decided[start] or flags[start] & FL_PROVEN:
            continue
        nzone = closed_fight(
            board, size, start, regions[color], region_size[color], group, zone, walls
        )
        if nzone < 0:
            continue
        if not _walls_hold(board, size, strings, zone, walls, status, alive_rate, flags, outside):
            continue
        nmoves = 0
        for q in range(nn):
            if zone[q] or group[q]:
                moves[nmoves] = q
                nmoves += 1
        for q in range(nn):
            if group[q]:
                decided[q] = True  # tried: not again from another of its strings
        # read the largest string of the group; if it lives, each other string too
        main = -1
        for q in range(nn):
            if group[q] and (main < 0 or string_size[strings[q]] > string_size[strings[main]]):
                main = q
        results = np.full(2 * nn, -2, dtype=np.int64)
        value = read_fight(s, size, moves, nmoves, main, MAX_NODES)
        if value == V_UNKNOWN:
            continue
        results[strings[main]] = value
        unknown = False
        for q in range(nn):
            if not group[q] or results[strings[q]] != -2:
                continue
            other_value = value
            if value != V_DEAD:
                other_value = read_fight(s, size, moves, nmoves, q, MAX_NODES)
            results[strings[q]] = other_value
            if other_value == V_UNKNOWN:
                unknown = True
                break
        if unknown:
            continue
        all_alive = True
        any_dead = False
        for q in range(nn):
            if group[q]:
                value = results[strings[q]]
                all_alive &= value == V_ALIVE
                any_dead |= value == V_DEAD
        other = 3 - color
        for q in range(nn):
            if group[q]:
                value = results[strings[q]]
                status[q] = ST_DEAD if value == V_DEAD else ST_SEKI if value == V_SEKI else ST_ALIVE
                alive_rate[q] = 0.0 if value == V_DEAD else 1.0
                flags[q] = FL_READ
                decided[q] = True
            elif zone[q] and board[q] == other:
                status[q] = ST_DEAD if all_alive else ST_ALIVE if any_dead else ST_SEKI
                alive_rate[q] = 0.0 if all_alive else 1.0
                flags[q] = FL_READ
                decided[q] = True


# -- search for the stones the playouts leave in doubt ------------------------------------------
UCT_REACH = 3
"""The tree searches moves within this (Manhattan) distance of the stones in doubt, and pass."""


@njit(cache=True)
def uct_attack(
    s: np.ndarray,
    size: int,
    suicide: bool,
    frozen: np.ndarray,
    fixed_owner: np.ndarray,
    unit: np.ndarray,
    sims: int,
    rng: np.ndarray,
) -> float:
    """How often the opponent of the stones marked in ``unit`` (one colour), moving first,
    kills them: a UCT search (UCB1 over the moves near them, the playout policy below the
    tree) in which the attacker wins a simulation when at its end the point of the unit's
    largest string is not the defender's. Returns the win rate of the attacker's most visited
    first move."""
    nn = size * size
    h = header(size)
    defender = 0
    for p in range(nn):
        if unit[p]:
            defender = s[p]
            break
    attacker = 3 - defender
    # candidate points: near the unit, off the certain territories
    cand = np.empty(nn + 1, dtype=np.int64)
    nc = 0
    for p in range(nn):
        if frozen[p]:
            continue
        r = p // size
        c = p - r * size
        near = False
        for q in range(nn):
            if unit[q]:
                rq = q // size
                cq = q - rq * size
                if abs(rq - r) + abs(cq - c) <= UCT_REACH:
                    near = True
                    break
        if near:
            cand[nc] = p
            nc += 1
    cand[nc] = nn  # pass
    nc += 1
    capacity = min(sims * 8 + 1, 200000)
    first_child = np.full(capacity, -1, dtype=np.int64)
    n_children = np.zeros(capacity, dtype=np.int64)
    move_of = np.zeros(capacity, dtype=np.int64)
    visits = np.zeros(capacity, dtype=np.int64)
    wins = np.zeros(capacity, dtype=np.float64)
    used = 1
    path = np.empty(256, dtype=np.int64)
    w = np.empty_like(s)
    work = np.empty_like(s)
    buf = np.empty(nn, dtype=np.int64)
    owner = np.empty(nn, dtype=np.int64)
    unit_stones = 0
    for p in range(nn):
        if unit[p]:
            unit_stones += 1
    # the stake: the largest string of the unit
    main = -1
    for p in range(nn):
        if unit[p] and (main < 0 or group_size(s, nn, group_head(s, nn, p)) > group_size(s, nn, group_head(s, nn, main))):
            main = p
    for _ in range(sims):
        for i in range(s.shape[0]):
            w[i] = s[i]
        w[h + F_TO_PLAY] = attacker
        w[h + F_PASSES] = 0
        w[h + F_KO] = -1
        w[h + F_LAST] = -1
        node = 0
        depth = 0
        path[0] = 0
        # selection and expansion
        while w[h + F_PASSES] < 2 and depth < 250:
            if n_children[node] == 0:
                if visits[node] == 0 and node != 0:
                    break
                if used + nc > capacity:
                    break
                mover = w[h + F_TO_PLAY]
                start = used
                for k in range(nc):
                    a = cand[k]
                    if a < nn and (
                        w[a] != EMPTY
                        or check(w, size, a, mover, suicide) != OK
                        or is_true_eye(w, size, a, mover)
                    ):
                        continue
                    move_of[used] = a
                    visits[used] = 0
                    wins[used] = 0.0
                    n_children[used] = 0
                    used += 1
                first_child[node] = start
                n_children[node] = used - start
            best = -1
            best_score = -1.0
            total = visits[node]
            log_total = np.log(total + 1.0)
            start = first_child[node]
            for k in range(start, start + n_children[node]):
                if visits[k] == 0:
                    score = 10.0 + _rand(rng, 1000) * 1e-6  # unvisited first, in random order
                else:
                    score = wins[k] / visits[k] + 0.6 * np.sqrt(log_total / visits[k])
                if score > best_score:
                    best_score = score
                    best = k
            if best < 0:
                break
            if play(w, size, move_of[best], w[h + F_TO_PLAY], suicide) != OK:
                play(w, size, nn, w[h + F_TO_PLAY], suicide)
            node = best
            depth += 1
            path[depth] = node
        _playout(w, size, suicide, frozen, 3 * nn + 50, rng, buf, work)
        area(w, size, owner)
        final = fixed_owner[main] if fixed_owner[main] != EMPTY else owner[main]
        attacker_won = 1.0 if final != defender else 0.0
        # back up: a node's wins count for the player who moved into it; depth 1 is the
        # attacker's move, depth 2 the defender's, ...
        for d in range(depth + 1):
            k = path[d]
            visits[k] += 1
            if d % 2 == 1:
                wins[k] += attacker_won
            else:
                wins[k] += 1.0 - attacker_won
    best = -1
    start = first_child[0]
    for k in range(start, start + n_children[0]):
        if best < 0 or visits[k] > visits[best]:
            best = k
    if best < 0 or visits[best] == 0:
        return 0.5
    return wins[best] / visits[best]


@njit(cache=True)
def _search_doubts(
    s: np.ndarray,
    size: int,
    suicide: bool,
    board: np.ndarray,
    frozen: np.ndarray,
    fixed_owner: np.ndarray,
    status: np.ndarray,
    alive_rate: np.ndarray,
    flags: np.ndarray,
    sims: int,
) -> None:
    """Search every unit of stones the playouts left in doubt (one colour's unsettled strings,
    joined where they share a liberty) with :func:`uct_attack`: it is dead when its opponent,
    moving first, kills it in at least half of the simulations of its best first move. When two
    neighbouring units of opposite colours would both die, the smaller one lives."""
    nn = size * size
    unit_of = np.full(nn, -1, dtype=np.int64)
    stack = np.empty(nn, dtype=np.int64)
    units = 0
    for p in range(nn):
        if board[p] == EMPTY or unit_of[p] >= 0 or flags[p] & FL_UNSETTLED == 0:
            continue
        color = board[p]
        unit_of[p] = units
        top = 0
        stack[0] = p
        while top >= 0:
            q = stack[top]
            top -= 1
            for t in _neighbors(q, size):
                if t < 0:
                    continue
                if board[t] == color and unit_of[t] < 0 and flags[t] & FL_UNSETTLED:
                    unit_of[t] = units
                    top += 1
                    stack[top] = t
                elif board[t] == EMPTY:
                    for u in _neighbors(t, size):  # strings sharing this liberty
                        if u >= 0 and board[u] == color and unit_of[u] < 0 and flags[u] & FL_UNSETTLED:
                            unit_of[u] = units
                            top += 1
                            stack[top] = u
        units += 1
    if units == 0:
        return
    rate = np.zeros(units, dtype=np.float64)
    unit = np.empty(nn, dtype=np.bool_)
    rng = np.empty(1, dtype=np.int64)
    for k in range(units):
        for p in range(nn):
            unit[p] = unit_of[p] == k
        rng[0] = (s[header(size) + F_HASH] ^ ((k + 1) * 0x632BE59BD9B4E019)) | 1
        rate[k] = uct_attack(s, size, suicide, frozen, fixed_owner, unit, sims, rng)
    # two neighbouring units that would both die: the smaller one lives, freed by the larger
    # one's death (a stone left inside a dead group, or a race lost by whoever is attacked)
    dead = np.empty(units, dtype=np.bool_)
    stones = np.zeros(units, dtype=np.int64)
    for k in range(units):
        dead[k] = rate[k] >= 0.5
    for p in range(nn):
        if unit_of[p] >= 0:
            stones[unit_of[p]] += 1
    for p in range(nn):
        k = unit_of[p]
        if k < 0 or not dead[k]:
            continue
        for t in _neighbors(p, size):
            if t < 0:
                continue
            j = unit_of[t]
            if j >= 0 and j != k and dead[j] and board[t] != board[p]:
                if stones[j] > stones[k] or (stones[j] == stones[k] and rate[j] > rate[k]):
                    dead[k] = False
                else:
                    dead[j] = False
    for p in range(nn):
        k = unit_of[p]
        if k < 0:
            continue
        alive_rate[p] = 1.0 - rate[k]
        if dead[k]:
            status[p] = ST_DEAD
        elif status[p] == ST_DEAD:
            status[p] = ST_ALIVE
        flags[p] = FL_SEARCHED | (FL_UNSETTLED if 0.4 < rate[k] < 0.6 else 0)
