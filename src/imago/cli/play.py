"""``imago play``: play in the terminal, a person or an agent on either side."""

from __future__ import annotations

import typer

from imago.cli._common import console, fail


def play(
    game: str = typer.Option("go", help="go or othello."),
    size: int = typer.Option(None, help="Board size (default: 9 for Go, 8 for Othello)."),
    komi: float = typer.Option(None, help="Komi (default: 7 on 9x9, 7.5 otherwise)."),
    rules: str = typer.Option(
        "computer", help="Go rules: chinese, japanese, tromp-taylor, aga, nz, computer."
    ),
    black: str = typer.Option("human", help="human, or an agent: NAME[:option=value,...]."),
    white: str = typer.Option(
        None,
        help="human, or an agent: NAME[:option=value,...] (default: imago's strongest engine: "
        "nnmcts on 9x9 Go when torch is installed, else mcts, with two search threads on a "
        "machine with two cores; alphabeta for Othello).",
    ),
    hint: str = typer.Option(
        None, help="The agent that answers `hint` (default: the first agent playing, or random)."
    ),
    move_time: float = typer.Option(1.0, help="Seconds an agent may think per move."),
    delay: float = typer.Option(
        None, help="Pause before each agent move, seconds (default: 0.5 when no person plays)."
    ),
    seed: int = typer.Option(None, help="Seed of the agents' random generators."),
) -> None:
    """Play Go or Othello in the terminal: human vs agent, human vs human, or watch agents."""
    from imago.agents.base import Agent
    from imago.agents.registry import make_agent, parse_agent_spec
    from imago.gtp.game_engine import EngineConfig, GameEngine
    from imago.gtp.timecontrol import TimePolicy
    from imago.ui.terminal import Seats, TerminalGame

    if game not in ("go", "othello"):
        raise fail(f"unknown game {game!r} (go or othello)")
    if move_time <= 0:
        raise fail("--move-time must be positive")

    def seat(spec: str | None, offset: int) -> Agent | None:
        if spec is None or spec.strip().lower() == "human":
            return None
        name, options = parse_agent_spec(spec)
        return make_agent(name, game, options, seed=None if seed is None else seed + offset)

    if white is None:
        white = default_opponent(game, size)
    try:
        seats = Seats(seat(black, 0), seat(white, 1))
        seats.hint = seat(hint, 2)
        if seats.hint_agent is None:
            seats.hint = seat("random", 2)
        config = EngineConfig(game, size, komi, rules, TimePolicy(default_time=move_time))
        engine = GameEngine(config)
    except ValueError as error:
        raise fail(str(error)) from None
    people = sum(agent is None for agent in (seats.black, seats.white))
    pause = delay if delay is not None else (0.5 if people == 0 else 0.0)
    TerminalGame(engine, seats, console, console.input, delay=pause).run()
    for agent in {id(a): a for a in (seats.black, seats.white, seats.hint) if a}.values():
        agent.close()


def default_opponent(game: str, size: int | None) -> str:
    """The agent a person plays by default: the strongest one this installation can run (the
    shipped Go network is for 9x9 and needs the ``nn`` extra; Go searches use two threads where
    the machine has two cores)."""
    import importlib.util
    import os

    from imago.nn.shipped import SHIPPED_MODELS

    if game == "othello":
        return "alphabeta"
    threads = "" if (os.cpu_count() or 1) < 2 else ":threads=2"
    if ("go", size or 9) in SHIPPED_MODELS and importlib.util.find_spec("torch") is not None:
        return "nnmcts" + threads
    return "mcts" + threads


def register(app: typer.Typer) -> None:
    app.command("play")(play)
