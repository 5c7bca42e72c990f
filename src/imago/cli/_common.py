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
    """:func:`imago.nn.shipped.strongest_agent`, imported when a command asks (the command line
    loads no numeric library before a command needs one)."""
    from imago.nn.shipped import strongest_agent as choose

    return choose(game, size)
