"""``imago gtp``: serve the Go Text Protocol on stdin/stdout for GUIs and controllers."""

from __future__ import annotations

import sys

import typer

from imago.cli._common import fail


def gtp(
    game: str = typer.Option("go", help="go or othello."),
    agent: str = typer.Option(
        "random", help="The agent: NAME or NAME:option=value,... (see `imago agents`)."
    ),
    size: int = typer.Option(None, help="Board size (default: 9 for Go, 8 for Othello)."),
    komi: float = typer.Option(None, help="Komi (default: 7 on 9x9, 7.5 otherwise)."),
    rules: str = typer.Option(
        "computer", help="Go rules: chinese, japanese, tromp-taylor, aga, nz, computer."
    ),
    move_time: float = typer.Option(
        2.0, help="Seconds per move when the controller sets no time control."
    ),
    seed: int = typer.Option(None, help="Seed of the agent's random generator."),
    name: str = typer.Option("imago", help="The name the engine reports."),
) -> None:
    """Run imago as a GTP engine (version 2) on standard input and output."""
    from imago.agents.registry import make_agent, parse_agent_spec
    from imago.gtp.engine import GtpServer
    from imago.gtp.game_engine import EngineConfig, GameEngine
    from imago.gtp.timecontrol import TimePolicy

    if game not in ("go", "othello"):
        raise fail(f"unknown game {game!r} (go or othello)")
    if move_time <= 0:
        raise fail("--move-time must be positive")
    try:
        agent_name, options = parse_agent_spec(agent)
        player = make_agent(agent_name, game, options, seed=seed)
        config = EngineConfig(game, size, komi, rules, TimePolicy(default_time=move_time))
        core = GameEngine(config, player)
    except ValueError as error:
        raise fail(str(error)) from None
    for stream in (sys.stdin, sys.stdout):
        if hasattr(stream, "reconfigure"):  # bad bytes become U+FFFD, never an end of input
            stream.reconfigure(errors="replace")
    try:
        GtpServer(core, name).run(sys.stdin, sys.stdout)
    finally:
        player.close()


def register(app: typer.Typer) -> None:
    app.command("gtp")(gtp)
