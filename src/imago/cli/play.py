"""``imago play``: play in the terminal, a person or an agent on either side."""

from __future__ import annotations

import typer

from imago.cli._common import GAME, KOMI, RULES, SIZE, console, fail, strongest_agent


def play(
    game: str = GAME,
    size: int = SIZE,
    komi: float = KOMI,
    rules: str = RULES,
    black: str = typer.Option("human", help="human, or an agent: NAME[:option=value,...]."),
    white: str = typer.Option(
        None,
        help="human, or an agent: NAME[:option=value,...] (default: imago's strongest engine: "
        "az:mix=0.5 on 9x9 Go when torch is installed, nnmcts on 13x13 and 19x19, else mcts, "
        "each searching on two cores where there are two; alphabeta for Othello).",
        show_default=False,
    ),
    hint: str = typer.Option(
        None,
        help="The agent that answers `hint` (default: the first agent playing, or the "
        "strongest engine when two people play).",
        show_default=False,
    ),
    move_time: float = typer.Option(1.0, help="Seconds an agent may think per move."),
    delay: float = typer.Option(
        None,
        help="Pause before each agent move, seconds (default: 0.5 when no person plays).",
        show_default=False,
    ),
    seed: int = typer.Option(
        None, help="Seed of the agents' random generators.", show_default=False
    ),
) -> None:
    """Play Go or Othello in the terminal: human vs agent, human vs human, or watch agents."""
    from imago.agents.base import Agent
    from imago.agents.registry import agent_from_spec
    from imago.games import default_size
    from imago.gtp.game_engine import EngineConfig, GameEngine
    from imago.gtp.timecontrol import TimePolicy
    from imago.ui.terminal import Seats, TerminalGame

    if game not in ("go", "othello"):
        raise fail(f"unknown game {game!r} (go or othello)")
    if move_time <= 0:
        raise fail("--move-time must be positive")
    board = size or default_size(game)
    made: list[Agent] = []
    _compile_first(game)

    def seat(spec: str | None, offset: int, size: int = board) -> Agent | None:
        if spec is None or spec.strip().lower() == "human":
            return None
        with console.status(f"getting {spec} ready…"):
            agent = agent_from_spec(
                spec, game, size=size, seed=None if seed is None else seed + offset
            )
        made.append(agent)
        return agent

    try:
        config = EngineConfig(game, size, komi, rules, TimePolicy(default_time=move_time))
        engine = GameEngine(config)  # rules, komi and size are checked before agents are made
        seats = Seats(seat(black, 0), seat(white or strongest_agent(game, board), 1))
        seats.hint = seat(hint, 2)
        if seats.hint_agent is None:  # two people: the strongest engine, made at the first hint
            seats.make_hint = lambda size: seat(strongest_agent(game, size), 2, size)
    except ValueError as error:
        for agent in made:
            agent.close()
        raise fail(str(error)) from None
    people = sum(agent is None for agent in (seats.black, seats.white))
    pause = delay if delay is not None else (0.5 if people == 0 else 0.0)
    terminal = TerminalGame(engine, seats, console, console.input, delay=pause)
    try:
        terminal.run()
    finally:
        for agent in made:
            agent.close()
    if terminal.failure is not None:
        raise typer.Exit(1)


def _compile_first(game: str) -> None:
    """On a machine where the kernels were never compiled, compile them now with progress shown
    (not silently at the first move)."""
    from imago.cli.warmup import cold, warm_up

    if cold(game):
        console.print(
            f"First game of {game} on this machine: compiling imago's kernels, once "
            "(scripts/setup.sh and `imago warmup` do it ahead)…",
            highlight=False,
        )
        warm_up([game], quiet=True)


def register(app: typer.Typer) -> None:
    app.command("play")(play)
