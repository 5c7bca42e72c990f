"""``imago rl``: learning by self-play (AlphaZero / MiniGo's loop) in a run folder.

``imago rl loop RUN --game othello --size 6 --test``      the whole loop, tiny, in seconds
``imago rl init RUN --game go --size 9 --preset improve --bootstrap MODEL``
``imago rl loop RUN --hours 6``                            rounds until the time is spent
``imago rl selfplay RUN --follow``                         a self-play worker on a shared folder
``imago rl train | validate | evaluate | references | status | plot RUN``

Every stage reads and writes the run folder (see :mod:`imago.rl.folder`) and can be stopped
with Ctrl-C (or killed) and run again: it goes on from what the folder holds.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from imago.cli._common import RAY_HELP, console, fail, open_executor

if TYPE_CHECKING:
    from rich.table import Table

    from imago.rl.folder import RunFolder

rl_app = typer.Typer(
    help="Learning by self-play: bootstrap, self-play, train, validate, evaluate, repeat.",
    no_args_is_help=True,
)

RUN = typer.Argument(..., help="The run folder.")
WORKERS = typer.Option(
    1,
    "--workers",
    help="Self-play workers, one CPU each: local processes, or Ray actors with --ray (0: one "
    "per CPU; with --ray the default is one per CPU of the cluster).",
)
RAY = typer.Option(None, "--ray", help=RAY_HELP)
INFERENCE = typer.Option(
    None,
    "--inference-device",
    help="Share one network per machine among the self-play workers, on this device (auto: "
    "CUDA when present; cpu; cuda:N), fed the leaves of every worker at once. Default: each "
    "worker its own copy on its CPU.",
)
RANKS = typer.Option(
    1, "--ddp", help="Train data-parallel (PyTorch DDP) on this many processes (or GPUs)."
)


# -- progress and interruption ---------------------------------------------------------------------
@contextlib.contextmanager
def _interruptible() -> Iterator[threading.Event]:
    """A stop flag set by the first Ctrl-C (or SIGTERM): stages stop at their next safe point
    and save what they have; a second Ctrl-C stops at once."""
    stop = threading.Event()

    def ask(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        console.print("[yellow]stopping at the next safe point (Ctrl-C again to quit now)[/]")

    previous = {sig: signal.signal(sig, ask) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def _progress() -> Iterator[Any]:
    """A report callback drawing one progress bar (with its ETA) per stage."""
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("[bold]{task.fields[stage]:<10}"),
        BarColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        tasks: dict[str, Any] = {}
        last: dict[str, tuple[float, float]] = {}

        def report(stage: str, done: float, total: float, text: str) -> None:
            key = stage
            if key in tasks and last.get(key, (0.0, 0.0))[1] != total:
                bar.update(tasks[key], visible=False)
                del tasks[key]
            if key not in tasks:
                tasks[key] = bar.add_task(text, total=max(total, 1e-9), stage=stage)
            last[key] = (done, total)
            bar.update(tasks[key], completed=done, description=text)

        yield report


def _folder(run: Path) -> Any:
    from imago.rl.folder import RunFolder
    from imago.rl.stages import load_config

    folder = RunFolder(run)
    try:
        return folder, load_config(folder)
    except ValueError as error:
        raise fail(str(error)) from None


def _check_local_device(name: str) -> None:
    """Refuse a device this machine lacks before any worker starts; say when sharing one
    network runs on the CPU (slower than a copy per worker: see BENCHMARKS.md)."""
    from imago.nn.inference import resolve_device

    if resolve_device(name).type == "cpu":
        console.print(
            "[yellow]no GPU here: the shared network runs on one CPU, usually slower than a "
            "copy per worker (leave --inference-device out for that)[/]"
        )


@contextlib.contextmanager
def _pool(
    folder: Any,
    config: Any,
    workers: int,
    ray: str | None,
    name: str | None = None,
    inference: str | None = None,
) -> Iterator[Any]:
    """Self-play workers on local processes or Ray (``None``: self-play in this process, as
    without these options), sharing one network per node on ``inference``'s device."""
    if ray is None and workers == 1 and inference is None:
        yield None
        return
    from imago.cluster import cpu_count
    from imago.rl.workers import SelfPlayPool

    server = None
    if inference is not None:
        from imago.nn.server import ServerConfig

        server = ServerConfig(device=inference)
        if ray is None:
            _check_local_device(inference)
    executor = open_executor(ray, workers if ray is None else 0)
    try:
        count = workers or (cpu_count() if ray is None else executor.slots)
        if ray is not None and workers == 1:
            count = executor.slots
        shared = f", one network per node on {inference}" if inference else ""
        console.print(f"self-play: {count} workers on {executor.describe()}{shared}")
        pool = SelfPlayPool(executor, folder, config, count, name=name, server=server)
        try:
            yield pool
        finally:
            pool.close()
    finally:
        executor.close()


def _errors() -> contextlib.AbstractContextManager[None]:
    """Turn the run's own errors into one clear line."""

    @contextlib.contextmanager
    def guard() -> Iterator[None]:
        from imago.core.errors import ImagoError

        try:
            yield
        except (ImagoError, ValueError, FileNotFoundError) as error:
            raise fail(str(error)) from None

    return guard()


# -- init ------------------------------------------------------------------------------------------
def _settings(
    game: str,
    size: int | None,
    rules: str,
    komi: float | None,
    preset: str,
    bootstrap: Path | None,
    model: str | None,
    features: str | None,
    records: list[Path] | None,
    records_years: str | None,
    records_min_rank: str | None,
    references: list[str] | None,
    changes: list[str] | None,
    seed: int | None,
    like: Path | None = None,
) -> Any:
    """A new run's settings: the ``preset`` for the game and board, or every setting of the
    run ``like``, then the options and ``--set`` changes on top."""
    try:
        config = _base_settings(game, size, rules, komi, preset, like)
        updates: dict[str, Any] = {} if seed is None else {"seed": seed}
        if bootstrap is not None:
            updates["bootstrap"] = str(bootstrap)
        if model:
            updates["model"] = model
        if features:
            updates["features"] = features
        if records:
            updates["records"] = [str(p) for p in records]
        if records_years:
            first, _, last = records_years.partition("-")
            updates["records_years"] = [int(first), int(last or first)]
        if records_min_rank:
            updates["records_min_rank"] = records_min_rank
        if references:
            updates["references.opponents"] = list(references)
        for change in changes or []:
            key, eq, value = change.partition("=")
            if not eq:
                raise fail(f"--set wants key=value, got {change!r}")
            updates[key.strip()] = _value(value.strip())
        config = config.with_changes(updates)
    except ValueError as error:
        raise fail(str(error)) from None
    _check_inputs(config)
    return config


def _base_settings(
    game: str | None,
    size: int | None,
    rules: str | None,
    komi: float | None,
    preset: str | None,
    like: Path | None,
) -> Any:
    from imago.rl.config import preset as make_preset
    from imago.rl.selfplay import GameSpec

    if like is not None:
        given = [name for name, value in (("--game", game), ("--size", size), ("--rules", rules),
                 ("--komi", komi), ("--preset", preset)) if value is not None]  # fmt: skip
        if given:
            raise fail(f"--like takes the game, board and settings of {like}: leave out "
                       f"{', '.join(given)}")  # fmt: skip
        return _folder(like)[1]
    game = game or "go"
    if game not in ("go", "othello"):
        raise fail(f"unknown game {game!r} (go or othello)")
    board = size or (9 if game == "go" else 8)
    spec = GameSpec(game, board, rules or "chinese", 7.0 if komi is None else komi)
    return make_preset(preset or "scratch", spec)


def _check_inputs(config: Any, *, bootstrap: bool = True) -> None:
    """Refuse now what the run would only meet hours later: a board the game is not played on,
    a missing bootstrap model (``bootstrap``: a new run's; an existing run has its generation 0)
    or records, a reference opponent that cannot play the board."""
    from imago.agents.registry import agent_from_spec
    from imago.arena.match import Player
    from imago.games import make
    from imago.nn.shipped import model_file_problem

    spec = config.spec
    try:
        make(spec.game, size=spec.size)
    except ValueError as error:
        raise fail(f"{error}: give --size one of the game's boards") from None
    if config.bootstrap and bootstrap:
        problem = model_file_problem(config.bootstrap)
        if problem is not None:
            raise fail(f"--bootstrap {problem}")
        from imago.nn.store import load_model

        try:
            net = load_model(config.bootstrap, game=spec.game, size=spec.size).net
        except ValueError as error:
            raise fail(f"--bootstrap {config.bootstrap}: {error}") from None
        if not net.has_value:
            raise fail(
                f"--bootstrap {config.bootstrap} has no value head: self-play needs a dual-head "
                "network (imago train supervised --model b6c64 makes one)"
            )
    for name, paths in (("--records", config.records), ("train_records", config.train_records)):
        for path in paths:
            if not Path(path).exists():
                raise fail(f"{name} {path}: no such file or folder")
    if config.start_records:
        from imago.rl.folder import RunError
        from imago.rl.starts import load_start_games

        try:
            load_start_games(config.start_records, spec)
        except RunError as error:
            raise fail(str(error)) from None
    for text in config.references.opponents:
        try:
            agent = agent_from_spec(Player.parse(text).spec, spec.game, size=spec.size)
        except ValueError as error:
            raise fail(f"--reference: {error}") from None
        agent.close()


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


@rl_app.command("init")
def init(
    run: Path = RUN,
    game: str = typer.Option(None, help="go or othello (default go)."),
    size: int = typer.Option(None, help="Board size (default 9 for Go, 8 for Othello)."),
    rules: str = typer.Option(None, help="Go rules preset (default chinese)."),
    komi: float = typer.Option(None, help="Go komi (default 7)."),
    preset: str = typer.Option(
        None,
        help="test (tiny), scratch (from random weights, the default), improve (from --bootstrap).",
    ),
    like: Path = typer.Option(
        None,
        help="Take the game, board and every setting of this run (the other options change "
        "them): a run that goes on from another's with a new network (imago rl distill).",
    ),
    bootstrap: Path = typer.Option(None, help="Start from this model (a dual-head network)."),
    model: str = typer.Option(None, help="Network size when starting from random weights (b4c32)."),
    features: str = typer.Option(None, help="Feature set of a random network (legal4)."),
    records: list[Path] = typer.Option(None, help="Real game records to validate on."),
    records_years: str = typer.Option(None, help="Only the records of these years: 2023-2025."),
    records_min_rank: str = typer.Option(None, help="Only Go records of players this strong."),
    reference: list[str] = typer.Option(
        None, help='A fixed opponent for the Elo curve, "label=spec" (repeatable).'
    ),
    set_: list[str] = typer.Option(None, "--set", help="Any setting: selfplay.simulations=64."),
    seed: int = typer.Option(None, help="Seed of the run (default 0, or the --like run's)."),
) -> None:
    """Create a run folder with its settings (shown by imago rl status)."""
    from imago.rl.folder import RunFolder
    from imago.rl.stages import init as init_run

    config = _settings(
        game, size, rules, komi, preset, bootstrap, model, features, records, records_years,
        records_min_rank, reference, set_, seed, like=like,
    )  # fmt: skip
    with _errors():
        init_run(RunFolder(run), config)
    origin = f"settings of {like}" if like is not None else f"preset {preset or 'scratch'}"
    console.print(f"run {run}: {config.spec.game} {config.spec.size}x{config.spec.size}, {origin}")


@rl_app.command("set")
def set_settings(
    run: Path = RUN,
    changes: list[str] = typer.Argument(..., help="Settings to change: nn_precision=int8 ..."),
) -> None:
    """Change settings of an existing run (any but the game and the network's shape and
    inputs); the loop uses them from its next start, and metrics.jsonl records the change."""
    from imago.rl.folder import RunFolder
    from imago.rl.stages import change_settings, changed_config

    folder = RunFolder(run)
    updates: dict[str, Any] = {}
    for change in changes:
        key, eq, value = change.partition("=")
        if not eq:
            raise fail(f"settings are key=value, got {change!r}")
        updates[key.strip()] = _value(value.strip())
    with _errors():
        # records, models: now; not the bootstrap network, which a run restored on another
        # machine may lack (it only made generation 0, and cannot change)
        _check_inputs(changed_config(folder, updates), bootstrap=False)
        change_settings(folder, updates)
    for key, value in updates.items():
        console.print(f"{run}: {key} = {json.dumps(value)}")


# -- the loop --------------------------------------------------------------------------------------
@rl_app.command("loop")
def loop(
    run: Path = RUN,
    rounds: int = typer.Option(
        None, help="Stop after this many more generations, counted from this invocation."
    ),
    hours: float = typer.Option(
        None, help="Stop after this many hours, counted from this invocation."
    ),
    test: bool = typer.Option(
        False,
        "--test",
        help="A tiny network and tiny settings (seconds): a new test run, or two more rounds "
        "of an existing test run (refused on any other run). Without --rounds: 2 rounds.",
    ),
    game: str = typer.Option("othello", help="With --test or a new folder: go or othello."),
    size: int = typer.Option(None, help="With --test or a new folder: the board size."),
    selfplay: bool = typer.Option(
        True, help="Play the self-play games too (--no-selfplay: workers elsewhere do)."
    ),
    workers: int = WORKERS,
    ray: str = RAY,
    inference: str = INFERENCE,
    ranks: int = RANKS,
    checkpoint: Path = typer.Option(
        None,
        help="Write the run's compact checkpoint to this folder after every generation and "
        "when stopped (imago rl restore continues the run from it on any machine).",
    ),
) -> None:
    """Run the loop: bootstrap, then rounds of self-play, training, validation, gating (and
    reference matches), until --rounds more generations exist, --hours have passed (both
    counted from this invocation, on a new or an existing folder) or Ctrl-C; without either,
    until stopped (--test: 2 rounds). A new folder is created with --test settings or the
    scratch preset. The last line says why the loop stopped."""
    from imago.rl.folder import RunFolder
    from imago.rl.stages import init as init_run
    from imago.rl.stages import loop as run_loop

    folder = RunFolder(run)
    if not folder.exists():
        preset = "test" if test else "scratch"
        config = _settings(
            game, size, "chinese", None, preset, None, None, None, None, None, None, None, None, 0
        )
        with _errors():
            init_run(folder, config)
        console.print(f"new run {run}: {game} {config.spec.size}x{config.spec.size}, {preset}")
    folder, config = _folder(run)
    if test:
        _check_test_run(run, config)
        if rounds is None:
            rounds = 2
    if checkpoint is not None:
        from imago.rl.checkpoint import check_target

        with _errors():
            check_target(folder, checkpoint)  # now, not after the first generation
    first = folder.latest() or 0
    started = time.time()
    with (
        _errors(),
        _pool(
            folder,
            config,
            workers if selfplay else 1,
            ray if selfplay else None,
            inference=inference if selfplay else None,
        ) as pool,  # fmt: skip
        _interruptible() as stop,
        _progress() as report,
    ):
        latest = run_loop(
            folder, config, rounds=rounds, hours=hours, stop=stop, report=report,
            selfplay=selfplay, pool=pool, ranks=ranks, checkpoint=checkpoint,
        )  # fmt: skip
    best = folder.best()
    if stop.is_set():
        why = "interrupted"
    elif rounds is not None and latest >= first + rounds:
        why = f"{latest - first} round{'s' * (latest - first != 1)} done (--rounds {rounds})"
    elif hours is not None and time.time() - started >= 3600 * hours:
        why = f"{hours:g} hours spent (--hours)"
    else:
        why = "a stage stopped early"
    console.print(
        f"stopped: {why}; generation {latest} (best {best}) after "
        f"{time.time() - started:.0f} s; `imago rl status {run}` shows the run"
    )


def _check_test_run(run: Path, config: Any) -> None:
    """``--test`` on an existing folder: only a test run (the tiny network and rounds)."""
    from imago.rl.config import smoke_config

    tiny = smoke_config(config.spec)
    if (config.model, config.games_per_round) != (tiny.model, tiny.games_per_round):
        raise fail(
            f"{run} is not a test run ({config.model}, {config.games_per_round} games a "
            "round): run it without --test, or give --test a new folder"
        )


# -- single stages ---------------------------------------------------------------------------------
@rl_app.command("bootstrap")
def bootstrap(run: Path = RUN) -> None:
    """Make generation 0 (random weights, or the run's --bootstrap model) and promote it."""
    from imago.rl.stages import bootstrap as make

    folder, config = _folder(run)
    with _progress() as report, _errors():
        make(folder, config, report)


@rl_app.command("selfplay")
def selfplay(
    run: Path = RUN,
    games: int = typer.Option(None, help="Games to play (default: what the round lacks)."),
    follow: bool = typer.Option(
        False, help="A worker: play until stopped, always with the newest promoted network."
    ),
    worker: str = typer.Option(None, help="This worker's name in file names (default: unique)."),
    workers: int = WORKERS,
    ray: str = RAY,
    inference: str = INFERENCE,
) -> None:
    """Play self-play games into the newest round with the promoted network (on several
    workers, local or on a Ray cluster, this process writing their games)."""
    from imago.rl.stages import self_play

    folder, config = _folder(run)
    if follow:
        console.print(
            f"self-play worker on {run}: runs until stopped (Ctrl-C saves the games "
            "finished and stops)" + (f", or after {games} games" if games else "")
        )
    with (
        _errors(),
        _pool(folder, config, workers, ray, worker, inference) as pool,
        _interruptible() as stop,
        _progress() as report,
    ):
        stats = self_play(
            folder, config, games=games, follow=follow, stop=stop, report=report, worker=worker,
            pool=pool,
        )  # fmt: skip
    data = stats.to_json()
    console.print(
        f"{data['games']} games, {data['moves']} moves, {data['examples']} examples, "
        f"{data['positions_per_s']:,.0f} positions/s"
    )


@rl_app.command("gather")
def gather(run: Path = RUN) -> None:
    """Show the training window of the newest round (the example files training will read)."""
    from imago.nn.dataset import read_shard
    from imago.rl.stages import gather as window

    folder, config = _folder(run)
    latest = folder.latest()
    if latest is None:
        raise fail(f"{run} has no network yet: run `imago rl bootstrap {run}`")
    files = window(folder, config, latest)
    positions = sum(len(read_shard(p)) for p in files)
    rounds = config.window(latest)
    console.print(
        f"window of round {latest}: rounds {rounds[-1]}-{rounds[0]}, {len(files)} files, "
        f"{positions:,} positions"
    )
    for path in files:
        console.print(f"  {path.relative_to(folder.root)}")


@rl_app.command("train")
def train(run: Path = RUN, ranks: int = RANKS) -> None:
    """Train the newest generation on its window into the next generation."""
    from imago.rl.stages import train as make

    folder, config = _folder(run)
    with _interruptible() as stop, _progress() as report, _errors():
        new = make(folder, config, stop=stop, report=report, ranks=ranks)
    console.print(
        "stopped; the trainer's checkpoint keeps the progress"
        if new is None
        else f"generation {new}"
    )


@rl_app.command("grow")
def grow(
    run: Path = RUN,
    model: str = typer.Option(..., help="The larger size: bBcC, at least the blocks and channels."),
    seed: int = typer.Option(0, help="Seed of the new weights."),
) -> None:
    """Make the next generation the newest one grown to a larger size (new blocks and channels
    start at zero weight, so it plays exactly as the newest one does) and promote it: the run
    goes on with a network that has room to learn more, on the same window."""
    from imago.rl.stages import grow as make

    folder, config = _folder(run)
    with _errors():
        before = folder.latest()
        new = make(folder, config, model, seed=seed)
    console.print(f"generation {new}: generation {before} grown to {model}, promoted")


@rl_app.command("adopt")
def adopt(
    run: Path = RUN,
    model: Path = typer.Argument(
        ..., help="The network: an earlier generation's file, or a shipped or distilled one."
    ),
) -> None:
    """Make the next generation a copy of MODEL (the run's game, board and input features; any
    size) and promote it: the run goes on from a network that played better than its newest
    ones, on the same window (a roll-back, logged in metrics.jsonl). With
    train.ownership_weight above 0 (`imago rl set`), a network without an ownership head gets
    one: the run learns ownership from there on."""
    from imago.rl.stages import adopt as make

    folder, config = _folder(run)
    with _errors():
        before = folder.latest()
        new = make(folder, config, model)
    console.print(f"generation {new}: a copy of {model} (after generation {before}), promoted")


@rl_app.command("distill")
def distill(
    run: Path = RUN,
    out: Path = typer.Argument(..., help="The new network to write (MODEL.pt)."),
    model: str = typer.Option(..., help="Its size: bBcC (B residual blocks of C channels)."),
    rounds: int = typer.Option(32, help="Train on the run's newest rounds, this many."),
    passes: float = typer.Option(2.0, help="Times each example is drawn, on average."),
    lr: float = typer.Option(0.02, help="Peak learning rate (warm-up, then a cosine to 0)."),
    batch_size: int = typer.Option(256, help="Positions per step."),
    seed: int = typer.Option(0, help="Seed of the new weights and the batches."),
) -> None:
    """Train a new network, of another size, on the self-play examples of the run's newest
    rounds (as KataGo starts a larger network on its smaller ones' games), and compare it with
    the run's newest generation on their held-out games. Start a run from it with imago rl
    init NEW --like RUN --bootstrap OUT. Ctrl-C (or kill) and run again to go on."""
    from imago.rl.distill import DistillConfig, report_path
    from imago.rl.distill import distill as make

    folder, config = _folder(run)
    with _interruptible() as stop, _progress() as report, _errors():
        settings = DistillConfig(model, rounds, passes, lr, batch_size, seed)
        row = make(folder, config, out, settings, stop=stop, report=report)
    if row is None:
        console.print(f"stopped; run the same command again to go on from {out.stem}.trainer.pt")
        return
    first, last = row["rounds"]
    console.print(
        f"{out}: {model} trained on rounds {first}-{last} ({row['train']['window']:,} positions, "
        f"{row['train']['steps']:,} steps, {row['train']['seconds'] / 60:.1f} min); "
        f"figures in {report_path(out)}"
    )
    if "holdout" in row:
        ours, theirs = row["holdout"], row["teacher"]["holdout"]
        for name, label in (("policy_loss", "policy loss"), ("top1", "top-1"),
                            ("value_mse", "value MSE")):  # fmt: skip
            console.print(
                f"  held-out games, {label}: {ours[name]:.4f} (generation "
                f"{row['teacher']['generation']}: {theirs[name]:.4f})"
            )


def _generation(folder: Any, generation: int | None) -> int:
    latest = folder.latest()
    if latest is None:
        raise fail(f"{folder.root} has no network yet")
    chosen = latest if generation is None else generation
    if chosen not in folder.generations():
        raise fail(f"no generation {chosen} in {folder.root}")
    return int(chosen)


@rl_app.command("validate")
def validate(
    run: Path = RUN,
    generation: int = typer.Option(None, help="Default: the newest."),
    solver_positions: int = typer.Option(
        0,
        help="Othello: measure the generation on this many positions labelled by the exact "
        "solver (made once per run and kept), whatever the run's settings say.",
    ),
    solver_empties: int = typer.Option(16, help="... with at most this many empty squares."),
    solver_simulations: int = typer.Option(200, help="... the search's simulations a move."),
) -> None:
    """Validate a generation on the self-play holdout and the run's real records (for Othello
    also its value against WTHOR's perfect-play results, and the exact solver's positions)."""
    from dataclasses import replace

    from imago.rl.validate import solver_metrics
    from imago.rl.validate import validate as check

    folder, config = _folder(run)
    chosen = _generation(folder, generation)
    if solver_positions < 0 or solver_empties < 1 or solver_simulations < 1:
        raise fail(
            "--solver-positions must be >= 0, --solver-empties and --solver-simulations >= 1"
        )
    if solver_positions and config.spec.game != "othello":
        raise fail("the exact solver's positions are Othello positions; this run plays Go")
    with _progress() as report, _errors():
        row = check(folder, config, chosen, report=report)
        if solver_positions:
            settings = replace(
                config,
                solver_positions=solver_positions,
                solver_empties=solver_empties,
                solver_simulations=solver_simulations,
            )
            measured = solver_metrics(folder, settings, folder.model_path(chosen))
            row = folder.log("solver", generation=chosen, empties=solver_empties, **measured)
    console.print_json(json.dumps(row))


@rl_app.command("evaluate")
def evaluate(
    run: Path = RUN, generation: int = typer.Option(None, help="Default: the newest.")
) -> None:
    """The gating match of a generation against the promoted one (promotes it on success)."""
    from imago.rl.stages import evaluate as gate

    folder, config = _folder(run)
    chosen = _generation(folder, generation)
    with _interruptible() as stop, _progress() as report, _errors():
        row = gate(folder, config, chosen, stop=stop, report=report)
    console.print_json(json.dumps(row))


@rl_app.command("references")
def references(
    run: Path = RUN, generation: int = typer.Option(None, help="Default: the newest.")
) -> None:
    """Matches of a generation against the run's fixed references."""
    from imago.rl.stages import references as play

    folder, config = _folder(run)
    chosen = _generation(folder, generation)
    with _interruptible() as stop, _progress() as report, _errors():
        row = play(folder, config, chosen, stop=stop, report=report)
    console.print_json(json.dumps(row))


@rl_app.command("plot")
def plot(
    runs: list[Path] = typer.Argument(..., help="The run folder (several with --out)."),
    out: Path = typer.Option(
        None,
        "--out",
        help="Draw the runs' Elo and value error by CPU-hours on one figure at this PNG "
        "instead of each run's curves into RUN/plots.",
    ),
    label: list[str] = typer.Option(
        [], "--label", help="A name per run for --out's legend (default: the folders' names)."
    ),
) -> None:
    """Draw a run's curves into RUN/plots, or several runs side by side (--out)."""
    from imago.rl.plots import plot_run, plot_runs

    folders = [_folder(run)[0] for run in runs]
    if out is None:
        if len(folders) > 1 or label:
            raise fail("several runs, or --label, are drawn on one figure: give --out FILE.png")
        written = plot_run(folders[0])
    else:
        if label and len(label) != len(folders):
            raise fail(f"{len(folders)} runs but {len(label)} --label names")
        drawn = plot_runs(folders, out, label)
        written = [] if drawn is None else [drawn]
    if not written:
        raise fail("nothing to plot yet (or matplotlib is not installed: pip install imago[plot])")
    for path in written:
        console.print(str(path))


@rl_app.command("status")
def status(run: Path = RUN) -> None:
    """What the run holds: generations, the promoted one, games per round, latest metrics,
    and each generation's score against every reference and anchor it played."""
    folder, config = _folder(run)
    spec = config.spec
    console.print(
        f"[bold]{run}[/]: {spec.game} {spec.size}x{spec.size}"
        + (f", komi {spec.komi:g}, {spec.rules}" if spec.game == "go" else "")
        + f"; best generation {folder.best()}"
    )
    from imago.rl.stages import compute_used

    console.print(status_table(folder))
    used = compute_used(folder)
    console.print(
        f"compute: {used['cpu_hours']:.2f} CPU-hours, {used['wall_hours']:.2f} hours of "
        f"machines ({used['gpu_hours']:.2f} with a GPU)"
    )


def status_table(folder: RunFolder) -> Table:
    """``imago rl status``'s table: a row per generation, a column per reference opponent
    and anchor it played (in the order first played), from the run's metrics log."""
    from rich.table import Table

    exact = {row["generation"]: row for row in folder.metrics("exact")}
    scores = {
        (row["generation"], label): score
        for row in folder.metrics("references")
        for label, score in row.get("scores", {}).items()
    }
    opponents = list(dict.fromkeys(label for _, label in scores))
    table = Table(
        "gen",
        "games",
        "train loss",
        "holdout top-1",
        "records top-1",
        "records value MSE / ECE",
        *(["perfect play: value MSE / sign"] if exact else []),
        "gating",
        "promoted",
        *(f"vs {label}" for label in opponents),
    )
    evaluations = {row["generation"]: row for row in folder.metrics("evaluate")}
    trainings = {row["generation"]: row for row in folder.metrics("train")}
    validations = {row["generation"]: row for row in folder.metrics("validate")}
    made = {row["generation"]: "grown" for row in folder.metrics("grow")} | {
        row["generation"]: "adopted" for row in folder.metrics("adopt")
    }  # promoted when made, without a gating match
    for gen in sorted({0, *trainings, *made, *folder.generations()}):
        ev, tr, va = evaluations.get(gen), trainings.get(gen), validations.get(gen)
        records = va.get("records", {}) if va else {}
        table.add_row(
            str(gen),
            str(folder.games_in_round(gen)),
            f"{tr['loss']:.3f}" if tr else "",
            f"{va['holdout']['top1']:.3f}" if va and "holdout" in va else "",
            f"{records['top1']:.3f}" if "top1" in records else "",
            _value_quality(records),
            *([_exact_quality(exact.get(gen))] if exact else []),
            f"{ev['score']:.1%} ({ev['wins']}-{ev['draws']}-{ev['losses']})"
            if ev and "score" in ev
            else "",
            "yes" if ev and ev.get("promoted") else made.get(gen, ""),
            *(_reference_score(scores.get((gen, label))) for label in opponents),
        )
    return table


def _reference_score(score: dict[str, Any] | None) -> str:
    """A reference match's score with its interval, for ``imago rl status``."""
    if score is None:
        return ""
    if "low" not in score:
        return f"{score['score']:.1%} of {score['games']}"
    return f"{score['score']:.1%} [{score['low']:.1%}, {score['high']:.1%}] of {score['games']}"


@rl_app.command("checkpoint")
def checkpoint(
    run: Path = RUN,
    to: Path = typer.Argument(..., help="The checkpoint folder to write (replaced whole)."),
) -> None:
    """Write the run's compact checkpoint: the newest and the anchor networks (float16), the
    trainer's state, the settings, the metrics, and the training window as game records with
    their search statistics (see imago.rl.checkpoint). A few MB: small enough to commit."""
    from imago.rl.checkpoint import write

    folder, _ = _folder(run)
    with _errors():
        written = write(folder, to)
    console.print(
        f"checkpoint {to}: generation {written.generation} (promoted {written.best}), rounds "
        f"{', '.join(map(str, written.rounds))}: {written.games:,} games, "
        f"{written.examples:,} examples, {written.bytes / 1e6:.2f} MB"
    )


@rl_app.command("restore")
def restore(
    checkpoint: Path = typer.Argument(..., help="A checkpoint written by imago rl checkpoint."),
    run: Path = typer.Argument(..., help="The run folder to make (new or empty)."),
    features: str = typer.Option(
        None,
        help="Change the input features to these (a set that begins with the run's, e.g. "
        "libs8 for legal4): the examples are made with them and the newest network grows "
        "their planes, playing as it did.",
    ),
) -> None:
    """Make a run folder from a checkpoint (the example files rebuilt by replaying the games),
    ready for imago rl loop to continue the run."""
    from imago.rl.checkpoint import restore as make

    with _errors():
        made = make(checkpoint, run, features)
    if made.grown_to:
        console.print(
            f"generation {made.generation} reads {made.grown_to}: generation {made.generation - 1} "
            "with the new input planes at zero weight (it plays as before); the examples were "
            "encoded with them and training starts with a fresh optimiser"
        )
    console.print(
        f"run {run}: generation {made.generation} (promoted {made.best}), "
        f"{made.games:,} games and {made.examples:,} examples rebuilt; continue it with "
        f"`imago rl loop {run} --checkpoint {checkpoint}`"
    )


def _value_quality(records: dict[str, Any]) -> str:
    """``MSE / ECE`` of a validation on real records (ECE only where it was measured)."""
    if "value_mse" not in records:
        return ""
    ece = records.get("value_ece")
    return f"{records['value_mse']:.3f}" + ("" if ece is None else f" / {ece:.3f}")


def _exact_quality(row: dict[str, Any] | None) -> str:
    """``MSE / sign`` of the value head against WTHOR's perfect-play results."""
    return "" if row is None else f"{row['value_mse']:.3f} / {row['sign']:.1%}"


def register(app: typer.Typer) -> None:
    app.add_typer(rl_app, name="rl")
