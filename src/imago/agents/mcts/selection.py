"""Selection rules: how a node's children are scored on the way down the tree.

Each rule is a small object with the formula in numpy (:meth:`SelectionRule.scores`, for reading
and tests) and ``kernel_id``, the code of the same formula in the numba kernels
(:func:`imago.agents.mcts._tree.edge_scores`, whose highest score
:func:`~imago.agents.mcts._tree.select_edge` takes), so the two can be checked against each
other score by score.
Values are win rates in ``[0, 1]`` for the player choosing.

* :class:`UCT` (Kocsis & Szepesvari 2006): ``Q + c sqrt(ln N / n)``.
* :class:`RaveUCT` (Gelly & Silver 2011, MC-RAVE): ``Q`` blended with the all-moves-as-first
  value ``Q~`` by ``beta = sqrt(k / (3 n + k))``.
* :class:`PUCT` (Silver et al. 2017, AlphaZero): ``Q + c P sqrt(N) / (1 + n)``, an unvisited
  child worth the node's value less a first-play reduction.
* :class:`Gumbel` (Danihelka et al. 2022): inside the tree, the move whose visit share lags its
  improved-policy probability most; at the root, sequential halving over Gumbel-perturbed
  priors (:mod:`imago.agents.mcts.search`).
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from imago.agents.mcts import _tree as kt
from imago.agents.mcts.config import MCTSConfig
from imago.agents.mcts.tree import ChildStats, FloatArray


class SelectionRule(Protocol):
    """Scores a node's children; ``kernel_id`` names the same formula in the kernels."""

    kernel_id: int

    def scores(
        self, stats: ChildStats, visits: float, config: MCTSConfig, value: float | None = None
    ) -> FloatArray:
        """The score of each child of a node visited ``visits`` times whose evaluated value
        (for its player to move) is ``value``; the kernel picks the first highest."""
        ...


class UCT:
    """UCB1 applied to trees: ``Q + c sqrt(ln N / n)``; unvisited children first (FPU)."""

    kernel_id = kt.RULE_UCT

    def scores(
        self, stats: ChildStats, visits: float, config: MCTSConfig, value: float | None = None
    ) -> FloatArray:
        n = stats.n
        q = np.where(n > 0, stats.w / np.maximum(n, 1), config.first_play_urgency)
        explore = config.c * np.sqrt(math.log(max(visits, 1)) / np.maximum(n, 1))
        return q + np.where(n > 0, explore, 0.0)


class RaveUCT:
    """MC-RAVE: ``(1 - beta) Q + beta Q~ + 0.3 c sqrt(ln N / n)``, ``beta = sqrt(k / (3n + k))``
    (0 for a move without AMAF statistics, such as pass); an unvisited child is judged by its
    AMAF value ``Q~`` alone (FPU when it has none)."""

    kernel_id = kt.RULE_RAVE

    def scores(
        self, stats: ChildStats, visits: float, config: MCTSConfig, value: float | None = None
    ) -> FloatArray:
        n, an = stats.n, stats.amaf_n
        q = stats.w / np.maximum(n, 1)
        qa = stats.amaf_w / np.maximum(an, 1)
        beta = np.where(an > 0, np.sqrt(config.rave_k / (3.0 * n + config.rave_k)), 0.0)
        explore = 0.3 * config.c * np.sqrt(math.log(max(visits, 1)) / np.maximum(n, 1))
        unvisited = np.where(an > 0, qa, config.first_play_urgency)
        return np.where(n > 0, (1.0 - beta) * q + beta * qa + explore, unvisited)


class PUCT:
    """AlphaZero's rule: ``Q + c P sqrt(N) / (1 + n)``. An unvisited child's ``Q`` is the
    node's value less ``fpu_reduction * sqrt(prior mass of the visited children)`` (without a
    value: ``first_play_urgency - 1``)."""

    kernel_id = kt.RULE_PUCT

    def scores(
        self, stats: ChildStats, visits: float, config: MCTSConfig, value: float | None = None
    ) -> FloatArray:
        n = stats.n
        if value is None:
            fpu = config.first_play_urgency - 1.0
        else:
            fpu = value - config.fpu_reduction * math.sqrt(float(stats.prior[n > 0].sum()))
        q = np.where(n > 0, stats.w / np.maximum(n, 1), fpu)
        return q + config.c * stats.prior * math.sqrt(max(visits, 1)) / (1.0 + n)


class Gumbel:
    """Gumbel MuZero's rule inside the tree: ``pi'(a) - n(a) / (1 + sum n)``, where ``pi'`` is
    the improved policy ``softmax(log P + sigma(completed Q))`` (:func:`improved_policy`)."""

    kernel_id = kt.RULE_GUMBEL

    def scores(
        self, stats: ChildStats, visits: float, config: MCTSConfig, value: float | None = None
    ) -> FloatArray:
        pi = improved_policy(stats, config, value)
        result: FloatArray = pi - stats.n / (1.0 + stats.n.sum())
        return result


def completed_q(stats: ChildStats, value: float | None) -> FloatArray:
    """Each child's ``Q``, with the unvisited ones given the node's mixed value (its own value
    estimate mixed with the visited children's ``Q`` by their priors)."""
    n = stats.n
    raw = 0.5 if value is None else value
    visited = n > 0
    if not visited.any():
        mixed = raw
    else:
        p = np.maximum(stats.prior[visited], 1e-12)
        q = stats.w[visited] / n[visited]
        mixed = (raw + n.sum() * float((p * q).sum() / p.sum())) / (1.0 + n.sum())
    return np.where(visited, stats.w / np.maximum(n, 1), mixed)


def improved_policy(stats: ChildStats, config: MCTSConfig, value: float | None) -> FloatArray:
    """``softmax(log P + sigma(q))`` with ``sigma(q) = (c_visit + max n) c_scale q``, ``q`` the
    completed Q rescaled to ``[0, 1]`` over the node."""
    q = completed_q(stats, value)
    span = max(float(q.max() - q.min()), 1e-8)
    sigma = (config.gumbel_visits + float(stats.n.max(initial=0.0))) * config.gumbel_scale
    logits = np.log(np.maximum(stats.prior, 1e-12)) + sigma * (q - q.min()) / span
    weights = np.exp(logits - logits.max())
    result: FloatArray = weights / weights.sum()
    return result


RULES: dict[str, SelectionRule] = {
    "uct": UCT(),
    "rave": RaveUCT(),
    "puct": PUCT(),
    "gumbel": Gumbel(),
}
"""The rules by name."""
GUMBEL = kt.RULE_GUMBEL
