"""Helpers shared by command modules: where the data is, how errors are shown."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)

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
    err_console.print(f"[bold red]error:[/] {message}", soft_wrap=True)
    return typer.Exit(code)


def strongest_agent(game: str, size: int | None = None) -> str:
    """The strongest agent this installation can run for ``game`` on a ``size`` board (default:
    the game's usual one), as an agent spec: ``nnmcts`` on 9x9 Go (the shipped network; it
    needs torch), ``mcts`` on other Go and Othello boards, both searching with two threads on
    a machine with two cores or more; ``alphabeta`` in 8x8 Othello. The default opponent of
    ``imago play``, the agent ``hint`` asks there, and ``imago gtp``'s agent."""
    import importlib.util
    import os

    from imago.games import default_size
    from imago.nn.shipped import SHIPPED_MODELS

    board = size or default_size(game)
    threads = "" if (os.cpu_count() or 1) < 2 else ":threads=2"
    if game == "othello":
        return "alphabeta" if board == 8 else "mcts" + threads
    if (game, board) in SHIPPED_MODELS and importlib.util.find_spec("torch") is not None:
        return "nnmcts" + threads
    return "mcts" + threads
