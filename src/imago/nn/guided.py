"""The ``nnmcts`` agent: Go Monte Carlo tree search guided by a policy network.

The search is :class:`imago.agents.mcts.MCTSAgent` with its playouts, MC-RAVE and pattern
priors unchanged; a :class:`NetworkPriors` oracle gives the root, and every node that
``oracle_visits`` simulations have passed through, the network's move probabilities, which add
the progressive bias ``oracle_bias * P * sqrt(N) / (1 + n)`` to the selection (in the spirit
of AlphaGo's and Leela's mix of a policy network with Monte Carlo playouts). Playouts still
give the values, so a policy-only network is enough.

With no ``model`` option the agent uses the 9x9 network shipped in ``imago/nn/data``
(:func:`imago.nn.shipped.shipped_model`, trained on OGS games; its README says how it was
made). Other board sizes need ``model=PATH``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from imago.agents.base import Agent
from imago.agents.mcts import MCTSAgent, MCTSOptions
from imago.agents.registry import register_agent
from imago.nn.shipped import shipped_model

if TYPE_CHECKING:
    from imago.nn.inference import Network


@dataclass(frozen=True)
class GuidedMCTSOptions(MCTSOptions):
    """Options of the ``nnmcts`` agent: the ``mcts`` options, plus the network's."""

    model: str = ""
    """Path of a Go policy model (``model.pt`` from ``imago train supervised``); empty: the
    shipped 9x9 model."""
    oracle_visits: int = 16
    """Ask the network about a node once this many simulations have passed through it (the
    root at once)."""
    oracle_bias: float = 0.1
    """Weight of the network's progressive bias in the selection."""
    symmetries: int = 1
    """Average the network over this many board symmetries (1 = none, 8 = all; torch only)."""
    backend: str = "auto"
    """``onnx`` (ONNX Runtime: about 3.8x faster than torch for one position on a CPU, by
    ``imago bench nn.guided``), ``torch``, or ``auto``: ONNX Runtime when installed and
    ``symmetries=1``, else torch."""
    device: str = "auto"
    nn_threads: int = 1
    """CPU threads of one network call (torch's process-wide setting, ONNX Runtime's per
    session; 0 keeps their defaults). The search's own threads are ``threads``."""


class NetworkPriors:
    """A :class:`imago.agents.mcts.PriorOracle` backed by a policy network.

    Feature sets that look back in time see the current board repeated (the search does not
    keep the boards before a tree node); ``legal4`` and ``stones2`` models need no history.
    With an ONNX Runtime ``session`` (:func:`imago.nn.export.onnx_session` of the same model)
    the network runs there instead of in torch. Safe to call from the search's threads (both
    runtimes allow concurrent inference; ``calls`` counts every call).
    """

    def __init__(
        self, network: Network, size: int, symmetries: int = 1, session: Any | None = None
    ) -> None:
        network.spec.check("go", size)
        if session is not None and symmetries != 1:
            raise ValueError("symmetry averaging needs the torch backend")
        self.network = network
        self.size = size
        self.symmetries = symmetries
        self.features = network.spec.feature_set
        self.session = session
        self.calls = 0
        self._count_lock = threading.Lock()  # the search may ask from several threads

    def __call__(
        self, board: npt.NDArray[np.int64], to_play: int, actions: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        from imago.nn.features import Positions

        size = self.size
        history = self.features.history
        boards = np.broadcast_to(
            board.astype(np.int8).reshape(1, 1, size, size), (1, history, size, size)
        )
        legal = np.zeros((1, size * size + 1), dtype=np.bool_)
        legal[0, actions] = True
        positions = Positions(np.ascontiguousarray(boards), np.array([to_play], np.int8), legal)
        planes = self.features.encode(positions)
        with self._count_lock:
            self.calls += 1
        if self.session is not None:
            (logits,) = self.session.run(["policy"], {"planes": planes.astype(np.float32)})
            chosen: npt.NDArray[np.float64] = np.asarray(logits[0, actions], dtype=np.float64)
            weights = np.exp(chosen - chosen.max())
            normalised: npt.NDArray[np.float64] = weights / weights.sum()
            return normalised
        policy = self.network.evaluate_planes(planes, legal, symmetries=self.symmetries).policy
        result: npt.NDArray[np.float64] = policy[0, actions].astype(np.float64)
        return result


class GuidedMCTSAgent(MCTSAgent):
    """:class:`imago.agents.mcts.MCTSAgent` with a :class:`NetworkPriors` oracle."""

    name = "nnmcts"

    def prepare(self, game: str, size: int) -> None:
        """The network fixes the board: another one is refused here, not at the first move."""
        from imago.nn.shipped import check_fits

        super().prepare(game, size)
        if isinstance(self.oracle, NetworkPriors):
            model = str(getattr(self.options, "model", ""))
            check_fits(self.oracle.network.spec, model, game, size)


@register_agent(
    "nnmcts",
    GuidedMCTSOptions,
    games=("go",),
    summary="Go MCTS guided by a policy network's priors (shipped 9x9 model, or model=PATH)",
)
def _make_guided(options: GuidedMCTSOptions, rng: np.random.Generator) -> Agent:
    from imago.nn.inference import Network
    from imago.nn.models import ModelError

    if options.nn_threads > 0:
        import torch

        torch.set_num_threads(options.nn_threads)
    if options.backend not in ("auto", "onnx", "torch"):
        raise ValueError("backend must be auto, onnx or torch")
    model = options.model or shipped_model("go", 9)
    network = Network.load(model, game="go", device=options.device)
    session = None
    if options.backend == "onnx" or (options.backend == "auto" and options.symmetries == 1):
        from imago.nn.export import onnx_session

        session = onnx_session(model, threads=max(options.nn_threads, 0))
        if session is None and options.backend == "onnx":
            raise ModelError("backend=onnx needs onnx and onnxruntime (pip install imago[nn])")
    oracle = NetworkPriors(network, network.spec.size, options.symmetries, session)
    return GuidedMCTSAgent(
        options,
        rng,
        oracle,
        oracle_visits=options.oracle_visits,
        oracle_bias=options.oracle_bias,
    )
