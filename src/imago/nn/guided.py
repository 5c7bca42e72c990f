"""The ``nnmcts`` agent: Go Monte Carlo tree search with playouts, guided by a policy network.

The search is :class:`imago.agents.mcts.MCTSAgent` with its playouts, MC-RAVE and pattern
priors unchanged, and a :class:`~imago.nn.evaluator.NetworkEvaluator` as its *guide*: the root,
and every node that ``guide_visits`` simulations have passed through, get the network's move
probabilities, which add the progressive bias ``guide_bias * P * sqrt(N) / (1 + n)`` to the
selection (in the spirit of AlphaGo's and Leela's mix of a policy network with Monte Carlo
playouts). The guide's requests are batched while the playouts go on. Playouts give the values,
so a policy-only network is enough; ``az`` (:mod:`imago.nn.az`) is the search that uses a
network's values instead.

With no ``model`` option the agent uses the 9x9 network shipped in ``imago/nn/data``
(:func:`imago.nn.shipped.shipped_model`, trained on OGS games; its README says how it was
made). Other board sizes need ``model=PATH``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from imago.agents.base import Agent
from imago.agents.mcts import MCTS, MCTSAgent, MCTSOptions, SearchGame
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.nn.evaluator import NetworkEvaluator
from imago.nn.shipped import shipped_model


@dataclass(frozen=True)
class GuidedMCTSOptions(MCTSOptions):
    """Options of the ``nnmcts`` agent: the ``mcts`` options, plus the network's."""

    model: str = ""
    """Path of a Go policy model (``model.pt`` from ``imago train supervised``); empty: the
    shipped 9x9 model."""
    guide_visits: int = 16
    """Ask the network about a node once this many simulations have passed through it (the
    root at once)."""
    guide_bias: float = 0.1
    """Weight of the network's progressive bias in the selection."""
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
    guide: NetworkEvaluator

    def make_game(self, state: GameState, search: MCTS) -> SearchGame:
        self.guide.check(state.game, state.size)
        return super().make_game(state, search)

    def prepare(self, game: str, size: int) -> None:
        """The network fixes the board: another one is refused here, not at the first move."""
        from imago.nn.shipped import check_fits

        super().prepare(game, size)
        check_fits(self.guide.spec, str(getattr(self.options, "model", "")), game, size)


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
    model = options.model or shipped_model("go", 9)
    guide = NetworkEvaluator.load(
        model,
        game="go",
        backend=options.backend,
        device=options.device,
        threads=options.nn_threads,
        symmetries=options.symmetries,
    )
    return GuidedMCTSAgent(
        options,
        rng,
        guide,
        guide_visits=options.guide_visits,
        guide_bias=options.guide_bias,
    )
