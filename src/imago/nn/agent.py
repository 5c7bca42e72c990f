"""The ``policy`` agent (design 000's neural ``DecisionAlgorithm``): one network evaluation.

It plays the most probable legal move (``temperature=0``) or samples the legal moves with
probabilities ``p ** (1 / temperature)``; illegal moves are masked out. Its search information
lists the ``top`` most probable moves as candidates with their priors, and, for a dual-head
network, the value as a winrate. Usable wherever agents are: ``imago play``, ``imago gtp``,
``imago match`` (``policy:model=runs/othello/model.pt,temperature=0.5``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

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
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.core.move import Move

if TYPE_CHECKING:
    from imago.nn.inference import Network


@dataclass(frozen=True)
class PolicyOptions:
    """Options of the policy agent."""

    model: str = ""
    """Path of a model file written by ``imago train supervised`` (``model.pt``); empty: the
    network shipped for the game and board size (:mod:`imago.nn.shipped`)."""
    temperature: float = 0.0
    """0 plays the most probable move; above 0 samples (1 = the network's probabilities)."""
    symmetries: int = 1
    """Average the network over this many board symmetries (1 = none, 8 = all)."""
    top: int = 5
    """Candidates reported as search information."""
    device: str = "auto"
    threads: int = 1
    """CPU threads for torch (process-wide; 0 keeps torch's default). One is fastest for
    single positions on a busy machine."""


class PolicyAgent(Agent):
    """Chooses moves straight from a policy network, without search."""

    name = "policy"

    def __init__(
        self, network: Network | None, options: PolicyOptions, rng: np.random.Generator
    ) -> None:
        """``network`` None: load the shipped network for the first position's game and size."""
        if options.temperature < 0:
            raise ValueError("temperature must be >= 0")
        self._network = network
        self.options = options
        self.rng = rng

    def prepare(self, game: str, size: int) -> None:
        """Load the network for the board: the model given (a size-free one loaded again for
        this size) or the one shipped for it; a board it cannot play is refused here
        (:class:`AgentError` saying which model to give)."""
        from imago.nn.inference import Network
        from imago.nn.shipped import check_fits, shipped_model

        network = self._network
        if network is not None and (network.spec.game, network.spec.size) == (game, size):
            return
        if self.options.model:
            assert network is not None
            check_fits(network.spec, self.options.model, game, size)
            model = Path(self.options.model)
        else:
            model = shipped_model(game, size)
        self._network = Network.load(model, game=game, size=size, device=self.options.device)

    def network_for(self, state: GameState) -> Network:
        """The agent's network for ``state``'s board (see :meth:`prepare`)."""
        self.prepare(state.game, state.size)
        assert self._network is not None
        return self._network

    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        started = time.perf_counter()
        legal = state.legal_mask()
        if not legal.any():
            return SearchResult(Move.PASS)
        network = self.network_for(state)
        evaluation = network.evaluate([state], symmetries=self.options.symmetries)
        probs = evaluation.policy[0].astype(np.float64) * legal
        action = self._choose(probs, legal)
        size = state.size
        order = np.argsort(-probs, kind="stable")[: max(1, self.options.top)]
        value = None if evaluation.value is None else float(evaluation.value[0])
        winrate = None if value is None else (value + 1.0) / 2.0
        candidates = tuple(
            Candidate(Move.from_action(int(a), size), prior=float(probs[a]))
            for a in order
            if legal[a]
        )
        result = SearchResult(
            Move.from_action(action, size),
            winrate=winrate,
            value=value,
            pv=(Move.from_action(action, size),),
            nodes=1,
            depth=1,
            seconds=time.perf_counter() - started,
            candidates=candidates,
        )
        if on_info is not None:
            on_info(result)
        return result

    def _choose(self, probs: np.ndarray, legal: np.ndarray) -> int:
        if self.options.temperature == 0 or probs.sum() <= 0:
            masked = np.where(legal, probs, -1.0)
            return int(np.argmax(masked))
        weights = np.where(legal, probs, 0.0) ** (1.0 / self.options.temperature)
        if not np.isfinite(weights).all() or weights.sum() <= 0:
            return int(np.argmax(np.where(legal, probs, -1.0)))
        return int(self.rng.choice(len(weights), p=weights / weights.sum()))


@register_agent(
    "policy",
    PolicyOptions,
    games=("go", "othello"),
    summary="a trained policy network's move, no search (shipped 9x9 Go and Othello models, "
    "or model=PATH)",
)
def _make_policy(options: PolicyOptions, rng: np.random.Generator) -> Agent:
    # torch is imported here, not at registration, so listing or making other agents stays fast;
    # a mistyped path is said before it is.
    from imago.nn.shipped import model_file_problem

    problem = model_file_problem(options.model) if options.model else None
    if problem is not None:
        raise AgentError(problem)
    from imago.nn.inference import Network

    if options.threads > 0:
        import torch

        torch.set_num_threads(options.threads)
    network = Network.load(options.model, device=options.device) if options.model else None
    return PolicyAgent(network, options, rng)
