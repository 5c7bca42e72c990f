"""The ``nnmcts`` agent: Go Monte Carlo tree search with playouts, guided by a policy network.

The search is :class:`imago.agents.mcts.MCTSAgent` with its playouts, MC-RAVE and pattern
priors unchanged, and a :class:`~imago.nn.evaluator.NetworkEvaluator` as its *guide*: the root,
and every node that ``guide_visits`` simulations have passed through, get the network's move
probabilities, which add the progressive bias ``guide_bias * P * sqrt(N) / (1 + n)`` to the
selection (in the spirit of AlphaGo's and Leela's mix of a policy network with Monte Carlo
playouts). The guide's requests are batched while the playouts go on. Playouts give the values,
so a policy-only network is enough; ``az`` (:mod:`imago.nn.az`) is the search that uses a
network's values instead.

With no ``model`` option the agent uses the network shipped in ``imago/nn/data`` for the board
(:func:`imago.nn.shipped.shipped_model`: 9x9 trained on OGS games, 13x13 and 19x19 one size-free
network trained on 19x19 games by strong programs; their README says how each was made). Other
boards need ``model=PATH``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from imago.agents.base import Agent
from imago.agents.mcts import MCTS, MCTSAgent, MCTSOptions, SearchGame
from imago.agents.mcts.config import GUIDE_BIAS
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.nn.evaluator import BoardEvaluator, NetworkEvaluator
from imago.nn.shipped import shipped_model


@dataclass(frozen=True)
class GuidedMCTSOptions(MCTSOptions):
    """Options of the ``nnmcts`` agent: the ``mcts`` options, plus the network's."""

    model: str = ""
    """Path of a Go policy model (``model.pt`` from ``imago train supervised``); empty: the
    model shipped for the board."""
    guide_visits: int = 16
    """Ask the network about a node once this many simulations have passed through it (the
    root at once)."""
    guide_bias: float = GUIDE_BIAS
    """Weight of the network's progressive bias in the selection (see
    :data:`imago.agents.mcts.config.GUIDE_BIAS` for why this default)."""
    symmetries: int = 1
    """Average the network over this many board symmetries (1 = none, 8 = all; torch only)."""
    backend: str = "auto"
    """``onnx`` (ONNX Runtime: about 4x faster than torch for one position on a CPU, by
    ``imago bench nn.guided``), ``torch``, or ``auto``: ONNX Runtime when installed and
    ``symmetries=1``, else torch."""
    device: str = "auto"
    nn_threads: int = 1
    """CPU threads of one network call (torch's process-wide setting, ONNX Runtime's per
    session; 0 keeps their defaults). The search's own threads are ``threads``."""


class GuidedMCTSAgent(MCTSAgent):
    """:class:`imago.agents.mcts.MCTSAgent` guided by a network's priors."""

    name = "nnmcts"
    guide: BoardEvaluator

    def make_game(self, state: GameState, search: MCTS) -> SearchGame:
        self.guide.select(state.game, state.size)
        return super().make_game(state, search)

    def prepare(self, game: str, size: int) -> None:
        """Load the network for the board; a board it cannot play is refused here, not at the
        first move."""
        super().prepare(game, size)
        self.guide.select(game, size)


@register_agent(
    "nnmcts",
    GuidedMCTSOptions,
    games=("go",),
    summary="Go MCTS guided by a policy network's priors (shipped 9x9 model, or model=PATH)",
)
def _make_guided(options: GuidedMCTSOptions, rng: np.random.Generator) -> Agent:
    if options.nn_threads > 0:
        import torch

        torch.set_num_threads(options.nn_threads)

    def load(model: str, game: str | None, size: int | None) -> NetworkEvaluator:
        return NetworkEvaluator.load(
            model,
            game=game or "go",
            size=size,
            backend=options.backend,
            device=options.device,
            threads=options.nn_threads,
            symmetries=options.symmetries,
        )

    guide = BoardEvaluator(options.model, load, shipped_model)
    return GuidedMCTSAgent(
        options,
        rng,
        guide,
        guide_visits=options.guide_visits,
        guide_bias=options.guide_bias,
    )
