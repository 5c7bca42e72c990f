"""The networks shipped with imago (``imago/nn/data``; their README says how each was made).

Agents that take ``model=PATH`` fall back on these when no path is given, so ``policy`` and
``nnmcts`` play out of the box on the boards a shipped network knows.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from imago.agents.base import AgentError

if TYPE_CHECKING:
    from imago.nn.store import ModelSpec

DATA = Path(__file__).parent / "data"

SHIPPED_MODELS: dict[tuple[str, int], Path] = {
    ("go", 9): DATA / "go9_policy_b5c48.pt",
    ("go", 13): DATA / "go19_b10c128_pool_h11.pt",  # size-free: trained on 19x19, plays 13x13
    ("go", 19): DATA / "go19_b10c128_pool_h11.pt",
    ("othello", 8): DATA / "othello_policy_b5c48.pt",
}
"""Shipped model file by ``(game, board size)``."""

SHIPPED_AZ_MODELS: dict[tuple[str, int], Path] = {
    ("othello", 6): DATA / "othello6_az_b4c32.pt",
    ("go", 9): DATA / "go9_b5c48_rl176.pt",  # the 9x9 network above, improved by imago rl
    ("othello", 8): DATA / "othello8_b5c48_rl208.pt",  # the 8x8 network above, improved by imago rl
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


def check_fits(spec: ModelSpec, model: str, game: str, size: int) -> None:
    """:class:`AgentError` when the model ``model`` (whose spec is ``spec``) is not for
    ``game`` on a ``size`` board, saying what to give instead."""
    if spec.plays(game, size):
        return
    shipped = (game, size) in SHIPPED_MODELS
    fix = (
        f"give model= a {game} {size}x{size} model"
        + (", or leave model= out to use the shipped one" if shipped else "")
        + (" (imago train supervised makes one)" if not shipped else "")
    )
    raise AgentError(
        f"{model or 'the shipped model'} is a model for {spec.size}x{spec.size} {spec.game}, "
        f"not {size}x{size} {game}: {fix}"
    )


def model_file_problem(path: str | Path) -> str | None:
    """What is wrong with ``path`` as a model file before it is read (no torch needed): it is
    missing or a folder; ``None`` when it is a file."""
    file = Path(path)
    if file.is_file():
        return None
    what = "a folder, not a model file" if file.is_dir() else "no such file"
    return f"{file}: {what} (a model is a model.pt written by imago train)"


def az_model(game: str, size: int) -> Path:
    """The network the ``az`` agent plays by default: the shipped self-play network for
    ``game`` on a ``size`` board, else the shipped supervised one (a :class:`ModelError`
    when neither exists)."""
    path = SHIPPED_AZ_MODELS.get((game, size))
    if path is not None and path.is_file():
        return path
    return shipped_model(game, size)


def strongest_agent(game: str, size: int | None = None) -> str:
    """The strongest agent this installation can run for ``game`` on a ``size`` board (default:
    the game's usual one), as an agent spec: ``alphabeta`` in Othello (every board; on 6x6 it
    beats the 6x6 ``az`` network 80 %); on 9x9 Go ``az`` with playouts mixed into its
    network's values (``az:mix=0.5``: 78 % against ``nnmcts`` at equal time; 90 % against
    GNU Go level 10 with the shipped generation 56, 92.5 % with 37 and 152; ``mix=0.7``
    scores 95-96 % there but 22.5 % against Pachi where ``mix=0.5`` scores 30 %; BENCHMARKS.md);
    ``nnmcts`` on the other Go boards where a network ships (13x13, 19x19), both needing
    torch; else ``mcts``. On a machine with two cores or more each search uses two:
    ``nnmcts`` and ``mcts`` with two threads, ``az`` with its playouts on a second thread
    (``playout_thread=true``: one tree, 1.6x the simulations; 66.0 % against one thread at
    0.25 s a move). The default opponent of ``imago play``, the agent ``hint`` asks there,
    ``imago gtp``'s and ``imago analyze``'s agent, and the browser board's ``auto``."""
    import importlib.util

    from imago.cluster.local import cpu_count
    from imago.games import default_size

    board = size or default_size(game)
    two_cores = cpu_count() >= 2  # the cores this process may use, not the machine's
    threads = ":threads=2" if two_cores else ""
    torch = importlib.util.find_spec("torch") is not None
    if game == "othello":
        return "alphabeta"
    if (game, board) == ("go", 9) and (game, board) in SHIPPED_AZ_MODELS and torch:
        return "az:mix=0.5" + (",playout_thread=true" if two_cores else "")
    if game == "go" and (game, board) in SHIPPED_MODELS and torch:
        return "nnmcts" + threads
    return "mcts" + threads
