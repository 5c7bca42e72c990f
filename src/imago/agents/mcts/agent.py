"""Agents that search with :class:`~imago.agents.mcts.search.MCTS`: the ``mcts`` agent (random
playouts) and the base that network agents (``imago.nn``'s ``az`` and ``nnmcts``) build on.

:class:`SearchAgent` holds what every search agent does the same way: limits (simulations or
time, a stop flag), tree reuse between moves, root parallelisation over threads, interim
analysis for GUIs, resignation, and the Go rule that a game-ending pass needs a settled result.
A subclass says which search to run (:meth:`SearchAgent.make_search`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace

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
from imago.agents.mcts import _tree as kt
from imago.agents.mcts.config import GUIDE_BIAS, MCTSConfig
from imago.agents.mcts.evaluators import Evaluator, RandomPlayoutEvaluator
from imago.agents.mcts.games import PLAYOUT_POLICIES, SearchGame, search_game
from imago.agents.mcts.search import MCTS
from imago.agents.mcts.selection import PUCT, UCT, RaveUCT, SelectionRule
from imago.agents.mcts.timing import TimeOptions, TimeUse
from imago.agents.mcts.tree import Tree
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.core.move import Move


class SearchAgent(Agent):
    """A Monte Carlo tree search agent (see the module docstring). ``simulations`` is the
    default per move when the limit gives neither playouts, nodes nor time; ``chunk`` how many
    simulations run between checks of the clock and the stop flag; ``time_use`` when a search
    under a time limit stops before it (:mod:`~imago.agents.mcts.timing`; by default never)."""

    name = "search"
    chunk = 32

    def __init__(
        self,
        config: MCTSConfig,
        rng: np.random.Generator,
        *,
        simulations: int,
        threads: int = 1,
        reuse: bool = True,
        ended: str = "cautious",
        time_use: TimeUse | None = None,
    ) -> None:
        if simulations < 1:
            raise ValueError("simulations (playouts) must be >= 1")
        if threads < 1:
            raise ValueError("threads must be >= 1")
        self.config = config
        self.rng = rng
        self.simulations = simulations
        self.threads = threads
        self.reuse = reuse
        self.ended = ended
        self.time_use = time_use or TimeUse()
        self._searches = [self.make_search() for _ in range(threads)]
        self._trees: list[Tree] = []
        self._root_key: int | None = None
        self._banked = 0.0  # seconds kept for later moves (time_use.bank)

    # -- what a subclass decides -------------------------------------------------------------------
    def make_search(self) -> MCTS:
        """The search of one thread (a new one for each thread)."""
        raise NotImplementedError

    def make_game(self, state: GameState, search: MCTS) -> SearchGame:
        """The search's view of ``state`` (one root)."""
        seed = int(self.rng.integers(1, 2**62))
        return search_game(state, self.config, seed, history=search.history, ended=self.ended)

    @property
    def search(self) -> MCTS:
        """The (first thread's) search."""
        return self._searches[0]

    # -- the agent ---------------------------------------------------------------------------------
    def reset(self) -> None:
        self._trees = []
        self._root_key = None
        self._banked = 0.0

    def close(self) -> None:
        """Release what the searches' evaluators hold (an evaluator with a ``close`` method:
        ``MixedEvaluator``'s playout thread)."""
        for search in self._searches:
            close = getattr(search.evaluator, "close", None)
            if callable(close):
                close()

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
        games = [self.make_game(state, search) for search in self._searches]
        trees = [self._tree_for(state, game, i) for i, game in enumerate(games)]
        if trees[0].ni[trees[0].root, kt.N_COUNT] == 0:
            return SearchResult(Move.PASS)
        playouts = limit.playouts or limit.nodes
        seconds = limit.time
        if playouts is None and seconds is None:
            playouts = self.simulations
        # under a time limit with early stops: `target` seconds, at most `move_seconds`
        target = seconds if playouts is None and self._stops_early() else None
        move_seconds, enough = seconds, None
        if target is not None:
            move_seconds = self.time_use.move_limit(target, self._banked)
            enough = self._enough(trees, games[0].num_actions, start, target, move_seconds)
        deadline = None if move_seconds is None else start + move_seconds
        shares = _shares(playouts, len(trees))
        for search, game, tree, share in zip(self._searches, games, trees, shares, strict=True):
            search.begin(tree, game, share if share is not None else self.simulations)
        if len(trees) == 1:
            done = self._grow(
                0, games[0], trees[0], shares[0], deadline, stop, on_info, start, enough=enough
            )
        else:
            done = self._grow_in_parallel(
                games, trees, shares, deadline, stop, on_info, start, enough
            )
        self._trees, self._root_key = trees, state.key
        result = self._settled(state, self._result(trees, games, done, time.perf_counter() - start))
        if target is not None:
            used = time.perf_counter() - start
            self._banked = self.time_use.banked_after(target, self._banked, used)
        if on_info is not None:
            on_info(result)
        threshold = self.config.resign_threshold
        root_visits = sum(tree.visits(tree.root) for tree in trees)
        if (
            threshold > 0
            and root_visits >= self.config.resign_min_visits
            and result.winrate is not None
            and result.winrate < threshold
        ):
            return replace(result, move=Move.RESIGN)
        return result

    def _stops_early(self) -> bool:
        """Whether a search under a time limit may stop before it (``time_use``; never under
        Gumbel's rule, whose move is not simply the most visited)."""
        rule = self._searches[0].rule.kernel_id
        return self.time_use.stops_early and rule != kt.RULE_GUMBEL

    def _enough(
        self, trees: list[Tree], num: int, start: float, target: float, limit: float
    ) -> _Enough:
        """The check that stops a search given ``target`` seconds (at most ``limit``) early."""
        time_use = self.time_use

        def enough(done: int) -> bool:
            visits, wins = _root_totals(trees, num)
            elapsed = time.perf_counter() - start
            return time_use.should_stop(
                visits, wins, elapsed=elapsed, target=target, limit=limit, done=done
            )

        return enough

    def _tree_for(self, state: GameState, game: SearchGame, thread: int) -> Tree:
        """The last search's subtree below ``state`` when it lies a few moves below the old
        root (and its moves are exactly the legal ones), else a new tree."""
        search = self._searches[thread]
        tree = self._trees[thread] if thread < len(self._trees) else None
        if self.reuse and tree is not None and self._reusable(search):
            node = self._node_below(tree, state)
            if node >= 0 and _same_moves(tree, node, game):
                tree.keep(np.array([node]))
                return tree
        return search.new_tree(game)

    @staticmethod
    def _reusable(search: MCTS) -> bool:
        return search.rule.kernel_id != kt.RULE_GUMBEL  # its halving starts from no visits

    def _node_below(self, tree: Tree, state: GameState) -> int:
        moves: list[Move] = []
        walk: GameState | None = state
        while walk is not None and len(moves) <= 4:
            if walk.key == self._root_key:
                node = tree.root
                for move in reversed(moves):
                    if move.is_resign or node < 0:
                        return -1
                    node = tree.child(node, move.to_action(state.size))
                return node if node >= 0 and tree.ni[node, kt.N_COUNT] > 0 else -1
            if walk.last_move is None:
                return -1
            moves.append(walk.last_move)
            walk = walk.previous
        return -1

    def _grow(
        self,
        thread: int,
        game: SearchGame,
        tree: Tree,
        playouts: int | None,
        deadline: float | None,
        stop: StopFlag | None,
        on_info: InfoCallback | None,
        start: float,
        progress: list[int] | None = None,
        enough: _Enough | None = None,
    ) -> int:
        """Run simulations on one tree until ``playouts`` are done, the ``deadline`` passes (after
        one simulation at least), ``stop`` is set or ``enough`` says so; report progress to
        ``on_info`` twice a second, or keep the count in ``progress[thread]``. How many ran."""
        search = self._searches[thread]
        done = 0
        next_info = start + 0.5
        while playouts is None or done < playouts:
            step = self.chunk if playouts is None else min(self.chunk, playouts - done)
            # the first simulation runs whatever the clock says (a slow start, a loaded
            # machine): a move from an unsearched root would ignore even the priors
            first = done == 0 and deadline is not None
            ran = search.run(
                game, tree, 1 if first else step, stop=stop, deadline=None if first else deadline
            )
            done += ran
            if progress is not None:
                progress[thread] = done
            now = time.perf_counter()
            if (deadline is not None and now >= deadline) or (stop is not None and stop.is_set()):
                break
            if ran == 0 or (enough is not None and enough(done)):
                break
            if on_info is not None and now >= next_info:
                on_info(self._result([tree], [game], done, now - start))
                next_info = now + 0.5
        return done

    def _grow_in_parallel(
        self,
        games: list[SearchGame],
        trees: list[Tree],
        shares: list[int | None],
        deadline: float | None,
        stop: StopFlag | None,
        on_info: InfoCallback | None,
        start: float,
        enough: _Enough | None = None,
    ) -> int:
        """:meth:`_grow` on every tree at once, one thread each (the numba kernels release the
        GIL); this thread reports the summed statistics to ``on_info`` and asks ``enough``
        (over all trees) every :data:`CHECK_SECONDS`. When one thread fails, the others stop at
        their next chunk and the error is raised here."""
        failed = threading.Event()
        settled = threading.Event()
        halt = _AnyFlag((stop, failed, settled))
        n = len(trees)
        progress = [0] * n
        with ThreadPoolExecutor(max_workers=n, thread_name_prefix="imago-mcts") as pool:
            futures = [
                pool.submit(
                    self._grow,
                    i,
                    games[i],
                    trees[i],
                    shares[i],
                    deadline,
                    halt,
                    None,
                    start,
                    progress,
                )
                for i in range(n)
            ]
            wait_seconds = 0.5 if enough is None else CHECK_SECONDS
            next_info = start + 0.5
            while True:
                finished, pending = wait(futures, timeout=wait_seconds, return_when=FIRST_EXCEPTION)
                if any(f.exception() is not None for f in finished):
                    failed.set()
                    break
                if not pending:
                    break
                if enough is not None and enough(sum(progress)):
                    settled.set()
                now = time.perf_counter()
                if on_info is not None and now >= next_info:
                    on_info(self._result(trees, games, sum(progress), now - start))
                    next_info = now + 0.5
            return sum(f.result() for f in futures)

    # -- the result --------------------------------------------------------------------------------
    def _result(
        self, trees: list[Tree], games: list[SearchGame], done: int, seconds: float
    ) -> SearchResult:
        """The search result from the trees' root statistics, summed move by move (the PV of a
        move comes from the tree that visited it most)."""
        num = games[0].num_actions
        visits, wins = _root_totals(trees, num)
        priors = np.zeros(num)
        seen = np.zeros(num, dtype=np.bool_)
        best_tree = np.zeros(num, dtype=np.int64)
        best_edge = np.full(num, -1, dtype=np.int64)
        most = np.full(num, -1.0)
        for t, tree in enumerate(trees):
            sl = tree.edges(tree.root)
            actions = tree.ei[sl, kt.E_ACTION]
            tree_visits = tree.ef[sl, kt.E_N]
            priors[actions] += tree.ef[sl, kt.E_PRIOR] / len(trees)
            seen[actions] = True
            better = tree_visits > most[actions]
            most[actions[better]] = tree_visits[better]
            best_tree[actions[better]] = t
            best_edge[actions[better]] = np.arange(sl.start, sl.stop)[better]
        actions = np.flatnonzero(seen)
        order = actions[np.lexsort((-priors[actions], -visits[actions]))]
        chosen = self._chosen_action(trees, games, visits)
        if chosen is not None:
            order = np.concatenate([[chosen], order[order != chosen]])
        candidates: list[Candidate] = []
        for a in order:
            n = round(visits[a])
            if n == 0 and candidates:
                continue
            winrate = float(wins[a] / visits[a]) if visits[a] > 0 else 0.5
            t = int(best_tree[a])
            line = games[t].readable_pv(0, trees[t].principal_variation(int(best_edge[a])))
            pv = tuple(games[t].move(x) for x in line)
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

    def _chosen_action(
        self, trees: list[Tree], games: list[SearchGame], visits: np.ndarray
    ) -> int | None:
        """The move to play when it is not simply the most visited (Gumbel: sequential
        halving's survivor); ``None`` otherwise."""
        search = self._searches[0]
        if search.rule.kernel_id == kt.RULE_GUMBEL and len(trees) == 1:
            return search.gumbel_choice(trees[0], 0)
        return None

    def _settled(self, state: GameState, result: SearchResult) -> SearchResult:
        """``result``, or its most visited move other than pass when passing would end the game
        and the search is unsure of its outcome (``MCTSConfig.settled_pass``), or when the
        position counted now is a loss for the player passing (``MCTSConfig.counted_pass``)."""
        if result.move.is_pass and self.config.counted_pass and _counted_loss(state):
            others = [c for c in result.candidates if not c.move.is_pass and c.visits > 0]
            if others:
                return _instead(result, others[0])
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
        return _instead(result, others[0])


def _shares(playouts: int | None, threads: int) -> list[int | None]:
    if playouts is None:
        return [None] * threads
    return [playouts // threads + (i < playouts % threads) for i in range(threads)]


CHECK_SECONDS = 0.02
"""How often root parallelisation's coordinating thread asks whether a search may stop early."""

_Enough = Callable[[int], bool]
"""Whether a search may stop early, given the simulations it has run this move."""


def _root_totals(
    trees: list[Tree], num: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The root moves' visits and wins summed over the trees, indexed by action."""
    visits = np.zeros(num)
    wins = np.zeros(num)
    for tree in trees:
        sl = tree.edges(tree.root)
        actions = tree.ei[sl, kt.E_ACTION]
        visits[actions] += tree.ef[sl, kt.E_N]
        wins[actions] += tree.ef[sl, kt.E_W]
    return visits, wins


@dataclass(frozen=True, slots=True)
class _AnyFlag:
    """A stop flag set when any of its flags is (the caller's may be absent)."""

    flags: tuple[StopFlag | None, ...]

    def is_set(self) -> bool:
        return any(flag is not None and flag.is_set() for flag in self.flags)


def _same_moves(tree: Tree, node: int, game: SearchGame) -> bool:
    """Whether ``node``'s edges are exactly the moves legal at the search root. A node expanded
    deep in an earlier search did not know the moves that led to it as history, so under
    superko it may hold a move that repeats a position of the game as actually played."""
    edges = tree.actions(node)
    _, legal = game.root_moves(0)
    return bool(len(edges) == len(legal) and np.array_equal(np.sort(edges), np.sort(legal)))


# -- the mcts agent --------------------------------------------------------------------------------
@dataclass(frozen=True)
class MCTSOptions(TimeOptions):
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
    answering the last move, the vital point of a killable eye space beside it, no self-atari
    of groups of two or more stones but a nakade sacrifice) or ``pattern`` (heavy plus 3x3
    shape patterns around the last move)."""
    priors: float = 1.0
    """Go: weight of the prior knowledge given to new tree nodes (0: none)."""
    threads: int = 1
    """Search threads (root parallelisation: each thread grows its own tree from its own seed,
    the numba kernels run without the GIL, and the root statistics are summed to choose the
    move). Under a playout limit the playouts are shared out and the result stays
    deterministic for a seed."""


def playout_config(options: MCTSOptions, **more: object) -> MCTSConfig:
    """The search config of a playout agent's options (``more``: extra config fields)."""
    if options.playout_policy not in PLAYOUT_POLICIES:
        raise ValueError(f"playout_policy must be one of {', '.join(PLAYOUT_POLICIES)}")
    if options.c < 0 or not 0 <= options.resign < 1:
        raise ValueError("c must be >= 0 and resign in [0, 1)")
    return MCTSConfig(
        c=options.c,
        rave_k=options.rave_k,
        resign_threshold=options.resign,
        dirichlet_alpha=options.dirichlet_alpha,
        playout_policy=options.playout_policy,
        prior_weight=options.priors,
        pass_moves="answer",
        **more,  # type: ignore[arg-type]
    )


class MCTSAgent(SearchAgent):
    """Monte Carlo tree search with playouts, for Go and Othello (8x8, 6x6, 4x4).

    A ``guide`` evaluator (``imago.nn``'s ``nnmcts`` passes a policy network) is asked for the
    priors of the root and of every node that ``guide_visits`` simulations have passed
    through; they add a progressive bias of weight ``guide_bias`` to the selection."""

    name = "mcts"

    def __init__(
        self,
        options: MCTSOptions,
        rng: np.random.Generator,
        guide: Evaluator | None = None,
        *,
        guide_visits: int = 1,
        guide_bias: float = GUIDE_BIAS,
    ) -> None:
        if guide_visits < 1 or guide_bias < 0:
            raise ValueError("guide_visits must be >= 1 and guide_bias >= 0")
        config = playout_config(
            options,
            guide_visits=guide_visits if guide is not None else 0,
            guide_bias=guide_bias,
        )
        self.options = options
        self.guide = guide
        self.rule: SelectionRule = RaveUCT() if options.rave else UCT()
        super().__init__(
            config,
            rng,
            simulations=options.playouts,
            threads=options.threads,
            reuse=options.reuse,
            time_use=options.time_use(),
        )

    def make_search(self) -> MCTS:
        return MCTS(self.config, self.rule, RandomPlayoutEvaluator(), self.rng, guide=self.guide)


@register_agent(
    "mcts",
    MCTSOptions,
    games=("go", "othello"),
    summary="Monte Carlo tree search with playouts (UCT / MC-RAVE; Go: patterns and priors)",
)
def _make_mcts(options: MCTSOptions, rng: np.random.Generator) -> Agent:
    return MCTSAgent(options, rng)


__all__ = ["PUCT", "MCTSAgent", "MCTSOptions", "SearchAgent", "playout_config"]


def _instead(result: SearchResult, candidate: Candidate) -> SearchResult:
    """``result`` with ``candidate``'s move (and its figures) played instead."""
    return replace(
        result,
        move=candidate.move,
        winrate=candidate.winrate,
        value=candidate.value,
        pv=candidate.pv,
        depth=len(candidate.pv),
    )


def _counted_loss(state: GameState) -> bool:
    """Go: whether ``state`` counted now as a referee would (:func:`imago.games.go.scoring.count`)
    is a loss for its player to move; False for other games."""
    from imago.games.go.position import GoPosition
    from imago.games.go.scoring import count

    if not isinstance(state, GoPosition):
        return False
    return count(state).outcome.winner is state.to_play.opponent
