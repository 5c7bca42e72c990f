"""The alpha-beta agent (``alphabeta``): negamax with iterative deepening, for Othello and Go.

The search (numba kernels in ``othello._alphabeta`` / ``go._alphabeta``) is fail-soft principal
variation search with a Zobrist-keyed transposition table holding bounds and best moves, move
ordering (table move, then the previous iteration's order at the root, then a cheap static
guess), and optional pruning to the ``top_k`` best-ordered moves below the first ply (002's
idea; ``top_k=0`` searches everything). On 8x8 Othello with the built-in patterns, nodes with 3
or more plies left first try multi-ProbCut (Buro 1997): a search about half as deep that lands
``probcut`` standard deviations beyond a bound cuts the node (the calibration of deep against
shallow values was measured on WTHOR positions by ``imago train probcut``). The root is driven
from Python: each iteration searches every root move, and a time limit always lets depth 1
finish and returns the best move of the last completed depth.

Othello: the evaluation is a pattern evaluation in the style of Logistello and Edax (edges
with X-squares, corner 3x3 and 2x5 blocks, lines and diagonals, read as base-3 indices into
one table per game stage, plus mobility), trained by least squares on the WTHOR database with
``imago train patterns`` and shipped as ``data/othello_patterns.npz``; the ``weights`` option
names another such ``.npz`` file, or a ``.json`` file of 002's hand-made phase evaluation
(positional mask, mobility, potential mobility, corners, edge stability, and the disc
difference late; the built-in one is ``othello/data/othello_weights.json``, option value ``mask``).
When ``endgame_empties`` or fewer squares are empty, the agent solves the position exactly
with :class:`~imago.agents.othello.endgame.EndgameSolver` (falling back to the heuristic search
if the solve does not fit in the time).

Othello on 6x6 (and 4x4): the WTHOR patterns are 8x8 knowledge and do not apply, so the
evaluation is 002's phase evaluation with the masks adapted to the board
(``data/othello_weights_6x6.json``, ``data/othello_weights_4x4.json``; a ``.json`` weights file
whose ``size`` is the board's replaces it), and the exact solver takes over from
``endgame_empties`` as on 8x8 (6x6 positions of 18 empties solve in well under a second).

Go: the evaluation is 001's small-board heuristic (area score with komi, liberties, and
position in the opening). Be clear about what this can do: Go has no good cheap evaluation and a
branching factor near the number of empty points, so alpha-beta reaches only 2-4 plies on 9x9 in
a second and misjudges life and death, seki and territory that is not yet enclosed. It plays
legal, connected-looking moves and beats a random player; it is not a strong Go engine (use the
``mcts`` agent for Go).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from imago.agents.base import (
    Agent,
    AgentError,
    Candidate,
    InfoCallback,
    Limit,
    SearchResult,
    StopFlag,
)
from imago.agents.othello.weights import (
    MASK_FILES,
    builtin_probcut,
    load_evaluation,
    othello_weights_size,
)
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.core.move import Move, Point


@dataclass(frozen=True)
class AlphaBetaOptions:
    """Options of the alpha-beta agent."""

    depth: int = 64
    """The deepest iteration (a ``Limit.depth`` lowers it)."""
    time: float = 1.0
    """Seconds per move when the limit gives neither time, nodes nor depth."""
    top_k: int = 0
    """Search only the k best-ordered moves below the first ply (0: all moves)."""
    endgame_empties: int = 18
    """Othello: solve exactly when this many squares or fewer are empty (0: never)."""
    table_bits: int = 20
    """The transposition table has ``2**table_bits`` entries."""
    weights: str = ""
    """Othello evaluation: a ``.npz`` pattern file or a ``.json`` mask weights file (empty:
    the built-in pattern weights ``othello_patterns.npz``; ``mask``: the built-in
    ``othello_weights.json``)."""
    book: str = ""
    """Othello opening book (8x8): ``wthor`` (the shipped one, from every WTHOR game), a book
    file from ``imago train book``, or empty for none."""
    book_games: int = 10
    """Play a book move only if it was played in at least this many games."""
    probcut: float = 1.5
    """Othello with the built-in pattern evaluation: multi-ProbCut's confidence, in standard
    deviations of the shipped calibration (``othello_probcut.npz``; 0: off). Smaller prunes
    more and riskier; another evaluation (``weights``) searches without it."""


class _Backend(Protocol):
    """One game's root: its moves, and a search of one root move to a depth."""

    moves: list[Move]

    def search(self, index: int, depth: int, alpha: int, beta: int, stats: np.ndarray) -> int: ...

    def pv(self, index: int) -> tuple[Move, ...]: ...

    def describe(self, value: int) -> tuple[float, float]: ...


class _OthelloBackend:
    def __init__(self, state: GameState, agent: AlphaBetaAgent) -> None:
        from imago.agents.othello import _alphabeta as k
        from imago.agents.othello._kernels import new_scratch
        from imago.games.othello import OthelloState
        from imago.games.othello import bitboard as bb

        if not isinstance(state, OthelloState):
            raise ValueError(f"not an Othello position: {type(state).__name__}")
        self._k = k
        self._bb = bb
        self.p, self.o = state.bitboards()
        self.size = state.size
        self.board_mask = np.uint64(bb.board_mask(state.size))
        legal = int(bb.legal_moves(self.p, self.o)) & int(self.board_mask)
        self.squares = [sq for sq in range(64) if legal >> sq & 1]
        self.moves = [Move.play(Point(sq // 8, sq % 8)) for sq in self.squares]
        kind, evaluation = agent.othello_evaluation_for(state.size)
        self.patterns = kind == "patterns"
        self.evaluation = k.EVAL_PATTERNS if self.patterns else k.EVAL_MASKS
        self.weights = k.NO_WEIGHTS if self.patterns else evaluation
        self.table = evaluation if self.patterns else np.zeros((0, 0), dtype=np.int32)
        self.top_k = agent.options.top_k
        self.keys, self.data = agent.othello_table()
        self.probcut, self.cut_t = agent.othello_probcut(self.patterns)
        self.scratch = new_scratch()  # one per search: backends may run on several threads
        self.keeps_partial = True

    def search(self, index: int, depth: int, alpha: int, beta: int, stats: np.ndarray) -> int:
        return int(
            self._k.search_child(
                self.p, self.o, self.squares[index], depth, alpha, beta, self.top_k,
                self.evaluation, self.weights, self.table, self.size, stats, self.keys,
                self.data, self.probcut, self.cut_t, self.scratch,
            )
        )  # fmt: skip

    def pv(self, index: int) -> tuple[Move, ...]:
        sq = self.squares[index]
        f = np.uint64(int(self._bb.flips(self.p, self.o, sq)))
        child_p = np.uint64(int(self.o) ^ int(f))
        child_o = np.uint64(int(self.p) | int(f) | (1 << sq))
        out = np.empty(32, dtype=np.int64)
        n = self._k.principal_variation(
            child_p, child_o, self.board_mask, self.keys, self.data, out
        )
        rest = tuple(
            Move.PASS if s == 64 else Move.play(Point(int(s) // 8, int(s) % 8)) for s in out[:n]
        )
        return (self.moves[index], *rest)

    def describe(self, value: int) -> tuple[float, float]:
        discs = self._k.value_discs(value)
        if abs(value) >= self._k.WIN // 2:
            return discs, 1.0 if value > 0 else 0.0
        return discs, 1.0 / (1.0 + math.exp(-discs / 8.0))


class _GoBackend:
    def __init__(self, state: GameState, agent: AlphaBetaAgent) -> None:
        from imago.agents.go import _alphabeta as k
        from imago.games.go import fastpath as gf

        self._k = k
        self._gf = gf
        rules: Any = state.rules  # type: ignore[attr-defined]
        self.size = state.size
        self.komi = float(rules.komi)
        self.suicide = bool(rules.suicide_allowed)
        self.mode = gf.ko_mode(rules)
        self.history = state.superko_keys()  # type: ignore[attr-defined]  # a copy
        self.s = gf.to_arrays(state)  # type: ignore[arg-type]
        sensible = getattr(state, "sensible_moves", None)
        moves = list(sensible()) if sensible else list(state.legal_moves())
        if Move.PASS not in moves:
            moves.append(Move.PASS)
        self.moves = [m for m in moves if m.is_play] + [Move.PASS]
        self.actions = [m.to_action(self.size) for m in self.moves]
        self.color = int(state.to_play)
        self.top_k = agent.options.top_k
        self.keys, self.data = agent.go_table()

    def _child(self, index: int) -> np.ndarray:
        child = self.s.copy()
        self._gf.play(child, self.size, self.actions[index], self.color, self.suicide)
        return child

    def search(self, index: int, depth: int, alpha: int, beta: int, stats: np.ndarray) -> int:
        return -int(
            self._k.negamax(
                self._child(index),
                self.size,
                self.komi,
                self.suicide,
                self.mode,
                self.history,
                depth - 1,
                -beta,
                -alpha,
                1,
                self.top_k,
                stats,
                self.keys,
                self.data,
            )
        )

    def pv(self, index: int) -> tuple[Move, ...]:
        return (self.moves[index],)

    def describe(self, value: int) -> tuple[float, float]:
        k = self._k
        if abs(value) >= k.WIN // 2:
            points = (value - k.WIN if value > 0 else value + k.WIN) / k.POINT
            return points, 1.0 if value > 0 else 0.0
        points = value / k.POINT
        return points, 1.0 / (1.0 + math.exp(-points / 5.0))


@dataclass
class _Iteration:
    depth: int
    best: int
    values: list[int]
    order: list[int]
    searched: int = -1
    """How many root moves (first in ``order``) an interrupted iteration searched; -1: all."""


class AlphaBetaAgent(Agent):
    """Iterative-deepening alpha-beta for Othello (8x8, 6x6, 4x4) and Go (see the module
    docstring).

    Honours ``Limit.time``, ``Limit.depth`` and ``Limit.nodes``; with none of them it thinks
    ``options.time`` seconds. Deterministic: it uses no randomness (a time limit can still make
    two runs stop at different depths).
    """

    name = "alphabeta"

    def __init__(self, options: AlphaBetaOptions, rng: np.random.Generator) -> None:
        if options.depth < 1 or options.top_k < 0 or options.endgame_empties < 0:
            raise ValueError("depth must be >= 1, top_k and endgame_empties >= 0")
        if not 10 <= options.table_bits <= 26:
            raise ValueError("table_bits must be in 10..26")
        if options.book_games < 1:
            raise ValueError("book_games must be >= 1")
        if not 0.0 <= options.probcut <= 10.0:
            raise ValueError("probcut must be in 0..10 (standard deviations; 0: off)")
        self.options = options
        self.rng = rng
        self._othello_evaluations: dict[int, tuple[str, np.ndarray]] = {}
        if options.weights:  # read now, so that a bad file is reported before any game
            size = 8
            if Path(options.weights).suffix.lower() == ".json":
                size = othello_weights_size(options.weights)
            self._othello_evaluations[size] = load_evaluation(options.weights, size)
        self._othello_table: tuple[np.ndarray, np.ndarray] | None = None
        self._othello_size = 8
        self._go_table: tuple[np.ndarray, np.ndarray] | None = None
        self._solver: Any = None
        self._book: Any = None
        if options.book:  # read now, so that a bad file is reported before any game
            from imago.agents.othello.book import OpeningBook

            self._book = OpeningBook.load(options.book)
        self._nps = 200_000.0
        self._spent: list[int] = []

    def othello_evaluation_for(self, size: int) -> tuple[str, np.ndarray]:
        """The Othello evaluation on a ``size`` board (the ``weights`` option's, or the
        built-in one of that size); a weights file for another size is a :class:`WeightsError`."""
        if size not in self._othello_evaluations:
            self._othello_evaluations[size] = load_evaluation(self.options.weights, size)
        return self._othello_evaluations[size]

    def othello_probcut(self, patterns: bool) -> tuple[np.ndarray, float]:
        """The ProbCut calibration and confidence for this search: off unless the option is
        on and the evaluation is the built-in patterns the calibration was fitted for."""
        from imago.agents.othello._alphabeta import NO_PROBCUT

        builtin = self.options.weights in ("", "patterns")
        if self.options.probcut <= 0.0 or not patterns or not builtin:
            return NO_PROBCUT, 0.0
        return builtin_probcut(), self.options.probcut

    # -- tables, kept between moves of a game --------------------------------------------------
    def othello_table(self) -> tuple[np.ndarray, np.ndarray]:
        if self._othello_table is None:
            from imago.agents._table import new_table

            self._othello_table = new_table(self.options.table_bits)
        return self._othello_table

    def go_table(self) -> tuple[np.ndarray, np.ndarray]:
        if self._go_table is None:
            from imago.agents._table import new_table

            self._go_table = new_table(min(self.options.table_bits, 18))
        return self._go_table

    def prepare(self, game: str, size: int) -> None:
        """Refuse Othello on a board with no evaluation (the built-in masks are for
        :data:`MASK_FILES`' sizes), and a book anywhere but 8x8 Othello."""
        if self.options.book and (game, size) != ("othello", 8):
            raise AgentError(
                f"the opening book is for 8x8 Othello, not {size}x{size} {game}: leave book out"
            )
        if game == "othello" and size not in MASK_FILES:
            sizes = ", ".join(f"{s}x{s}" for s in sorted(MASK_FILES))
            raise AgentError(
                f"the alpha-beta agent plays Othello on {sizes}, not {size}x{size}: "
                "use mcts (or az) on other boards"
            )

    def reset(self) -> None:
        self._othello_table = None
        self._go_table = None
        self._solver = None

    # -- the search ---------------------------------------------------------------------------
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
        if state.game == "othello":
            if state.size != self._othello_size:
                self.reset()  # bitboards of different sizes can look alike: forget them
                self._othello_size = state.size
            solved = self._try_endgame(state, limit, start) or self._try_book(state, start)
            if solved is not None:
                if on_info:
                    on_info(solved)
                return solved
            backend: _Backend = _OthelloBackend(state, self)
        elif state.game == "go":
            backend = _GoBackend(state, self)
        else:
            raise ValueError(f"the alpha-beta agent does not play {state.game}")
        if not backend.moves:
            return SearchResult(Move.PASS, seconds=time.perf_counter() - start)
        return self._deepen(backend, limit, start, on_info, stop)

    def _try_book(self, state: GameState, start: float) -> SearchResult | None:
        """The opening book's move (its moves as candidates), or ``None`` out of the book."""
        if not self.options.book or state.size != 8:
            return None
        player, opponent = state.bitboards()  # type: ignore[attr-defined]
        found = self._book.moves(int(player), int(opponent), self.options.book_games)
        if not found:
            return None
        candidates = tuple(
            Candidate(m.move, visits=m.games, value=m.score, pv=(m.move,)) for m in found
        )
        return SearchResult(
            found[0].move,
            value=found[0].score,
            pv=(found[0].move,),
            candidates=candidates,
            seconds=time.perf_counter() - start,
        )

    def _budget(self, limit: Limit) -> tuple[float | None, int, int | None]:
        """(time, max depth, node budget) for this move."""
        max_depth = min(self.options.depth, limit.depth or self.options.depth)
        seconds = limit.time
        if seconds is None and limit.depth is None and limit.nodes is None:
            seconds = self.options.time
        return seconds, max_depth, limit.nodes

    def _deepen(
        self,
        backend: _Backend,
        limit: Limit,
        start: float,
        on_info: InfoCallback | None,
        stop: StopFlag | None,
    ) -> SearchResult:
        seconds, max_depth, node_budget = self._budget(limit)
        deadline = None if seconds is None else start + seconds
        order = list(range(len(backend.moves)))
        done: _Iteration | None = None
        total_nodes = 0
        self._spent = [0] * len(backend.moves)  # nodes under each root move (lz-analyze visits)
        result = SearchResult(backend.moves[0])
        for depth in range(1, max_depth + 1):
            iteration, nodes = self._iterate(
                backend, depth, order, deadline, node_budget, total_nodes, stop, done is None
            )
            total_nodes += nodes
            if iteration is None:
                break
            if iteration.searched >= 0 and done is not None:
                for index in iteration.order[iteration.searched :]:
                    iteration.values[index] = done.values[index]
            done = iteration
            order = iteration.order
            result = self._result(backend, done, total_nodes, time.perf_counter() - start)
            if on_info:
                on_info(result)
            elapsed = time.perf_counter() - start
            if deadline is not None and elapsed > (deadline - start) * 0.45:
                break  # the next depth would most likely not finish
            if len(backend.moves) == 1 or abs(done.best) >= 500_000:
                break
            if (stop is not None and stop.is_set()) or iteration.searched >= 0:
                break
        return result

    def _iterate(
        self,
        backend: _Backend,
        depth: int,
        order: list[int],
        deadline: float | None,
        node_budget: int | None,
        used: int,
        stop: StopFlag | None,
        must_finish: bool,
    ) -> tuple[_Iteration | None, int]:
        """Search every root move to ``depth`` (PVS); ``None`` when stopped before the end."""
        values = [0] * len(backend.moves)
        best = -10_000_000
        nodes = 0
        for rank, index in enumerate(order):
            stats = np.zeros(3, dtype=np.int64)
            if not must_finish:
                if stop is not None and stop.is_set():
                    return self._partial(backend, depth, order, values, rank), nodes
                limit_nodes = self._node_limit(deadline, node_budget, used + nodes)
                if limit_nodes is not None and limit_nodes <= 0:
                    return self._partial(backend, depth, order, values, rank), nodes
                stats[1] = limit_nodes or 0
            t0 = time.perf_counter()
            if rank == 0:
                value = backend.search(index, depth, -10_000_000, 10_000_000, stats)
            else:
                value = backend.search(index, depth, best, best + 1, stats)
                if value > best and not stats[2]:
                    value = backend.search(index, depth, best, 10_000_000, stats)
            nodes += int(stats[0])
            self._spent[index] += int(stats[0])
            self._learn_speed(int(stats[0]), time.perf_counter() - t0)
            if stats[2]:
                return self._partial(backend, depth, order, values, rank), nodes
            values[index] = value
            best = max(best, value)
        new_order = sorted(order, key=lambda i: -values[i])
        return _Iteration(depth, best, values, new_order), nodes

    @staticmethod
    def _partial(
        backend: _Backend, depth: int, order: list[int], values: list[int], done: int
    ) -> _Iteration | None:
        """An interrupted iteration worth keeping (backends with ``keeps_partial``): a root
        move searched after the previous best proved better than it. Moves not reached keep
        their previous order behind the searched ones."""
        if not getattr(backend, "keeps_partial", False) or done < 2:
            return None
        searched = order[:done]
        best = max(searched, key=lambda i: values[i])
        if best == order[0]:
            return None
        ranked = sorted(searched, key=lambda i: -values[i]) + order[done:]
        return _Iteration(depth, values[best], values, ranked, done)

    def _node_limit(self, deadline: float | None, node_budget: int | None, used: int) -> int | None:
        limits = []
        if deadline is not None:
            limits.append(int((deadline - time.perf_counter()) * self._nps))
        if node_budget is not None:
            limits.append(node_budget - used)
        return min(limits) if limits else None

    def _learn_speed(self, nodes: int, seconds: float) -> None:
        if nodes > 2000 and seconds > 1e-3:
            self._nps = 0.5 * self._nps + 0.5 * nodes / seconds

    def _result(
        self, backend: _Backend, it: _Iteration, nodes: int, seconds: float
    ) -> SearchResult:
        candidates = []
        for index in it.order:
            value, winrate = backend.describe(it.values[index])
            pv = backend.pv(index) if index == it.order[0] else (backend.moves[index],)
            visits = max(1, self._spent[index])
            candidates.append(
                Candidate(backend.moves[index], visits, winrate=winrate, value=value, pv=pv)
            )
        top = candidates[0]
        return SearchResult(
            top.move,
            winrate=top.winrate,
            value=top.value,
            pv=top.pv,
            nodes=nodes,
            depth=it.depth,
            seconds=seconds,
            candidates=tuple(candidates),
        )

    # -- Othello endgame ------------------------------------------------------------------------
    def _try_endgame(self, state: GameState, limit: Limit, start: float) -> SearchResult | None:
        from imago.agents.othello.endgame import EndgameSolver, SearchAborted

        empties = int(np.count_nonzero(state.board() == 0))
        if empties > self.options.endgame_empties:
            return None
        if self._solver is None:
            kind, table = self.othello_evaluation_for(state.size)
            patterns = table if kind == "patterns" else None  # the solver orders with patterns
            self._solver = EndgameSolver(min(self.options.table_bits, 22), patterns)
        seconds, _, node_budget = self._budget(limit)
        budget = node_budget
        if seconds is not None:
            by_time = int(seconds * 0.7 * 6_000_000)
            budget = by_time if budget is None else min(budget, by_time)
        try:
            solved = self._solver.solve_state(state, node_limit=budget)
        except SearchAborted:
            return None
        candidates = tuple(
            Candidate(
                move,
                winrate=1.0 if v > 0 else 0.0 if v < 0 else 0.5,
                value=float(v),
                pv=(move,),
            )
            for move, v in sorted(solved.move_scores, key=lambda mv: -mv[1])
        )
        score = solved.score
        return SearchResult(
            solved.move,
            winrate=1.0 if score > 0 else 0.0 if score < 0 else 0.5,
            value=float(score),
            pv=(solved.move,),
            nodes=solved.nodes,
            depth=empties,
            seconds=time.perf_counter() - start,
            candidates=candidates,
        )


@register_agent(
    "alphabeta",
    AlphaBetaOptions,
    games=("othello", "go"),
    summary="iterative-deepening alpha-beta (Othello: WTHOR patterns + exact endgame solver)",
)
def _make_alphabeta(options: AlphaBetaOptions, rng: np.random.Generator) -> Agent:
    return AlphaBetaAgent(options, rng)
