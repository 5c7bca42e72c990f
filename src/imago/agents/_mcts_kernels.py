# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the Monte Carlo tree search: expansion and random playouts that
record, for all-moves-as-first (AMAF / RAVE), which colour played each point first.

Othello positions are ``(p, o)`` bitboards with the player to move first (square 64 = pass);
Go positions are :mod:`imago.games.go.fastpath` state arrays (action ``size * size`` = pass).
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents._go_patterns import POLICY_PATTERN, node_priors, pattern_policy_move
from imago.agents._go_playout_kernels import POLICY_HEAVY, heavy_move
from imago.agents._othello_kernels import (
    U0,
    U1,
    final_score,
    flips,
    legal_moves,
    lowest_square,
    random_square,
)
from imago.games.go import fastpath as gf


@numba.njit(cache=True)
def othello_legal(p: np.uint64, o: np.uint64, out: np.ndarray) -> int:
    """The actions of the player to move into ``out``: squares, or only 64 (pass) when the
    player has none but the opponent has; 0 when the game is over."""
    moves = legal_moves(p, o)
    n = 0
    while moves:
        out[n] = lowest_square(moves)
        moves &= moves - U1
        n += 1
    if n == 0 and legal_moves(o, p) != U0:
        out[0] = 64
        n = 1
    return n


@numba.njit(cache=True)
def othello_apply(p: np.uint64, o: np.uint64, action: int) -> tuple[np.uint64, np.uint64]:
    """The position after ``action``, with the opponent to move first."""
    if action == 64:
        return o, p
    f = flips(p, o, action)
    return o ^ f, p | f | (U1 << np.uint64(action))


@numba.njit(cache=True)
def othello_playout(
    p: np.uint64, o: np.uint64, color: int, rng: np.ndarray, first: np.ndarray
) -> int:
    """A uniformly random game to the end from ``(p, o)`` (``color`` to move); records in
    ``first[sq]`` the colour that first played each square (when 0 before). Returns the final
    disc difference for the player to move at the start, empties to the winner."""
    sign = 1
    passes = 0
    c = color
    while passes < 2:
        moves = legal_moves(p, o)
        if moves == U0:
            passes += 1
        else:
            passes = 0
            sq = random_square(moves, rng)
            if first[sq] == 0:
                first[sq] = c
            f = flips(p, o, sq)
            p |= f | (U1 << np.uint64(sq))
            o ^= f
        p, o = o, p
        sign = -sign
        c = 3 - c
    return sign * final_score(p, o)


@numba.njit(cache=True)
def go_playout(
    s: np.ndarray,
    size: int,
    komi: float,
    suicide: bool,
    max_moves: int,
    rng: np.ndarray,
    first: np.ndarray,
    policy: int,
    table: np.ndarray,
) -> float:
    """A playout on ``s`` in place until two passes or ``max_moves``: random sensible moves (no
    filling of one's own true eyes) under ``POLICY_RANDOM``, the capture / atari-escape /
    no-self-atari policy of :mod:`imago.agents._go_playout_kernels` under ``POLICY_HEAVY``,
    that plus 3x3 patterns (``table``, :mod:`imago.agents._go_patterns`) under
    ``POLICY_PATTERN``; records first plays in ``first``; returns Black - White - komi."""
    nn = size * size
    h = 10 * nn
    buf = np.empty(nn, dtype=np.int64)
    work = np.empty_like(s)
    moves = 0
    while s[h + gf.F_PASSES] < 2 and moves < max_moves:
        color = s[h + gf.F_TO_PLAY]
        if policy == POLICY_PATTERN:
            a = pattern_policy_move(s, size, color, suicide, rng, buf, work, table)
        elif policy == POLICY_HEAVY:
            a = heavy_move(s, size, color, suicide, rng, buf, work)
        else:
            a = gf.random_move(s, size, color, suicide, rng)
        gf.play(s, size, a, color, suicide)
        if a < nn and first[a] == 0:
            first[a] = color
        moves += 1
    b, w = gf.area_score(s, size)
    return b - w - komi


@numba.njit(cache=True)
def go_legal(
    s: np.ndarray, size: int, suicide: bool, ko_mode: int, history: np.ndarray, out: np.ndarray
) -> int:
    """Sensible actions (legal, not filling one's own true eye) then pass, into ``out``; 0 when
    the game is over (two passes)."""
    h = 10 * size * size
    if s[h + gf.F_PASSES] >= 2:
        return 0
    color = s[h + gf.F_TO_PLAY]
    n = gf.sensible_actions(s, size, color, suicide, ko_mode, history, out)
    if n == 0 or out[n - 1] != size * size:
        out[n] = size * size
        n += 1
    return n


# -- the tree: a pool of nodes and edges -------------------------------------------------------
# ni[node] = (first edge, edge count, colour to move, 1 if its priors came from a prior oracle);
# nf[node] = visits.
# ei[edge] = (action, child node or -1); ef[edge] = (visits, wins, amaf visits, amaf wins, prior).
# counts = (nodes used, edges used).
RULE_UCT = 0
RULE_RAVE = 1
RULE_PUCT = 2
E_N = 0
E_W = 1
E_AN = 2
E_AW = 3
E_PRIOR = 4


@numba.njit(cache=True)
def select_edge(
    node: int,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    rule: int,
    c: float,
    rave_k: float,
    fpu: float,
    bias: float,
) -> int:
    """The child edge of ``node`` with the highest score under ``rule`` (first on ties).

    Under UCT and MC-RAVE, a node whose priors came from a prior oracle (``ni[node, 3]``)
    adds the progressive bias ``bias * P * sqrt(N) / (1 + n)`` to each child's score."""
    first = ni[node, 0]
    count = ni[node, 1]
    total = max(nf[node], 1.0)
    log_n = np.log(total)
    sqrt_n = np.sqrt(total)
    best = -1e300
    best_e = first
    guided = rule != RULE_PUCT and ni[node, 3] != 0 and bias > 0.0
    for e in range(first, first + count):
        n = ef[e, E_N]
        w = ef[e, E_W]
        if rule == RULE_UCT:
            s = fpu if n == 0 else w / n + c * np.sqrt(log_n / n)
        elif rule == RULE_RAVE:
            an = ef[e, E_AN]
            if n == 0:
                s = ef[e, E_AW] / an if an > 0 else fpu
            elif an == 0:
                s = w / n + 0.3 * c * np.sqrt(log_n / n)
            else:
                beta = np.sqrt(rave_k / (3.0 * n + rave_k))
                qa = ef[e, E_AW] / an
                s = (1.0 - beta) * (w / n) + beta * qa + 0.3 * c * np.sqrt(log_n / n)
        else:
            q = w / n if n > 0 else fpu - 1.0
            s = q + c * ef[e, E_PRIOR] * sqrt_n / (1.0 + n)
        if guided:
            s += bias * ef[e, E_PRIOR] * sqrt_n / (1.0 + n)
        if s > best:
            best = s
            best_e = e
    return best_e


@numba.njit(cache=True)
def add_node(
    color: int,
    actions: np.ndarray,
    n_actions: int,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
    counts: np.ndarray,
) -> int:
    """A new node with an edge per action (uniform priors); -1 when the pool is full."""
    node = counts[0]
    first = counts[1]
    if node >= ni.shape[0] or first + n_actions > ei.shape[0]:
        return -1
    counts[0] = node + 1
    counts[1] = first + n_actions
    ni[node, 0] = first
    ni[node, 1] = n_actions
    ni[node, 2] = color
    ni[node, 3] = 0
    nf[node] = 0.0
    prior = 1.0 / max(n_actions, 1)
    for i in range(n_actions):
        e = first + i
        ei[e, 0] = actions[i]
        ei[e, 1] = -1
        ef[e, E_N] = 0.0
        ef[e, E_W] = 0.0
        ef[e, E_AN] = 0.0
        ef[e, E_AW] = 0.0
        ef[e, E_PRIOR] = prior
    return node


@numba.njit(cache=True)
def backup(
    path_n: np.ndarray,
    path_e: np.ndarray,
    depth: int,
    leaf: int,
    value: float,
    first: np.ndarray,
    pass_action: int,
    amaf: bool,
    virtual_loss: int,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
) -> None:
    """Add a simulation's ``value`` (win rate for the leaf's player to move) along the path,
    removing ``virtual_loss``, and update the AMAF statistics of every node on it."""
    leaf_color = ni[leaf, 2]
    nf[leaf] += 1.0
    for d in range(depth - 1, -1, -1):
        node = path_n[d]
        e = path_e[d]
        color = ni[node, 2]
        mine = value if color == leaf_color else 1.0 - value
        nf[node] += 1.0
        ef[e, E_N] += 1.0 - virtual_loss
        ef[e, E_W] += mine
        a = ei[e, 0]
        if a != pass_action:
            first[a] = color
        if amaf:
            start = ni[node, 0]
            for e2 in range(start, start + ni[node, 1]):
                if first[ei[e2, 0]] == color:
                    ef[e2, E_AN] += 1.0
                    ef[e2, E_AW] += mine


@numba.njit(cache=True)
def _outcome(diff: float) -> float:
    return 1.0 if diff > 0 else (0.0 if diff < 0 else 0.5)


@numba.njit(cache=True, nogil=True)
def othello_run(
    root: int,
    count: int,
    p0: np.uint64,
    o0: np.uint64,
    color0: int,
    rng: np.ndarray,
    rule: int,
    c: float,
    rave_k: float,
    fpu: float,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
    counts: np.ndarray,
) -> int:
    """Run up to ``count`` simulations with random playouts; how many ran (fewer when the pool
    is nearly full)."""
    path_n = np.empty(130, dtype=np.int64)
    path_e = np.empty(130, dtype=np.int64)
    actions = np.empty(65, dtype=np.int64)
    first = np.zeros(65, dtype=np.int8)
    amaf = rule == RULE_RAVE
    for sim in range(count):
        if counts[0] + 1 >= ni.shape[0] or counts[1] + 65 >= ei.shape[0]:
            return sim
        p = p0
        o = o0
        color = color0
        node = root
        depth = 0
        while ni[node, 1] > 0:
            e = select_edge(node, ni, nf, ef, rule, c, rave_k, fpu, 0.0)
            path_n[depth] = node
            path_e[depth] = e
            depth += 1
            p, o = othello_apply(p, o, ei[e, 0])
            color = 3 - color
            child = ei[e, 1]
            if child < 0:
                n = othello_legal(p, o, actions)
                child = add_node(color, actions, n, ni, nf, ef, ei, counts)
                ei[e, 1] = child
                node = child
                break
            node = child
        first[:] = 0
        if ni[node, 1] == 0:
            value = _outcome(final_score(p, o))
        else:
            value = _outcome(othello_playout(p, o, color, rng, first))
        backup(path_n, path_e, depth, node, value, first, 64, amaf, 0, ni, nf, ef, ei)
    return count


@numba.njit(cache=True)
def _ended_value(
    s: np.ndarray,
    size: int,
    komi: float,
    suicide: bool,
    max_moves: int,
    rng: np.ndarray,
    first: np.ndarray,
    policy: int,
    table: np.ndarray,
) -> float:
    """The value, for the player to move, of ``s`` ended by two passes. Scorers differ on
    dead stones: Tromp-Taylor counts the board as it stands, GNU Go and the arena's estimate
    remove them (here: the position played out with the passes forgotten). The player who
    passed last ended the game, so it is credited with the worse of the two results: it
    passes only when it wins under both (``s`` is played out in place)."""
    h = 10 * size * size
    mover = s[h + gf.F_TO_PLAY]
    passer = 3 - mover
    b, w = gf.area_score(s, size)
    counted = b - w - komi
    s[h + gf.F_PASSES] = 0
    played = go_playout(s, size, komi, suicide, max_moves, rng, first, policy, table)
    if passer == 2:
        counted = -counted
        played = -played
    return 1.0 - min(_outcome(counted), _outcome(played))


@numba.njit(cache=True, nogil=True)
def go_run(
    root: int,
    count: int,
    s0: np.ndarray,
    size: int,
    komi: float,
    suicide: bool,
    ko_mode: int,
    history: np.ndarray,
    max_moves: int,
    rng: np.ndarray,
    rule: int,
    c: float,
    rave_k: float,
    fpu: float,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
    counts: np.ndarray,
    policy: int,
    table: np.ndarray,
    prior: float,
    bias: float,
    oracle_visits: int,
    request: np.ndarray,
) -> int:
    """Go's version of :func:`othello_run` over fastpath state arrays, with the playout
    ``policy`` of :func:`go_playout` and the priors of
    :func:`imago.agents._go_patterns.node_priors` (weight ``prior``) on new nodes.

    With ``oracle_visits > 0`` the kernel asks for a prior oracle's priors (a policy network's,
    say) for the root and for each node that ``oracle_visits`` simulations have passed
    through: it stops before the simulation that would select from such a node, writes its
    position into ``request[1:]`` and the node into ``request[0]`` (else -1), and returns the
    simulations run so far. The caller sets the priors and ``ni[node, 3] = 1`` and calls again;
    those priors then steer the selection with the progressive ``bias``."""
    nn = size * size
    h = 10 * nn
    path_n = np.empty(4 * nn + 16, dtype=np.int64)
    path_e = np.empty(4 * nn + 16, dtype=np.int64)
    actions = np.empty(nn + 1, dtype=np.int64)
    first = np.zeros(nn + 1, dtype=np.int8)
    work = np.empty_like(s0)
    amaf = rule == RULE_RAVE
    request[0] = -1
    for sim in range(count):
        if counts[0] + 1 >= ni.shape[0] or counts[1] + nn + 1 >= ei.shape[0]:
            return sim
        work[:] = s0
        node = root
        depth = 0
        while ni[node, 1] > 0 and depth < path_n.shape[0] - 1:
            if (
                oracle_visits > 0
                and ni[node, 3] == 0
                and (node == root or nf[node] >= oracle_visits - 1)
            ):
                request[0] = node
                request[1:] = work
                return sim
            e = select_edge(node, ni, nf, ef, rule, c, rave_k, fpu, bias)
            path_n[depth] = node
            path_e[depth] = e
            depth += 1
            gf.play(work, size, ei[e, 0], work[h + gf.F_TO_PLAY], suicide)
            child = ei[e, 1]
            if child < 0:
                n = go_legal(work, size, suicide, ko_mode, history, actions)
                child = add_node(work[h + gf.F_TO_PLAY], actions, n, ni, nf, ef, ei, counts)
                if child >= 0:
                    node_priors(work, size, suicide, ni[child, 0], n, ei, ef, table, prior)
                ei[e, 1] = child
                node = child
                break
            node = child
        first[:] = 0
        color = work[h + gf.F_TO_PLAY]
        if ni[node, 1] == 0:
            value = _ended_value(work, size, komi, suicide, max_moves, rng, first, policy, table)
        else:
            score = go_playout(work, size, komi, suicide, max_moves, rng, first, policy, table)
            value = _outcome(score if color == 1 else -score)
        backup(path_n, path_e, depth, node, value, first, nn, amaf, 0, ni, nf, ef, ei)
    return count
