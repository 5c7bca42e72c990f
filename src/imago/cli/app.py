"""The ``imago`` command: a typer app assembled from one module per command.

Command modules import their heavy dependencies (numba kernels, torch) inside the command
functions, so ``imago --version`` and ``imago --help`` start fast.
"""

from __future__ import annotations

import importlib

import typer

from imago import __version__

COMMAND_MODULES: tuple[str, ...] = (
    "imago.cli.play",
    "imago.cli.perft",
    "imago.cli.bench",
    "imago.cli.agents",
    "imago.cli.gtp",
    "imago.cli.solve",
    "imago.cli.records",
    "imago.cli.match",
    "imago.cli.train",
    "imago.cli.rl",
    "imago.cli.serve",
    "imago.cli.analyze",
    "imago.cli.tune",
    "imago.cli.nboard",
)
"""Each module defines ``register(app: typer.Typer) -> None``; missing modules are skipped."""

app = typer.Typer(
    name="imago",
    help="Play, study and train AI for Go and Othello.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"imago {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Play, study and train AI for Go and Othello."""


def _register_commands() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name is None or not name.startswith(error.name):
                raise
            continue
        module.register(app)


_register_commands()


def main() -> None:
    """Entry point of the ``imago`` console script."""
    app()
