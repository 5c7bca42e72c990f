"""Self-play: many games in one process, one search over all of them, one network call a round.

A :class:`SelfPlay` holds a batch of games (:mod:`imago.games`'s ``GoBatch`` /
``OthelloBatch``), one search tree with a root per game (:class:`imago.agents.mcts.MCTS`) and an
evaluator (a network). Each round descends once from every game's root, evaluates all the new
leaves in one call and backs them up; a game whose search has used its budget plays its move
at once and starts the next search, so the batch stays full and the network always sees as many
positions as there are games.

What AlphaZero-style self-play gets right, here as options (:class:`SelfPlayConfig`):

* **Gumbel root** (default; Danihelka et al. 2022): sequential halving over Gumbel-perturbed
  priors picks the move, and the improved policy is the training target; it learns from few
  simulations. Or **PUCT** with Dirichlet noise at the root (once per search), visit counts as
  the target and a temperature (moves sampled by visits) for the opening moves.
* **Playout-cap randomisation** (KataGo): a share of moves get the full search and become
  training examples; the others a fast search that only moves the game on. Optionally the
  positions of fast searches near the end (``value_only_empties``) become value-only examples:
  no move target, only the value (for Othello the endgame solver's exact result, where
  :mod:`imago.rl.examples` is asked to solve them).
* **Start positions** (KataGo): a share of games begins part-way through a recorded game
  (:mod:`imago.rl.starts`), so that the network learns how positions its own games never
  reach really end.
* **Resignation** below a win rate, with a share of games played out to the end to count how
  often resigning would have been wrong.
* **Tree reuse** (PUCT): the subtree of the move played is kept.

Finished games go to a callback (:class:`FinishedGame`: the moves, the result, the examples as
feature planes and search policies), which :mod:`imago.rl.folder` writes to the run folder.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.agents.base import StopFlag
from imago.agents.mcts import MCTS, RULES, MCTSConfig, search_game
from imago.agents.mcts.evaluators import Evaluator
from imago.core.color import Color
from imago.games.go import GoRules
from imago.games.go.batch import GoBatch
from imago.games.othello.batch import OthelloBatch
from imago.rl.starts import StartGame, start_actions

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class SelfPlayConfig:
    """How self-play searches and plays (see the module docstring)."""

    parallel: int = 128
    """Games stepped together (the network's batch)."""
    simulations: int = 200
    """Simulations of a full search."""
    fast_simulations: int = 0
    """Playout-cap randomisation: simulations of a fast search (0: every search is full)."""
    full_fraction: float = 0.25
    """With fast searches: the share of moves that get the full search (and teach)."""
    rule: str = "gumbel"
    """``gumbel`` (sequential halving at the root) or ``puct``."""
    considered: int = 16
    """Gumbel: root moves sequential halving starts with."""
    c: float = 1.0
    """PUCT's exploration constant (win rates in ``[0, 1]``)."""
    fpu_reduction: float = 0.2
    dirichlet_alpha: float = 0.0
    """PUCT: Dirichlet noise on full searches' root priors (0: ``10 / root moves``)."""
    dirichlet_fraction: float = 0.25
    temperature_moves: int = -1
    """Moves played by sampling: PUCT samples by visit count, Gumbel keeps its noise (-1:
    every move for Gumbel, a sixth of the board's points for PUCT)."""
    resign: float = 0.0
    """Resign when the searched win rate falls below this (0: never)."""
    resign_check_fraction: float = 0.1
    """Of games that could resign, the share played to the end to count false resignations."""
    max_moves: int = 0
    """A game this long is counted as it stands (0: three times the board's points for Go,
    Othello ends by itself)."""
    reuse: bool = True
    """PUCT: keep the subtree of the move played."""
    value_only_empties: int = 0
    """With fast searches: the positions of fast searches with at most this many empty points
    are recorded too, as value-only examples (a move distribution of zeros: they teach the
    value head and not the policy). 0: none. Meant for Othello with the run's
    ``exact_targets`` at the same count, which makes each of their targets the solver's exact
    result; otherwise their target is the game's result, strongly correlated with the
    game's other examples."""

    start_fraction: float = 0.0
    """The share of games that start part-way through a recorded game (the run's
    ``start_records``, :mod:`imago.rl.starts`): a random record, its first moves up to a
    random one, then self-play from there (examples only from there on). 0: every game
    starts from the empty board."""
    start_turn_weight: float = 0.0
    """How far into its record a start goes: ``k`` moves with weight
    ``exp(-start_turn_weight * k)`` (KataGo's ``startPosesTurnWeightLambda``, in [-10, 10]).
    0: any number of moves alike; below 0: later positions more often, where an opponent's
    endings are (-0.1: about 63 % of starts in a record's last ten moves). Needs
    ``start_fraction`` above 0."""

    def __post_init__(self) -> None:
        if self.rule not in ("gumbel", "puct"):
            raise ValueError(f"rule must be gumbel or puct, not {self.rule!r}")
        if self.parallel < 1 or self.simulations < 1 or self.fast_simulations < 0:
            raise ValueError("parallel and simulations must be >= 1, fast_simulations >= 0")
        if self.rule == "gumbel" and self.simulations < 2:
            raise ValueError("a Gumbel search needs at least 2 simulations")
        if not 0 <= self.full_fraction <= 1 or not 0 <= self.resign < 1:
            raise ValueError("full_fraction must be in [0, 1] and resign in [0, 1)")
        if not 0 <= self.start_fraction <= 1:
            raise ValueError(f"start_fraction must be in [0, 1] (got {self.start_fraction})")
        if not -10 <= self.start_turn_weight <= 10:
            raise ValueError(
                f"start_turn_weight must be in [-10, 10] (got {self.start_turn_weight})"
            )
        if self.start_turn_weight and not self.start_fraction:
            raise ValueError(
                "start_turn_weight weights the start positions, but start_fraction is 0 (no game "
                "starts in a record): set start_fraction, or start_turn_weight=0 with it"
            )
        if self.value_only_empties < 0:
            raise ValueError("value_only_empties must be >= 0")
        if self.value_only_empties and self.fast_simulations == 0:
            raise ValueError(
                "value_only_empties records fast searches' positions: set fast_simulations "
                "(and full_fraction below 1) too"
            )

    def search_config(self) -> MCTSConfig:
        return MCTSConfig(
            c=self.c,
            fpu_reduction=self.fpu_reduction,
            dirichlet_alpha=self.dirichlet_alpha,
            dirichlet_scale=10.0,
            dirichlet_fraction=self.dirichlet_fraction,
            gumbel_considered=self.considered,
            virtual_loss=1.0,
        )


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Which game self-play plays: ``game``, board ``size``, Go rules (a preset name) and
    komi."""

    game: str
    size: int
    rules: str = "chinese"
    komi: float = 7.0

    def go_rules(self) -> GoRules:
        return GoRules.preset(self.rules).with_komi(self.komi)

    def new_batch(self, n: int, history: int, max_moves: int) -> GoBatch | OthelloBatch:
        if self.game == "go":
            cap = max_moves or 3 * self.size * self.size
            return GoBatch(n, self.size, self.go_rules(), history=history, max_moves=cap)
        if self.game == "othello":
            return OthelloBatch(n, self.size, history=history)
        raise ValueError(f"self-play does not know the game {self.game!r}")

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "size": self.size, "rules": self.rules, "komi": self.komi}


@dataclass(slots=True)
class FinishedGame:
    """A self-play game: its moves (actions), how it ended, and its training examples.

    ``winner`` is 1 (Black), 2 (White) or 0 (a draw); ``score`` Black's lead (points or
    discs; 0 after a resignation). Example ``i`` is the position before move
    ``example_moves[i]``: its boards (``(history, N*N)``, newest first), colour to move, legal
    actions, the search's move distribution (``targets[i]``: all zeros for a value-only
    example, :attr:`SelfPlayConfig.value_only_empties`) and the move the search chose
    (``example_actions[i]``; after the last example of a resigned game it was never played).
    """

    index: int
    actions: list[int]
    winner: int
    score: float
    resigned: int = 0
    """The colour that resigned (0: none)."""
    example_moves: list[int] = field(default_factory=list)
    example_actions: list[int] = field(default_factory=list)
    boards: list[npt.NDArray[np.int8]] = field(default_factory=list)
    to_play: list[int] = field(default_factory=list)
    legal: list[npt.NDArray[np.bool_]] = field(default_factory=list)
    targets: list[npt.NDArray[np.float32]] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    """The search's win rate for the player to move at each example."""
    owners: npt.NDArray[np.int8] | None = None
    """Who owned each point (``N*N``: 0 neither, 1 Black, 2 White) when the game ended
    (:func:`final_owners`)."""
    full_searches: int = 0
    fast_searches: int = 0
    start_moves: int = 0
    """The first moves of ``actions`` that came from a recorded game (:mod:`imago.rl.starts`),
    not from self-play; 0 for a game from the empty board."""
    start_key: str = ""
    """... that record's name."""

    def without_value_only(self) -> FinishedGame:
        """This game with only its examples that have a move target."""
        keep = [i for i, target in enumerate(self.targets) if target.any()]
        if len(keep) == len(self.targets):
            return self
        return replace(
            self,
            example_moves=[self.example_moves[i] for i in keep],
            example_actions=[self.example_actions[i] for i in keep],
            boards=[self.boards[i] for i in keep],
            to_play=[self.to_play[i] for i in keep],
            legal=[self.legal[i] for i in keep],
            targets=[self.targets[i] for i in keep],
            values=[self.values[i] for i in keep],
        )

    def outcome_for(self, color: int) -> int:
        """+1 if ``color`` won, -1 if it lost, 0 for a draw."""
        if self.winner == 0:
            return 0
        return 1 if self.winner == color else -1

    def margin_for(self, color: int, area: int) -> float:
        """``color``'s final lead over the board's ``area``, clipped to ``[-1, 1]``; a
        resignation counts as the largest loss."""
        if self.resigned:
            return float(self.outcome_for(color))
        lead = self.score if color == int(Color.BLACK) else -self.score
        return float(np.clip(lead / area, -1.0, 1.0))


def final_owners(batch: GoBatch | OthelloBatch, g: int) -> npt.NDArray[np.int8]:
    """Who owns each point of game ``g`` as it stands (``N*N``: 0 neither, 1 Black, 2 White):
    in Go by area, every stone alive (as self-play counts a game that ended by passes); in
    Othello the discs. Self-play's ownership targets are these owners at a game's end (for a
    resigned game, as it stood when its player resigned)."""
    if isinstance(batch, GoBatch):
        from imago.games.go.scoring import area_owners

        return area_owners(batch.position(g)).reshape(-1)
    return batch.board(g).reshape(-1).astype(np.int8)


@dataclass(slots=True)
class SelfPlayStats:
    """Counters of a self-play run (for progress and the metrics log)."""

    games: int = 0
    moves: int = 0
    examples: int = 0
    value_only: int = 0
    """... of which value-only (:attr:`SelfPlayConfig.value_only_empties`)."""
    simulations: int = 0
    evaluations: int = 0
    network_calls: int = 0
    seconds: float = 0.0
    resignations: int = 0
    checked_resignations: int = 0
    """Games played on to the end although a player would have resigned."""
    false_resignations: int = 0
    """... of which the player who would have resigned did not lose."""
    black_wins: int = 0
    draws: int = 0

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__slots__}  # type: ignore[attr-defined]
        seconds = max(self.seconds, 1e-9)
        data["positions_per_s"] = self.evaluations / seconds
        data["moves_per_s"] = self.moves / seconds
        data["games_per_s"] = self.games / seconds
        return data


@dataclass(slots=True)
class _Slot:
    """A game in progress."""

    index: int
    full: bool = False
    can_resign: bool = True
    would_resign: int = 0
    record: FinishedGame | None = None


GameCallback = Callable[[FinishedGame], None]


class SelfPlay:
    """Plays games against itself with one search over a batch of games (see the module
    docstring). ``evaluator`` may be swapped between calls of :meth:`play` (a newer model)."""

    def __init__(
        self,
        spec: GameSpec,
        evaluator: Evaluator,
        config: SelfPlayConfig,
        *,
        seed: int = 0,
        first_index: int = 0,
        starts: Sequence[StartGame] = (),
    ) -> None:
        if config.start_fraction > 0 and not starts:
            raise ValueError("start_fraction needs start games (the run's start_records)")
        self.spec = spec
        self.config = config
        self.starts = starts
        self.rng = np.random.default_rng(seed)
        self.evaluator = evaluator
        history = max(1, evaluator.history)
        self.batch = spec.new_batch(config.parallel, history, config.max_moves)
        self.game = search_game(
            self.batch, config.search_config(), int(self.rng.integers(1, 2**62)), ended="area"
        )
        self.search = MCTS(config.search_config(), RULES[config.rule], evaluator, self.rng)
        self.tree = self.search.new_tree(self.game)
        self.gumbel = config.rule == "gumbel"
        self._targets = np.zeros(config.parallel, dtype=np.int64)
        self._slots: list[_Slot | None] = [None] * config.parallel
        self._next_index = first_index
        self._live_nodes = 0
        self.stats = SelfPlayStats()
        nn = spec.size * spec.size
        self._temperature_moves = (
            config.temperature_moves
            if config.temperature_moves >= 0
            else (1 << 30 if self.gumbel else max(1, nn // 6))
        )

    def set_evaluator(self, evaluator: Evaluator) -> None:
        """Search with ``evaluator`` from now on (the games under way go on with it)."""
        if max(1, evaluator.history) > self.batch.history:
            raise ValueError("the new network reads more history than the games keep")
        self.evaluator = evaluator
        self.search.evaluator = evaluator

    # -- playing -----------------------------------------------------------------------------------
    def play(
        self,
        games: int,
        on_game: GameCallback,
        *,
        stop: StopFlag | None = None,
        on_round: Callable[[SelfPlayStats], None] | None = None,
    ) -> SelfPlayStats:
        """Play until ``games`` more games have finished (games under way when that happens
        stay in the batch for the next call); each finished game goes to ``on_game``."""
        wanted = self.stats.games + games
        started = time.perf_counter()
        seconds = self.stats.seconds
        for g in range(self.config.parallel):
            if self._slots[g] is None:
                self._start_game(g)
        while self.stats.games < wanted:
            if stop is not None and stop.is_set():
                break
            self._round(on_game)
            self.stats.seconds = seconds + time.perf_counter() - started
            if on_round is not None:
                on_round(self.stats)
        self.stats.seconds = seconds + time.perf_counter() - started
        return self.stats

    def _round(self, on_game: GameCallback) -> None:
        started = self.search.started
        before = int(started.sum())
        count = self.search.step_round(self.game, self.tree, self._targets)
        self.stats.simulations += int(started.sum()) - before
        self.stats.evaluations += count
        self.stats.network_calls += 1 if count else 0
        ready = np.flatnonzero(started >= self._targets)
        if ready.size:
            self._move(ready, on_game)

    def _start_game(self, g: int) -> None:
        self.batch.reset([g])
        slot = _Slot(self._next_index)
        self._next_index += 1
        config = self.config
        slot.can_resign = config.resign > 0 and self.rng.random() >= config.resign_check_fraction
        slot.record = FinishedGame(slot.index, [], 0, 0.0)
        if self.starts and self.rng.random() < config.start_fraction:
            self._replay_start(g, slot.record)
        self._slots[g] = slot
        self.search.new_root(self.tree, self.game, g)
        self._begin(g)

    def _replay_start(self, g: int, record: FinishedGame) -> None:
        """Play the beginning of a random start game into game ``g`` (:mod:`imago.rl.starts`);
        one that would end the game (a ``max_moves`` below its length) is taken back."""
        start = self.starts[int(self.rng.integers(len(self.starts)))]
        beginning = start_actions(start, self.rng, self.config.start_turn_weight)
        actions = np.zeros(self.config.parallel, dtype=np.int64)
        only = np.zeros(self.config.parallel, dtype=np.bool_)
        only[g] = True
        for action in beginning:
            actions[g] = action
            if self.batch.step(actions, only)[g] != 0:
                raise RuntimeError(f"the start game {start.key} has an illegal move (a bug)")
        if self.batch.done[g]:
            self.batch.reset([g])
            return
        record.actions.extend(beginning)
        record.start_moves = len(beginning)
        record.start_key = start.key

    def _begin(self, g: int) -> None:
        """Start the search for game ``g``'s next move."""
        slot = self._slots[g]
        assert slot is not None
        config = self.config
        full = config.fast_simulations == 0 or self.rng.random() < config.full_fraction
        forced = self.tree.children(int(self.tree.roots[g])) == 1
        slot.full = full and not forced  # a forced move (a pass, say) teaches nothing
        sims = config.simulations if full else config.fast_simulations
        if self.gumbel:
            sims = max(sims, 2)
        self._targets[g] = 0 if forced else sims
        # a fast search explores no more than it must (KataGo): no Dirichlet noise
        self.search.begin(self.tree, self.game, sims, [g], noise=full)
        if self.gumbel and int(self.batch.moves[g]) < self._temperature_moves:
            self.search.gumbel_noise([g], self.tree)

    def _move(self, ready: npt.NDArray[np.int64], on_game: GameCallback) -> None:
        """Games ``ready`` have searched enough: play their moves, record their examples,
        finish the games that ended and start the next searches."""
        actions = np.zeros(self.config.parallel, dtype=np.int64)
        active = np.zeros(self.config.parallel, dtype=np.bool_)
        resigning: list[int] = []
        position = (self.batch.to_play(), self.batch.legal_mask())
        for g in ready:
            action, resign = self._decide(int(g), position)
            if resign:
                resigning.append(int(g))
            else:
                actions[g] = action
                active[g] = True
        status = self.batch.step(actions, active)
        if (status[active] != 0).any():
            bad = int(np.flatnonzero(active & (status != 0))[0])
            raise RuntimeError(f"self-play chose an illegal move in game {bad} (a bug)")
        self.stats.moves += int(active.sum())
        for g in resigning:
            self._finish(g, resigned=True, on_game=on_game)
        roots = self.tree.roots
        for g in np.flatnonzero(active):
            slot = self._slots[g]
            assert slot is not None and slot.record is not None
            slot.record.actions.append(int(actions[g]))
            if self.batch.done[g]:
                self._finish(int(g), resigned=False, on_game=on_game)
                continue
            child = self.tree.child(int(roots[g]), int(actions[g])) if self._reuse else -1
            if child >= 0 and self.tree.children(child) > 0:
                roots[g] = child
            else:
                self.search.new_root(self.tree, self.game, int(g))
            self._begin(int(g))
        self._collect_garbage()

    @property
    def _reuse(self) -> bool:
        return self.config.reuse and not self.gumbel

    def _decide(
        self, g: int, position: tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]
    ) -> tuple[int, bool]:
        """The move game ``g`` plays (recording the example of a full search), and whether its
        player resigns instead."""
        slot = self._slots[g]
        assert slot is not None and slot.record is not None
        tree = self.tree
        root = int(tree.roots[g])
        actions = tree.actions(root)
        stats = tree.stats(root)
        visits = stats.n
        total = float(visits.sum())
        value = float(stats.w.sum() / total) if total > 0 else 0.5
        moves = int(self.batch.moves[g])
        if len(actions) == 1:  # forced: no search was needed
            action = int(actions[0])
            policy = np.ones(1)
        elif self.gumbel:
            action = self.search.gumbel_choice(tree, g)
            _, policy = self.search.improved_policy(tree, g)
        else:
            policy = visits / max(total, 1.0)
            if moves < self._temperature_moves and total > 0:
                action = int(actions[self.rng.choice(len(actions), p=policy)])
            else:
                action = int(actions[int(np.argmax(visits))])
        record = slot.record
        if slot.full:
            record.full_searches += 1
            self._record_example(g, record, actions, policy, value, position, action)
        else:
            record.fast_searches += 1
            if self._value_only(g):
                self._record_example(g, record, actions, None, value, position, action)
        color = int(position[0][g])
        best = float(np.max(stats.w / np.maximum(visits, 1))) if total else value
        if self.config.resign > 0 and best < self.config.resign and not slot.would_resign:
            if slot.can_resign:
                record.resigned = color
                return action, True
            slot.would_resign = color
        return action, False

    def _value_only(self, g: int) -> bool:
        """Whether game ``g``'s position, searched fast, is recorded as a value-only example."""
        most = self.config.value_only_empties
        return most > 0 and int(np.count_nonzero(self.batch.boards[g][0] == 0)) <= most

    def _record_example(
        self,
        g: int,
        record: FinishedGame,
        actions: npt.NDArray[np.int64],
        policy: FloatArray | None,
        value: float,
        position: tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]],
        chosen: int,
    ) -> None:
        """Record game ``g``'s position as an example: ``policy`` over ``actions`` as its move
        target, or none (``None``: a value-only example, a target of zeros)."""
        target = np.zeros(self.batch.num_actions, dtype=np.float32)
        if policy is not None:
            target[actions] = policy
        record.example_moves.append(len(record.actions))
        record.example_actions.append(chosen)
        record.boards.append(self.batch.boards[g].copy())
        record.to_play.append(int(position[0][g]))
        record.legal.append(position[1][g].copy())
        record.targets.append(target)
        record.values.append(value)

    def _finish(self, g: int, *, resigned: bool, on_game: GameCallback) -> None:
        slot = self._slots[g]
        assert slot is not None and slot.record is not None
        record = slot.record
        record.owners = final_owners(self.batch, g)
        if resigned:
            record.winner = 3 - record.resigned
            record.score = 0.0
            self.stats.resignations += 1
        else:
            score = float(self.batch.scores()[g])
            record.score = score
            record.winner = 1 if score > 0 else (2 if score < 0 else 0)
        if slot.would_resign:
            self.stats.checked_resignations += 1
            if record.outcome_for(slot.would_resign) >= 0:
                self.stats.false_resignations += 1
        self.stats.games += 1
        self.stats.examples += len(record.targets)
        self.stats.value_only += sum(1 for target in record.targets if not target.any())
        self.stats.black_wins += record.winner == 1
        self.stats.draws += record.winner == 0
        on_game(record)
        self._start_game(g)

    def _collect_garbage(self) -> None:
        """Free the subtrees of moves not played once the pool holds twice what is live."""
        tree = self.tree
        if tree.nodes_used > max(4 * self._live_nodes, 1 << 16):
            tree.keep(tree.roots.copy())
            self._live_nodes = tree.nodes_used
