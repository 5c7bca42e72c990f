# mypy: disable-error-code="no-any-return,return-value,assignment"
"""Private numba kernels of the search tree, shared by every game and every evaluator.

The tree is a pool of nodes and edges in arrays (this module owns the layout; the
:class:`~imago.agents.mcts.tree.Tree` class holds the arrays)::

    ni[node] = (first edge, edge count, colour to move, flags)      int64
    nf[node] = (visits, value)                                       float64
    ei[edge] = (action, child node or -1)                            int64
    ef[edge] = (visits, wins, AMAF visits, AMAF wins, prior)         float64
    counts   = (nodes used, edges used)

A node's children are the contiguous edges ``first .. first + count``. Values are win rates in
``[0, 1]``: an edge's ``wins / visits`` is for the player to move at the node the edge leaves;
a node's ``value`` is the evaluator's estimate for the player to move there (``NaN`` when no
evaluator has seen it). Flags: ``EVALUATED`` (priors and value came from the evaluator),
``PENDING`` (waiting in a batch for the evaluator).

The search's numbers reach the kernels as one ``float64`` array of knobs (``K_*`` indices;
:meth:`imago.agents.mcts.config.MCTSConfig.knobs` builds it).
"""

from __future__ import annotations

import math

import numba
import numpy as np

N_FIRST = 0
N_COUNT = 1
N_COLOR = 2
N_FLAGS = 3
NF_VISITS = 0
NF_VALUE = 1
E_ACTION = 0
E_CHILD = 1
E_N = 0
E_W = 1
E_AN = 2
E_AW = 3
E_PRIOR = 4

EVALUATED = 1
PENDING = 2

RULE_UCT = 0
RULE_RAVE = 1
RULE_PUCT = 2
RULE_GUMBEL = 3

K_C = 0
K_RAVE_K = 1
K_FPU = 2
K_FPU_REDUCTION = 3
K_BIAS = 4
K_NOISE_FRACTION = 5
K_VIRTUAL_LOSS = 6
K_GUMBEL_VISITS = 7
K_GUMBEL_SCALE = 8
K_SCORE_WEIGHT = 9
KNOBS = 10


@numba.njit(cache=True, nogil=True)
def outcome(diff: float) -> float:
    """A result for the player ``diff`` is counted for: 1 a win, 0.5 a draw, 0 a loss."""
    return 1.0 if diff > 0 else (0.0 if diff < 0 else 0.5)


@numba.njit(cache=True, nogil=True)
def terminal_value(diff: float, area: float, weight: float) -> float:
    """A finished game's value in ``[0, 1]`` for the player ``diff`` is counted for: its result
    (1 win, 0.5 draw, 0 loss) with ``weight`` of it the final margin over the board's ``area``
    instead (clipped), on the scale of a value head trained with that share of margin
    (:attr:`imago.agents.mcts.MCTSConfig.score_weight`)."""
    margin = min(1.0, max(-1.0, diff / area))
    return (1.0 - weight) * outcome(diff) + weight * (0.5 + 0.5 * margin)


@numba.njit(cache=True, nogil=True)
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
    ni[node, N_FIRST] = first
    ni[node, N_COUNT] = n_actions
    ni[node, N_COLOR] = color
    ni[node, N_FLAGS] = 0
    nf[node, NF_VISITS] = 0.0
    nf[node, NF_VALUE] = np.nan
    prior = 1.0 / max(n_actions, 1)
    for i in range(n_actions):
        e = first + i
        ei[e, E_ACTION] = actions[i]
        ei[e, E_CHILD] = -1
        ef[e, E_N] = 0.0
        ef[e, E_W] = 0.0
        ef[e, E_AN] = 0.0
        ef[e, E_AW] = 0.0
        ef[e, E_PRIOR] = prior
    return node


@numba.njit(cache=True, nogil=True)
def _mixed_value(node: int, ni: np.ndarray, nf: np.ndarray, ef: np.ndarray) -> float:
    """Gumbel MuZero's value of a node for completing unvisited children's Q: the node's own
    value estimate mixed with its visited children's Q, weighted by their priors."""
    first = ni[node, N_FIRST]
    count = ni[node, N_COUNT]
    raw = nf[node, NF_VALUE]
    if raw != raw:  # NaN: no estimate
        raw = 0.5
    visits = 0.0
    mass = 0.0
    weighted = 0.0
    for e in range(first, first + count):
        n = ef[e, E_N]
        if n > 0:
            visits += n
            p = max(ef[e, E_PRIOR], 1e-12)
            mass += p
            weighted += p * ef[e, E_W] / n
    if visits == 0:
        return raw
    return (raw + visits * weighted / mass) / (1.0 + visits)


@numba.njit(cache=True, nogil=True)
def completed_scores(
    node: int, ni: np.ndarray, nf: np.ndarray, ef: np.ndarray, knobs: np.ndarray, out: np.ndarray
) -> None:
    """``out[i] = sigma(q_i)`` for the node's edges: completed Q (unvisited: the mixed value),
    rescaled to ``[0, 1]`` over the node, times ``(GUMBEL_VISITS + max visits) * SCALE``
    (Danihelka et al. 2022, as mctx's ``qtransform_completed_by_mix_value``)."""
    first = ni[node, N_FIRST]
    count = ni[node, N_COUNT]
    mixed = _mixed_value(node, ni, nf, ef)
    low = 1e300
    high = -1e300
    most = 0.0
    for i in range(count):
        e = first + i
        n = ef[e, E_N]
        q = ef[e, E_W] / n if n > 0 else mixed
        out[i] = q
        low = min(low, q)
        high = max(high, q)
        most = max(most, n)
    span = max(high - low, 1e-8)
    scale = (knobs[K_GUMBEL_VISITS] + most) * knobs[K_GUMBEL_SCALE]
    for i in range(count):
        out[i] = scale * (out[i] - low) / span


@numba.njit(cache=True, nogil=True)
def improved_policy(
    node: int, ni: np.ndarray, nf: np.ndarray, ef: np.ndarray, knobs: np.ndarray, out: np.ndarray
) -> None:
    """``out[i]`` = ``softmax(log prior + sigma(completed Q))`` over the node's edges: Gumbel
    MuZero's improved policy (the selection target inside the tree, the training target at the
    root)."""
    first = ni[node, N_FIRST]
    count = ni[node, N_COUNT]
    completed_scores(node, ni, nf, ef, knobs, out)
    top = -1e300
    for i in range(count):
        out[i] += math.log(max(ef[first + i, E_PRIOR], 1e-12))
        top = max(top, out[i])
    total = 0.0
    for i in range(count):
        out[i] = math.exp(out[i] - top)
        total += out[i]
    for i in range(count):
        out[i] /= total


@numba.njit(cache=True, nogil=True, inline="always")
def edge_scores(
    node: int,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    rule: int,
    knobs: np.ndarray,
    noise: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[i]`` = the score under ``rule`` of the node's ``i``-th edge (``out`` has room for
    the node's edges); :func:`select_edge` takes the highest.

    * UCT: ``Q + c sqrt(ln N / n)``; unvisited children first (``FPU``).
    * MC-RAVE: ``(1 - beta) Q + beta Q~ + 0.3 c sqrt(ln N / n)``, ``beta = sqrt(k / (3n + k))``.
    * PUCT: ``Q + c P sqrt(N) / (1 + n)``; an unvisited child's ``Q`` is the node's value less
      ``FPU_REDUCTION * sqrt(visited prior mass)`` (the node's value unknown: ``FPU - 1``).
    * Gumbel (inside the tree): ``pi'(a) - n(a) / (1 + sum n)`` with ``pi'`` the improved
      policy (:func:`improved_policy`).

    UCT and MC-RAVE on a node whose priors came from the evaluator add the progressive bias
    ``BIAS * P * sqrt(N) / (1 + n)``. ``noise`` (empty, or one weight per edge) is mixed into
    the priors by ``NOISE_FRACTION`` (Dirichlet noise at the root).
    """
    first = ni[node, N_FIRST]
    count = ni[node, N_COUNT]
    if rule == RULE_GUMBEL:
        improved_policy(node, ni, nf, ef, knobs, out)
        total = 0.0
        for e in range(first, first + count):
            total += ef[e, E_N]
        for i in range(count):
            out[i] -= ef[first + i, E_N] / (1.0 + total)
        return
    c = knobs[K_C]
    total = max(nf[node, NF_VISITS], 1.0)
    log_n = np.log(total)
    sqrt_n = np.sqrt(total)
    noisy = noise.shape[0] >= count and count > 0
    eps = knobs[K_NOISE_FRACTION]
    fpu = knobs[K_FPU]
    if rule == RULE_PUCT:
        value = nf[node, NF_VALUE]
        if value == value:  # the evaluator's estimate for this node
            mass = 0.0
            for e in range(first, first + count):
                if ef[e, E_N] > 0:
                    mass += ef[e, E_PRIOR]
            fpu = value - knobs[K_FPU_REDUCTION] * np.sqrt(mass)
        else:
            fpu = fpu - 1.0
    guided = rule != RULE_PUCT and (ni[node, N_FLAGS] & EVALUATED) != 0 and knobs[K_BIAS] > 0.0
    for i in range(count):
        e = first + i
        n = ef[e, E_N]
        w = ef[e, E_W]
        prior = ef[e, E_PRIOR]
        if noisy:
            prior = (1.0 - eps) * prior + eps * noise[i]
        if rule == RULE_UCT:
            s = fpu if n == 0 else w / n + c * np.sqrt(log_n / n)
        elif rule == RULE_RAVE:
            an = ef[e, E_AN]
            if n == 0:
                s = ef[e, E_AW] / an if an > 0 else fpu
            elif an == 0:
                s = w / n + 0.3 * c * np.sqrt(log_n / n)
            else:
                beta = np.sqrt(knobs[K_RAVE_K] / (3.0 * n + knobs[K_RAVE_K]))
                qa = ef[e, E_AW] / an
                s = (1.0 - beta) * (w / n) + beta * qa + 0.3 * c * np.sqrt(log_n / n)
        else:
            q = w / n if n > 0 else fpu
            s = q + c * prior * sqrt_n / (1.0 + n)
        if guided:
            s += knobs[K_BIAS] * prior * sqrt_n / (1.0 + n)
        out[i] = s


@numba.njit(cache=True, nogil=True)
def select_edge(
    node: int,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    rule: int,
    knobs: np.ndarray,
    noise: np.ndarray,
    scratch: np.ndarray,
    skip_last: bool,
) -> int:
    """The child edge of ``node`` with the highest :func:`edge_scores` under ``rule`` (first
    on ties); with ``skip_last`` (and more than one edge) the last edge (a Go pass) is never
    chosen. ``scratch`` has room for the node's edges."""
    first = ni[node, N_FIRST]
    count = ni[node, N_COUNT]
    choices = count - 1 if skip_last and count > 1 else count
    edge_scores(node, ni, nf, ef, rule, knobs, noise, scratch)
    best = -1e300
    best_e = first
    for i in range(choices):
        if scratch[i] > best:
            best = scratch[i]
            best_e = first + i
    return best_e


@numba.njit(cache=True, nogil=True)
def gumbel_root_edge(
    node: int,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    knobs: np.ndarray,
    gumbel: np.ndarray,
    visits: float,
    scratch: np.ndarray,
) -> int:
    """Sequential halving at the root (Gumbel AlphaZero): among the edges visited exactly
    ``visits`` times (the schedule's count for this simulation), the one with the highest
    ``g + log prior + sigma(Q)``; ``gumbel`` holds ``g`` per edge (zeros without noise).
    -1 when no edge has that count."""
    first = ni[node, N_FIRST]
    count = ni[node, N_COUNT]
    completed_scores(node, ni, nf, ef, knobs, scratch)
    best = -1e300
    best_e = -1
    for i in range(count):
        e = first + i
        if ef[e, E_N] != visits:
            continue
        s = gumbel[i] + math.log(max(ef[e, E_PRIOR], 1e-12)) + scratch[i]
        if s > best:
            best = s
            best_e = e
    return best_e


@numba.njit(cache=True, nogil=True)
def add_virtual_loss(node: int, e: int, nf: np.ndarray, ef: np.ndarray, loss: float) -> None:
    """Count a simulation in flight through edge ``e`` of ``node`` as ``loss`` lost visits."""
    nf[node, NF_VISITS] += loss
    ef[e, E_N] += loss


@numba.njit(cache=True, nogil=True)
def revert(
    path_n: np.ndarray, path_e: np.ndarray, depth: int, nf: np.ndarray, ef: np.ndarray, loss: float
) -> None:
    """Take back the virtual loss of a simulation that was abandoned (a collision)."""
    for d in range(depth):
        nf[path_n[d], NF_VISITS] -= loss
        ef[path_e[d], E_N] -= loss


@numba.njit(cache=True, nogil=True)
def backup(
    path_n: np.ndarray,
    path_e: np.ndarray,
    depth: int,
    leaf: int,
    value: float,
    first: np.ndarray,
    pass_action: int,
    amaf: bool,
    loss: float,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
) -> None:
    """Add a simulation's ``value`` (win rate for the leaf's player to move) along the path,
    removing the virtual ``loss``; with ``amaf``, also update the AMAF statistics of every
    node on the path from ``first`` (the colour that first played each point afterwards)."""
    leaf_color = ni[leaf, N_COLOR]
    nf[leaf, NF_VISITS] += 1.0
    for d in range(depth - 1, -1, -1):
        node = path_n[d]
        e = path_e[d]
        color = ni[node, N_COLOR]
        mine = value if color == leaf_color else 1.0 - value
        nf[node, NF_VISITS] += 1.0 - loss
        ef[e, E_N] += 1.0 - loss
        ef[e, E_W] += mine
        if amaf:
            a = ei[e, E_ACTION]
            if a != pass_action:
                first[a] = color
            start = ni[node, N_FIRST]
            for e2 in range(start, start + ni[node, N_COUNT]):
                if first[ei[e2, E_ACTION]] == color:
                    ef[e2, E_AN] += 1.0
                    ef[e2, E_AW] += mine


@numba.njit(cache=True, nogil=True)
def set_priors(
    node: int, probs: np.ndarray, ni: np.ndarray, ef: np.ndarray, ei: np.ndarray
) -> None:
    """The node's edge priors from per-action probabilities ``probs``, normalised over its
    edges (uniform when they hold no weight)."""
    first = ni[node, N_FIRST]
    count = ni[node, N_COUNT]
    total = 0.0
    for e in range(first, first + count):
        total += max(probs[ei[e, E_ACTION]], 0.0)
    for e in range(first, first + count):
        if total > 0 and total == total:
            ef[e, E_PRIOR] = max(probs[ei[e, E_ACTION]], 0.0) / total
        else:
            ef[e, E_PRIOR] = 1.0 / count


@numba.njit(cache=True, nogil=True)
def apply_evaluations(
    count: int,
    leaf: np.ndarray,
    path_n: np.ndarray,
    path_e: np.ndarray,
    depth: np.ndarray,
    values: np.ndarray,
    probs: np.ndarray,
    loss: float,
    ni: np.ndarray,
    nf: np.ndarray,
    ef: np.ndarray,
    ei: np.ndarray,
) -> None:
    """Give each of ``count`` pending leaves its evaluation (priors from ``probs[b]`` when it
    has not had them yet, value ``values[b]`` for its player to move) and back the value up
    its path, removing the virtual ``loss``."""
    no_first = np.zeros(1, dtype=np.int8)
    has_priors = probs.shape[0] > 0
    for b in range(count):
        node = leaf[b]
        flags = ni[node, N_FLAGS]
        if (flags & EVALUATED) == 0:
            if has_priors:
                set_priors(node, probs[b], ni, ef, ei)
            nf[node, NF_VALUE] = values[b]
            ni[node, N_FLAGS] = (flags | EVALUATED) & ~PENDING
        backup(
            path_n[b], path_e[b], depth[b], node, values[b], no_first, -1, False, loss, ni, nf,
            ef, ei,
        )  # fmt: skip


@numba.njit(cache=True, nogil=True)
def apply_priors(
    count: int, nodes: np.ndarray, probs: np.ndarray, ni: np.ndarray, ef: np.ndarray, ei: np.ndarray
) -> None:
    """Give each of ``count`` nodes the evaluator's priors (the progressive-bias guidance of
    playout searches); no value is backed up."""
    for b in range(count):
        node = nodes[b]
        set_priors(node, probs[b], ni, ef, ei)
        ni[node, N_FLAGS] = (ni[node, N_FLAGS] | EVALUATED) & ~PENDING


@numba.njit(cache=True, nogil=True)
def copy_subtrees(
    roots: np.ndarray,
    ni: np.ndarray,
    nf: np.ndarray,
    ei: np.ndarray,
    ef: np.ndarray,
    ni2: np.ndarray,
    nf2: np.ndarray,
    ei2: np.ndarray,
    ef2: np.ndarray,
    counts2: np.ndarray,
    new_roots: np.ndarray,
) -> bool:
    """Copy the subtrees below ``roots`` (``-1``: none) into the empty pool ``ni2 ...``
    (breadth first, so each node's children stay contiguous), writing where each root went
    into ``new_roots``. False when the new pool is too small (it is then garbage)."""
    queue_old = np.empty(ni.shape[0], dtype=np.int64)
    queue_new = np.empty(ni.shape[0], dtype=np.int64)
    counts2[0] = 0
    counts2[1] = 0
    for r in range(roots.shape[0]):
        old = roots[r]
        if old < 0:
            new_roots[r] = -1
            continue
        if counts2[0] >= ni2.shape[0]:
            return False
        node = counts2[0]
        counts2[0] += 1
        ni2[node] = ni[old]
        nf2[node] = nf[old]
        new_roots[r] = node
        head = 0
        tail = 0
        queue_old[tail] = old
        queue_new[tail] = node
        tail += 1
        while head < tail:
            src = queue_old[head]
            dst = queue_new[head]
            head += 1
            first = ni[src, N_FIRST]
            count = ni[src, N_COUNT]
            if counts2[1] + count > ei2.shape[0]:
                return False
            base = counts2[1]
            counts2[1] += count
            ni2[dst, N_FIRST] = base
            for i in range(count):
                ei2[base + i] = ei[first + i]
                ef2[base + i] = ef[first + i]
                child = ei[first + i, E_CHILD]
                if child >= 0:
                    if counts2[0] >= ni2.shape[0] or tail >= queue_old.shape[0]:
                        return False
                    c2 = counts2[0]
                    counts2[0] += 1
                    ni2[c2] = ni[child]
                    nf2[c2] = nf[child]
                    ei2[base + i, E_CHILD] = c2
                    queue_old[tail] = child
                    queue_new[tail] = c2
                    tail += 1
    return True


@numba.njit(cache=True, nogil=True)
def subtree_size(root: int, ni: np.ndarray, ei: np.ndarray) -> tuple[int, int]:
    """``(nodes, edges)`` in the subtree below ``root``."""
    stack = np.empty(ni.shape[0], dtype=np.int64)
    top = 0
    stack[top] = root
    top += 1
    nodes = 0
    edges = 0
    while top > 0:
        top -= 1
        node = stack[top]
        nodes += 1
        first = ni[node, N_FIRST]
        count = ni[node, N_COUNT]
        edges += count
        for e in range(first, first + count):
            child = ei[e, E_CHILD]
            if child >= 0:
                stack[top] = child
                top += 1
    return nodes, edges
