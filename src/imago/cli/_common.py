"""Helpers shared by command modules: where the data is, how errors are shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console

# soft_wrap: a long line is left to the terminal to fold, never broken by rich inside a path
# or a word (a path printed to copy stays whole, also when output goes to a file or a pipe)
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

# -- the options every game command shares (one wording, one default) ----------------------------

GAME = typer.Option("go", "--game", help="go or othello.")
SIZE = typer.Option(
    None, "--size", help="Board size (default: 9 for Go, 8 for Othello).", show_default=False
)
KOMI = typer.Option(
    None,
    "--komi",
    help="Komi (default: the rules' own for the board; computer rules: 7 on 9x9, 7.5 otherwise).",
    show_default=False,
)
RULES = typer.Option(
    "computer",
    "--rules",
    help="Go rules: chinese, japanese, tromp-taylor, aga, nz, computer (area scoring, "
    "positional superko, no suicide).",
)


def default_data_dir() -> Path | None:
    """The ``shared/data`` folder beside the working directory or one of its parents, if any."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        for candidate in (folder / "shared" / "data", folder.parent / "shared" / "data"):
            if candidate.is_dir():
                return candidate
    return None


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``message`` as an error and return the exit to raise: ``raise fail("...")``."""
    from rich.markup import escape

    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    return typer.Exit(code)


RAY_HELP = (
    "Run on Ray: 'auto' starts a Ray instance on this machine for the run, HOST:PORT joins a "
    "running cluster (pip install 'imago[ray]')."
)


def open_executor(ray: str | None, workers: int) -> Any:
    """The executor for ``--ray`` / ``--jobs`` (:mod:`imago.cluster`), or a clear error."""
    from imago.cluster import ClusterError, Execution
    from imago.cluster import open_executor as open_

    try:
        return open_(Execution(ray=ray, workers=workers))
    except (ClusterError, ValueError) as error:
        raise fail(str(error)) from None


def open_game_executor(ray: str | None, jobs: int) -> Any:
    """The executor of a command that plays games (``--jobs`` / ``--ray``): ``jobs`` local
    processes, or on Ray ``jobs`` slots, the default ``--jobs 1`` meaning one per CPU of the
    cluster."""
    return open_executor(ray, jobs if ray is None or jobs > 1 else 0)


def strongest_agent(game: str, size: int | None = None) -> str:
    """The strongest agent this installation can run for ``game`` on a ``size`` board (default:
    the game's usual one), as an agent spec: ``alphabeta`` in 8x8 Othello; ``az`` where a
    self-play network ships (6x6 Othello), ``nnmcts`` where a supervised one does (9x9, 13x13,
    19x19 Go), both needing torch; else ``mcts``; the searches with two threads on a machine
    with two cores or more. The default opponent of ``imago play``, the agent ``hint`` asks
    there, and ``imago gtp``'s agent."""
    import importlib.util
    import os

    from imago.games import default_size
    from imago.nn.shipped import SHIPPED_AZ_MODELS, SHIPPED_MODELS

    board = size or default_size(game)
    threads = "" if (os.cpu_count() or 1) < 2 else ":threads=2"
    torch = importlib.util.find_spec("torch") is not None
    if game == "othello" and board == 8:
        return "alphabeta"
    if (game, board) in SHIPPED_AZ_MODELS and torch:
        return "az"
    if game == "go" and (game, board) in SHIPPED_MODELS and torch:
        return "nnmcts" + threads
    return "mcts" + threads
