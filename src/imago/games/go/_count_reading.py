# mypy: disable-error-code="no-any-return"
"""Private numba kernels: reading a closed fight at the end of a game to the end.

A closed fight is a group whose every liberty lies in its small enclosed regions (eye spaces,
perhaps with opponent stones inside) or touches only the group and the opponent's walls; the
reading plays both sides inside it on plain boards, with memoised positions, until the group is
captured, unconditionally alive (Benson), or neither side can make progress (seki).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.games.go._benson import BENSON_BOOLS, BENSON_INTS, benson_into
from imago.games.go._kernels import EMPTY, F_HASH, _neighbors, header, zobrist

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
def _string_liberties(
    b: np.ndarray, size: int, p: int, mark: np.ndarray, stamp: int, stack: np.ndarray
) -> int:
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
            legal, ko, change = _play_plain(
                child, size, move, mover, kos[depth], mark, stamps, stack
            )
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
