"""The numbers of a search, in one frozen object."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from imago.agents.mcts import _tree as kt

GUIDE_BIAS = 1.0
"""The default weight of a guide evaluator's progressive bias (``nnmcts``'s network). 1.0 since
the big-board network (2026-11-25): with it ``nnmcts`` won 20 of 20 games on 13x13 and 18 of 20
on 19x19 against GNU Go level 10, where 0.1, the earlier default, had won 6 of 12 and 3 of 8;
and 1.0 scored 85 % against 0.1 on 9x9 (BENCHMARKS.md at commit bcd911a, "Big boards, second
pass")."""


@dataclass(frozen=True, slots=True)
class MCTSConfig:
    """The numbers of a search (playout or network), passed to every part of it."""

    c: float = 0.7
    """Exploration constant of the selection rule (UCT / MC-RAVE; PUCT's ``c_puct`` on win
    rates in ``[0, 1]``, half of its value on the ``[-1, 1]`` scale)."""
    rave_k: float = 1000.0
    """RAVE equivalence parameter ``k``: at ``n = k / 3`` visits the two values weigh equally."""
    first_play_urgency: float = 1.1
    """UCT / MC-RAVE: the value of an unvisited child without AMAF information (above 1 tries
    each once). PUCT without a node value: this less one."""
    fpu_reduction: float = 0.2
    """PUCT: an unvisited child is worth the node's value less this times the square root of
    the prior mass already visited (Leela Zero's first-play urgency)."""
    dirichlet_alpha: float = 0.0
    """Dirichlet noise on the root priors (0: none), added once per search; AlphaZero uses
    0.03 (19x19 Go) to 0.3 (chess). A common rule is ``10 / legal moves``."""
    dirichlet_scale: float = 0.0
    """When above 0 (and ``dirichlet_alpha`` is 0): ``alpha = scale / root moves`` (KataGo's
    rule with scale 10), so the noise spreads over any number of moves alike."""
    dirichlet_fraction: float = 0.25
    resign_threshold: float = 0.05
    """Resign when the root win rate is below this (0: never)."""
    resign_min_visits: int = 200
    pass_moves: str = "always"
    """Go: when pass is among a node's moves: ``always``, or ``answer`` (only in answer to a
    pass, when it can end the game, or when no other move is sensible). Playout searches
    take ``answer``: while both sides still have moves, a playout cannot tell a pass from a
    useful move in a won position, and the search would pass on an open board."""
    settled_pass: float = 0.9
    """Go: a pass that would end the game (the opponent has just passed) is played only when
    its win rate is at least this or at most ``1 -`` this. In between, the search disagrees
    with itself about some group's fate, and the most visited other move whose win rate is
    within ``settled_pass_margin`` of the pass's is played instead: under area scoring a move in
    one's own area costs nothing, and the game goes on until the position is settled rather
    than being counted while a group's status is open."""
    settled_pass_margin: float = 0.15
    """How much lower than the pass's win rate the move played instead may score."""
    counted_pass: bool = True
    """Go: pass only when the position, counted now as a referee counts a finished game (dead
    stones off the board: :func:`imago.games.go.scoring.count`, which agrees with GNU Go's
    ``final_score``), is not a loss for the player passing; otherwise play the most visited
    other move. A search values a game ended by passes with its own count, and a network
    trained on Tromp-Taylor self-play can believe stones alive that the referee will take
    off: against a program that passes as soon as it is ahead (GNU Go), such a pass loses a
    won-looking game by a few points. Under area scoring a move in one's own area costs
    nothing, so playing on costs no points while the count says the pass would lose."""
    virtual_loss: float = 1.0
    """Visits counted as lost for a simulation in flight (batched leaf evaluation)."""
    max_playout_moves: int = 1000
    playout_policy: str = "pattern"
    """Go playouts: ``"random"`` (uniform sensible moves), ``"heavy"`` (captures and atari
    escapes answering the last move, the vital point of a killable eye space beside it, no
    self-atari of groups of two or more stones but a nakade sacrifice) or ``"pattern"`` (heavy
    plus 3x3 shape patterns around the last move)."""
    prior_weight: float = 1.0
    """Go playout search: scale of the prior virtual visits and wins given to new children."""
    guide_visits: int = 0
    """Playout search with a prior evaluator: ask it for the priors of the root and of every
    node that this many simulations have passed through (0: never)."""
    guide_bias: float = GUIDE_BIAS
    """Weight of the progressive bias ``bias * P * sqrt(N) / (1 + n)`` that the evaluator's
    priors ``P`` add to the UCT / MC-RAVE score of a node's children."""
    gumbel_visits: float = 50.0
    """Gumbel search: ``c_visit`` of ``sigma(q) = (c_visit + max n) * c_scale * q``."""
    gumbel_scale: float = 0.1
    """Gumbel search: ``c_scale``."""
    gumbel_considered: int = 16
    """Gumbel search: how many root moves sequential halving starts with (``m``)."""

    def __post_init__(self) -> None:
        if min(self.c, self.virtual_loss, self.dirichlet_alpha, self.dirichlet_scale) < 0:
            raise ValueError("c, virtual_loss, dirichlet_alpha and dirichlet_scale must be >= 0")
        if not 0 <= self.dirichlet_fraction <= 1:
            raise ValueError("dirichlet_fraction must be in [0, 1]")
        if self.pass_moves not in ("always", "answer"):
            raise ValueError("pass_moves must be always or answer")
        if self.gumbel_considered < 1:
            raise ValueError("gumbel_considered must be >= 1")

    def knobs(self) -> npt.NDArray[np.float64]:
        """The numbers the kernels read, as one array (indices ``_tree.K_*``)."""
        knobs = np.zeros(kt.KNOBS, dtype=np.float64)
        knobs[kt.K_C] = self.c
        knobs[kt.K_RAVE_K] = self.rave_k
        knobs[kt.K_FPU] = self.first_play_urgency
        knobs[kt.K_FPU_REDUCTION] = self.fpu_reduction
        knobs[kt.K_BIAS] = self.guide_bias
        knobs[kt.K_NOISE_FRACTION] = self.dirichlet_fraction
        knobs[kt.K_VIRTUAL_LOSS] = self.virtual_loss
        knobs[kt.K_GUMBEL_VISITS] = self.gumbel_visits
        knobs[kt.K_GUMBEL_SCALE] = self.gumbel_scale
        return knobs
