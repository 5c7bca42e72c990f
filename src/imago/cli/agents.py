"""``imago agents``: list the registered agents with their options."""

from __future__ import annotations

import typer

from imago.cli._common import console


def agents() -> None:
    """List the agents imago can play with, the games they play and their options."""
    from rich.table import Table

    from imago.agents.registry import agent_specs

    table = Table(title="agents (use as NAME or NAME:option=value,...)")
    for column in ("agent", "games", "options", "what it is"):
        table.add_column(column)
    for spec in agent_specs().values():
        options = "\n".join(f"{n}: {t} = {d!r}" for n, t, d in spec.option_fields())
        table.add_row(spec.name, ", ".join(spec.games), options or "-", spec.summary)
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("agents")(agents)
