"""The ``imago`` command: a typer app assembled from one module per command.

Command modules import their heavy dependencies (numba kernels, torch) inside the command
functions, so ``imago --version`` and ``imago --help`` start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

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
    "imago.cli.warmup",
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


_TYPE_NAMES = {
    "<str>": "TEXT",
    "<int>": "INTEGER",
    "<float>": "NUMBER",
    "<Path>": "PATH",
    "<list[Path]>": "PATH...",
    "<list[str]>": "TEXT...",
}
"""Python's type names in help, as command-line tools name them."""


def _show_types_for_people() -> None:
    """Recent typer versions print an option's Python type in help (``--help <bool>``,
    ``<list[Path]>``): a flag takes no value, so it shows none, and the others show what
    command-line tools show (``TEXT``, ``INTEGER``, ``PATH...``)."""
    from typer.core import TyperArgument, TyperOption

    for kind in (TyperOption, TyperArgument):
        shown = getattr(kind, "display_type_rich", None)
        if shown is None or getattr(shown, "_imago", False):
            continue

        def display_type_rich(self: Any, ctx: Any, shown: Any = shown) -> str | None:
            if getattr(self, "is_flag", False) and not getattr(self, "count", False):
                return None
            text: str | None = shown(self, ctx)
            return _TYPE_NAMES.get(text or "", text)

        display_type_rich._imago = True  # type: ignore[attr-defined]
        kind.display_type_rich = display_type_rich  # type: ignore[method-assign]


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
_show_types_for_people()


def main() -> None:
    """Entry point of the ``imago`` console script. Commands say what went wrong themselves;
    a file that cannot be read or written, or a bug, that one of them did not foresee is one
    line here, never a traceback (``IMAGO_DEBUG=1`` shows the traceback of a bug)."""
    import os

    from imago.cli._common import fail
    from imago.core.memory import retain_freed_memory

    retain_freed_memory()  # imago's own process: keep freed heap for the next game's positions
    try:
        app()
    except OSError as error:
        from imago.core.errors import os_error_text

        where = f"{error.filename}: " if error.filename else ""
        raise SystemExit(fail(f"{where}{os_error_text(error)}").exit_code) from None
    except Exception as error:
        if os.environ.get("IMAGO_DEBUG"):
            raise
        message = f"internal error: {type(error).__name__}: {error}".splitlines()[0]
        hint = " (a bug in imago; IMAGO_DEBUG=1 shows where it happened)"
        raise SystemExit(fail(message + hint).exit_code) from None
