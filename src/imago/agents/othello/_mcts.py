# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the search for Othello (8x8, 6x6, 4x4).

Positions are ``(p, o, colour)``: the discs of the player to move and of the opponent as
bitboards (square ``row * 8 + col``, smaller boards in the top-left corner, legal squares
masked by ``mask``) and the colour to move. Actions are ``row * size + col``, pass is
``size * size``. Two ways to run simulations over the tree of :mod:`._tree`:

* :func:`run_playouts`: whole simulations in numba with random playouts (UCT / MC-RAVE);
* :func:`collect_leaves` then the evaluator then :func:`._tree.apply_evaluations`: leaves of
  many roots gathered for one batched evaluation (a network), with virtual loss.
"""

from __future__ import annotations

import numba
import numpy as np

from imago.agents.mcts import _tree as kt
from imago.agents.othello._kernels import random_square
from imago.games.othello.batch import legal_into, square_of, write_board
from imago.games.othello.bitboard import final_score, flips, legal_moves, popcount

U0 = np.uint64(0)
U1 = np.uint64(1)


@numba.njit(cache=True, nogil=True)
def apply(p: np.uint64, o: np.uint64, action: int, size: int) -> tuple[np.uint64, np.uint64]:
    """The position after ``action`` (legal), with the opponent to move first."""
    if action == size * size:
        return o, p
    sq = square_of(action, size)
    f = flips(p, o, sq)
    return o ^ f, p | f | (U1 << np.uint64(sq))


@numba.njit(cache=True, nogil=True)
def playout(
    p: np.uint64,
    o: np.uint64,
    color: int,
    mask: np.uint64,
    size: int,
    rng: np.ndarray,
    first: np.ndarray,
) -> int:
    """A uniformly random game to the end from ``(p, o)`` (``color`` to move); records in
    ``first[action]`` the colour that first played each square (when 0 before). Returns the
    final disc difference for the player to move at the start, empties to the winner."""
    sign = 1
    passes = 0
    c = color
    while passes < 2:
        moves = legal_moves(p, o) & mask
        if moves == U0:
            passes += 1
        else:
            passes = 0
            sq = random_square(moves, rng)
            a = (sq >> 3) * size + (sq & 7)
            if first[a] == 0:
                first[a] = c
            f = flips(p, o, sq)
            p |= f | (U1 << np.uint64(sq))
            o ^= f
        p, o = o, p
        sign = -sign
        c = 3 - c
    return sign * final_score(p, o, popcount(mask))


@numba.njit(cache=True, nogil=True)
def run_playouts(
    root: int,
    count: int,
    p0: np.uint64,
    o0: np.uint64,
    color0: int,
    mask: np.uint64,
    size: int,
    rng: np.ndarray,
    rule: int,
    knobs: np.ndarray,
    noise: np.ndarray,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
    counts: np.ndarray,
) -> int:
    """Run up to ``count`` simulations with random playouts; how many ran (fewer when the pool
    is nearly full)."""
    nn = size * size
    limit = 2 * nn + 8
    path_n = np.empty(limit, dtype=np.int64)
    path_e = np.empty(limit, dtype=np.int64)
    actions = np.empty(nn + 1, dtype=np.int64)
    first = np.zeros(nn + 1, dtype=np.int8)
    scratch = np.empty(nn + 1, dtype=np.float64)
    none = np.empty(0, dtype=np.float64)
    amaf = rule == kt.RULE_RAVE
    for sim in range(count):
        if counts[0] + 1 >= ni.shape[0] or counts[1] + nn + 1 >= ei.shape[0]:
            return sim
        p = p0
        o = o0
        color = color0
        node = root
        depth = 0
        while ni[node, kt.N_COUNT] > 0 and depth < limit - 1:
            e = kt.select_edge(
                node, ni, nf, ef, rule, knobs, noise if node == root else none, scratch, False
            )
            path_n[depth] = node
            path_e[depth] = e
            depth += 1
            p, o = apply(p, o, ei[e, kt.E_ACTION], size)
            color = 3 - color
            child = ei[e, kt.E_CHILD]
            if child < 0:
                n = legal_into(p, o, mask, size, actions)
                child = kt.add_node(color, actions, n, ni, nf, ef, ei, counts)
                ei[e, kt.E_CHILD] = child
                node = child
                break
            node = child
        first[:] = 0
        if ni[node, kt.N_COUNT] == 0:
            value = kt.outcome(final_score(p, o, popcount(mask)))
        else:
            value = kt.outcome(playout(p, o, color, mask, size, rng, first))
        kt.backup(path_n, path_e, depth, node, value, first, nn, amaf, 0.0, ni, nf, ef, ei)
    return count


@numba.njit(cache=True, nogil=True)
def _write_leaf(
    b: int,
    p: np.uint64,
    o: np.uint64,
    color: int,
    depth: int,
    ring: np.ndarray,
    root_boards: np.ndarray,
    actions: np.ndarray,
    n: int,
    size: int,
    boards: np.ndarray,
    to_play: np.ndarray,
    legal: np.ndarray,
) -> None:
    """Fill slot ``b`` of a leaf batch: the boards of the last positions (this one first),
    whose turn it is and the legal actions."""
    history = boards.shape[1]
    black = p if color == 1 else o
    white = o if color == 1 else p
    write_board(black, white, size, boards[b, 0])
    for k in range(1, history):
        d = depth - k
        if d >= 1:
            boards[b, k] = ring[d % history]
        else:
            boards[b, k] = root_boards[min(-d, root_boards.shape[0] - 1)]
    to_play[b] = color
    legal[b, :] = False
    for i in range(n):
        legal[b, actions[i]] = True


@numba.njit(cache=True, nogil=True)
def collect_leaves(
    roots: np.ndarray,
    want: np.ndarray,
    per_root: int,
    p0: np.ndarray,
    o0: np.ndarray,
    color0: np.ndarray,
    root_boards: np.ndarray,
    mask: np.uint64,
    size: int,
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
    """Descend from every root ``g`` with ``started[g] < want[g]`` up to ``per_root`` times
    (virtual loss on the way), and gather the new leaves for one batched evaluation.

    A descent ends at a new node (it becomes ``PENDING`` and goes into the batch: its boards,
    colour to move and legal actions), at the end of the game (its value is backed up at
    once), or at a node already pending in this batch (a collision: the virtual loss is taken
    back). A root not yet evaluated is itself the first leaf (that is no simulation). Leaves'
    positions also go to ``states[b] = (p, o, colour)`` when it has rows (for evaluators that
    play the game on, such as playouts). ``noise[g]`` holds Dirichlet weights per root edge
    (used when its first entry is not negative), ``gumbel[g]`` the Gumbel noise per root edge
    and ``schedule[g]`` the visit count sequential halving wants for each simulation (all -1:
    ordinary selection at the root). ``started[g]`` counts simulations begun and finished.
    Returns the number of leaves (the pool must have room for ``per_root`` nodes per root)."""
    nn = size * size
    limit = path_n.shape[1]
    history = boards.shape[1]
    ring = np.zeros((history, nn), dtype=np.int8)
    actions = np.empty(nn + 1, dtype=np.int64)
    scratch = np.empty(nn + 1, dtype=np.float64)
    none = np.empty(0, dtype=np.float64)
    no_first = np.zeros(1, dtype=np.int8)
    loss = knobs[kt.K_VIRTUAL_LOSS]
    b = 0
    for g in range(roots.shape[0]):
        root = roots[g]
        if root < 0:
            continue
        for _ in range(per_root):
            if started[g] >= want[g]:
                break
            p = p0[g]
            o = o0[g]
            color = color0[g]
            node = root
            depth = 0
            outcome_value = -1.0
            collided = False
            fresh_root = False
            n = -1
            while True:
                if ni[node, kt.N_COUNT] == 0:
                    squares = popcount(mask)
                    outcome_value = kt.terminal_value(
                        final_score(p, o, squares), squares, knobs[kt.K_SCORE_WEIGHT]
                    )
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
                        node, ni, nf, ef, rule, knobs, noise[g] if noisy else none, scratch, False
                    )
                kt.add_virtual_loss(node, e, nf, ef, loss)
                path_n[b, depth] = node
                path_e[b, depth] = e
                depth += 1
                p, o = apply(p, o, ei[e, kt.E_ACTION], size)
                color = 3 - color
                if history > 1:
                    black = p if color == 1 else o
                    white = o if color == 1 else p
                    write_board(black, white, size, ring[depth % history])
                child = ei[e, kt.E_CHILD]
                if child < 0:
                    n = legal_into(p, o, mask, size, actions)
                    child = kt.add_node(color, actions, n, ni, nf, ef, ei, counts)
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
            if n < 0:  # a node evaluated again at the depth limit
                n = legal_into(p, o, mask, size, actions)
            _write_leaf(
                b, p, o, color, depth, ring, root_boards[g], actions, n, size, boards, to_play,
                legal,
            )  # fmt: skip
            if states.shape[0] > 0:
                states[b, 0] = p
                states[b, 1] = o
                states[b, 2] = np.uint64(color)
            leaf[b] = node
            leaf_root[b] = g
            depth_out[b] = depth
            b += 1
    return b


@numba.njit(cache=True, nogil=True)
def playout_values(
    states: np.ndarray, count: int, mask: np.uint64, size: int, rng: np.ndarray, out: np.ndarray
) -> None:
    """``out[b]``: the result (1, 0.5, 0) of a random playout from leaf ``b``'s position, for
    its player to move."""
    first = np.zeros(size * size + 1, dtype=np.int8)
    for b in range(count):
        diff = playout(states[b, 0], states[b, 1], int(states[b, 2]), mask, size, rng, first)
        out[b] = kt.outcome(diff)
