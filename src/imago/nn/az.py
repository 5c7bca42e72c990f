"""The ``az`` agent: AlphaZero-style search, a network's priors and values with no playouts.

The search is :class:`imago.agents.mcts.MCTS` with the PUCT rule (or Gumbel's sequential
halving at the root) and a :class:`~imago.nn.evaluator.NetworkEvaluator`: each round descends
``batch`` times with virtual loss, evaluates the new leaves in one network call and backs
their values up. The same search, with many games at once, is what self-play runs
(:mod:`imago.rl`). Usable wherever agents are: ``imago play``, ``imago gtp`` (``lz-analyze`` /
``kata-analyze`` show visits, win rates and principal variations), ``imago match``::

    imago match --black az --white 'gtp:command="gnugo --mode gtp"' --game go --size 9

With no ``model`` the agent plays the network shipped for the game and board size
(:func:`imago.nn.shipped.az_model`: a self-play network where one ships, else the supervised
one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from imago.agents.base import Agent, InfoCallback, Limit, SearchResult, StopFlag
from imago.agents.mcts import (
    MCTS,
    RULES,
    MCTSConfig,
    MixedEvaluator,
    SearchAgent,
    SearchGame,
    TimeOptions,
)
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.nn.evaluator import BoardEvaluator, NetworkEvaluator

PRECISIONS = ("auto", "fp32", "int8")
"""The ``az`` agent's network precisions (:attr:`AZOptions.precision`)."""


@dataclass(frozen=True)
class AZOptions(TimeOptions):
    """Options of the ``az`` agent."""

    model: str = ""
    """A model file (``model.pt`` from ``imago rl`` or ``imago train``); empty: the network
    shipped for the game and board size."""
    simulations: int = 400
    """Simulations per move when the limit gives neither playouts, nodes nor time."""
    batch: int = 16
    """Leaves evaluated per network call (with virtual loss)."""
    rule: str = "puct"
    """``puct``, or ``gumbel`` (sequential halving at the root; needs a simulation limit)."""
    c: float = 1.0
    """PUCT's exploration constant on win rates in ``[0, 1]``."""
    fpu_reduction: float = 0.2
    resign: float = 0.03
    """Resign below this root win rate (0: never)."""
    temperature: float = 0.0
    """0: play the most visited move; above 0, sample moves by ``visits ** (1 / t)`` for the
    first ``temperature_moves`` moves of the game."""
    temperature_moves: int = 0
    dirichlet_alpha: float = 0.0
    reuse: bool = True
    backend: str = "auto"
    """``onnx`` (ONNX Runtime), ``torch``, or ``auto`` (ONNX Runtime when installed)."""
    onnx: str = ""
    """An ONNX export of ``model`` to run instead of the one beside it: its int8 copy
    (``NNNNNN.int8.onnx``, which ``imago rl`` writes with ``nn_precision=int8``)."""
    precision: str = "auto"
    """``int8``: run the network's int8 copy, ``MODEL.int8.onnx`` beside the model (``imago rl``
    and ``imago train export --int8`` write them; the shipped networks have theirs): about
    2.8x the simulations per second on a CPU with int8 dot products, at the same strength
    per simulation (BENCHMARKS.md). ``fp32``: the float32 network. ``auto``: int8 for a
    shipped network with a copy, float32 for a ``model`` given."""
    device: str = "auto"
    nn_threads: int = 1
    """CPU threads of one network call."""
    threads: int = 1
    """Search threads (root parallelisation, as ``mcts``'s ``threads``: each thread grows its
    own tree, its network calls and playouts run without the GIL, the root statistics are
    summed). With ``mix`` on 9x9 Go two threads run 1.5x the simulations of
    ``nn_threads=2`` (3,698 against 2,401 a move at 0.25 s), yet the two half-deep trees play
    no better than the one (43.5 % over 100 games; BENCHMARKS.md); one tree with
    ``playout_thread`` beats them (60.0 % over 100 games)."""
    mix: float = 0.0
    """The share of a playout's result in each leaf's value, the rest the network's (AlphaGo's
    mixing, :class:`imago.agents.mcts.MixedEvaluator`; 0: the network's values alone)."""
    playout_thread: bool = False
    """With ``mix``: each batch's playouts run on a second thread while the network evaluates
    the batch, so one tree is searched on two cores (on 9x9 Go the network and the playouts
    take about equal time: BENCHMARKS.md, "`az` with playouts mixed in"). The values are the
    same as without it; only the simulations a second change."""
    counted_pass: bool = True
    """Go: pass only when the position counted as a referee would (dead stones off) is not a
    loss (:attr:`imago.agents.mcts.config.MCTSConfig.counted_pass`)."""


class AZAgent(SearchAgent):
    """PUCT (or Gumbel) search with a network's priors and values (see the module docstring)."""

    name = "az"

    def __init__(
        self, options: AZOptions, rng: np.random.Generator, evaluator: BoardEvaluator
    ) -> None:
        if options.rule not in ("puct", "gumbel"):
            raise ValueError(f"rule must be puct or gumbel, not {options.rule!r}")
        if options.batch < 1 or options.temperature < 0 or options.temperature_moves < 0:
            raise ValueError("batch must be >= 1 and temperature, temperature_moves >= 0")
        if not 0 <= options.resign < 1:
            raise ValueError("resign must be in [0, 1)")
        if not 0 <= options.mix <= 1:
            raise ValueError("mix must be in [0, 1]")
        if options.playout_thread and options.mix == 0:
            raise ValueError("playout_thread runs the playouts of mix: give mix > 0 with it")
        self.options = options
        self.board_evaluator = evaluator
        config = MCTSConfig(
            c=options.c,
            fpu_reduction=options.fpu_reduction,
            resign_threshold=options.resign,
            dirichlet_alpha=options.dirichlet_alpha,
            resign_min_visits=min(200, options.simulations),
            counted_pass=options.counted_pass,
        )
        super().__init__(
            config,
            rng,
            simulations=options.simulations,
            threads=options.threads,
            reuse=options.reuse,
            time_use=options.time_use(),
        )

    @property
    def history(self) -> int:
        """Boards of history the network reads (1 until it is loaded)."""
        return self.board_evaluator.history

    @property
    def evaluator(self) -> NetworkEvaluator:
        """The network of the board being played."""
        current = self.board_evaluator.current
        if current is None:
            raise RuntimeError("the az agent's network is loaded with the first position")
        return current

    def make_search(self) -> MCTS:
        mix = self.options.mix
        return MCTS(
            self.config,
            RULES[self.options.rule],
            (
                MixedEvaluator(
                    self.board_evaluator, mix, playout_thread=self.options.playout_thread
                )
                if mix > 0
                else self.board_evaluator
            ),
            self.rng,
            per_root=self.options.batch,
        )

    def prepare(self, game: str, size: int) -> None:
        """Load the network for the board: the model given (a size-free one loaded for this
        size) or the one shipped for it; a board it cannot play is refused here
        (:class:`AgentError` saying which model to give)."""
        self.board_evaluator.select(game, size)

    def make_game(self, state: GameState, search: MCTS) -> SearchGame:
        self.board_evaluator.select(state.game, state.size)
        return super().make_game(state, search)

    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        if self.options.rule == "gumbel" and limit.time is not None and limit.playouts is None:
            limit = Limit(playouts=limit.nodes or self.simulations)  # halving needs a budget
        result = super().select_move(state, limit, on_info=on_info, stop=stop)
        moves = self.options.temperature_moves
        if (
            self.options.temperature > 0
            and state.move_number < moves
            and result.move.is_play
            and len(result.candidates) > 1
        ):
            return self._sampled(result)
        return result

    def _sampled(self, result: SearchResult) -> SearchResult:
        visits = np.array([c.visits for c in result.candidates], dtype=np.float64)
        weights = visits ** (1.0 / self.options.temperature)
        if weights.sum() <= 0:
            return result
        pick = result.candidates[int(self.rng.choice(len(weights), p=weights / weights.sum()))]
        return replace(result, move=pick.move, winrate=pick.winrate, value=pick.value, pv=pick.pv)


def _load(model: str, options: AZOptions, game: str | None, size: int | None) -> NetworkEvaluator:
    from imago.nn.models import ModelError

    onnx = _export_to_run(model, options)
    evaluator = NetworkEvaluator.load(
        model,
        game=game,
        size=size,
        backend=options.backend,
        device=options.device,
        threads=options.nn_threads,
        onnx_file=onnx,
    )
    if (options.onnx or options.precision == "int8") and evaluator.session is None:
        raise ModelError(f"{onnx} needs ONNX Runtime (pip install imago[nn])")
    if not evaluator.has_value:
        raise ModelError(f"{model} has no value head: az needs a dual-head network")
    return evaluator


def _export_to_run(model: str, options: AZOptions) -> str | None:
    """The ONNX file the agent runs ``model`` from: ``onnx=``, or the int8 copy beside the
    model that ``precision`` asks for, or ``None`` (float32: the export beside it, or a new
    one). A copy older than the model given is refused (its weights are another's); the
    shipped pairs are checked by their tests."""
    from imago.nn.models import ModelError

    if options.onnx:
        return options.onnx
    copy = Path(model).with_suffix(".int8.onnx")
    shipped = not options.model
    if options.precision == "fp32" or options.backend == "torch":
        return None
    if options.precision == "auto":
        return str(copy) if shipped and copy.is_file() else None
    if not copy.is_file():
        raise ModelError(
            f"precision=int8: no int8 copy of {model} at {copy} (make one: imago train export "
            f"{model} --int8 {copy} --calibration DATASET)"
        )
    if not shipped and copy.stat().st_mtime < Path(model).stat().st_mtime:
        raise ModelError(f"precision=int8: {copy} is older than {model}: make it again")
    return str(copy)


@register_agent(
    "az",
    AZOptions,
    games=("go", "othello"),
    summary="AlphaZero search: PUCT / Gumbel with a network's priors and values, no playouts "
    "(shipped networks, or model=PATH)",
)
def _make_az(options: AZOptions, rng: np.random.Generator) -> Agent:
    if options.precision not in PRECISIONS:
        raise ValueError(
            f"precision must be one of {', '.join(PRECISIONS)}, not {options.precision!r}"
        )
    if options.precision == "int8" and (options.onnx or options.backend == "torch"):
        raise ValueError("precision=int8 runs MODEL.int8.onnx in ONNX Runtime: give it "
                         "without onnx= and backend=torch")  # fmt: skip
    if options.nn_threads > 0:
        import torch

        torch.set_num_threads(options.nn_threads)
    from imago.nn.shipped import az_model

    evaluator = BoardEvaluator(
        options.model, lambda model, game, size: _load(model, options, game, size), az_model
    )
    return AZAgent(options, rng, evaluator)


__all__ = ["AZAgent", "AZOptions"]
