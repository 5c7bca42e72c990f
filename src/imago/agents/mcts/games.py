"""Each game as the search sees it: the roots (a batch of games from :mod:`imago.games`) and
the numba kernels that walk the tree for that game.

A :class:`SearchGame` wraps a :class:`~imago.games.go.batch.GoBatch` or an
:class:`~imago.games.othello.batch.OthelloBatch` whose games are the search's roots (one for an
agent thinking about a move, hundreds for self-play) and knows how to run simulations on them:
whole playout simulations in numba (:meth:`SearchGame.run_playouts`) or the gathering of leaves
for a batched evaluator (:meth:`SearchGame.collect`).
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from imago.agents.go import _mcts as _go
from imago.agents.mcts import _tree as kt
from imago.agents.mcts.config import MCTSConfig
from imago.agents.mcts.evaluators import FloatArray, IntArray, LeafBatch
from imago.agents.mcts.tree import Tree
from imago.agents.othello import _mcts as _othello
from imago.core.game import GameState
from imago.core.move import Move
from imago.games.go import fastpath as gf
from imago.games.go.batch import GoBatch
from imago.games.othello.batch import OthelloBatch, legal_into

PLAYOUT_POLICIES = {"random": 0, "heavy": 1, "pattern": 2}
"""Go playout policies by name (codes of :mod:`imago.agents.go._playouts`)."""


@functools.cache
def _pattern_table() -> npt.NDArray[np.bool_]:
    from imago.agents.go._patterns import pattern_table

    return pattern_table()


class SearchGame(Protocol):
    """A batch of games (the roots) and the kernels that search them."""

    game: str
    size: int
    num_actions: int
    pass_action: int
    batch: Any

    @property
    def roots(self) -> int:
        """How many roots (games)."""
        ...

    def root_moves(self, g: int) -> tuple[int, IntArray]:
        """The colour to move at root ``g`` and the tree's actions there."""
        ...

    def init_node(self, tree: Tree, node: int, g: int) -> None:
        """Prior knowledge for the new root node of game ``g`` (playout searches)."""
        ...

    def run_playouts(
        self,
        tree: Tree,
        g: int,
        count: int,
        rule: int,
        knobs: FloatArray,
        noise: FloatArray,
        guide: Guide | None,
    ) -> int: ...

    def collect(
        self,
        tree: Tree,
        want: IntArray,
        per_root: int,
        leaves: LeafBatch,
        rule: int,
        knobs: FloatArray,
        noise: FloatArray,
        gumbel: FloatArray,
        schedule: IntArray,
        started: IntArray,
    ) -> int: ...

    def leaf_batch(self, capacity: int, history: int, with_states: bool) -> LeafBatch: ...

    def move(self, action: int) -> Move: ...

    def readable_pv(self, g: int, actions: list[int]) -> list[int]:
        """A principal variation from root ``g`` as a reader should see it (see the Go game's)."""
        ...


class Guide:
    """The queue of nodes whose priors a playout search asks of an evaluator (see
    :func:`imago.agents.go._mcts.run_playouts`)."""

    def __init__(self, leaves: LeafBatch, visits: int) -> None:
        self.leaves = leaves
        self.visits = visits
        self.queued = np.zeros(1, dtype=np.int64)


def search_game(
    state_or_batch: GameState | GoBatch | OthelloBatch,
    config: MCTSConfig,
    seed: int,
    *,
    history: int = 1,
    ended: str = "cautious",
) -> SearchGame:
    """The search's view of a position (one root) or of a batch of games (one root each).

    ``history``: boards per game kept for evaluators that read earlier positions. ``ended``
    (Go): how a game ended by two passes in the tree is valued, ``cautious`` (the worse of the
    area count and a played-out score for the player who passed last) or ``area``."""
    source = state_or_batch
    if isinstance(source, GoBatch | OthelloBatch):
        batch = source
    elif source.game == "go":
        batch = GoBatch.from_positions([source], history=history)  # type: ignore[list-item]
    elif source.game == "othello":
        batch = OthelloBatch.from_states([source], history=history)  # type: ignore[list-item]
    else:
        raise ValueError(f"the search does not play {source.game}")
    if isinstance(batch, GoBatch):
        return GoSearchGame(batch, config, seed, ended=ended)
    return OthelloSearchGame(batch, seed)


def _leaf_batch(
    game: str,
    size: int,
    capacity: int,
    history: int,
    with_states: bool,
    state_shape: tuple[int, ...],
    state_dtype: type,
    play_out: Any,
) -> LeafBatch:
    return LeafBatch(
        game,
        size,
        history,
        capacity,
        4 * size * size + 16,
        state_shape,
        state_dtype,
        with_states,
        play_out,
    )


class OthelloSearchGame:
    """Othello roots: an :class:`OthelloBatch` (8x8, 6x6 or 4x4)."""

    game = "othello"

    def __init__(self, batch: OthelloBatch, seed: int) -> None:
        self.batch = batch
        self.size = batch.size
        self.num_actions = batch.num_actions
        self.pass_action = self.size * self.size
        self._rng = np.array([seed or 1], dtype=np.uint64)
        self._buf = np.empty(self.num_actions, dtype=np.int64)

    @property
    def roots(self) -> int:
        return self.batch.n

    def _players(self) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        return self.batch.players()

    def root_moves(self, g: int) -> tuple[int, IntArray]:
        p, o = self._players()
        n = legal_into(p[g], o[g], self.batch.mask, self.size, self._buf)
        return int(self.batch.colors[g]), self._buf[:n].copy()

    def init_node(self, tree: Tree, node: int, g: int) -> None:
        pass

    def run_playouts(
        self,
        tree: Tree,
        g: int,
        count: int,
        rule: int,
        knobs: FloatArray,
        noise: FloatArray,
        guide: Guide | None,
    ) -> int:
        if guide is not None:
            raise ValueError("a guided playout search is for Go")
        p, o = self._players()
        return int(
            _othello.run_playouts(
                int(tree.roots[g]),
                count,
                p[g],
                o[g],
                int(self.batch.colors[g]),
                self.batch.mask,
                self.size,
                self._rng,
                rule,
                knobs,
                noise,
                tree.ni,
                tree.nf,
                tree.ef,
                tree.ei,
                tree.counts,
            )
        )

    def collect(
        self,
        tree: Tree,
        want: IntArray,
        per_root: int,
        leaves: LeafBatch,
        rule: int,
        knobs: FloatArray,
        noise: FloatArray,
        gumbel: FloatArray,
        schedule: IntArray,
        started: IntArray,
    ) -> int:
        p, o = self._players()
        return int(
            _othello.collect_leaves(
                tree.roots,
                want,
                per_root,
                p,
                o,
                self.batch.colors,
                self.batch.boards,
                self.batch.mask,
                self.size,
                rule,
                knobs,
                noise,
                gumbel,
                schedule,
                started,
                tree.ni,
                tree.nf,
                tree.ef,
                tree.ei,
                tree.counts,
                leaves.node,
                leaves.root,
                leaves.path_n,
                leaves.path_e,
                leaves.depth,
                leaves.boards,
                leaves.to_play,
                leaves.legal,
                leaves.states,
            )
        )

    def _play_out(self, leaves: LeafBatch) -> Any:
        def play_out(count: int, out: FloatArray) -> None:
            _othello.playout_values(
                leaves.states, count, self.batch.mask, self.size, self._rng, out
            )

        return play_out

    def leaf_batch(self, capacity: int, history: int, with_states: bool) -> LeafBatch:
        leaves = _leaf_batch(
            "othello", self.size, capacity, history, with_states, (3,), np.uint64, None
        )
        leaves.play_out = self._play_out(leaves)
        return leaves

    def move(self, action: int) -> Move:
        return Move.PASS if action == self.pass_action else Move.from_action(action, self.size)

    def readable_pv(self, g: int, actions: list[int]) -> list[int]:
        """Othello passes only when it must: every pass of a PV is the rules'."""
        return actions


class GoSearchGame:
    """Go roots: a :class:`GoBatch`, searched with superko checked against each game's own
    history."""

    game = "go"

    def __init__(
        self, batch: GoBatch, config: MCTSConfig, seed: int, ended: str = "cautious"
    ) -> None:
        if config.playout_policy not in PLAYOUT_POLICIES:
            raise ValueError(f"playout_policy must be one of {', '.join(PLAYOUT_POLICIES)}")
        if ended not in ("cautious", "area"):
            raise ValueError("ended must be cautious or area")
        self.batch = batch
        self.size = batch.size
        self.num_actions = batch.num_actions
        self.pass_action = self.size * self.size
        self.komi = batch.komi
        self.suicide = batch.suicide_allowed
        self.mode = batch.ko_mode
        self.max_moves = config.max_playout_moves
        self.policy = PLAYOUT_POLICIES[config.playout_policy]
        self.prior_weight = config.prior_weight
        self.ended = _go.ENDED_CAUTIOUS if ended == "cautious" else _go.ENDED_AREA
        self.pass_always = config.pass_moves == "always"
        self._root_pass = np.ones(batch.n, dtype=np.bool_)
        self._pass_checked = np.full((batch.n, 3), -1, dtype=np.int64)  # roots judged
        self._rng = gf.seed_rng(seed)
        self._table = _pattern_table()
        self._buf = np.empty(self.num_actions, dtype=np.int64)
        self._length = int(gf.state_length(self.size))

    @property
    def roots(self) -> int:
        return self.batch.n

    def _root(self, g: int) -> tuple[IntArray, IntArray]:
        fulls, keys_at, counts = self.batch.arrays()
        return fulls[g, : self._length], fulls[g, keys_at : keys_at + counts[g]]

    def root_moves(self, g: int) -> tuple[int, IntArray]:
        state, keys = self._root(g)
        n = _go.sensible_moves(state, self.size, self.suicide, self.mode, keys, self._buf)
        color = int(state[gf.header(self.size) + gf.F_TO_PLAY])
        return color, self._buf[:n].copy()

    def root_pass(self) -> npt.NDArray[np.bool_]:
        """Whether each root may pass: always, or (``pass_moves="answer"``) as
        :func:`imago.agents.go._mcts.pass_is_timely` says."""
        if self.pass_always:
            return self._root_pass
        h = gf.header(self.size)
        for g in range(self.batch.n):
            state, keys = self._root(g)
            seen = tuple(int(state[h + f]) for f in (gf.F_HASH, gf.F_MOVES, gf.F_PASSES))
            if tuple(self._pass_checked[g]) == seen:
                continue  # the same root as the last call: judged once per position
            n = _go.sensible_moves(state, self.size, self.suicide, self.mode, keys, self._buf)
            self._root_pass[g] = _go.pass_is_timely(state, self.size, n)
            self._pass_checked[g] = seen
        return self._root_pass

    def init_node(self, tree: Tree, node: int, g: int) -> None:
        from imago.agents.go._patterns import node_priors

        state, _ = self._root(g)
        first, count = int(tree.ni[node, kt.N_FIRST]), int(tree.ni[node, kt.N_COUNT])
        node_priors(
            state.copy(),
            self.size,
            self.suicide,
            first,
            count,
            tree.ei,
            tree.ef,
            self._table,
            self.prior_weight,
        )

    def run_playouts(
        self,
        tree: Tree,
        g: int,
        count: int,
        rule: int,
        knobs: FloatArray,
        noise: FloatArray,
        guide: Guide | None,
    ) -> int:
        state, keys = self._root(g)
        if guide is None:
            leaves, visits, queued = _NO_GUIDE, 0, np.zeros(1, dtype=np.int64)
        else:
            leaves, visits, queued = guide.leaves, guide.visits, guide.queued
        return int(
            _go.run_playouts(
                int(tree.roots[g]),
                count,
                state,
                self.size,
                self.komi,
                self.suicide,
                self.mode,
                keys,
                self.max_moves,
                self._rng,
                rule,
                knobs,
                noise,
                tree.ni,
                tree.nf,
                tree.ef,
                tree.ei,
                tree.counts,
                self.policy,
                self._table,
                self.prior_weight,
                bool(self.root_pass()[g]),
                visits,
                self.batch.boards[g],
                leaves.node,
                queued,
                leaves.boards,
                leaves.to_play,
                leaves.legal,
            )
        )

    def collect(
        self,
        tree: Tree,
        want: IntArray,
        per_root: int,
        leaves: LeafBatch,
        rule: int,
        knobs: FloatArray,
        noise: FloatArray,
        gumbel: FloatArray,
        schedule: IntArray,
        started: IntArray,
    ) -> int:
        fulls, keys_at, counts = self.batch.arrays()
        return int(
            _go.collect_leaves(
                tree.roots,
                want,
                per_root,
                fulls,
                keys_at,
                counts,
                self.batch.boards,
                self.size,
                self.komi,
                self.suicide,
                self.mode,
                self.root_pass(),
                self.ended,
                self._rng,
                self._table,
                rule,
                knobs,
                noise,
                gumbel,
                schedule,
                started,
                tree.ni,
                tree.nf,
                tree.ef,
                tree.ei,
                tree.counts,
                leaves.node,
                leaves.root,
                leaves.path_n,
                leaves.path_e,
                leaves.depth,
                leaves.boards,
                leaves.to_play,
                leaves.legal,
                leaves.states,
            )
        )

    def _play_out(self, leaves: LeafBatch) -> Any:
        def play_out(count: int, out: FloatArray) -> None:
            _go.playout_values(
                leaves.states,
                count,
                self.size,
                self.komi,
                self.suicide,
                self.max_moves,
                self._rng,
                self.policy,
                self._table,
                out,
            )

        return play_out

    def leaf_batch(self, capacity: int, history: int, with_states: bool) -> LeafBatch:
        leaves = _leaf_batch(
            "go", self.size, capacity, history, with_states, (self._length,), np.int64, None
        )
        leaves.play_out = self._play_out(leaves)
        return leaves

    def move(self, action: int) -> Move:
        return Move.from_action(action, self.size)

    def readable_pv(self, g: int, actions: list[int]) -> list[int]:
        """``actions`` up to the first pass below the root that :func:`pass_is_timely` would
        not let the root consider (on an open board): below the root the tree keeps pass as
        a move, and at nodes of few visits it can lead them, which makes a PV read "... pass
        ..." in the middle of a game. With ``pass_moves="always"`` the PV is left whole."""
        if self.pass_always or self.pass_action not in actions[1:]:
            return actions  # nothing to judge: most PVs, and no replay on the analysis path
        state, keys = self._root(g)
        work = state.copy()
        buf = np.empty(self.num_actions, dtype=np.int64)  # its own: searches may still run
        h = gf.header(self.size)
        for i, action in enumerate(actions):
            if i > 0 and action == self.pass_action:
                n = _go.sensible_moves(work, self.size, self.suicide, self.mode, keys, buf)
                if not _go.pass_is_timely(work, self.size, n):
                    return actions[:i]
            gf.play(work, self.size, action, int(work[h + gf.F_TO_PLAY]), self.suicide)
        return actions


_NO_GUIDE = LeafBatch("go", 1, 1, 0, 1)
"""Empty leaf buffers for a playout search without a guide."""
