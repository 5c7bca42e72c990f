"""``imago nboard``: serve the NBoard protocol on stdin/stdout (the NBoard Othello GUI)."""

from __future__ import annotations

import sys

import typer

from imago.cli._common import fail


def nboard(
    agent: str = typer.Option(
        "alphabeta", help="The agent: NAME or NAME:option=value,... (see `imago agents`)."
    ),
    max_time: float = typer.Option(
        60.0, "--max-time", help="Seconds one search may take at most (NBoard sends no clock)."
    ),
    seed: int = typer.Option(None, help="Seed of the agent's random generator."),
    name: str = typer.Option("imago", help="The name the engine reports (set myname)."),
) -> None:
    """Run imago as an Othello engine for NBoard (protocol versions 1 and 2): in NBoard,
    Engine > Select engine > Add, with the command `imago nboard`."""
    from imago.agents.registry import make_agent, parse_agent_spec
    from imago.gtp.game_engine import EngineConfig, GameEngine
    from imago.gtp.nboard import NboardServer

    if max_time <= 0:
        raise fail("--max-time must be positive")
    try:
        agent_name, options = parse_agent_spec(agent)
        player = make_agent(agent_name, "othello", options, seed=seed)
        server = NboardServer(
            GameEngine(EngineConfig("othello"), player), name=name, max_time=max_time
        )
    except ValueError as error:
        raise fail(str(error)) from None
    for stream in (sys.stdin, sys.stdout):
        if hasattr(stream, "reconfigure"):  # bad bytes become U+FFFD, never an end of input
            stream.reconfigure(errors="replace")
    try:
        server.run(sys.stdin, sys.stdout)
    finally:
        player.close()


def register(app: typer.Typer) -> None:
    app.command("nboard")(nboard)
