"""``imago tune ga`` and ``imago tune plot``: evolve the Othello evaluation by games (seed
002's genetic algorithm), and draw a run's fitness and masks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from imago.cli._common import RAY_HELP, console, err_console, fail, open_game_executor

if TYPE_CHECKING:
    from rich.progress import TaskID

    from imago.cluster import Executor
    from imago.tune.genetic import GeneticRun


def register(app: typer.Typer) -> None:
    """Add the ``tune`` command group to the ``imago`` app."""
    tune = typer.Typer(
        name="tune",
        help="Tune agents by playing games (the genetic algorithm of the Othello evaluation).",
        no_args_is_help=True,
    )
    tune.command("ga")(ga)
    tune.command("plot")(plot)
    app.add_typer(tune)


OUT = typer.Option(..., "--out", help="The run's folder (resumed when it exists).")


def ga(
    out: Path = OUT,
    game: str = typer.Option("othello", "--game", help="othello (the only game tuned so far)."),
    size: int = typer.Option(8, "--size", help="Board size: 8, 6 or 4."),
    population: int = typer.Option(12, "--population", help="Individuals per generation."),
    generations: int = typer.Option(10, "--generations", help="Generations (more extends a run)."),
    depth: int = typer.Option(2, "--depth", help="Search depth of every player."),
    endgame_empties: int = typer.Option(
        10, "--endgame-empties", help="Players solve exactly from this many empties (0: never)."
    ),
    peers: int = typer.Option(
        1, "--peers", help="Each individual plays 2*PEERS others of its generation (-1: all)."
    ),
    references: list[str] = typer.Option(
        ["mask"],
        "--reference",
        help="A fixed opponent (repeatable): mask (seed 002's masks), patterns (the WTHOR "
        "pattern evaluation), or a weights .json; at the same depth.",
    ),
    no_references: bool = typer.Option(
        False, "--no-references", help="Fitness from games between individuals only."
    ),
    games_per_pair: int = typer.Option(
        4, "--games-per-pair", help="Games per pairing (colour-swapped pairs, one opening each)."
    ),
    opening_plies: int = typer.Option(
        4, "--opening-plies", help="Random plies before the players take over."
    ),
    openings: Path = typer.Option(
        None, "--openings", help="Openings: a text file or a WTHOR .wtb (see imago match)."
    ),
    crossover: str = typer.Option(
        "rows", "--crossover", help="rows (each gene from one parent, as 002) or average."
    ),
    mutation: float = typer.Option(0.1, "--mutation", help="Probability a gene is replaced."),
    elite: int = typer.Option(2, "--elite", help="The best kept unchanged each generation."),
    tournament: int = typer.Option(3, "--tournament", help="Tournament-selection size."),
    symmetric: bool = typer.Option(
        False, "--symmetric", help="Evolve a quarter of each mask, mirrored (002's suggestion)."
    ),
    features: bool = typer.Option(
        False, "--features", help="Evolve the phases' feature weights too."
    ),
    mask_range: int = typer.Option(100, "--mask-range", help="Random mask values in +-RANGE."),
    start: Path = typer.Option(
        None, "--start", help="Weights .json of individual 0 (default: seed 002's masks)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of every random choice of the run."),
    jobs: int = typer.Option(
        1,
        "--jobs",
        "-j",
        help="Games played at once, each in its own process (with --ray: default one per CPU "
        "of the cluster).",
    ),
    ray: str = typer.Option(
        None,
        "--ray",
        help=RAY_HELP + " The run's folder must be at the same path on every node (a shared "
        "filesystem): the players read their weights files there.",
    ),
    final: bool = typer.Option(
        True, "--final/--no-final", help="Play the last generation's round robin (002)."
    ),
    final_games: int = typer.Option(
        0, "--final-games", help="Games per pair of the round robin (0: --games-per-pair)."
    ),
    plot_pictures: bool = typer.Option(
        True, "--plot/--no-plot", help="Write fitness.png and masks.png into the run's folder."
    ),
) -> None:
    """Evolve the alpha-beta agent's phase masks with the genetic algorithm of seed 002.

    Every generation's individuals are weights files (RUN/gen_NNN/weights/); the fittest of
    the last finished generation is RUN/best.json and the round robin's winner
    RUN/champion.json, for `alphabeta:weights=FILE`. Interrupt at any time (even kill -9):
    the same command resumes.
    """
    from imago.arena.match import read_openings
    from imago.tune.genetic import GAConfig, GeneticRun

    if game != "othello":
        raise fail("the genetic algorithm tunes the Othello evaluation only (--game othello)")
    try:
        fixed = read_openings(openings, opening_plies) if openings is not None else ()
        config = GAConfig(
            size=size,
            population=population,
            generations=generations,
            depth=depth,
            endgame_empties=endgame_empties,
            peers=peers,
            references=() if no_references else tuple(references),
            games_per_pair=games_per_pair,
            opening_plies=opening_plies,
            openings=fixed,
            crossover=crossover,
            mutation=mutation,
            elite=elite,
            tournament=tournament,
            symmetric=symmetric,
            features=features,
            mask_range=mask_range,
            start=str(start.resolve()) if start is not None else "",
            seed=seed,
        )
        run = GeneticRun(out, config)
    except (ValueError, OSError) as error:
        raise fail(str(error)) from None
    executor = open_game_executor(ray, jobs)
    try:
        if ray is not None:
            console.print(f"playing on {executor.describe()}")
        _evolve(run, executor, cluster=ray is not None)
        if final:
            _final(run, final_games, executor)
    finally:
        executor.close()
    if plot_pictures:
        _plots(run)


def _evolve(run: GeneticRun, executor: Executor, cluster: bool) -> None:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from imago.arena.match import GameRecord
    from imago.cluster import ClusterError, Tally
    from imago.tune.genetic import Generation

    tally = Tally()

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    history = run.history()
    for generation in history:
        _print_generation(generation)
    wanted = run.config.generations
    if history and len(history) >= wanted:
        console.print(f"all {wanted} generations are already in {run.folder}: nothing left")
    elif history:
        console.print(
            f"resuming {run.folder}: {len(history)} of {wanted} generations finished, "
            f"{wanted - len(history)} left"
        )
    with Progress(*columns, console=console, transient=True) as progress:
        tasks: dict[int, TaskID] = {}

        def on_game(number: int, record: GameRecord, done: int, total: int) -> None:
            if number not in tasks:
                tasks[number] = progress.add_task(f"generation {number}", total=total)
            where = f" [dim]({tally.describe()})[/]" if cluster else ""
            progress.update(
                tasks[number], completed=done, description=f"generation {number}{where}"
            )

        def on_generation(generation: Generation) -> None:
            if generation.number in tasks:
                progress.remove_task(tasks.pop(generation.number))
            _print_generation(generation)

        try:
            run.run(on_game=on_game, on_generation=on_generation, executor=executor, tally=tally)
        except (ValueError, RuntimeError, ClusterError) as error:
            raise fail(str(error)) from None
        except KeyboardInterrupt:
            err_console.print(f"interrupted; run the same command to resume from {run.folder}")
            raise typer.Exit(130) from None
    console.print(f"the fittest of the last generation: {run.folder / 'best.json'}")


def _print_generation(generation: object) -> None:
    from imago.tune.genetic import Generation

    assert isinstance(generation, Generation)
    best = generation.fitness[generation.best]
    against = best.reference_score
    versus = "" if against is None else f", {100 * against:.1f}% against the references"
    console.print(
        f"generation {generation.number}: best {best.label} {100 * best.score:.1f}% "
        f"({best.points:g}/{best.games}{versus}), mean {100 * generation.mean:.1f}%"
    )


def _final(run: GeneticRun, final_games: int, executor: Executor) -> None:
    from rich.table import Table

    from imago.arena.tournament import standings
    from imago.cluster import ClusterError
    from imago.tune.genetic import final_round_robin

    def on_start(number: int, folder: Path, played: int, total: int) -> None:
        if played >= total:
            console.print(
                f"the round robin of generation {number}: all {total} games are already in "
                f"{folder}: nothing left to play",
                highlight=False,
            )
        elif played:
            console.print(
                f"resuming the round robin of generation {number} in {folder}: {played} of "
                f"{total} games already played, {total - played} left",
                highlight=False,
            )

    try:
        with console.status("the last generation's round robin"):
            records = final_round_robin(
                run, games_per_pair=final_games or None, executor=executor, on_start=on_start
            )
    except (ValueError, RuntimeError, ClusterError) as error:
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        err_console.print(f"interrupted; run the same command to resume from {run.folder}")
        raise typer.Exit(130) from None
    table = Table(title=f"round robin of the last generation ({len(records)} games)")
    for column in ("#", "individual", "games", "wins", "draws", "losses", "score"):
        table.add_column(column)
    for rank, line in enumerate(standings(records), start=1):
        table.add_row(
            str(rank),
            line.player,
            str(line.games),
            str(line.wins),
            str(line.draws),
            str(line.losses),
            f"{100 * line.score:.1f}%",
        )
    console.print(table)
    console.print(f"the winner: {run.folder / 'champion.json'}")


def _plots(run: GeneticRun) -> None:
    from imago.agents.othello.weights import load_othello_weights
    from imago.tune.plots import plot_fitness, plot_masks

    history = run.history()
    if not history:
        return
    try:
        plot_fitness(history, run.folder / "fitness.png")
        rows = [("start", run.table(run.start))]
        for name in ("best", "champion"):
            path = run.folder / f"{name}.json"
            if path.exists():
                rows.append((name, load_othello_weights(path, run.config.size)))
        names = ("opening", "midgame", "late") if run.phase_count == 3 else ()
        plot_masks(rows, run.config.size, run.folder / "masks.png", phase_names=names)
    except RuntimeError as error:
        err_console.print(f"no plots: {error}")
        return
    console.print(f"plots: {run.folder / 'fitness.png'}, {run.folder / 'masks.png'}")


def plot(out: Path = OUT) -> None:
    """Draw a run's fitness per generation and its masks beside the ones it started from."""
    import json

    from imago.tune.genetic import GAConfig, GeneticRun

    header = out / "ga.json"
    if not header.is_file():
        raise fail(f"{out} is not a genetic-algorithm run (no ga.json)")
    try:
        config = GAConfig.from_json(json.loads(header.read_text(encoding="utf-8")))
        run = GeneticRun(out, config)
    except (ValueError, OSError, TypeError) as error:
        raise fail(f"{header}: {error}") from None
    _plots(run)
