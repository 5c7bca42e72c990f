# mypy: disable-error-code="no-any-return"
"""Private numba kernels: the tree search for stones the count's playouts leave in doubt."""

from __future__ import annotations

import numpy as np
from numba import njit

from imago.core.rng import rand_below
from imago.games.go._count_playouts import policy_playout
from imago.games.go._kernels import (
    EMPTY,
    F_KO,
    F_LAST,
    F_PASSES,
    F_TO_PLAY,
    OK,
    area,
    check,
    group_head,
    group_size,
    header,
    is_true_eye,
    play,
)

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
        if unit[p] and (
            main < 0
            or group_size(s, nn, group_head(s, nn, p)) > group_size(s, nn, group_head(s, nn, main))
        ):
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
                    score = 10.0 + rand_below(rng, 1000) * 1e-6  # unvisited first, in random order
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
        policy_playout(w, size, suicide, frozen, 3 * nn + 50, rng, buf, work)
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
