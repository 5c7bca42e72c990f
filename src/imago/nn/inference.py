"""Evaluating positions with a model: legal-move masking and symmetry averaging.

>>> network = Network.load("model.pt", game="othello", size=8)        # doctest: +SKIP
>>> evaluation = network.evaluate([state], symmetries=8)              # doctest: +SKIP
>>> evaluation.policy[0].argmax()                                     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from imago.core.game import GameState
from imago.games.symmetry import gather_table, image_table
from imago.nn.models import ModelError, Net
from imago.nn.store import LoadedModel, ModelSpec, load_model


def resolve_device(name: str = "auto") -> torch.device:
    """``auto``: CUDA when present, else CPU; ``cpu``, ``cuda``, ``cuda:1`` are taken as is."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ModelError(f"unknown device {name!r}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ModelError("CUDA was asked for but is not available")
    return device


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Move probabilities ``(batch, N*N + 1)`` (zero on illegal moves when masked) and values
    ``(batch,)`` in ``[-1, 1]`` for the player to move (``None`` for policy-only networks)."""

    policy: npt.NDArray[np.float32]
    value: npt.NDArray[np.float32] | None


def masked_softmax(logits: torch.Tensor, legal: torch.Tensor | None) -> torch.Tensor:
    """Softmax over the legal actions only; rows with no legal action keep every action."""
    if legal is None:
        return torch.softmax(logits.float(), dim=-1)
    usable = legal & legal.any(dim=-1, keepdim=True) | ~legal.any(dim=-1, keepdim=True)
    masked = logits.float().masked_fill(~usable, float("-inf"))
    return torch.softmax(masked, dim=-1)


def symmetry_list(count: int) -> list[int]:
    """The first ``count`` symmetries (1 = identity only, 8 = all)."""
    if not 1 <= count <= 8:
        raise ModelError(f"symmetries must be 1..8, not {count}")
    return list(range(count))


class Network:
    """A loaded model ready to evaluate game states."""

    def __init__(
        self,
        net: Net,
        spec: ModelSpec,
        device: torch.device | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.spec = spec
        self.device = device or torch.device("cpu")
        self.net = net.to(self.device).eval()
        self.info = info or {}
        """The model file's training info (see :class:`imago.nn.store.LoadedModel`)."""

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        game: str | None = None,
        size: int | None = None,
        device: str = "auto",
    ) -> Network:
        """Load a model file (see :func:`imago.nn.store.load_model`) onto ``device``."""
        target = resolve_device(device)
        loaded: LoadedModel = load_model(path, game=game, size=size, device=target)
        return cls(loaded.net, loaded.spec, target, loaded.info)

    @property
    def has_value(self) -> bool:
        return self.net.has_value

    @property
    def score_weight(self) -> float:
        """The share of final margin in the value head's training target (0: results only;
        see :attr:`imago.nn.rl_train.StepsConfig.score_weight`), from the model file."""
        return float(self.info.get("score_weight", 0.0))

    def evaluate(
        self, states: Sequence[GameState], *, symmetries: int = 1, mask: bool = True
    ) -> Evaluation:
        """Evaluate game states (all of this model's game and size)."""
        for state in states:
            self.spec.check(state.game, state.size)
        fs = self.spec.feature_set
        planes = fs.encode_states(states)
        legal = np.stack([s.legal_mask() for s in states]) if mask else None
        return self.evaluate_planes(planes, legal, symmetries=symmetries)

    @torch.no_grad()
    def evaluate_planes(
        self,
        planes: npt.NDArray[np.generic],
        legal: npt.NDArray[np.bool_] | None = None,
        *,
        symmetries: int = 1,
    ) -> Evaluation:
        """Evaluate encoded planes ``(batch, planes, N, N)``; average over ``symmetries``."""
        x = torch.as_tensor(np.asarray(planes), dtype=torch.float32, device=self.device)
        size = self.spec.size
        n = x.shape[0]
        probs = torch.zeros((n, self.spec.num_actions), device=self.device)
        values = torch.zeros(n, device=self.device)
        legal_t = None if legal is None else torch.as_tensor(legal, device=self.device)
        chosen = symmetry_list(symmetries)
        for sym in chosen:
            source = torch.tensor(gather_table(sym, size)[:-1], device=self.device)
            xs = x.flatten(2)[..., source].reshape(x.shape)
            logits, value = self.net(xs)
            back = torch.tensor(image_table(sym, size), device=self.device)
            probs += masked_softmax(logits[..., back], legal_t)
            if value is not None:
                values += value.float()
        probs /= len(chosen)
        value_out = (values / len(chosen)).cpu().numpy() if self.has_value else None
        return Evaluation(probs.cpu().numpy().astype(np.float32), value_out)
