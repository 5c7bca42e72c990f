"""``imago match``, ``imago tournament`` and ``imago ratings``: play agents against each other.

Agents are written as the registry reads them (``mcts:playouts=800``,
``gtp:command="gnugo --mode gtp --level 10"``), optionally labelled: ``gnugo10=gtp:command=...``.
With ``--out DIR`` every game is saved as it finishes and the same command resumes there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from imago.cli._common import (
    GAME,
    KOMI,
    RAY_HELP,
    RULES,
    SIZE,
    console,
    err_console,
    fail,
    open_game_executor,
)

if TYPE_CHECKING:
    from imago.arena.game import GameSettings
    from imago.arena.match import GameRecord, MatchSettings, Pairing, Player
    from imago.arena.ratings import PairResult, Ratings


# -- shared options ------------------------------------------------------------------------------

TIME = typer.Option(None, "--time-per-move", help="Seconds per move for every agent.")
TIME_CONTROL = typer.Option(
    None,
    "--time-control",
    help="A game clock per side (seconds): 60 absolute, 60+5 Fischer, 300+30x5 byo-yomi, "
    "300+300/25 Canadian; running out loses (B+T / W+T).",
)
OUT = typer.Option(
    None, "--out", "--sgf-dir", help="Folder for the games (SGF + JSON); resumes if it exists."
)
JOBS = typer.Option(
    1,
    "--jobs",
    "-j",
    help="Games played at once, each in its own process (with --ray: default one per CPU of "
    "the cluster).",
)
RAY = typer.Option(None, "--ray", help=RAY_HELP)
SEED = typer.Option(0, "--seed", help="Seed of every agent's and opening's randomness.")
MAX_MOVES = typer.Option(
    None, "--max-moves", help="Adjudicate by counting after this many moves (Go: 3*size^2)."
)
OPENING_PLIES = typer.Option(
    0,
    "--opening-plies",
    help="Random moves played first (shared by colour-swapped games); with a .wtb --openings, "
    "how many of each game's moves.",
)
OPENINGS = typer.Option(
    None,
    "--openings",
    help="Openings: a text file (one per line, moves separated by spaces) or a WTHOR .wtb file "
    "(its games' first --opening-plies moves).",
)


def _settings(
    game: str,
    size: int | None,
    komi: float | None,
    rules: str,
    time_per_move: float | None,
    time_control: str | None,
    max_moves: int | None,
    seed: int,
    opening_plies: int,
    openings: Path | None,
) -> MatchSettings:
    from imago.arena.game import GameSettings
    from imago.arena.match import MatchSettings, read_openings
    from imago.core.errors import os_error_text

    try:
        game_settings = GameSettings(
            game, size or 0, komi, rules, time_per_move, max_moves, time_control
        )
        game_settings.new_game()  # a bad size or rules preset fails here, before any game
        fixed = read_openings(openings, opening_plies) if openings is not None else ()
        settings = MatchSettings(game_settings, seed, opening_plies, fixed)
        _check_openings(settings)
    except OSError as error:
        raise fail(f"cannot read {error.filename or openings}: {os_error_text(error)}") from None
    except ValueError as error:
        hint = ""
        if openings is not None and str(error).startswith("opening"):
            hint = (
                " (--openings takes a text file, one opening a line with its moves separated "
                "by spaces, or a WTHOR .wtb file)"
            )
        raise fail(f"{error}{hint}") from None
    return settings


def _check_openings(settings: MatchSettings) -> None:
    from imago.arena.match import opening_moves

    for round_ in range(len(settings.openings)):
        try:
            opening_moves(settings, round_)
        except ValueError as error:
            raise ValueError(f"opening {round_ + 1}: {error}") from None


def _players(texts: Sequence[str], settings: MatchSettings) -> list[Player]:
    """Parse and check the agents before any game, as every command does (:func:`make_agent`:
    the model fits the game and board, a GTP program runs and takes the board size)."""
    from imago.arena.match import Player, distinct

    players = []
    game, size = settings.game.game, settings.game.size
    for text in texts:
        try:
            player = Player.parse(text)
            agent = player.make(game, seed=0, size=size, check=True)
        except ValueError as error:
            raise fail(f"agent {text!r}: {error}") from None
        except Exception as error:  # a broken agent module: say so instead of a traceback
            raise fail(f"agent {text!r} cannot be made: {type(error).__name__}: {error}") from None
        agent.close()
        players.append(player)
    return distinct(players)


def _progress_run(
    settings: MatchSettings,
    schedule: list[Pairing],
    out: Path | None,
    jobs: int,
    describe: Callable[[list[GameRecord]], str],
    stop: Callable[[list[GameRecord]], bool] | None = None,
    kind: str = "match",
    ray: str | None = None,
) -> list[GameRecord]:
    """Run the games with a progress bar whose text ``describe(records)`` keeps up to date
    (with the games per second and per node when they run on a cluster)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from imago.arena.match import MatchFolder, check_nodes, run_games
    from imago.cluster import ClusterError, Tally
    from imago.core.errors import os_error_text

    done = list(MatchFolder(out).records().values()) if out is not None else []
    planned = {p.index for p in schedule}
    finished = [r for r in done if r.index in planned]
    if finished and len(finished) >= len(schedule):
        console.print(f"all {len(schedule)} games are already in {out}: nothing left to play")
    elif finished:
        console.print(
            f"resuming {out}: {len(finished)} of {len(schedule)} games already played, "
            f"{len(schedule) - len(finished)} left"
        )
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    executor = open_game_executor(ray, jobs)
    tally = Tally()

    def text() -> str:
        line = describe(finished)
        return line if ray is None else f"{line} [dim]({tally.describe()})[/]"

    try:
        if ray is not None:
            players = {p.label: p for g in schedule for p in (g.black, g.white)}
            check_nodes(executor, list(players.values()), settings.game.game)
            console.print(f"playing on {executor.describe()}")
        with Progress(*columns, console=console, transient=False) as progress:
            task = progress.add_task(text(), total=len(schedule), completed=len(finished))

            def on_result(record: GameRecord) -> bool:
                finished.append(record)
                progress.update(task, advance=1, description=text())
                if record.disagreement:
                    progress.console.print(
                        f"[yellow]game {record.index + 1}:[/] {record.disagreement}"
                    )
                return bool(stop is not None and stop(finished))

            def on_lost(pairing: Pairing, error: Exception, attempt: int) -> None:
                progress.console.print(
                    f"[yellow]game {pairing.index + 1} lost with its worker ({error}); "
                    f"playing it again (attempt {attempt + 1})[/]"
                )

            return run_games(
                settings,
                schedule,
                folder=out,
                on_result=on_result,
                kind=kind,
                executor=executor,
                tally=tally,
                on_lost=on_lost,
            )
    except (ValueError, RuntimeError, ClusterError) as error:
        raise fail(str(error)) from None
    except OSError as error:
        where = error.filename or out
        raise fail(f"cannot write the games to {where}: {os_error_text(error)}") from None
    except KeyboardInterrupt:
        where = f"; run the same command to resume from {out}" if out is not None else ""
        err_console.print(f"interrupted after {len(finished)} games{where}")
        raise typer.Exit(130) from None
    finally:
        executor.close()


# -- imago match ---------------------------------------------------------------------------------


def match(
    black: str = typer.Option(..., "--black", help="The agent with Black (first game)."),
    white: str = typer.Option(..., "--white", help="The agent with White (first game)."),
    games: int = typer.Option(10, "--games", "-n", help="Number of games."),
    alternate: bool = typer.Option(
        True, "--alternate/--no-alternate", help="Swap colours every game."
    ),
    game: str = GAME,
    size: int = SIZE,
    komi: float = KOMI,
    rules: str = RULES,
    time_per_move: float = TIME,
    time_control: str = TIME_CONTROL,
    out: Path = OUT,
    jobs: int = JOBS,
    ray: str = RAY,
    seed: int = SEED,
    max_moves: int = MAX_MOVES,
    opening_plies: int = OPENING_PLIES,
    openings: Path = OPENINGS,
    sprt: str = typer.Option(
        None, "--sprt", help="Stop when decided: ELO0,ELO1[,ALPHA,BETA] (is black >= ELO1?)."
    ),
    confidence: float = typer.Option(0.95, help="Confidence of the score interval."),
) -> None:
    """Play a match between two agents and print the score with a confidence interval."""
    from imago.arena.match import match_schedule
    from imago.arena.stats import Sprt, SprtDecision

    if games < 1:
        raise fail("--games must be at least 1")
    settings = _settings(
        game,
        size,
        komi,
        rules,
        time_per_move,
        time_control,
        max_moves,
        seed,
        opening_plies,
        openings,
    )
    a, b = _players([black, white], settings)
    test = None
    if sprt is not None:
        try:
            test = Sprt.parse(sprt)
        except ValueError as error:
            raise fail(str(error)) from None
    schedule = match_schedule(a, b, games, alternate=alternate)

    def describe(records: list[GameRecord]) -> str:
        w, d, l = _tally(records, a.label)
        return f"{a.label} {w}-{d}-{l} {b.label}"

    def stop(records: list[GameRecord]) -> bool:
        return (
            test is not None and test.decide(*_tally(records, a.label)) is not SprtDecision.CONTINUE
        )

    records = _progress_run(settings, schedule, out, jobs, describe, stop, ray=ray)
    _print_match(records, a, b, settings.game, confidence)
    if test is not None:
        tally = _tally(records, a.label)
        decision = test.decide(*tally)
        verdict = {
            SprtDecision.H1: f"H1 accepted: {a.label} is stronger by at least {test.elo1:g} Elo",
            SprtDecision.H0: f"H0 accepted: {a.label} is not stronger by {test.elo1:g} Elo",
            SprtDecision.CONTINUE: "undecided",
        }[decision]
        console.print(
            f"SPRT [{test.elo0:g}, {test.elo1:g}] alpha={test.alpha:g} beta={test.beta:g}: "
            f"LLR {test.llr(*tally):.2f} (bounds {test.lower:.2f}, {test.upper:.2f}): {verdict}"
        )
    if out is not None:
        console.print(f"games saved in {out}")


def _tally(records: Sequence[GameRecord], label: str) -> tuple[int, int, int]:
    points = [r.points(label) for r in records]
    return points.count(1.0), points.count(0.5), points.count(0.0)


def _print_match(
    records: list[GameRecord], a: Player, b: Player, settings: GameSettings, confidence: float
) -> None:
    from rich.table import Table

    from imago.arena.stats import score_interval

    if not records:
        console.print("no games played")
        return
    wins, draws, losses = _tally(records, a.label)
    interval = score_interval(wins, draws, losses, confidence)
    table = Table(title=f"{settings.game} {settings.size}x{settings.size}: {len(records)} games")
    for column in (
        "player",
        "wins",
        "draws",
        "losses",
        "as black",
        "as white",
        "s/move",
        "lost by",
    ):
        table.add_column(column)
    for player in (a, b):
        w, d, l = _tally(records, player.label)
        as_black = [r for r in records if r.black == player.label]
        as_white = [r for r in records if r.white == player.label]
        table.add_row(
            player.label,
            str(w),
            str(d),
            str(l),
            _colour_line(as_black, player.label),
            _colour_line(as_white, player.label),
            f"{_mean_time(records, player.label):.2f}",
            _losses_by(records, player.label),
        )
    console.print(table)
    console.print(f"{a.label} scores {interval.describe()}")
    disagreements = [r for r in records if r.disagreement]
    counted = [r for r in records if r.engine_scores]
    agree = [r for r in counted if all(s == r.result for s in r.engine_scores.values())]
    disputed = sum(r.disputed for r in records)
    if counted or disputed:
        console.print(
            f"final_score cross-check: {len(agree)} of {len(counted)} counted games agree with "
            f"the programs; {disputed} disputed (winner in doubt; imago's count stands)"
        )
    for record in disagreements[:10]:
        console.print(f"  game {record.index + 1}: {record.disagreement}")


def _colour_line(records: list[GameRecord], label: str) -> str:
    if not records:
        return "-"
    points = sum(r.points(label) for r in records)
    return f"{points:g}/{len(records)}"


def _mean_time(records: Sequence[GameRecord], label: str) -> float:
    total, count = 0.0, 0
    for record in records:
        start = 0 if record.black == label else 1
        for index in range(start, len(record.seconds), 2):
            if index >= record.opening_plies:
                total += record.seconds[index]
                count += 1
    return total / count if count else 0.0


def _losses_by(records: Sequence[GameRecord], label: str) -> str:
    reasons: dict[str, int] = {}
    for record in records:
        if record.points(label) == 0.0 and record.reason != "score":
            reasons[record.reason] = reasons.get(record.reason, 0) + 1
    return ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items())) or "-"


# -- imago tournament ----------------------------------------------------------------------------


def tournament(
    agents: list[str] = typer.Argument(..., help="The agents (LABEL=SPEC or SPEC)."),
    agents_flag: bool = typer.Option(
        False, "--agents", help="Optional: marks the start of the agent list, as in --agents A B C."
    ),
    games_per_pair: int = typer.Option(2, "--games-per-pair", "-n", help="Games per pairing."),
    gauntlet: str = typer.Option(
        None, "--gauntlet", help="This agent plays each of the others (instead of a round robin)."
    ),
    game: str = GAME,
    size: int = SIZE,
    komi: float = KOMI,
    rules: str = RULES,
    time_per_move: float = TIME,
    time_control: str = TIME_CONTROL,
    out: Path = OUT,
    jobs: int = JOBS,
    ray: str = RAY,
    seed: int = SEED,
    max_moves: int = MAX_MOVES,
    opening_plies: int = OPENING_PLIES,
    openings: Path = OPENINGS,
    anchor: str = typer.Option(
        None, "--anchor", help="LABEL[=ELO] fixed (default: random=0 if present, else mean 0)."
    ),
    prior: float = typer.Option(1.0, "--prior", help="Virtual draws added to every pairing."),
    plot: Path = typer.Option(None, "--plot", help="Write the ratings as a PNG here."),
) -> None:
    """Play a round robin (or a gauntlet); print standings, a cross table and Elo ratings."""
    from imago.arena.tournament import gauntlet as gauntlet_schedule
    from imago.arena.tournament import round_robin

    settings = _settings(
        game,
        size,
        komi,
        rules,
        time_per_move,
        time_control,
        max_moves,
        seed,
        opening_plies,
        openings,
    )
    texts = ([gauntlet] if gauntlet else []) + list(agents)
    players = _players(texts, settings)
    try:
        if gauntlet:
            schedule = gauntlet_schedule(players[0], players[1:], games_per_pair)
        else:
            schedule = round_robin(players, games_per_pair)
    except ValueError as error:
        raise fail(str(error)) from None

    def describe(records: list[GameRecord]) -> str:
        return f"{len(records)} games"

    records = _progress_run(settings, schedule, out, jobs, describe, kind="tournament", ray=ray)
    labels = [p.label for p in players]
    _print_tournament(records, labels)
    _print_ratings(records, labels, anchor, prior, plot, [p.spec for p in players])


def _print_tournament(records: list[GameRecord], labels: list[str]) -> None:
    from rich.table import Table

    from imago.arena.tournament import cross_table, standings

    table = Table(title=f"standings after {len(records)} games")
    for column in (
        "#",
        "player",
        "games",
        "wins",
        "draws",
        "losses",
        "points",
        "score",
        "forfeits",
    ):
        table.add_column(column)
    for rank, line in enumerate(standings(records, labels), start=1):
        table.add_row(
            str(rank),
            line.player,
            str(line.games),
            str(line.wins),
            str(line.draws),
            str(line.losses),
            f"{line.points:g}",
            f"{100 * line.score:.1f}%",
            str(line.forfeits),
        )
    console.print(table)
    cross = Table(title="cross table (row's points / games against column)")
    cross.add_column("")
    for index in range(len(labels)):
        cross.add_column(str(index + 1))
    for index, (label, row) in enumerate(zip(labels, cross_table(records, labels), strict=True)):
        cells = ["-" if cell is None else f"{cell[0]:g}/{cell[1]}" for cell in row]
        cells[index] = "x"
        cross.add_row(f"{index + 1} {label}", *cells)
    console.print(cross)


def _parse_anchor(
    text: str | None, labels: Sequence[str], specs: Sequence[str]
) -> tuple[str | None, float]:
    if text is None:
        for label, spec in zip(labels, specs, strict=False):
            if spec.strip() == "random":
                return label, 0.0
        return None, 0.0
    label, equals, value = text.rpartition("=")
    if equals:
        try:
            return label, float(value)
        except ValueError:
            pass
    return text, 0.0


def _print_ratings(
    records: list[GameRecord],
    labels: list[str],
    anchor_text: str | None,
    prior: float,
    plot: Path | None,
    specs: Sequence[str] = (),
) -> list[Ratings]:
    """Fit and print the ratings: one table per group of players that met (a group that
    never played another cannot be put on its scale); exit 1 when they cannot be fitted."""
    from imago.arena.ratings import player_groups
    from imago.arena.tournament import pair_results

    anchor, anchor_elo = _parse_anchor(anchor_text, labels, specs)
    played = sorted({r.black for r in records} | {r.white for r in records})
    order = [label for label in labels if label in played] + [
        label for label in played if label not in labels
    ]
    if anchor is not None and anchor not in order:
        raise fail(f"anchor {anchor!r} played no game (players: {', '.join(order)})")
    results = pair_results(records)
    groups = player_groups(results, order)
    if len(groups) > 1:
        names = " | ".join(", ".join(group) for group in groups)
        err_console.print(
            f"[yellow]the players form {len(groups)} groups that never met[/] ({names}): each "
            "group is rated on its own, and ratings of different groups cannot be compared",
            soft_wrap=True,
        )
    spec_of = dict(zip(labels, specs, strict=False))
    fitted = []
    for number, group in enumerate(groups, start=1):
        member = anchor if anchor in group else None
        if member is None and anchor_text is None:  # random=0 where a group has it
            member, _ = _parse_anchor(None, group, [spec_of.get(label, "") for label in group])
        path = plot
        if plot is not None and len(groups) > 1:
            path = plot.with_name(f"{plot.stem}-{number}{plot.suffix}")
        group_results = [r for r in results if r.a in group]
        title = f"group {number}: " if len(groups) > 1 else ""
        fitted.append(_print_group(group_results, group, member, anchor_elo, prior, path, title))
    return fitted


def _print_group(
    results: Sequence[PairResult],
    order: list[str],
    anchor: str | None,
    anchor_elo: float,
    prior: float,
    plot: Path | None,
    title: str,
) -> Ratings:
    from rich.table import Table

    from imago.arena.ratings import fit_ratings, format_ratings, plot_ratings
    from imago.core.errors import os_error_text

    try:
        ratings = fit_ratings(
            results, anchor=anchor, anchor_rating=anchor_elo, prior_draws=prior, players=order
        )
    except ValueError as error:
        raise fail(f"no ratings: {error}") from None
    table = Table(
        title=f"{title}Elo by maximum likelihood ({prior:g} virtual draws per pairing; "
        + (f"{anchor} = {anchor_elo:g})" if anchor else "mean 0)")
    )
    for column in ("#", "player", "Elo", "95%", "games", "score", "LOS next"):
        table.add_column(column)
    for row in format_ratings(ratings):
        table.add_row(*row)
    console.print(table)
    if plot is not None:
        try:
            plot_ratings(ratings, plot)
        except RuntimeError as error:
            raise fail(str(error)) from None
        except OSError as error:
            raise fail(f"cannot write {plot}: {os_error_text(error)}") from None
        console.print(f"ratings plot written to {plot}")
    return ratings


# -- imago ratings -------------------------------------------------------------------------------


def ratings(
    folders: list[Path] = typer.Argument(..., help="Match or tournament folders (--out)."),
    anchor: str = typer.Option(
        None,
        "--anchor",
        help="LABEL[=ELO] fixed (default: random=0 if present, else mean 0).",
        show_default=False,
    ),
    prior: float = typer.Option(1.0, "--prior", help="Virtual draws added to every pairing."),
    plot: Path = typer.Option(None, "--plot", help="Write the ratings as a PNG here."),
) -> None:
    """Fit Elo ratings to the games saved in match and tournament folders."""
    import json

    from imago.arena.match import MatchFolder

    records: list[GameRecord] = []
    specs: dict[str, str] = {}
    for folder in folders:
        match_folder = MatchFolder(folder)
        if not match_folder.header_path.is_file():
            raise fail(
                f"{folder} is not a match folder (no match.json): give folders written by "
                "imago match --out or imago tournament --out"
            )
        header = json.loads(match_folder.header_path.read_text(encoding="utf-8"))
        specs.update(header.get("players", {}))
        records.extend(match_folder.records().values())
    if not records:
        raise fail("no finished games in those folders")
    labels = list(specs)
    _print_tournament(records, [label for label in labels if _played(records, label)])
    _print_ratings(records, labels, anchor, prior, plot, [specs[label] for label in labels])


def _played(records: Sequence[GameRecord], label: str) -> bool:
    return any(label in (r.black, r.white) for r in records)


def register(app: typer.Typer) -> None:
    app.command("match")(match)
    app.command("tournament")(tournament)
    app.command("ratings")(ratings)
