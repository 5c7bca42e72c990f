"""Monte Carlo tree search (``mcts``) for Go and Othello, built from parts.

One search serves random playouts today and a neural network later (the shape of OpenSpiel's
``MCTSBot`` and minigo's ``mcts.py``):

* a :class:`MCTSConfig` (frozen) holds the numbers;
* a **selection rule** scores a node's children: :class:`UCT` (Kocsis & Szepesvari 2006,
  ``Q + c * sqrt(ln N / n)``), :class:`RaveUCT` (Gelly & Silver 2011, MC-RAVE: ``Q`` blended
  with the all-moves-as-first value ``Q~`` by ``beta = sqrt(k / (3 n + k))``), or
  :class:`PUCT` (AlphaZero: ``Q + c * P * sqrt(N) / (1 + n)``);
* a **leaf evaluator** returns a value and optional priors: :class:`RandomPlayoutEvaluator`
  runs a numba random playout (Go: no filling of one's own true eyes) and reports which colour
  played each point first, for RAVE. Go playouts have three policies (``playout_policy``):
  ``random`` (uniform sensible moves), ``heavy`` (captures and atari escapes answering the
  last move, no self-atari of groups of two or more stones;
  :mod:`imago.agents._go_playout_kernels`) and ``pattern`` (the default: heavy plus MoGo-style
  3x3 shape patterns around the last move; :mod:`imago.agents._go_patterns`);
* Go **prior knowledge**: a node's children start with virtual AMAF visits and wins from
  captures, atari escapes, self-atari, edge, pattern and proximity terms
  (:func:`imago.agents._go_patterns.node_priors`, weight ``prior_weight``), so MC-RAVE tries
  sensible moves first. A Go game ended by two passes in the tree is worth, to the player who
  passed last, the worse of its Tromp-Taylor count and its played-out score (dead stones
  removed, as GNU Go and the arena score), so the agent passes only when it wins under both.
* an optional Go **prior oracle** (:class:`PriorOracle`; ``imago.nn``'s ``nnmcts`` agent
  passes a policy network): the numba loop pauses at the root and at every node that
  ``oracle_visits`` simulations have passed through, the oracle's move probabilities ``P``
  become the node's priors, and the selection adds the progressive bias
  ``oracle_bias * P * sqrt(N) / (1 + n)`` (Chaslot et al. 2008; the way AlphaGo and Leela
  mixed a policy network with playouts), so the few moves the network likes are read first.

Each node keeps its children's statistics as numpy arrays on the parent (``child_n``,
``child_w``, ``prior``, ``amaf_n``, ``amaf_w``), so a selection is one vectorised expression.
Values are win rates in ``[0, 1]`` for the player to move at the node. Virtual loss is applied
on the way down and removed on the way up, ready for batched (neural) evaluation. Dirichlet
noise at the root is a config parameter. The tree is kept between moves (reused when the new
position lies below the old root); the move played is the most visited; the agent resigns
when the root win rate falls below the resign threshold.

With ``threads > 1`` the agent searches by **root parallelisation** (Chaslot, Winands and van
den Herik 2008): each thread grows its own tree from its own seed (the numba kernels release
the GIL; an oracle is asked from each thread), and the move is chosen from the root statistics
summed over the trees. Each tree is kept and reused between moves like a single one.

Limits honoured: ``Limit.playouts`` (or ``Limit.nodes``) and ``Limit.time``; with neither, the
agent's ``playouts`` option. Deterministic for a given seed under a playout limit (threads
share the playouts out).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from imago.agents.base import (
    Agent,
    Candidate,
    InfoCallback,
    Limit,
    SearchResult,
    StopFlag,
)
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.core.move import Move

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


# -- the frozen configuration ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MCTSConfig:
    """The numbers of a search."""

    c: float = 0.7
    """Exploration constant of the selection rule."""
    rave_k: float = 1000.0
    """RAVE equivalence parameter ``k``: at ``n = k / 3`` visits the two values weigh equally."""
    first_play_urgency: float = 1.1
    """The value of an unvisited child (without AMAF information): above 1 tries each once."""
    dirichlet_alpha: float = 0.0
    """Dirichlet noise on the root priors (0: none); AlphaZero uses 0.03 (Go) to 0.3."""
    dirichlet_fraction: float = 0.25
    resign_threshold: float = 0.05
    """Resign when the root win rate is below this (0: never)."""
    resign_min_visits: int = 200
    settled_pass: float = 0.9
    """Go: a pass that would end the game (the opponent has just passed) is played only when
    its win rate is at least this or at most ``1 -`` this. In between, the playouts disagree
    about some group's fate, and the most visited other move whose win rate is within
    ``settled_pass_margin`` of the pass's is played instead: under area scoring a move in
    one's own area costs nothing, and the game goes on until the position is settled rather
    than being counted while a group's status is open (a move that fills a seki's liberty
    scores far lower, and is not chosen)."""
    settled_pass_margin: float = 0.15
    """How much lower than the pass's win rate the move played instead may score."""
    virtual_loss: int = 1
    max_playout_moves: int = 1000
    playout_policy: str = "pattern"
    """Go playouts: ``"random"`` (uniform sensible moves), ``"heavy"`` (captures and atari
    escapes answering the last move, no self-atari of groups of two or more stones) or
    ``"pattern"`` (heavy plus 3x3 shape patterns around the last move)."""
    prior_weight: float = 1.0
    """Go: scale of the prior virtual visits and wins given to new children (0: none)."""
    oracle_visits: int = 0
    """Go, with a :class:`PriorOracle`: ask it for the priors of the root and of every node
    that this many simulations have passed through (0: never)."""
    oracle_bias: float = 0.1
    """Weight of the progressive bias ``bias * P * sqrt(N) / (1 + n)`` that an oracle's priors
    ``P`` add to the UCT / MC-RAVE score of a node's children."""


# -- the game as the search sees it -------------------------------------------------------------
class SearchGame(Protocol):
    """A game's fast path for the search. Positions are opaque ``sim`` values; ``run`` does
    whole simulations with random playouts in numba."""

    num_actions: int
    pass_action: int

    def root(self) -> Any: ...

    def apply(self, sim: Any, action: int) -> Any: ...

    def legal(self, sim: Any) -> IntArray: ...

    def to_play(self, sim: Any) -> int: ...

    def final_value(self, sim: Any) -> float: ...

    def playout(self, sim: Any, first: npt.NDArray[np.int8]) -> float: ...

    def run(self, tree: Tree, count: int, rule: int, config: MCTSConfig) -> int: ...

    def init_node(self, tree: Tree, node: int, sim: Any) -> None:
        """Set the prior statistics of a node just added for position ``sim``."""
        ...

    def move(self, action: int) -> Move: ...


class _OthelloGame:
    """Othello (8x8) positions as ``(p, o, color)`` with ``p`` the player to move."""

    num_actions = 65
    pass_action = 64

    def __init__(self, state: GameState, seed: int) -> None:
        from imago.agents import _mcts_kernels as k
        from imago.agents.endgame import state_bitboards

        if state.size != 8:
            raise ValueError("the MCTS agent plays Othello on 8x8 only")
        self._k = k
        p, o = state_bitboards(state)
        self._root = (np.uint64(p), np.uint64(o), int(state.to_play))
        self._buf = np.empty(65, dtype=np.int64)
        self._rng = np.array([seed or 1], dtype=np.uint64)

    def root(self) -> Any:
        return self._root

    def apply(self, sim: Any, action: int) -> Any:
        p, o = self._k.othello_apply(sim[0], sim[1], action)
        return (np.uint64(p), np.uint64(o), 3 - sim[2])

    def legal(self, sim: Any) -> IntArray:
        n = self._k.othello_legal(sim[0], sim[1], self._buf)
        return self._buf[:n].copy()

    def to_play(self, sim: Any) -> int:
        return int(sim[2])

    def final_value(self, sim: Any) -> float:
        from imago.agents._othello_kernels import final_score

        return _outcome(int(final_score(sim[0], sim[1])))

    def playout(self, sim: Any, first: npt.NDArray[np.int8]) -> float:
        return _outcome(int(self._k.othello_playout(sim[0], sim[1], sim[2], self._rng, first)))

    def run(self, tree: Tree, count: int, rule: int, config: MCTSConfig) -> int:
        p, o, color = self._root
        return int(
            self._k.othello_run(
                tree.root,
                count,
                p,
                o,
                color,
                self._rng,
                rule,
                config.c,
                config.rave_k,
                config.first_play_urgency,
                tree.ni,
                tree.nf,
                tree.ef,
                tree.ei,
                tree.counts,
            )
        )

    def init_node(self, tree: Tree, node: int, sim: Any) -> None:
        pass

    def move(self, action: int) -> Move:
        return Move.PASS if action == 64 else Move.from_action(action, 8)


class PriorOracle(Protocol):
    """Move priors for a Go position, a policy network's for example (``imago.nn`` provides
    one): ``board`` holds ``size * size`` points (0 empty, 1 black, 2 white), ``to_play`` the
    colour to move, ``actions`` the moves the search considers (pass is ``size * size``).
    Returns one non-negative weight per action (normalised by the search). ``size`` is the
    board size it knows."""

    size: int

    def __call__(
        self, board: npt.NDArray[np.int64], to_play: int, actions: IntArray
    ) -> FloatArray: ...


class _GoGame:
    """Go positions as fastpath state arrays; superko checked against the game's history."""

    def __init__(
        self,
        state: GameState,
        config: MCTSConfig,
        seed: int,
        oracle: PriorOracle | None = None,
    ) -> None:
        from imago.agents import _mcts_kernels as k
        from imago.agents._go_patterns import pattern_table
        from imago.games.go import fastpath as gf

        rules: Any = state.rules  # type: ignore[attr-defined]
        self._k = k
        self._gf = gf
        self.size = state.size
        self.num_actions = self.size * self.size + 1
        self.pass_action = self.size * self.size
        self.komi = float(rules.komi)
        self.suicide = bool(rules.suicide_allowed)
        self.mode = gf.ko_mode(rules)
        self.history = np.asarray(state.superko_keys(), dtype=np.int64)  # type: ignore[attr-defined]
        self._root = gf.to_arrays(state)  # type: ignore[arg-type]
        self._header = 10 * self.size * self.size
        self._buf = np.empty(self.num_actions, dtype=np.int64)
        self.max_moves = config.max_playout_moves
        self._work = np.empty_like(self._root)
        self._rng = gf.seed_rng(seed)
        self.policy = _PLAYOUT_POLICIES[config.playout_policy]
        self.prior_weight = config.prior_weight
        self._table = pattern_table()
        self.oracle = oracle
        self._request = np.full(len(self._root) + 1, -1, dtype=np.int64)

    def root(self) -> Any:
        return self._root.copy()

    def apply(self, sim: Any, action: int) -> Any:
        self._gf.play(sim, self.size, action, int(sim[self._header]), self.suicide)
        return sim

    def legal(self, sim: Any) -> IntArray:
        n = self._k.go_legal(sim, self.size, self.suicide, self.mode, self.history, self._buf)
        return self._buf[:n].copy()

    def to_play(self, sim: Any) -> int:
        return int(sim[self._header])

    def final_value(self, sim: Any) -> float:
        # As in ``go_run``: the last passer gets the worse of the counted and played-out scores.
        first = np.zeros(self.num_actions, dtype=np.int8)
        return float(
            self._k._ended_value(
                sim.copy(),
                self.size,
                self.komi,
                self.suicide,
                self.max_moves,
                self._rng,
                first,
                self.policy,
                self._table,
            )
        )

    def playout(self, sim: Any, first: npt.NDArray[np.int8]) -> float:
        color = self.to_play(sim)
        self._work[:] = sim
        score = self._k.go_playout(
            self._work,
            self.size,
            self.komi,
            self.suicide,
            self.max_moves,
            self._rng,
            first,
            self.policy,
            self._table,
        )
        return self._score_value(float(score), color)

    def run(self, tree: Tree, count: int, rule: int, config: MCTSConfig) -> int:
        oracle_visits = config.oracle_visits if self.oracle is not None else 0
        done = 0
        while done < count:
            ran = self._run_kernel(tree, count - done, rule, config, oracle_visits)
            done += ran
            node = int(self._request[0])
            if node < 0:
                return done
            self._ask_oracle(tree, node, self._request[1:])
        return done

    def _ask_oracle(self, tree: Tree, node: int, sim: npt.NDArray[np.int64]) -> None:
        """Give ``node`` (position ``sim``) the oracle's priors, normalised over its edges."""
        assert self.oracle is not None
        sl = tree.edges(node)
        actions = tree.ei[sl, 0]
        nn = self.size * self.size
        answer = self.oracle(sim[:nn], int(sim[self._header]), actions)
        weights = np.maximum(np.asarray(answer, dtype=np.float64), 0.0)
        if weights.shape != actions.shape:
            raise ValueError(
                f"the prior oracle answered {weights.shape[0] if weights.ndim else 0} weights "
                f"for {len(actions)} moves"
            )
        total = float(weights.sum())
        if np.isfinite(total) and total > 0:  # else the node keeps its pattern priors
            tree.ef[sl, 4] = weights / total
        tree.ni[node, 3] = 1

    def _run_kernel(
        self, tree: Tree, count: int, rule: int, config: MCTSConfig, oracle_visits: int
    ) -> int:
        return int(
            self._k.go_run(
                tree.root,
                count,
                self._root,
                self.size,
                self.komi,
                self.suicide,
                self.mode,
                self.history,
                self.max_moves,
                self._rng,
                rule,
                config.c,
                config.rave_k,
                config.first_play_urgency,
                tree.ni,
                tree.nf,
                tree.ef,
                tree.ei,
                tree.counts,
                _PLAYOUT_POLICIES[config.playout_policy],
                self._table,
                config.prior_weight,
                config.oracle_bias,
                oracle_visits,
                self._request,
            )
        )

    def init_node(self, tree: Tree, node: int, sim: Any) -> None:
        from imago.agents._go_patterns import node_priors

        first, count = int(tree.ni[node, 0]), int(tree.ni[node, 1])
        node_priors(
            sim,
            self.size,
            self.suicide,
            first,
            count,
            tree.ei,
            tree.ef,
            self._table,
            self.prior_weight,
        )

    @staticmethod
    def _score_value(black_minus_white: float, color: int) -> float:
        mine = black_minus_white if color == 1 else -black_minus_white
        return 1.0 if mine > 0 else 0.0 if mine < 0 else 0.5

    def move(self, action: int) -> Move:
        return Move.from_action(action, self.size)


_PLAYOUT_POLICIES = {"random": 0, "heavy": 1, "pattern": 2}
"""Go playout policies by name (codes of :mod:`imago.agents._go_playout_kernels`)."""


def _outcome(diff: int) -> float:
    return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5


# -- leaf evaluators ----------------------------------------------------------------------------
@dataclass(slots=True)
class Evaluation:
    """A leaf's value (win rate for the player to move there), optional priors over its legal
    actions, and which colour first played each action afterwards (for AMAF; may be ``None``)."""

    value: float
    priors: FloatArray | None = None
    first: npt.NDArray[np.int8] | None = None


class Evaluator(Protocol):
    """Evaluates a leaf: ``evaluate(game, sim, actions) -> Evaluation``."""

    def evaluate(self, game: SearchGame, sim: Any, actions: IntArray) -> Evaluation: ...


class RandomPlayoutEvaluator:
    """One random playout to the end of the game (numba); the win (1), draw (0.5) or loss (0).

    The search recognises this evaluator and runs whole simulations inside numba
    (:meth:`SearchGame.run`), which is the same algorithm without the Python loop.
    """

    def evaluate(self, game: SearchGame, sim: Any, actions: IntArray) -> Evaluation:
        first = np.zeros(game.num_actions, dtype=np.int8)
        return Evaluation(game.playout(sim, first), None, first)


# -- selection rules ----------------------------------------------------------------------------
class SelectionRule(Protocol):
    """Scores a node's children (``scores``, numpy, for reading and tests); ``kernel_id`` names
    the same formula in the numba kernels (``_mcts_kernels.select_edge``)."""

    kernel_id: int

    def scores(self, stats: ChildStats, visits: float, config: MCTSConfig) -> FloatArray: ...


@dataclass(frozen=True, slots=True)
class ChildStats:
    """A node's children's statistics, as arrays (views into the tree's pool)."""

    n: FloatArray
    w: FloatArray
    amaf_n: FloatArray
    amaf_w: FloatArray
    prior: FloatArray


class UCT:
    """UCB1 applied to trees: ``Q + c * sqrt(ln N / n)``; unvisited children first (FPU)."""

    kernel_id = 0

    def scores(self, stats: ChildStats, visits: float, config: MCTSConfig) -> FloatArray:
        n = stats.n
        q = np.where(n > 0, stats.w / np.maximum(n, 1), config.first_play_urgency)
        explore = config.c * np.sqrt(math.log(max(visits, 1)) / np.maximum(n, 1))
        return q + np.where(n > 0, explore, 0.0)


class RaveUCT:
    """MC-RAVE: ``(1 - beta) Q + beta Q~ + 0.3 c sqrt(ln N / n)``, ``beta = sqrt(k / (3n + k))``
    (0 for a move without AMAF statistics, such as pass); an unvisited child is judged by its
    AMAF value ``Q~`` alone (FPU when it has none)."""

    kernel_id = 1

    def scores(self, stats: ChildStats, visits: float, config: MCTSConfig) -> FloatArray:
        n, an = stats.n, stats.amaf_n
        q = stats.w / np.maximum(n, 1)
        qa = stats.amaf_w / np.maximum(an, 1)
        beta = np.where(an > 0, np.sqrt(config.rave_k / (3.0 * n + config.rave_k)), 0.0)
        explore = 0.3 * config.c * np.sqrt(math.log(max(visits, 1)) / np.maximum(n, 1))
        unvisited = np.where(an > 0, qa, config.first_play_urgency)
        return np.where(n > 0, (1.0 - beta) * q + beta * qa + explore, unvisited)


class PUCT:
    """AlphaZero's rule: ``Q + c * P * sqrt(N) / (1 + n)`` (unvisited: ``Q = FPU - 1``)."""

    kernel_id = 2

    def scores(self, stats: ChildStats, visits: float, config: MCTSConfig) -> FloatArray:
        n = stats.n
        q = np.where(n > 0, stats.w / np.maximum(n, 1), config.first_play_urgency - 1.0)
        return q + config.c * stats.prior * math.sqrt(max(visits, 1)) / (1.0 + n)


# -- the tree --------------------------------------------------------------------------------------
class Tree:
    """Nodes and edges in preallocated arrays (grown by doubling). A node's children are the
    contiguous edges ``first .. first + count``: their statistics are array slices."""

    def __init__(self, num_actions: int, nodes: int = 4096) -> None:
        self.num_actions = num_actions
        self.ni = np.zeros((nodes, 4), dtype=np.int64)
        self.nf = np.zeros(nodes, dtype=np.float64)
        edges = nodes * min(num_actions, 32)
        self.ei = np.zeros((edges, 2), dtype=np.int64)
        self.ef = np.zeros((edges, 5), dtype=np.float64)
        self.counts = np.zeros(2, dtype=np.int64)
        self.root = -1

    @property
    def edges_used(self) -> int:
        return int(self.counts[1])

    def grow(self) -> None:
        """Double the pool (keeping everything in it)."""
        self.ni = _grown(self.ni)
        self.nf = _grown(self.nf)
        self.ei = _grown(self.ei)
        self.ef = _grown(self.ef)

    def ensure_room(self) -> None:
        if self.counts[0] + 2 >= len(self.nf) or self.counts[1] + 2 * self.num_actions >= len(
            self.ei
        ):
            self.grow()

    def add(self, color: int, actions: IntArray) -> int:
        from imago.agents._mcts_kernels import add_node

        self.ensure_room()
        return int(
            add_node(color, actions, len(actions), self.ni, self.nf, self.ef, self.ei, self.counts)
        )

    def edges(self, node: int) -> slice:
        first, count = int(self.ni[node, 0]), int(self.ni[node, 1])
        return slice(first, first + count)

    def stats(self, node: int) -> ChildStats:
        e = self.ef[self.edges(node)]
        return ChildStats(e[:, 0], e[:, 1], e[:, 2], e[:, 3], e[:, 4])

    def actions(self, node: int) -> IntArray:
        return self.ei[self.edges(node), 0]

    def child(self, node: int, action: int) -> int:
        """The child node reached by ``action`` (-1 when not in the tree)."""
        sl = self.edges(node)
        hits = np.flatnonzero(self.ei[sl, 0] == action)
        return int(self.ei[sl.start + int(hits[0]), 1]) if hits.size else -1


def _grown(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    bigger = np.zeros((2 * array.shape[0], *array.shape[1:]), dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


class MCTS:
    """The search. Its parts are constructor arguments: the config, the selection rule, the leaf
    evaluator and the random generator (Dirichlet noise)."""

    def __init__(
        self,
        config: MCTSConfig,
        rule: SelectionRule,
        evaluator: Evaluator,
        rng: np.random.Generator,
    ) -> None:
        self.config = config
        self.rule = rule
        self.evaluator = evaluator
        self.rng = rng

    def new_tree(self, game: SearchGame) -> Tree:
        tree = Tree(game.num_actions)
        sim = game.root()
        tree.root = tree.add(game.to_play(sim), game.legal(sim))
        game.init_node(tree, tree.root, sim)
        self.add_noise(tree)
        return tree

    def add_noise(self, tree: Tree) -> None:
        """Mix Dirichlet noise into the root priors when the config asks for it."""
        alpha = self.config.dirichlet_alpha
        sl = tree.edges(tree.root)
        k = sl.stop - sl.start
        if alpha > 0 and k > 1:
            noise = self.rng.dirichlet([alpha] * k)
            eps = self.config.dirichlet_fraction
            tree.ef[sl, 4] = (1 - eps) * tree.ef[sl, 4] + eps * noise

    def run(self, game: SearchGame, tree: Tree, count: int) -> int:
        """Run ``count`` simulations; returns how many ran."""
        if isinstance(self.evaluator, RandomPlayoutEvaluator):
            remaining = count
            while remaining > 0:
                tree.ensure_room()
                remaining -= game.run(tree, remaining, self.rule.kernel_id, self.config)
                if remaining > 0:
                    tree.grow()
            return count
        for _ in range(count):
            self.simulate(game, tree)
        return count

    def simulate(self, game: SearchGame, tree: Tree) -> None:
        """One simulation in Python with any evaluator: select with the rule's kernel, expand
        one leaf, evaluate it, back the value up (virtual loss applied on the way down)."""
        from imago.agents import _mcts_kernels as k

        config = self.config
        sim = game.root()
        node = tree.root
        path_n: list[int] = []
        path_e: list[int] = []
        vl = config.virtual_loss
        while tree.ni[node, 1] > 0:
            e = int(
                k.select_edge(
                    node,
                    tree.ni,
                    tree.nf,
                    tree.ef,
                    self.rule.kernel_id,
                    config.c,
                    config.rave_k,
                    config.first_play_urgency,
                    config.oracle_bias,
                )
            )
            path_n.append(node)
            path_e.append(e)
            tree.ef[e, 0] += vl
            sim = game.apply(sim, int(tree.ei[e, 0]))
            child = int(tree.ei[e, 1])
            if child < 0:
                child = tree.add(game.to_play(sim), game.legal(sim))
                game.init_node(tree, child, sim)
                tree.ei[e, 1] = child
                node = child
                break
            node = child
        first = np.zeros(game.num_actions, dtype=np.int8)
        if tree.ni[node, 1] == 0:
            value = game.final_value(sim)
        else:
            evaluation = self.evaluator.evaluate(game, sim, tree.actions(node))
            value = evaluation.value
            if evaluation.first is not None:
                first = evaluation.first
            if evaluation.priors is not None:
                tree.ef[tree.edges(node), 4] = evaluation.priors
        k.backup(
            np.array(path_n, dtype=np.int64),
            np.array(path_e, dtype=np.int64),
            len(path_n),
            node,
            value,
            first,
            game.pass_action,
            self.rule.kernel_id == 1,
            vl,
            tree.ni,
            tree.nf,
            tree.ef,
            tree.ei,
        )


# -- the agent ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MCTSOptions:
    """Options of the MCTS agent."""

    playouts: int = 2000
    """Simulations per move when the limit gives neither playouts, nodes nor time."""
    c: float = 0.7
    """Exploration constant."""
    rave: bool = True
    """Use MC-RAVE (all-moves-as-first values) in the selection."""
    rave_k: float = 1000.0
    resign: float = 0.05
    """Resign below this root win rate (0: never)."""
    reuse: bool = True
    """Keep the tree between moves."""
    dirichlet_alpha: float = 0.0
    playout_policy: str = "pattern"
    """Go playouts: ``random`` (uniform sensible moves), ``heavy`` (capture / atari escape
    answering the last move, no self-atari of groups of two or more stones) or ``pattern``
    (heavy plus 3x3 shape patterns around the last move)."""
    priors: float = 1.0
    """Go: weight of the prior knowledge given to new tree nodes (0: none)."""
    threads: int = 1
    """Search threads (root parallelisation: each thread grows its own tree from its own seed,
    the numba kernels run without the GIL, and the root statistics are summed to choose the
    move). Under a playout limit the playouts are shared out and the result stays
    deterministic for a seed."""


class MCTSAgent(Agent):
    """Monte Carlo tree search with random playouts, for Go and Othello (8x8).

    A Go search can be guided by a :class:`PriorOracle` (``imago.nn``'s ``nnmcts`` agent
    passes a policy network): it is asked for the priors of the root and of every node that
    ``oracle_visits`` simulations have passed through, which then add a progressive bias of
    weight ``oracle_bias`` to the selection."""

    name = "mcts"
    batch = 32
    """Simulations between checks of the clock and the stop flag."""

    def __init__(
        self,
        options: MCTSOptions,
        rng: np.random.Generator,
        oracle: PriorOracle | None = None,
        *,
        oracle_visits: int = 1,
        oracle_bias: float = 0.1,
    ) -> None:
        if oracle_visits < 1 or oracle_bias < 0:
            raise ValueError("oracle_visits must be >= 1 and oracle_bias >= 0")
        if options.playouts < 1 or options.c < 0 or not 0 <= options.resign < 1:
            raise ValueError("playouts must be >= 1, c >= 0 and resign in [0, 1)")
        if options.threads < 1:
            raise ValueError("threads must be >= 1")
        if options.playout_policy not in _PLAYOUT_POLICIES:
            raise ValueError(f"playout_policy must be one of {', '.join(_PLAYOUT_POLICIES)}")
        self.options = options
        self.rng = rng
        self.config = MCTSConfig(
            c=options.c,
            rave_k=options.rave_k,
            resign_threshold=options.resign,
            dirichlet_alpha=options.dirichlet_alpha,
            playout_policy=options.playout_policy,
            prior_weight=options.priors,
            oracle_visits=oracle_visits if oracle is not None else 0,
            oracle_bias=oracle_bias,
        )
        self.oracle = oracle
        rule: SelectionRule = RaveUCT() if options.rave else UCT()
        self.search = MCTS(self.config, rule, RandomPlayoutEvaluator(), rng)
        self._trees: list[Tree] = []
        self._root_key: int | None = None

    def reset(self) -> None:
        self._trees = []
        self._root_key = None

    def _game(self, state: GameState) -> SearchGame:
        seed = int(self.rng.integers(1, 2**62))
        if state.game == "othello":
            return _OthelloGame(state, seed)
        if state.game == "go":
            if self.oracle is not None and self.oracle.size != state.size:
                raise ValueError(
                    f"the prior oracle knows {self.oracle.size}x{self.oracle.size} Go, "
                    f"not {state.size}x{state.size}"
                )
            return _GoGame(state, self.config, seed, self.oracle)
        raise ValueError(f"the MCTS agent does not play {state.game}")

    def _reused_tree(self, state: GameState, game: SearchGame, thread: int = 0) -> Tree:
        """The last search's tree (of search thread ``thread``) re-rooted at ``state`` when it
        lies below the old root (a few moves on), else a new tree."""
        tree = self._trees[thread] if thread < len(self._trees) else None
        if self.options.reuse and tree is not None and tree.edges_used < 8_000_000:
            moves: list[Move] = []
            walk: GameState | None = state
            while walk is not None and len(moves) <= 4:
                if walk.key == self._root_key:
                    node = tree.root
                    for move in reversed(moves):
                        if move.is_resign or node < 0:
                            node = -1
                            break
                        node = tree.child(node, move.to_action(state.size))
                    if node >= 0 and tree.ni[node, 1] > 0 and _same_moves(tree, node, game):
                        tree.root = node
                        self.search.add_noise(tree)
                        return tree
                    break
                if walk.last_move is None:
                    break
                moves.append(walk.last_move)
                walk = walk.previous
        return self.search.new_tree(game)

    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        start = time.perf_counter()
        if state.is_over():
            return SearchResult(Move.PASS)
        threads = self.options.threads
        games = [self._game(state) for _ in range(threads)]
        trees = [self._reused_tree(state, game, i) for i, game in enumerate(games)]
        if trees[0].ni[trees[0].root, 1] == 0:
            return SearchResult(Move.PASS)
        playouts = limit.playouts or limit.nodes
        seconds = limit.time
        if playouts is None and seconds is None:
            playouts = self.options.playouts
        deadline = None if seconds is None else start + seconds
        if threads == 1:
            done = self._grow(games[0], trees[0], playouts, deadline, stop, on_info, start)
        else:
            done = self._grow_in_parallel(games, trees, playouts, deadline, stop, on_info, start)
        self._trees, self._root_key = trees, state.key
        result = self._settled(state, self._result(trees, games, done, time.perf_counter() - start))
        if on_info is not None:
            on_info(result)
        threshold = self.config.resign_threshold
        root_visits = sum(float(tree.nf[tree.root]) for tree in trees)
        if (
            threshold > 0
            and root_visits >= self.config.resign_min_visits
            and result.winrate is not None
            and result.winrate < threshold
        ):
            return replace(result, move=Move.RESIGN)
        return result

    def _settled(self, state: GameState, result: SearchResult) -> SearchResult:
        """``result``, or its most visited move other than pass when passing would end the game
        and the search is unsure of its outcome (``MCTSConfig.settled_pass``)."""
        certain = self.config.settled_pass
        if (
            not result.move.is_pass
            or result.winrate is None
            or not 1 - certain < result.winrate < certain
            or not state.play(Move.PASS).is_over()  # the rules say whether a pass ends it
        ):
            return result
        floor = result.winrate - self.config.settled_pass_margin  # not a seki's liberty, say
        others = [
            c
            for c in result.candidates
            if not c.move.is_pass and c.visits > 0 and (c.winrate or 0.0) >= floor
        ]
        if not others:
            return result
        move = others[0]
        return replace(
            result,
            move=move.move,
            winrate=move.winrate,
            value=move.value,
            pv=move.pv,
            depth=len(move.pv),
        )

    def _grow(
        self,
        game: SearchGame,
        tree: Tree,
        playouts: int | None,
        deadline: float | None,
        stop: StopFlag | None,
        on_info: InfoCallback | None,
        start: float,
        progress: list[int] | None = None,
        slot: int = 0,
    ) -> int:
        """Run simulations on one tree until ``playouts`` are done, the ``deadline`` passes or
        ``stop`` is set; report progress to ``on_info`` twice a second, or keep the count in
        ``progress[slot]``. How many ran."""
        done = 0
        next_info = start + 0.5
        while playouts is None or done < playouts:
            step = self.batch if playouts is None else min(self.batch, playouts - done)
            done += self.search.run(game, tree, step)
            if progress is not None:
                progress[slot] = done
            now = time.perf_counter()
            if (deadline is not None and now >= deadline) or (stop is not None and stop.is_set()):
                break
            if on_info is not None and now >= next_info:
                on_info(self._result([tree], [game], done, now - start))
                next_info = now + 0.5
        return done

    def _grow_in_parallel(
        self,
        games: list[SearchGame],
        trees: list[Tree],
        playouts: int | None,
        deadline: float | None,
        stop: StopFlag | None,
        on_info: InfoCallback | None,
        start: float,
    ) -> int:
        """:meth:`_grow` on every tree at once, one thread each (the playouts shared out); this
        thread reports the summed statistics to ``on_info``. When one thread fails, the others
        stop at their next batch and the error is raised here."""
        import threading
        from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

        failed = threading.Event()
        halt = _EitherFlag(stop, failed)

        n = len(trees)
        shares: list[int | None] = (
            [None] * n
            if playouts is None
            else [playouts // n + (i < playouts % n) for i in range(n)]
        )
        progress = [0] * n
        with ThreadPoolExecutor(max_workers=n, thread_name_prefix="imago-mcts") as pool:
            futures = [
                pool.submit(self._grow, game, tree, share, deadline, halt, None, start, progress, i)
                for i, (game, tree, share) in enumerate(zip(games, trees, shares, strict=True))
            ]
            while True:
                finished, pending = wait(futures, timeout=0.5, return_when=FIRST_EXCEPTION)
                if any(f.exception() is not None for f in finished):
                    failed.set()
                    break
                if not pending:
                    break
                if on_info is not None:
                    seconds = time.perf_counter() - start
                    on_info(self._result(trees, games, sum(progress), seconds))
            return sum(f.result() for f in futures)

    def _result(
        self, trees: list[Tree], games: list[SearchGame], done: int, seconds: float
    ) -> SearchResult:
        """The search result from the trees' root statistics, summed move by move (the PV of a
        move comes from the tree that visited it most)."""
        num = games[0].num_actions
        visits = np.zeros(num)
        wins = np.zeros(num)
        priors = np.zeros(num)
        seen = np.zeros(num, dtype=np.bool_)
        best_tree = np.zeros(num, dtype=np.int64)
        best_edge = np.full(num, -1, dtype=np.int64)
        most = np.full(num, -1.0)
        for t, tree in enumerate(trees):
            sl = tree.edges(tree.root)
            actions = tree.ei[sl, 0]
            tree_visits = tree.ef[sl, 0]
            visits[actions] += tree_visits
            wins[actions] += tree.ef[sl, 1]
            priors[actions] += tree.ef[sl, 4] / len(trees)
            seen[actions] = True
            better = tree_visits > most[actions]
            most[actions[better]] = tree_visits[better]
            best_tree[actions[better]] = t
            best_edge[actions[better]] = np.arange(sl.start, sl.stop)[better]
        actions = np.flatnonzero(seen)
        order = actions[np.argsort(-visits[actions], kind="stable")]
        candidates: list[Candidate] = []
        for a in order:
            n = int(visits[a])
            if n == 0 and candidates:
                continue
            winrate = float(wins[a] / n) if n else 0.5
            t = int(best_tree[a])
            pv = _principal_variation(trees[t], int(best_edge[a]), games[t])
            candidates.append(Candidate(pv[0], n, winrate, float(priors[a]), 2 * winrate - 1, pv))
        best = candidates[0]
        return SearchResult(
            best.move,
            winrate=best.winrate,
            value=best.value,
            pv=best.pv,
            nodes=done,
            depth=len(best.pv),
            seconds=seconds,
            candidates=tuple(candidates),
        )


@dataclass(frozen=True, slots=True)
class _EitherFlag:
    """A stop flag set when either of two is (the caller's may be absent)."""

    first: StopFlag | None
    second: StopFlag

    def is_set(self) -> bool:
        return self.second.is_set() or (self.first is not None and self.first.is_set())


def _same_moves(tree: Tree, node: int, game: SearchGame) -> bool:
    """Whether ``node``'s edges are exactly the moves legal at the search root. A node expanded
    deep in an earlier search did not know the moves that led to it as history, so under
    superko it may hold a move that repeats a position of the game as actually played."""
    edges = tree.ei[tree.edges(node), 0]
    legal = game.legal(game.root())
    return bool(len(edges) == len(legal) and np.array_equal(np.sort(edges), np.sort(legal)))


def _principal_variation(tree: Tree, edge: int, game: SearchGame) -> tuple[Move, ...]:
    moves = [game.move(int(tree.ei[edge, 0]))]
    node = int(tree.ei[edge, 1])
    while node >= 0 and tree.ni[node, 1] > 0 and len(moves) < 20:
        sl = tree.edges(node)
        i = int(np.argmax(tree.ef[sl, 0]))
        if tree.ef[sl.start + i, 0] == 0:
            break
        moves.append(game.move(int(tree.ei[sl.start + i, 0])))
        node = int(tree.ei[sl.start + i, 1])
    return tuple(moves)


def candidate_moves(result: SearchResult) -> Sequence[Move]:
    """The candidates' moves, most visited first."""
    return [c.move for c in result.candidates]


@register_agent(
    "mcts",
    MCTSOptions,
    games=("go", "othello"),
    summary="Monte Carlo tree search with playouts (UCT / MC-RAVE; Go: patterns and priors)",
)
def _make_mcts(options: MCTSOptions, rng: np.random.Generator) -> Agent:
    return MCTSAgent(options, rng)
