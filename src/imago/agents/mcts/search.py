"""The search: one tree, one selection kernel, any evaluator, one root or many.

:class:`MCTS` grows a :class:`~imago.agents.mcts.tree.Tree` over the roots of a
:class:`~imago.agents.mcts.games.SearchGame`. Its parts are constructor arguments (the shape
of OpenSpiel's ``MCTSBot``): the :class:`~imago.agents.mcts.config.MCTSConfig`, the selection
rule (:mod:`imago.agents.mcts.selection`), the leaf evaluator
(:mod:`imago.agents.mcts.evaluators`), an optional *guide* (an evaluator whose priors steer a
playout search, as AlphaGo's policy network steered its rollouts) and the random generator
(noise).

* With :class:`~imago.agents.mcts.evaluators.RandomPlayoutEvaluator`, simulations run whole in
  numba (:meth:`SearchGame.run_playouts`); a guide's requests are answered in batches.
* With any other evaluator (a network), each round descends once (or ``per_root`` times, with
  virtual loss) from every root that still needs simulations, evaluates all the new leaves in
  one call, and backs the values up: many games searched together share each network call.

Noise is added once per search (:meth:`MCTS.begin`): Dirichlet noise mixed into the root
priors, or, under the Gumbel rule, Gumbel noise and a sequential-halving schedule at the root
(Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022).
"""

from __future__ import annotations

import math
import time

import numpy as np
import numpy.typing as npt

from imago.agents.base import StopFlag
from imago.agents.mcts import _tree as kt
from imago.agents.mcts.config import MCTSConfig
from imago.agents.mcts.evaluators import (
    Evaluator,
    FloatArray,
    IntArray,
    LeafBatch,
    RandomPlayoutEvaluator,
)
from imago.agents.mcts.games import Guide, SearchGame
from imago.agents.mcts.selection import SelectionRule
from imago.agents.mcts.tree import Tree


def halving_schedule(considered: int, simulations: int) -> IntArray:
    """Sequential halving's visit count for each simulation at the root: simulation ``i`` goes
    to a considered move that has been visited exactly ``schedule[i]`` times (mctx's
    ``get_sequence_of_considered_visits``). ``considered`` moves to start with; each phase
    gives every remaining one ``max(1, n / (log2(m) * remaining))`` visits, then halves them."""
    if considered <= 1:
        return np.arange(simulations, dtype=np.int64)
    log2 = max(1, math.ceil(math.log2(considered)))
    sequence: list[int] = []
    visits = [0] * considered
    remaining = considered
    while len(sequence) < simulations:
        extra = max(1, simulations // (log2 * remaining))
        for _ in range(extra):
            sequence.extend(visits[:remaining])
            for i in range(remaining):
                visits[i] += 1
        remaining = max(2, remaining // 2)
    return np.asarray(sequence[:simulations], dtype=np.int64)


class MCTS:
    """The search over a tree with one root per game of a :class:`SearchGame`."""

    def __init__(
        self,
        config: MCTSConfig,
        rule: SelectionRule,
        evaluator: Evaluator,
        rng: np.random.Generator,
        *,
        guide: Evaluator | None = None,
        per_root: int = 1,
    ) -> None:
        if per_root < 1:
            raise ValueError("per_root must be >= 1")
        self.config = config
        self.rule = rule
        self.evaluator = evaluator
        self.guide = guide
        self.rng = rng
        self.per_root = per_root
        self.knobs = config.knobs()
        self.fused = isinstance(evaluator, RandomPlayoutEvaluator)
        self._noise = np.full((0, 0), -1.0)
        self._gumbel = np.zeros((0, 0))
        self._schedule = np.full((0, 1), -1, dtype=np.int64)
        self._started = np.zeros(0, dtype=np.int64)
        self._leaves: LeafBatch | None = None
        self._guide_leaves: Guide | None = None

    @property
    def leaves(self) -> LeafBatch | None:
        """The leaf buffers of the last batched round (``None`` before one)."""
        return self._leaves

    @property
    def history(self) -> int:
        """Boards of history the evaluators read."""
        return max(self.evaluator.history, 1 if self.guide is None else self.guide.history)

    # -- trees -------------------------------------------------------------------------------------
    def new_tree(self, game: SearchGame) -> Tree:
        """A tree with a fresh root for every game of ``game``."""
        tree = Tree(game.num_actions, roots=game.roots)
        for g in range(game.roots):
            self.new_root(tree, game, g)
        return tree

    def new_root(self, tree: Tree, game: SearchGame, g: int) -> None:
        """Give game ``g`` a fresh root (its old subtree, if any, is left to be freed)."""
        color, actions = game.root_moves(g)
        tree.roots[g] = tree.add(color, actions)
        if self.fused:
            game.init_node(tree, int(tree.roots[g]), g)

    @property
    def started(self) -> IntArray:
        """Simulations begun (and finished) at each root in its current search."""
        return self._started

    def begin(
        self,
        tree: Tree,
        game: SearchGame,
        simulations: int,
        roots: npt.ArrayLike | None = None,
        *,
        noise: bool = True,
    ) -> None:
        """Start a search of ``simulations`` simulations at the chosen roots (default: all):
        draw their Dirichlet noise (once per search; ``noise=False``: none) and, under the
        Gumbel rule, their halving schedules (Gumbel noise: :meth:`gumbel_noise`)."""
        n_roots = game.roots
        self.knobs[kt.K_SCORE_WEIGHT] = getattr(self.evaluator, "score_weight", 0.0)
        if self._noise.shape != (n_roots, game.num_actions):
            self._started = np.zeros(n_roots, dtype=np.int64)
            self._noise = np.full((n_roots, game.num_actions), -1.0)
            self._gumbel = np.zeros((n_roots, game.num_actions))
            self._schedule = np.full((n_roots, 1), -1, dtype=np.int64)
        chosen = np.arange(n_roots) if roots is None else np.asarray(roots, dtype=np.int64)
        gumbel = self.rule.kernel_id == kt.RULE_GUMBEL
        if gumbel and self._schedule.shape[1] < simulations + 1:
            wider = np.full((n_roots, simulations + 1), -1, dtype=np.int64)
            wider[:, : self._schedule.shape[1]] = self._schedule
            self._schedule = wider
        for g in chosen:
            count = int(tree.ni[int(tree.roots[g]), kt.N_COUNT])
            self._started[g] = 0
            self._noise[g, :] = -1.0
            if gumbel:
                self._gumbel[g, :] = 0.0
                self._schedule[g, :] = -1
                considered = min(self.config.gumbel_considered, count)
                self._schedule[g, :simulations] = halving_schedule(considered, simulations)
            elif noise and count > 1:
                alpha = self.config.dirichlet_alpha or self.config.dirichlet_scale / count
                if alpha > 0:
                    self._noise[g, :count] = self.rng.dirichlet([alpha] * count)

    def gumbel_noise(self, roots: npt.ArrayLike, tree: Tree) -> None:
        """Draw Gumbel noise for the root moves of ``roots`` (sampling play: self-play's
        opening moves); without it the search picks its best move deterministically."""
        for g in np.asarray(roots, dtype=np.int64):
            count = int(tree.ni[int(tree.roots[g]), kt.N_COUNT])
            self._gumbel[g, :count] = self.rng.gumbel(size=count)

    # -- simulations -------------------------------------------------------------------------------
    def run(
        self,
        game: SearchGame,
        tree: Tree,
        simulations: int | IntArray,
        *,
        stop: StopFlag | None = None,
        deadline: float | None = None,
    ) -> int:
        """Run ``simulations`` more simulations at each root (an array: per root) of the
        current search; returns how many ran in all. ``stop`` and ``deadline`` end it early
        (checked between batches)."""
        want = np.broadcast_to(np.asarray(simulations, dtype=np.int64), (game.roots,))
        if self._started.shape[0] != game.roots:  # no search begun on these roots
            self.begin(tree, game, int(want.max()))
        if self.fused:
            return self._run_fused(game, tree, want, stop, deadline)
        return self._run_batched(game, tree, want, stop, deadline)

    def _run_fused(
        self,
        game: SearchGame,
        tree: Tree,
        want: IntArray,
        stop: StopFlag | None,
        deadline: float | None,
    ) -> int:
        guide = self._guide_queue(game)
        done = 0
        for g in range(game.roots):
            remaining = int(want[g])
            while remaining > 0:
                tree.ensure_room()
                noise = self._noise[g] if self._noise[g, 0] >= 0 else _NO_NOISE
                ran = game.run_playouts(
                    tree, g, remaining, self.rule.kernel_id, self.knobs, noise, guide
                )
                remaining -= ran
                done += ran
                self._started[g] += ran
                if guide is not None and guide.queued[0] > 0:
                    self._answer_guide(tree, guide)
                if _should_stop(stop, deadline):
                    return done
        return done

    def _guide_queue(self, game: SearchGame) -> Guide | None:
        if self.guide is None or self.config.guide_visits <= 0:
            return None
        leaves = self._guide_leaves
        if leaves is None or leaves.leaves.size != game.size:
            batch = game.leaf_batch(8, self.history, False)
            leaves = self._guide_leaves = Guide(batch, self.config.guide_visits)
        return leaves

    def _answer_guide(self, tree: Tree, guide: Guide) -> None:
        assert self.guide is not None
        count = int(guide.queued[0])
        evaluation = self.guide.evaluate(guide.leaves, count)
        priors = _checked_priors(evaluation.priors, count, tree.num_actions)
        kt.apply_priors(count, guide.leaves.node, priors, tree.ni, tree.ef, tree.ei)
        guide.queued[0] = 0

    def _leaf_buffers(self, game: SearchGame) -> LeafBatch:
        capacity = game.roots * self.per_root
        leaves = self._leaves
        if (
            leaves is None
            or leaves.capacity < capacity
            or leaves.size != game.size
            or leaves.game != game.game
            or leaves.history != self.history
        ):
            leaves = game.leaf_batch(capacity, self.history, self.evaluator.needs_states)
            self._leaves = leaves
        return leaves

    def _run_batched(
        self,
        game: SearchGame,
        tree: Tree,
        want: IntArray,
        stop: StopFlag | None,
        deadline: float | None,
    ) -> int:
        started = self._started
        target = started + want
        before = int(started.sum())
        while (started < target).any():
            begun = int(started.sum())
            count = self.step_round(game, tree, target)
            if count == 0 and int(started.sum()) == begun:
                raise RuntimeError("the search made no progress (every descent collided)")
            if _should_stop(stop, deadline):
                break
        return int(started.sum()) - before

    def step_round(self, game: SearchGame, tree: Tree, target: IntArray) -> int:
        """One round of a batched search: descend (``per_root`` times) from every root whose
        simulations begun are fewer than ``target``, evaluate the new leaves in one call, back
        them up. Returns the number of leaves evaluated."""
        leaves = self._leaf_buffers(game)
        tree.ensure_room(game.roots * self.per_root + 2)
        count = game.collect(
            tree,
            target,
            self.per_root,
            leaves,
            self.rule.kernel_id,
            self.knobs,
            self._noise,
            self._gumbel,
            self._schedule,
            self._started,
        )
        if count:
            evaluation = self.evaluator.evaluate(leaves, count)
            values = np.ascontiguousarray(evaluation.values, dtype=np.float64)
            if values.shape != (count,):
                raise ValueError(f"the evaluator answered {values.shape} values for {count} leaves")
            priors = (
                _NO_PRIORS
                if evaluation.priors is None
                else _checked_priors(evaluation.priors, count, tree.num_actions)
            )
            kt.apply_evaluations(
                count,
                leaves.node,
                leaves.path_n,
                leaves.path_e,
                leaves.depth,
                values,
                priors,
                self.config.virtual_loss,
                tree.ni,
                tree.nf,
                tree.ef,
                tree.ei,
            )
        return count

    # -- reading the roots -------------------------------------------------------------------------
    def improved_policy(self, tree: Tree, g: int) -> tuple[IntArray, FloatArray]:
        """Root ``g``'s actions and Gumbel MuZero's improved policy over them (the training
        target of a Gumbel search)."""
        root = int(tree.roots[g])
        count = int(tree.ni[root, kt.N_COUNT])
        out = np.zeros(max(count, 1), dtype=np.float64)
        kt.improved_policy(root, tree.ni, tree.nf, tree.ef, self.knobs, out)
        return tree.actions(root).copy(), out[:count]

    def gumbel_choice(self, tree: Tree, g: int) -> int:
        """The move sequential halving chose at root ``g``: among the most visited edges, the
        best by ``g + log prior + sigma(Q)``."""
        root = int(tree.roots[g])
        sl = tree.edges(root)
        visits = tree.ef[sl, kt.E_N]
        scratch = np.zeros(max(len(visits), 1))
        edge = kt.gumbel_root_edge(
            root,
            tree.ni,
            tree.nf,
            tree.ef,
            self.knobs,
            self._gumbel[g],
            float(visits.max()),
            scratch,
        )
        return int(tree.ei[edge, kt.E_ACTION])


def _should_stop(stop: StopFlag | None, deadline: float | None) -> bool:
    return (stop is not None and stop.is_set()) or (
        deadline is not None and time.perf_counter() >= deadline
    )


def _checked_priors(priors: object, count: int, num_actions: int) -> npt.NDArray[np.float64]:
    array = np.ascontiguousarray(priors, dtype=np.float64)
    if array.shape != (count, num_actions):
        raise ValueError(
            f"the evaluator answered priors of shape {array.shape} for {count} leaves of "
            f"{num_actions} actions"
        )
    return array


_NO_NOISE = np.empty(0, dtype=np.float64)
_NO_PRIORS = np.zeros((0, 1), dtype=np.float64)
