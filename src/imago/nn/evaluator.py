"""A network as the search's leaf evaluator: many positions per call, ONNX Runtime or torch.

:class:`NetworkEvaluator` answers :class:`imago.agents.mcts.evaluators.Evaluator`'s one call
for a whole :class:`~imago.agents.mcts.evaluators.LeafBatch`: it encodes the leaves with the
model's own feature set (:mod:`imago.nn.features`, the same encoders training used), runs the
network once, turns the policy logits into probabilities over each leaf's legal actions and the
value head's ``[-1, 1]`` into a win rate in ``[0, 1]`` (an even 0.5 for a policy-only network).

Backends: ``onnx`` (ONNX Runtime; the fastest on a CPU for small batches), ``torch`` (any
device, symmetry averaging), ``auto`` (ONNX Runtime when installed and no symmetries).

>>> evaluator = NetworkEvaluator.load("model.pt", game="go", size=9)   # doctest: +SKIP
>>> search = MCTS(MCTSConfig(), PUCT(), evaluator, rng, per_root=8)    # doctest: +SKIP
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.agents.mcts.evaluators import Evaluation, LeafBatch
from imago.nn.features import Positions
from imago.nn.inference import Network
from imago.nn.models import ModelError
from imago.nn.store import ModelSpec

BACKENDS = ("auto", "onnx", "torch")


class NetworkEvaluator:
    """Evaluates leaf batches with one network (see the module docstring).

    Safe to call from several search threads (both runtimes allow concurrent inference).
    ``calls`` and ``positions`` count the work done.
    """

    needs_states = False

    def __init__(
        self, network: Network, *, session: Any | None = None, symmetries: int = 1
    ) -> None:
        if session is not None and symmetries != 1:
            raise ModelError("symmetry averaging needs the torch backend")
        self.network = network
        self.spec = network.spec
        self.features = network.spec.feature_set
        self.history = self.features.history
        self.session = session
        self.symmetries = symmetries
        self.has_value = network.has_value
        self.score_weight = network.score_weight
        """How the search should value finished games to match this network's value head."""
        self.calls = 0
        self.positions = 0
        self._lock = threading.Lock()

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        game: str | None = None,
        size: int | None = None,
        backend: str = "auto",
        device: str = "auto",
        threads: int = 1,
        symmetries: int = 1,
        onnx_file: str | Path | None = None,
    ) -> NetworkEvaluator:
        """The model at ``path`` (checked to be for ``game`` / ``size``) on ``backend``;
        ``threads``: ONNX Runtime's intra-op threads (0: its default); ``onnx_file``: the
        export of the model ONNX Runtime runs (its int8 copy, say; default: the one beside
        it, or a new one)."""
        if backend not in BACKENDS:
            raise ModelError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        network = Network.load(path, game=game, size=size, device=device)
        session = None
        if backend == "onnx" or (backend == "auto" and symmetries == 1):
            from imago.nn.export import onnx_session

            session = onnx_session(
                path,
                threads=max(threads, 0),
                size=network.spec.size,
                onnx_file=onnx_file,
                spec=network.spec,
            )
            if session is None and backend == "onnx":
                raise ModelError("backend=onnx needs onnx and onnxruntime (pip install imago[nn])")
        return cls(network, session=session, symmetries=symmetries)

    @property
    def backend(self) -> str:
        return "onnx" if self.session is not None else "torch"

    def check(self, game: str, size: int) -> None:
        """Raise :class:`ModelError` when the model is not for ``game`` on a ``size`` board."""
        self.spec.check(game, size)

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        planes = encode_leaves(self.spec, leaves, count)
        legal = leaves.legal[:count]
        probs, values = self.run(planes, legal)
        with self._lock:
            self.calls += 1
            self.positions += count
        return Evaluation(values, probs)

    def run(
        self, planes: npt.NDArray[np.float32], legal: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
        """Move probabilities over the legal actions and win rates for encoded planes."""
        if self.session is None:
            evaluation = self.network.evaluate_planes(planes, legal, symmetries=self.symmetries)
            probs = evaluation.policy
            raw = evaluation.value
        else:
            outputs = self.session.run(None, {"planes": planes})
            probs = masked_softmax(outputs[0], legal)
            raw = outputs[1].reshape(-1) if len(outputs) > 1 else None
        if raw is None:
            values = np.full(len(planes), 0.5)
        else:
            values = np.clip((np.asarray(raw, dtype=np.float64) + 1.0) / 2.0, 0.0, 1.0)
        return probs, values


def encode_leaves(spec: ModelSpec, leaves: LeafBatch, count: int) -> npt.NDArray[np.float32]:
    """The first ``count`` leaves of a search's batch encoded for the network of ``spec``
    (its feature set's planes, as ``float32``); a :class:`ModelError` when the leaves are of
    another game or board, or keep fewer boards than the network reads."""
    if leaves.game != spec.game or leaves.size != spec.size:
        spec.check(leaves.game, leaves.size)
    features = spec.feature_set
    if leaves.history < features.history:
        raise ModelError(f"the model reads {features.history} boards; the search kept fewer")
    positions = Positions(
        leaves.board_planes(count)[:, : features.history],
        leaves.to_play[:count],
        leaves.legal[:count],
    )
    return features.encode(positions).astype(np.float32, copy=False)


Loader = Callable[[str, str | None, int | None], NetworkEvaluator]
"""``load(path, game, size)``: a :class:`NetworkEvaluator` for the model at ``path`` (checked
to be for ``game``; a size-free model loaded for ``size``)."""


class BoardEvaluator:
    """The network for the board being played, as an agent's evaluator (or guide).

    ``model`` is a model file, or ``""`` for the network ``shipped(game, size)`` names for each
    board. A model given is loaded at once (a bad file is an error when the agent is made); a
    size-free one (pooled heads, ``b6c64-pool``) is loaded again for each board size it is
    asked to play, and each board's evaluator is kept. :meth:`select` switches boards
    (agents call it from ``prepare``); :meth:`evaluate` follows the leaves' board.
    """

    needs_states = False

    def __init__(self, model: str, load: Loader, shipped: Callable[[str, int], Path]) -> None:
        self.model = model
        self._load = load
        self._shipped = shipped
        self._lock = threading.Lock()
        self._by_board: dict[tuple[str, int], NetworkEvaluator] = {}
        self.current: NetworkEvaluator | None = None
        if model:
            self.current = load(model, None, None)
            spec = self.current.spec
            self._by_board[(spec.game, spec.size)] = self.current

    @property
    def history(self) -> int:
        """Boards of history the network reads (1 until one is loaded)."""
        return 1 if self.current is None else self.current.history

    @property
    def score_weight(self) -> float:
        """The current network's share of margin in its values (0 before one is loaded)."""
        return 0.0 if self.current is None else self.current.score_weight

    @property
    def spec(self) -> ModelSpec:
        """The current network's spec (an error before the first board is known)."""
        if self.current is None:
            raise RuntimeError("the network is loaded with the first board (select)")
        return self.current.spec

    def select(self, game: str, size: int) -> NetworkEvaluator:
        """The evaluator for ``game`` on a ``size`` board, loaded if needed; an
        :class:`~imago.agents.base.AgentError` saying what to give when the model does not
        play that board."""
        current = self.current
        if current is not None and (current.spec.game, current.spec.size) == (game, size):
            return current
        with self._lock:
            found = self._by_board.get((game, size))
            if found is None:
                found = self._load_for(game, size)
                self._by_board[(game, size)] = found
            self.current = found
        return found

    def _load_for(self, game: str, size: int) -> NetworkEvaluator:
        if not self.model:
            return self._load(str(self._shipped(game, size)), game, size)
        from imago.nn.shipped import check_fits

        given = next(iter(self._by_board.values()))
        check_fits(given.spec, self.model, game, size)
        return self._load(self.model, game, size)

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        return self.select(leaves.game, leaves.size).evaluate(leaves, count)


def masked_softmax(
    logits: npt.NDArray[np.floating], legal: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float32]:
    """Softmax over each row's legal actions (a row with none keeps every action)."""
    x = np.asarray(logits, dtype=np.float32)
    usable = legal | ~legal.any(axis=1, keepdims=True)
    x = np.where(usable, x, -np.inf)
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    result: npt.NDArray[np.float32] = e / e.sum(axis=1, keepdims=True)
    return result
