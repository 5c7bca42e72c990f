"""``imago gtp``: serve the Go Text Protocol on stdin/stdout for GUIs and controllers."""

from __future__ import annotations

import sys

import typer

from imago.cli._common import GAME, KOMI, RULES, SIZE, err_console, fail, strongest_agent


def gtp(
    game: str = GAME,
    size: int = SIZE,
    komi: float = KOMI,
    rules: str = RULES,
    agent: str = typer.Option(
        None,
        help="The agent: NAME or NAME:option=value,... (see `imago agents`; default: the "
        "strongest for the game and board, as `imago play` plays: az:mix=0.5 on 9x9 Go, "
        "nnmcts on 13x13 and 19x19, mcts on other Go boards, each on two cores where there "
        "are two; alphabeta in Othello).",
        show_default=False,
    ),
    move_time: float = typer.Option(
        2.0, help="Seconds per move when the controller sets no time control."
    ),
    seed: int = typer.Option(
        None, help="Seed of the agent's random generator.", show_default=False
    ),
    name: str = typer.Option("imago", help="The name the engine reports."),
) -> None:
    """Run imago as a GTP engine (version 2) on standard input and output."""
    from imago.agents.base import Agent
    from imago.agents.registry import agent_from_spec
    from imago.games import default_size
    from imago.gtp.engine import GtpServer
    from imago.gtp.game_engine import EngineConfig, GameEngine
    from imago.gtp.timecontrol import TimePolicy

    if game not in ("go", "othello"):
        raise fail(f"unknown game {game!r} (go or othello)")
    if move_time <= 0:
        raise fail("--move-time must be positive")

    def strongest(board: int) -> Agent:
        return agent_from_spec(strongest_agent(game, board), game, size=board, seed=seed)

    try:
        config = EngineConfig(game, size, komi, rules, TimePolicy(default_time=move_time))
        GameEngine(config)  # rules, komi and size are checked before an agent is made
        board = size or default_size(game)
        player = agent_from_spec(agent, game, size=board, seed=seed) if agent else strongest(board)
        core = GameEngine(config, player, agent_for=None if agent else strongest)
    except ValueError as error:
        raise fail(str(error)) from None
    from imago.cli.warmup import cold

    if cold(game):  # stdout is the protocol's: the note goes to standard error
        err_console.print(
            "imago: the kernels are not compiled on this machine yet: the first genmove may "
            "take a minute (run `imago warmup` once to avoid it)",
            highlight=False,
        )
    for stream in (sys.stdin, sys.stdout):
        if hasattr(stream, "reconfigure"):  # bad bytes become U+FFFD, never an end of input
            stream.reconfigure(errors="replace")
    try:
        GtpServer(core, name).run(sys.stdin, sys.stdout)
    finally:
        core.close()


def register(app: typer.Typer) -> None:
    app.command("gtp")(gtp)
