"""Helpers shared by command modules: where the data is, how errors are shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    from rich.markup import escape

    err_console.print(f"[bold red]error:[/] {escape(message)}")
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
