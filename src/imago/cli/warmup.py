"""``imago warmup``: compile imago's numba kernels for this machine now, once.

The rules and searches are numba kernels compiled on their first use and cached beside their
modules (``__pycache__/*.nbi``, ``*.nbc``); all of them are dropped together when any module
with kernels changes (:mod:`imago._kernel_cache`: numba itself would keep a caller's copy of
a changed callee). Without the cache the first move of a game waits
for the compiler: about a minute of CPU for Go. ``scripts/setup.sh`` runs this command, so
``./scripts/play.sh`` starts its first game at once; ``imago play`` runs the same steps, with
their progress shown, when it finds the kernels of its game not compiled yet.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer

from imago.cli._common import console, strongest_agent

KERNEL_MODULES: dict[str, tuple[str, ...]] = {
    "go": (
        "imago.games.go._kernels",
        "imago.agents.mcts._tree",
        "imago.agents.go._mcts",
        "imago.agents.go._playouts",
        "imago.agents.go._patterns",
        "imago.nn._feature_kernels",  # the network's input planes (nnmcts)
        "imago.records._sgf_kernels",
    ),
    "othello": (
        "imago.games.othello._kernels",
        "imago.agents.othello._alphabeta",
        "imago.agents.othello.patterns",
        "imago.agents.othello._endgame",
        "imago.records._sgf_kernels",
    ),
}
"""The kernel modules a game of each kind needs (their cache tells a cold start)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One thing to compile: its name for the progress line and the work that compiles it."""

    name: str
    run: Callable[[], None]


def cold(game: str) -> bool:
    """Whether some kernel module a ``game`` needs has never been compiled on this machine: no
    numba cache index beside it (where numba caches when the folder is writable, as in the
    virtualenv ``scripts/setup.sh`` makes). ``False`` when that cannot be told. The modules
    are not imported (some compile kernels as they are imported)."""
    for name in KERNEL_MODULES[game]:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        source = Path(spec.origin)
        folder = source.parent / "__pycache__"
        if not os.access(source.parent, os.W_OK):
            return False  # numba keeps its cache elsewhere then
        if not any(folder.glob(f"{source.stem}.*.nbi")):
            return True
    return False


def steps(game: str) -> list[Step]:
    """The work that compiles what playing ``game`` needs: the rules over a whole game, the
    strongest agent's search, scoring, and records."""
    return [
        Step(f"{game} rules", lambda: _play_out(game)),
        Step(f"{game} search ({strongest_agent(game)})", lambda: _search(game)),
    ]


def _play_out(game: str) -> None:
    """A random game to the end, counted and written as SGF (rules, scoring, records)."""
    from imago.agents.registry import make_agent
    from imago.gtp import records_io
    from imago.gtp.game_engine import EngineConfig, GameEngine
    from imago.records.sgf import read_string

    engine = GameEngine(EngineConfig(game))
    agent = make_agent("random", game, seed=1)
    while not engine.state.is_over():
        engine.genmove(engine.state.to_play, agent=agent)
    engine.final_score()
    read_string(records_io.sgf_text(engine))


def _search(game: str) -> None:
    """The strongest agent thinks about the start and about a position near the end."""
    from imago.agents.base import Limit
    from imago.agents.registry import agent_from_spec, make_agent
    from imago.games import make

    agent = agent_from_spec(strongest_agent(game), game, seed=1)
    mover = make_agent("random", game, seed=2)
    try:
        state = make(game)
        agent.select_move(state, Limit(time=0.2, playouts=64, depth=3))
        for _ in range(45 if game == "othello" else 30):
            if state.is_over():
                break
            state = state.play(mover.select_move(state, Limit()).move)
        if not state.is_over():  # Othello: the exact endgame solver
            agent.select_move(state, Limit(time=0.2, playouts=64))
    finally:
        agent.close()


def warm_up(games: list[str], *, quiet: bool = False) -> None:
    """Run the compiling steps of ``games`` with a progress bar."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    work = [step for game in games for step in steps(game)]
    columns = (
        TextColumn("compiling {task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=quiet, disable=False) as progress:
        task = progress.add_task(work[0].name if work else "", total=len(work))
        for step in work:
            progress.update(task, description=step.name)
            step.run()
            progress.advance(task)


def warmup(
    game: str = typer.Option(None, help="go or othello (default: both).", show_default=False),
    force: bool = typer.Option(False, "--force", help="Run even when the kernels are cached."),
) -> None:
    """Compile imago's kernels for this machine now, once (setup does it), so that the first
    move of the first game does not wait for the compiler."""
    from imago.cli._common import fail

    if game is not None and game not in KERNEL_MODULES:
        raise fail(f"unknown game {game!r} (go or othello)")
    games = [game] if game else list(KERNEL_MODULES)
    todo = [g for g in games if force or cold(g)]
    if not todo:
        console.print("the kernels are compiled already (--force compiles them again)")
        return
    warm_up(todo)
    console.print("kernels compiled and cached: the next games start at once")


def register(app: typer.Typer) -> None:
    app.command("warmup")(warmup)
