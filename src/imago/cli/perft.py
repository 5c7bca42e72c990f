"""``imago perft DEPTH --game go|othello --size N``: count leaf positions to find rules bugs."""

from __future__ import annotations

import importlib
import time

import typer

from imago.cli._common import err_console, fail

_DEFAULT_SIZES = {"go": 9, "othello": 8}


def perft(
    depth: int = typer.Argument(..., min=0, help="Number of moves (plies) from the start."),
    game: str = typer.Option("go", "--game", "-g", help="go or othello."),
    size: int = typer.Option(None, "--size", "-s", help="Board size (go: 9, othello: 8)."),
) -> None:
    """Count the positions exactly DEPTH legal moves from the start (pass included in Go)."""
    if game not in _DEFAULT_SIZES:
        raise fail(f"unknown game {game!r} (known: {', '.join(_DEFAULT_SIZES)})")
    board = size if size is not None else _DEFAULT_SIZES[game]
    try:
        module = importlib.import_module(f"imago.games.{game}")
    except ModuleNotFoundError:
        raise fail(f"the {game} rules are not installed") from None
    start = time.perf_counter()
    try:
        count = module.perft(depth, size=board)
    except ValueError as error:
        raise fail(str(error)) from None
    seconds = time.perf_counter() - start
    print(count)
    err_console.print(f"[dim]{game} {board}x{board} depth {depth}: {seconds:.3f} s[/]")


def register(app: typer.Typer) -> None:
    app.command("perft")(perft)
