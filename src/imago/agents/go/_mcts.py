# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the search for Go, over :mod:`imago.games.go.fastpath` arrays.

A position is a fastpath state array; superko is checked against the sorted keys of the game
played so far (``history``), not against positions inside the tree. The tree's moves are the
*sensible* ones (legal, not filling one's own true eye) and pass. Two ways to run simulations
over the tree of :mod:`._tree`:

* :func:`run_playouts`: whole simulations in numba with playouts (UCT / MC-RAVE), optionally
  asking an evaluator for the priors of busy nodes (:func:`run_playouts`' guide queue);
* :func:`collect_leaves` then the evaluator then :func:`._tree.apply_evaluations`: leaves of
  many roots gathered for one batched evaluation (a network), with virtual loss.

A game ended by two passes inside the tree is worth, under ``ENDED_CAUTIOUS``, the worse of
its Tromp-Taylor count and its played-out score to the player who passed last (dead stones are
removed by the scorers of GNU Go and the arena, not by Tromp-Taylor), so the search passes only
when it wins under both; under ``ENDED_AREA``, its Tromp-Taylor count (self-play's rule).
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents.go._patterns import POLICY_PATTERN, node_priors, pattern_policy_move
from imago.agents.go._playouts import POLICY_HEAVY, heavy_move
from imago.agents.mcts import _tree as kt
from imago.games.go import fastpath as gf

ENDED_AREA = 0
ENDED_CAUTIOUS = 1


@numba.njit(cache=True, nogil=True)
def playout(
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
    filling of one's own true eyes), the capture / atari-escape / no-self-atari policy of
    :mod:`imago.agents.go._playouts` under ``POLICY_HEAVY``, that plus 3x3 patterns
    (``table``, :mod:`imago.agents.go._patterns`) under ``POLICY_PATTERN``; records first
    plays in ``first``; returns Black - White - komi."""
    nn = size * size
    h = gf.header(size)
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


@numba.njit(cache=True, nogil=True)
def sensible_moves(
    s: np.ndarray, size: int, suicide: bool, ko_mode: int, history: np.ndarray, out: np.ndarray
) -> int:
    """The tree's moves: sensible actions (legal, not filling one's own true eye), then pass
    (always last), into ``out``; 0 when the game is over (two passes)."""
    h = gf.header(size)
    if s[h + gf.F_PASSES] >= 2:
        return 0
    color = s[h + gf.F_TO_PLAY]
    n = gf.sensible_actions(s, size, color, suicide, ko_mode, history, out)
    if n == 0 or out[n - 1] != size * size:
        out[n] = size * size
        n += 1
    return n


@numba.njit(cache=True, nogil=True)
def pass_is_timely(s: np.ndarray, size: int, moves: int) -> bool:
    """Whether passing is worth considering at all in ``s``, whose tree has ``moves`` moves
    (pass included): in answer to a pass (it can end the game), when nothing else is
    sensible, or when the board is settled (stones of both colours, and every empty point
    reaches one colour only). On an open board a playout cannot tell a pass from a useful
    move in a won position; a board with stones of one colour is open, not settled."""
    h = gf.header(size)
    if s[h + gf.F_PASSES] > 0 or moves <= 1:
        return True
    nn = size * size
    owner = np.empty(nn, dtype=np.int64)
    gf.area(s, size, owner)
    black = white = False
    for p in range(nn):
        if s[p] == gf.EMPTY and owner[p] == 0:
            return False
        black |= s[p] == gf.BLACK
        white |= s[p] == gf.WHITE
    return black and white


@numba.njit(cache=True, nogil=True)
def area_value(s: np.ndarray, size: int, komi: float, weight: float) -> float:
    """The Tromp-Taylor result of ``s`` for the player to move: 1, 0.5 or 0, with ``weight``
    of it the margin (:func:`imago.agents.mcts._tree.terminal_value`)."""
    b, w = gf.area_score(s, size)
    diff = b - w - komi
    mine = diff if s[gf.header(size) + gf.F_TO_PLAY] == 1 else -diff
    return kt.terminal_value(mine, size * size, weight)


@numba.njit(cache=True, nogil=True)
def ended_value(
    s: np.ndarray,
    size: int,
    komi: float,
    suicide: bool,
    max_moves: int,
    rng: np.ndarray,
    first: np.ndarray,
    policy: int,
    table: np.ndarray,
    weight: float,
) -> float:
    """``ENDED_CAUTIOUS``: the value, for the player to move, of ``s`` ended by two passes. The
    player who passed last ended the game and is credited with the worse of its Tromp-Taylor
    count and its played-out score (``s`` is played out in place, passes forgotten); ``weight``
    of each is its margin (:func:`imago.agents.mcts._tree.terminal_value`)."""
    h = gf.header(size)
    mover = s[h + gf.F_TO_PLAY]
    b, w = gf.area_score(s, size)
    counted = b - w - komi
    s[h + gf.F_PASSES] = 0
    played = playout(s, size, komi, suicide, max_moves, rng, first, policy, table)
    if mover == 1:  # White passed last
        counted = -counted
        played = -played
    area = size * size
    return 1.0 - min(
        kt.terminal_value(counted, area, weight), kt.terminal_value(played, area, weight)
    )


@numba.njit(cache=True, nogil=True)
def _write_leaf(
    b: int,
    s: np.ndarray,
    size: int,
    depth: int,
    ring: np.ndarray,
    root_boards: np.ndarray,
    legal_actions: np.ndarray,
    n_legal: int,
    boards: np.ndarray,
    to_play: np.ndarray,
    legal: np.ndarray,
) -> None:
    """Fill slot ``b`` of a leaf batch: the boards of the last positions (this one first),
    whose turn it is and every legal action."""
    nn = size * size
    history = boards.shape[1]
    for p in range(nn):
        boards[b, 0, p] = s[p]
    for k in range(1, history):
        d = depth - k
        if d >= 1:
            boards[b, k] = ring[d % history]
        else:
            boards[b, k] = root_boards[min(-d, root_boards.shape[0] - 1)]
    to_play[b] = s[gf.header(size) + gf.F_TO_PLAY]
    legal[b, :] = False
    for i in range(n_legal):
        legal[b, legal_actions[i]] = True


@numba.njit(cache=True, nogil=True)
def _remember(s: np.ndarray, nn: int, depth: int, ring: np.ndarray) -> None:
    history = ring.shape[0]
    if history > 1:
        slot = depth % history
        for p in range(nn):
            ring[slot, p] = s[p]


@numba.njit(cache=True, nogil=True)
def run_playouts(
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
    knobs: np.ndarray,
    noise: np.ndarray,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
    counts: np.ndarray,
    policy: int,
    table: np.ndarray,
    prior: float,
    root_pass: bool,
    guide_visits: int,
    root_boards: np.ndarray,
    queue: np.ndarray,
    queued: np.ndarray,
    boards: np.ndarray,
    to_play: np.ndarray,
    legal: np.ndarray,
) -> int:
    """Up to ``count`` simulations with playouts (``policy``) and the pattern priors of
    :func:`imago.agents.go._patterns.node_priors` (weight ``prior``) on new nodes; the root's
    pass (its last edge) is chosen only when ``root_pass``; how many ran.

    With ``guide_visits > 0`` the priors of the root and of each node that ``guide_visits``
    simulations have passed through are asked of an evaluator: such a node is marked
    ``PENDING`` and queued (``queue[queued[0]]``, with its boards, colour and legal actions in
    the leaf arrays ``boards``, ``to_play``, ``legal``), and the search goes on with its current
    priors; the kernel returns once the queue is full (at once for the root), and the caller
    applies the priors (:func:`._tree.apply_priors`), which then steer the selection with the
    progressive bias."""
    nn = size * size
    h = gf.header(size)
    limit = 4 * nn + 16
    path_n = np.empty(limit, dtype=np.int64)
    path_e = np.empty(limit, dtype=np.int64)
    actions = np.empty(nn + 1, dtype=np.int64)
    legal_buf = np.empty(nn + 1, dtype=np.int64)
    first = np.zeros(nn + 1, dtype=np.int8)
    scratch = np.empty(nn + 1, dtype=np.float64)
    none = np.empty(0, dtype=np.float64)
    ring = np.zeros((boards.shape[1], nn), dtype=np.int8)
    work = np.empty_like(s0)
    amaf = rule == kt.RULE_RAVE
    capacity = queue.shape[0]
    for sim in range(count):
        if counts[0] + 1 >= ni.shape[0] or counts[1] + nn + 1 >= ei.shape[0]:
            return sim
        work[:] = s0
        node = root
        depth = 0
        while ni[node, kt.N_COUNT] > 0 and depth < limit - 1:
            if (
                guide_visits > 0
                and ni[node, kt.N_FLAGS] == 0
                and queued[0] < capacity
                and (node == root or nf[node, kt.NF_VISITS] >= guide_visits - 1)
            ):
                color = work[h + gf.F_TO_PLAY]
                n_legal = gf.legal_actions(work, size, color, suicide, ko_mode, history, legal_buf)
                _write_leaf(
                    queued[0], work, size, depth, ring, root_boards, legal_buf, n_legal, boards,
                    to_play, legal,
                )  # fmt: skip
                queue[queued[0]] = node
                queued[0] += 1
                ni[node, kt.N_FLAGS] |= kt.PENDING
                if node == root:
                    return sim
            at_root = node == root
            e = kt.select_edge(
                node,
                ni,
                nf,
                ef,
                rule,
                knobs,
                noise if at_root else none,
                scratch,
                at_root and not root_pass,
            )
            path_n[depth] = node
            path_e[depth] = e
            depth += 1
            gf.play(work, size, ei[e, kt.E_ACTION], work[h + gf.F_TO_PLAY], suicide)
            _remember(work, nn, depth, ring)
            child = ei[e, kt.E_CHILD]
            if child < 0:
                n = sensible_moves(work, size, suicide, ko_mode, history, actions)
                child = kt.add_node(work[h + gf.F_TO_PLAY], actions, n, ni, nf, ef, ei, counts)
                if child >= 0:
                    node_priors(work, size, suicide, ni[child, kt.N_FIRST], n, ei, ef, table, prior)
                ei[e, kt.E_CHILD] = child
                node = child
                break
            node = child
        first[:] = 0
        color = work[h + gf.F_TO_PLAY]
        if ni[node, kt.N_COUNT] == 0:
            value = ended_value(
                work, size, komi, suicide, max_moves, rng, first, policy, table, 0.0
            )  # a playout search: results only
        else:
            score = playout(work, size, komi, suicide, max_moves, rng, first, policy, table)
            value = kt.outcome(score if color == 1 else -score)
        kt.backup(path_n, path_e, depth, node, value, first, nn, amaf, 0.0, ni, nf, ef, ei)
        if queued[0] >= capacity and capacity > 0 and guide_visits > 0:
            return sim + 1
    return count


@numba.njit(cache=True, nogil=True)
def collect_leaves(
    roots: np.ndarray,
    want: np.ndarray,
    per_root: int,
    fulls: np.ndarray,
    keys_at: int,
    nkeys: np.ndarray,
    root_boards: np.ndarray,
    size: int,
    komi: float,
    suicide: bool,
    ko_mode: int,
    root_pass: np.ndarray,
    ended: int,
    rng: np.ndarray,
    table: np.ndarray,
    rule: int,
    knobs: np.ndarray,
    noise: np.ndarray,
    gumbel: np.ndarray,
    schedule: np.ndarray,
    started: np.ndarray,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
    counts: np.ndarray,
    leaf: np.ndarray,
    leaf_root: np.ndarray,
    path_n: np.ndarray,
    path_e: np.ndarray,
    depth_out: np.ndarray,
    boards: np.ndarray,
    to_play: np.ndarray,
    legal: np.ndarray,
    states: np.ndarray,
) -> int:
    """Go's :func:`imago.agents.othello._mcts.collect_leaves`: the roots are the games of
        a batch (``fulls``: full arrays of the rules with their superko keys at ``keys_at``,
        ``nkeys`` of them); a game ended by two passes is valued by ``ended``; ``states[b]``
    receives the leaf's state array when it has rows."""
    nn = size * size
    h = gf.header(size)
    length = gf.state_length(size)
    limit = path_n.shape[1]
    history = boards.shape[1]
    ring = np.zeros((history, nn), dtype=np.int8)
    actions = np.empty(nn + 1, dtype=np.int64)
    legal_buf = np.empty(nn + 1, dtype=np.int64)
    scratch = np.empty(nn + 1, dtype=np.float64)
    first = np.zeros(nn + 1, dtype=np.int8)
    none = np.empty(0, dtype=np.float64)
    no_first = np.zeros(1, dtype=np.int8)
    work = np.empty(length, dtype=np.int64)
    loss = knobs[kt.K_VIRTUAL_LOSS]
    b = 0
    for g in range(roots.shape[0]):
        root = roots[g]
        if root < 0:
            continue
        keys = fulls[g, keys_at : keys_at + nkeys[g]]
        for _ in range(per_root):
            if started[g] >= want[g]:
                break
            for j in range(length):
                work[j] = fulls[g, j]
            node = root
            depth = 0
            outcome_value = -1.0
            collided = False
            fresh_root = False
            while True:
                if ni[node, kt.N_COUNT] == 0:
                    weight = knobs[kt.K_SCORE_WEIGHT]
                    if ended == ENDED_AREA:
                        outcome_value = area_value(work, size, komi, weight)
                    else:
                        outcome_value = ended_value(
                            work, size, komi, suicide, 4 * nn, rng, first, POLICY_PATTERN, table,
                            weight,
                        )  # fmt: skip
                    break
                if depth == 0 and (ni[node, kt.N_FLAGS] & (kt.EVALUATED | kt.PENDING)) == 0:
                    ni[node, kt.N_FLAGS] |= kt.PENDING  # a new root: evaluated first
                    fresh_root = True
                    break
                if ni[node, kt.N_FLAGS] & kt.PENDING:
                    collided = True
                    break
                if depth >= limit - 1:
                    break  # evaluate this node again
                e = -1
                if node == root and schedule[g, 0] >= 0 and started[g] < schedule.shape[1]:
                    e = kt.gumbel_root_edge(
                        node, ni, nf, ef, knobs, gumbel[g], schedule[g, started[g]], scratch
                    )
                if e < 0:
                    noisy = node == root and noise[g, 0] >= 0
                    e = kt.select_edge(
                        node,
                        ni,
                        nf,
                        ef,
                        rule,
                        knobs,
                        noise[g] if noisy else none,
                        scratch,
                        node == root and not root_pass[g],
                    )
                kt.add_virtual_loss(node, e, nf, ef, loss)
                path_n[b, depth] = node
                path_e[b, depth] = e
                depth += 1
                gf.play(work, size, ei[e, kt.E_ACTION], work[h + gf.F_TO_PLAY], suicide)
                _remember(work, nn, depth, ring)
                child = ei[e, kt.E_CHILD]
                if child < 0:
                    n = sensible_moves(work, size, suicide, ko_mode, keys, actions)
                    child = kt.add_node(work[h + gf.F_TO_PLAY], actions, n, ni, nf, ef, ei, counts)
                    ei[e, kt.E_CHILD] = child
                    node = child
                    if n == 0:
                        continue  # the end of the game: counted above
                    ni[node, kt.N_FLAGS] |= kt.PENDING
                    break
                node = child
            if collided:
                kt.revert(path_n[b], path_e[b], depth, nf, ef, loss)
                continue
            if not fresh_root:  # a root's own evaluation is no simulation
                started[g] += 1
            if outcome_value >= 0:
                kt.backup(
                    path_n[b], path_e[b], depth, node, outcome_value, no_first, -1, False, loss,
                    ni, nf, ef, ei,
                )  # fmt: skip
                continue
            color = work[h + gf.F_TO_PLAY]
            n_legal = gf.legal_actions(work, size, color, suicide, ko_mode, keys, legal_buf)
            _write_leaf(
                b, work, size, depth, ring, root_boards[g], legal_buf, n_legal, boards, to_play,
                legal,
            )  # fmt: skip
            if states.shape[0] > 0:
                for j in range(length):
                    states[b, j] = work[j]
            leaf[b] = node
            leaf_root[b] = g
            depth_out[b] = depth
            b += 1
    return b


@numba.njit(cache=True, nogil=True)
def playout_values(
    states: np.ndarray,
    count: int,
    size: int,
    komi: float,
    suicide: bool,
    max_moves: int,
    rng: np.ndarray,
    policy: int,
    table: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[b]``: the result (1, 0.5, 0) of a playout from leaf ``b``'s position, for its
    player to move (the rows of ``states`` are played out in place)."""
    h = gf.header(size)
    first = np.zeros(size * size + 1, dtype=np.int8)
    for b in range(count):
        s = states[b]
        color = s[h + gf.F_TO_PLAY]
        score = playout(s, size, komi, suicide, max_moves, rng, first, policy, table)
        out[b] = kt.outcome(score if color == 1 else -score)
