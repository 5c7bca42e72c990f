"""``imago analyze``: review a whole game with an engine and write an annotated SGF."""

from __future__ import annotations

from pathlib import Path

import typer

from imago.cli._common import console, fail, strongest_agent


def analyze(
    record: Path = typer.Argument(..., help="The game: .sgf, .wtb (WTHOR) or .txt transcripts."),
    index: int = typer.Option(1, help="Which game of the file (1 = the first)."),
    agent: str = typer.Option(
        None,
        help="The engine: NAME[:option=value,...] (default: the strongest for the board, as "
        "imago play chooses: az:mix=0.5 on 9x9 Go, nnmcts on 13x13 and 19x19, "
        "alphabeta in Othello, else mcts; Go searches on two cores where there are two).",
    ),
    seconds: float = typer.Option(1.0, help="Seconds of search per position."),
    playouts: int = typer.Option(None, help="Playouts per position instead of a time (MCTS)."),
    out: Path = typer.Option(None, help="The annotated SGF (default: GAME-analyzed.sgf)."),
    variations: int = typer.Option(5, help="Add the engine's line at this many worst moves."),
    seed: int = typer.Option(None, help="Seed of the engine's random generator."),
) -> None:
    """Review every position of a game's main line with an engine, as KaTrain does: each
    move's loss against the engine's choice, the biggest mistakes with the better move, and an
    annotated SGF (comments, V, BM/DO marks, the better lines as variations). Interrupted, it
    resumes where it stopped when run again."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    from imago.agents.base import Limit
    from imago.agents.registry import agent_from_spec
    from imago.core.errors import os_error_text
    from imago.records import sgf
    from imago.records.files import load_file
    from imago.ui import review as reviewing

    if seconds <= 0 or (playouts is not None and playouts < 1) or variations < 0:
        raise fail("--seconds must be positive, --playouts and --variations at least 1 and 0")
    try:
        loaded = load_file(record)
    except OSError as error:
        raise fail(f"cannot read {record}: {os_error_text(error)}") from None
    if not loaded.games:
        problems = "; ".join(loaded.errors[:3]) or "no game found"
        raise fail(f"no game in {record}: {problems}")
    if not 1 <= index <= len(loaded.games):
        raise fail(
            f"{record} holds {len(loaded.games)} game(s): --index must be 1..{len(loaded.games)}"
        )
    game = loaded.games[index - 1]
    spec = agent or strongest_agent(game.game_name, game.size)
    try:
        engine = agent_from_spec(spec, game.game_name, size=game.size, seed=seed)
    except ValueError as error:
        raise fail(str(error)) from None
    limit = Limit(playouts=playouts) if playouts is not None else Limit(time=seconds)
    target = out or record.with_name(f"{record.stem}-analyzed.sgf")
    checkpoint = target.with_name(target.name + ".partial.json")
    nodes = reviewing.line_of(game.end())
    key = reviewing.checkpoint_key(nodes, spec, limit)
    known = reviewing.load_checkpoint(checkpoint, key, game.size)
    evals = list(known)
    if known:
        console.print(f"resuming: {len(known)} of {len(nodes)} positions already reviewed")
    elif target.exists():
        console.print(f"{target} holds a finished review: reviewing again, it will be replaced")

    def save(position: int, evaluation: reviewing.PositionEval) -> None:
        evals.append(evaluation)
        reviewing.save_checkpoint(checkpoint, key, game.size, evals)

    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn())
    try:
        with Progress(*columns, TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(f"{spec} reviews {record.name}", total=len(nodes))

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            result = reviewing.review_line(
                nodes, engine, limit, engine=spec, progress=advance, known=known, on_eval=save
            )
    except KeyboardInterrupt:
        raise fail(
            f"interrupted after {len(evals)} positions (kept in {checkpoint}): "
            "run the same command again to resume",
            130,
        ) from None
    except ValueError as error:
        raise fail(str(error)) from None
    finally:
        engine.close()
    reviewing.annotate(nodes, result, variations=variations)
    sgf.write_file(target, game)
    reviewing.remove_checkpoint(checkpoint)
    table = Table(title=f"{record.name}: the biggest mistakes ({result.unit})")
    for column in ("move", "player", "played", "loss", "better"):
        table.add_column(column)
    for m in result.mistakes():
        loss = f"{m.loss:.1%}" if result.unit == reviewing.WINRATE else f"{m.loss:g}"
        better = "" if m.better is None else reviewing.move_label(result, m.better)
        table.add_row(
            str(m.number), m.color.letter, reviewing.move_label(result, m.move), loss, better
        )
    console.print(table)
    console.print(reviewing.summary_text(result).splitlines()[1])
    console.print(reviewing.summary_text(result).splitlines()[2])
    console.print(f"wrote {target}")


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze)
