"""Helpers shared by command modules: where the data is, how errors are shown."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


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
    err_console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)
