# mypy: disable-error-code="no-any-return"
"""Private numba kernels of the end-of-game count: every stone judged, every point owned.

:func:`judge` combines, for each stone, what is certain and what is found:

1. Benson's unconditional life for both colours (:mod:`._benson`): those stones are alive, and
   the opponent's stones inside the regions they enclose are dead (proven);
2. playouts by a tactical policy (:mod:`._count_playouts`), half with each colour moving first,
   stopped early when every stone is clear-cut: a stone is alive when, with its opponent moving
   first, its point is still its colour's at the end of at least half of them, in seki when it
   then keeps a liberty shared with living opponent stones;
3. closed fights (a group whose every liberty is in its small eye spaces or against safe walls)
   read to the end (:mod:`._count_reading`), which overrule the playouts;
4. a tree search with the opponent moving first (:mod:`._count_search`) for the stones the
   playouts leave in doubt.

Points are flat indices ``row * size + col``; state arrays are those of
:mod:`imago.games.go._kernels`, read through its accessors. :func:`imago.games.go.count` is the
public face.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.games.go._benson import benson, label_components
from imago.games.go._count_playouts import policy_playout
from imago.games.go._count_reading import (
    MAX_NODES,
    V_ALIVE,
    V_DEAD,
    V_SEKI,
    V_UNKNOWN,
    closed_fight,
    read_fight,
)
from imago.games.go._count_search import uct_attack
from imago.games.go._kernels import (
    BLACK,
    EMPTY,
    F_HASH,
    F_KO,
    F_LAST,
    F_PASSES,
    F_TO_PLAY,
    WHITE,
    _neighbors,
    area,
    group_head,
    header,
    next_stone,
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
    own = np.zeros(
        (2, nn), dtype=np.int64
    )  # [first mover - 1, p]: playouts ending with p's own colour
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
                policy_playout(w, size, suicide, frozen, 3 * nn + 50, rng, buf, work)
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
    _seki_needs_a_shared_liberty(board, size, status)
    _search_doubts(s, size, suicide, board, frozen, fixed_owner, status, alive_rate, flags, sims)


CHUNK = 32
"""Playouts run per side to move between the checks of whether more are needed."""
MIN_PLAYOUTS = 256
"""Playouts always run (half with each side moving first) before stopping early."""


@njit(cache=True)
def _clear(
    board: np.ndarray, frozen: np.ndarray, own: np.ndarray, shared: np.ndarray, n: int
) -> bool:
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
def _label_units(board: np.ndarray, size: int, member: np.ndarray, unit_of: np.ndarray) -> int:
    """Label the units of the stones with ``member``: strings of one colour, joined where they
    share a liberty (a group and its eyes). ``unit_of[p]``: the unit of stone ``p``, -1 for the
    rest. Returns how many units."""
    nn = size * size
    stack = np.empty(nn, dtype=np.int64)
    for p in range(nn):
        unit_of[p] = -1
    units = 0
    for p in range(nn):
        if board[p] == EMPTY or unit_of[p] >= 0 or not member[p]:
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
                if board[t] == color and unit_of[t] < 0 and member[t]:
                    unit_of[t] = units
                    top += 1
                    stack[top] = t
                elif board[t] == EMPTY:
                    for u in _neighbors(t, size):  # strings sharing this liberty
                        if u >= 0 and board[u] == color and unit_of[u] < 0 and member[u]:
                            unit_of[u] = units
                            top += 1
                            stack[top] = u
        units += 1
    return units


@njit(cache=True)
def _seki_needs_a_shared_liberty(board: np.ndarray, size: int, status: np.ndarray) -> None:
    """Stones the playouts call seki stay seki only if their seki unit (the seki strings of one
    colour joined by the liberties they share, as a group and its eyes) has, on the board as
    the game ended, a liberty touching a stone of the other colour not judged dead: the
    liberties a seki shares are there to see. (The playouts' test, and a closed fight read out
    as "neither side captures", also hold for a group alive with eyes of its own: a unit
    without a shared liberty is alive, not in seki.)"""
    nn = size * size
    member = np.empty(nn, dtype=np.bool_)
    for p in range(nn):
        member[p] = status[p] == ST_SEKI
    unit_of = np.empty(nn, dtype=np.int64)
    units = _label_units(board, size, member, unit_of)
    shares = np.zeros(units, dtype=np.bool_)
    for p in range(nn):
        k = unit_of[p]
        if k < 0 or shares[k]:
            continue
        for t in _neighbors(p, size):
            if t >= 0 and board[t] == EMPTY:
                for u in _neighbors(t, size):
                    if u >= 0 and board[u] == 3 - board[p] and status[u] != ST_DEAD:
                        shares[k] = True
    for p in range(nn):
        k = unit_of[p]
        if k >= 0 and not shares[k]:
            status[p] = ST_ALIVE


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
    member = np.empty(nn, dtype=np.bool_)
    for p in range(nn):
        member[p] = flags[p] & FL_UNSETTLED != 0
    unit_of = np.empty(nn, dtype=np.int64)
    units = _label_units(board, size, member, unit_of)
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
