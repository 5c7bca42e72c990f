"""The networks shipped with imago (``imago/nn/data``; their README says how each was made).

Agents that take ``model=PATH`` fall back on these when no path is given, so ``policy`` and
``nnmcts`` play out of the box on the boards a shipped network knows.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"

SHIPPED_MODELS: dict[tuple[str, int], Path] = {
    ("go", 9): DATA / "go9_policy_b5c48.pt",
    ("othello", 8): DATA / "othello_policy_b5c48.pt",
}
"""Shipped model file by ``(game, board size)``."""

SHIPPED_AZ_MODELS: dict[tuple[str, int], Path] = {
    ("othello", 6): DATA / "othello6_az_b4c32.pt",
}
"""Shipped self-play (``imago rl``) networks by ``(game, board size)``: the ``az`` agent's
default where one exists (else the supervised network above)."""


def shipped_model(game: str, size: int) -> Path:
    """The shipped model for ``game`` on a ``size`` board; a :class:`ModelError` when there is
    none (the agent then needs ``model=PATH``)."""
    from imago.nn.models import ModelError  # torch stays unimported until a network is needed

    path = SHIPPED_MODELS.get((game, size))
    if path is None:
        known = ", ".join(f"{g} {s}x{s}" for g, s in SHIPPED_MODELS)
        raise ModelError(
            f"no network is shipped for {game} {size}x{size} (shipped: {known}); "
            "give model=PATH (a model.pt from imago train)"
        )
    if not path.is_file():
        raise ModelError(f"the shipped model {path.name} is missing from {path.parent}")
    return path


def az_model(game: str, size: int) -> Path:
    """The network the ``az`` agent plays by default: the shipped self-play network for
    ``game`` on a ``size`` board, else the shipped supervised one (a :class:`ModelError`
    when neither exists)."""
    path = SHIPPED_AZ_MODELS.get((game, size))
    if path is not None and path.is_file():
        return path
    return shipped_model(game, size)
