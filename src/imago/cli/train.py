"""``imago train``: build datasets from game records, train networks, export them.

``imago train dataset SOURCES... --game othello --out DIR``
``imago train supervised --game othello --data PATH --model b6c64 --out DIR``
``imago train export MODEL --onnx FILE``
``imago train patterns WTHOR_FOLDER --out FILE.npz`` (the Othello alpha-beta evaluation)
``imago train probcut WTHOR_FOLDER --out FILE.npz`` (its multi-ProbCut calibration)
"""

from __future__ import annotations

import contextlib
import dataclasses
import tarfile
from pathlib import Path
from typing import Any

import typer

from imago.cli._common import console, err_console, fail

train_app = typer.Typer(
    help="Build datasets from game records and train networks on them.", no_args_is_help=True
)


def _years(text: str | None) -> tuple[int, int] | None:
    """``2023-2025``, ``2023``, ``-2022`` (up to), ``2023-`` (from)."""
    if not text:
        return None
    low, dash, high = text.partition("-")
    try:
        first = int(low) if low else 0
        last = int(high) if high else (9999 if dash else first)
    except ValueError:
        raise fail(f"not a year range: {text!r} (examples: 2023-2025, -2022, 2023-)") from None
    return first, last


def _game_of(sources: list[Path]) -> str:
    """The game the records hold (said, so that a wrong guess is seen)."""
    from imago.core.errors import os_error_text
    from imago.train.sources import guess_game

    for source in sources:
        if not source.exists():
            raise fail(f"no such file or folder: {source}")
    try:
        game = guess_game(sources)
    except OSError as error:
        raise fail(f"cannot read {error.filename}: {os_error_text(error)}") from None
    except tarfile.TarError as error:
        raise fail(f"cannot read the records: a broken archive ({error})") from None
    if game is None:
        names = ", ".join(str(source) for source in sources)
        raise fail(f"cannot tell which game {names} holds: give --game go or --game othello")
    console.print(f"the records hold {game} games (--game sets it)", highlight=False)
    return game


def _check_game(game: str) -> None:
    if game not in ("go", "othello"):
        raise fail(f"unknown game {game!r} (go or othello)")


def _sgf_reader() -> Any:
    try:
        from imago.train.sgf_source import read_sgf_game
    except ImportError:
        return None
    return read_sgf_game


def _labeller(stack: contextlib.ExitStack, command: str, every: int) -> Any:
    from imago.gtp.client import EngineError, GtpEngine
    from imago.train.label import GtpLabeller, LabelConfig

    try:
        engine = stack.enter_context(GtpEngine.popen(command))
    except (EngineError, OSError) as error:
        raise fail(f"cannot start the labelling engine {command!r}: {error}") from None
    return GtpLabeller(engine, LabelConfig(every=max(1, every)))


def _build(
    sources: list[Path],
    out: Path,
    *,
    game: str,
    size: int,
    features: str,
    val_fraction: float,
    val_years: str | None,
    years: str | None,
    val_min_rank: str | None = None,
    min_moves: int,
    min_rank: str | None,
    max_handicap: int,
    rules: str | None,
    allow_void: bool,
    limit_games: int | None,
    label: str | None = None,
    label_every: int = 1,
) -> Path:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from imago.nn.dataset import DatasetError
    from imago.nn.features import feature_set
    from imago.train.build import BuildConfig, GameFilter, SplitConfig, build_dataset
    from imago.train.sources import SourceError

    try:
        feature_set(features, game)
    except ValueError as error:
        raise fail(str(error)) from None
    config = BuildConfig(
        game=game,
        size=size,
        features=features,
        filter=GameFilter(
            min_moves=min_moves,
            rules=tuple(r.strip().lower() for r in (rules or "").split(",") if r.strip()),
            min_rank=min_rank,
            max_handicap=max_handicap,
            require_result=not allow_void,
            years=_years(years),
        ),
        split=SplitConfig(
            val_fraction=val_fraction, val_years=_years(val_years), val_min_rank=val_min_rank
        ),
    )
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,} games  {task.fields[positions]:,} positions"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("building", total=None, positions=0)

        def update(status: Any) -> None:
            bar.update(
                task,
                completed=status.games,
                total=status.expected_games,
                positions=status.positions,
                description=f"building {status.current}",
            )

        with contextlib.ExitStack() as stack:
            labeller = _labeller(stack, label, label_every) if label else None
            try:
                manifest = build_dataset(
                    sources,
                    out,
                    config,
                    sgf_reader=_sgf_reader(),
                    progress=update,
                    limit_games=limit_games,
                    labeller=labeller,
                    label_settings=None if labeller is None else labeller.settings(),
                )
            except (SourceError, DatasetError) as error:
                raise fail(str(error)) from None
    games = sum(unit["games"] for unit in manifest["units"])
    positions = sum(unit["positions"] for unit in manifest["units"])
    rejected = ", ".join(f"{n} {why}" for why, n in sorted(manifest["rejected"].items())) or "none"
    console.print(f"dataset {out}: {games:,} games, {positions:,} positions (rejected: {rejected})")
    return out


@train_app.command("dataset")
def dataset(
    sources: list[Path] = typer.Argument(
        ..., help="WTHOR files/folders, SGF files/folders/.tar.gz archives, transcript .txt files."
    ),
    out: Path = typer.Option(..., "--out", "-o", help="The dataset folder to write (resumable)."),
    game: str = typer.Option(
        None,
        help="go or othello (default: the game of the records, from the first one read).",
        show_default=False,
    ),
    size: int = typer.Option(
        None, help="Board size (default 8 for Othello, 9 for Go).", show_default=False
    ),
    features: str = typer.Option(
        "legal4", help="Feature set: stones2, legal4, libs8 (Go), history9, history11, minigo17."
    ),
    val_fraction: float = typer.Option(0.05, help="Share of games for validation (by game)."),
    val_years: str = typer.Option(None, help="Validate on these years instead, e.g. 2023-2025."),
    years: str = typer.Option(None, help="Keep only games of these years, e.g. -2025."),
    val_min_rank: str = typer.Option(
        None, help="Validate only on games whose players both hold this rank, e.g. 1d."
    ),
    min_moves: int = typer.Option(10, help="Drop games shorter than this."),
    min_rank: str = typer.Option(None, help="Both players at least this rank (Go), e.g. 1d."),
    max_handicap: int = typer.Option(0, help="Drop games with more handicap stones."),
    rules: str = typer.Option(None, help="Accepted rule sets, comma separated (Go)."),
    allow_void: bool = typer.Option(False, help="Keep void games and games without a result."),
    limit_games: int = typer.Option(None, help="Stop after this many games (for trials)."),
    label: str = typer.Option(
        None, help='Label positions with a GTP engine, e.g. "gnugo --mode gtp --level 1".'
    ),
    label_every: int = typer.Option(1, help="With --label: label every n-th decision."),
) -> None:
    """Build a dataset of encoded positions (compressed .npz shards + manifest.json)."""
    from imago.games import default_size

    if game is None:
        game = _game_of(sources)
    _check_game(game)
    _build(
        sources,
        out,
        game=game,
        size=size or default_size(game),
        features=features,
        val_fraction=val_fraction,
        val_years=val_years,
        years=years,
        val_min_rank=val_min_rank,
        min_moves=min_moves,
        min_rank=min_rank,
        max_handicap=max_handicap,
        rules=rules,
        allow_void=allow_void,
        limit_games=limit_games,
        label=label,
        label_every=label_every,
    )


@train_app.command("supervised")
def supervised(
    game: str = typer.Option(..., help="go or othello."),
    data: Path = typer.Option(..., help="A dataset folder, or game records to build one from."),
    model: str = typer.Option("b6c64", help="Model name: b6c64, l12c128, cnn, dense, convpool."),
    out: Path = typer.Option(..., "--out", "-o", help="Run folder (checkpoints, metrics, model)."),
    features: str = typer.Option("legal4", help="Feature set when building from records."),
    val_years: str = typer.Option(None, help="When building: validate on these years."),
    val_fraction: float = typer.Option(0.05, help="When building: validation share of games."),
    min_rank: str = typer.Option(None, help="When building (Go): minimum rank of both players."),
    optimizer: str = typer.Option("sgd", help="sgd (momentum) or adamw."),
    lr: float = typer.Option(0.05, help="Peak learning rate."),
    schedule: str = typer.Option("cosine", help="cosine, step or constant."),
    warmup_steps: int = typer.Option(200, help="Linear warm-up steps."),
    weight_decay: float = typer.Option(1e-4, help="Weight decay (not on biases / norms)."),
    batch_size: int = typer.Option(256, help="Positions per step."),
    epochs: int = typer.Option(10, help="Epochs."),
    epoch_size: int = typer.Option(None, help="Positions per epoch (default: all)."),
    seed: int = typer.Option(0, help="Seed: weights, order and augmentation."),
    device: str = typer.Option("auto", help="auto (CUDA when present), cpu, cuda."),
    amp: str = typer.Option("auto", help="Mixed precision: auto (CUDA), on (bf16 on CPU), off."),
    augment: bool = typer.Option(True, help="Random board symmetry per batch."),
    val_limit: int = typer.Option(50_000, help="Validation positions per epoch (0: all)."),
    threads: int = typer.Option(None, help="CPU threads for torch."),
    time_budget: float = typer.Option(
        None, help="Minutes of training steps; the LR schedule follows the time spent."
    ),
    resume: bool = typer.Option(
        False, help="Only continue the run in --out (fail when there is none)."
    ),
) -> None:
    """Train a network to predict the moves of recorded games.

    Run again with the same options on the same --out, it continues where the run stopped
    (exactly, also after a kill) or says that nothing is left; other options are refused."""
    from imago.games import default_size

    _check_game(game)
    from imago.nn.dataset import Dataset, DatasetError
    from imago.nn.supervised import (
        TrainConfig,
        TrainingError,
        prepare_output,
        resume_point,
        sync_metrics,
    )

    if not data.exists():
        raise fail(f"no games: {data} does not exist")
    try:
        config = TrainConfig(
            model=model,
            optimizer=optimizer,
            lr=lr,
            schedule=schedule,
            warmup_steps=warmup_steps,
            weight_decay=weight_decay,
            batch_size=batch_size,
            epochs=epochs,
            epoch_size=epoch_size,
            seed=seed,
            device=device,
            amp=amp,
            augment=augment,
            val_limit=val_limit or None,
            threads=threads,
            time_budget=None if time_budget is None else time_budget * 60.0,
        )
        from imago.nn.models import ModelError, parse_arch

        parse_arch(model)
        point = resume_point(out, config)
        prepare_output(out, resume or point is not None)
    except (ValueError, TrainingError, ModelError) as error:
        raise fail(str(error)) from None
    if point is not None and point.finished:
        sync_metrics(out)
        console.print(
            f"nothing left: {out} finished its training ({point.epoch} of {point.epochs} "
            f"epochs); the model is {out / 'model.pt'}",
            highlight=False,
        )
        return
    resume = point is not None
    if not (data / "manifest.json").is_file():
        built = out / "dataset"
        if not _partial_dataset(built):
            raise fail(f"{built} exists and is not a dataset")
        data = _build(
            [data],
            built,
            game=game,
            size=default_size(game),
            features=features,
            val_fraction=val_fraction,
            val_years=val_years,
            years=None,
            min_moves=10,
            min_rank=min_rank,
            max_handicap=0,
            rules=None,
            allow_void=False,
            limit_games=None,
        )
    try:
        opened = Dataset.open(data)
        _train(opened, out, config, game, resume)
    except (DatasetError, ValueError) as error:
        raise fail(str(error)) from None


def _partial_dataset(folder: Path) -> bool:
    """Whether ``folder`` is missing, a dataset, or one whose build stopped before its first
    manifest (shards only), which building again resumes."""
    if not folder.exists() or (folder / "manifest.json").is_file():
        return True
    return folder.is_dir() and all(
        entry.is_file() and entry.name.endswith(".npz") for entry in folder.iterdir()
    )


def _train(dataset: Any, out: Path, config: Any, game: str, resume: bool) -> None:
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from imago.nn.supervised import train_supervised

    columns = (
        TextColumn("[bold]epoch {task.fields[epoch]}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} steps  loss {task.fields[loss]:.3f}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("train", total=None, epoch=1, loss=0.0)

        def on_step(epoch: int, step: int, steps: int, loss: float) -> None:
            if step % 20 == 0 or step == steps:
                bar.update(task, completed=step, total=steps, epoch=epoch + 1, loss=loss)

        metrics = train_supervised(
            dataset,
            out,
            config,
            game=game,
            resume=resume,
            report=bar.console.print,
            on_step=on_step,
        )
    if metrics:
        console.print(f"model written to {out / 'model.pt'}")


@train_app.command("evaluate")
def evaluate(
    model: Path = typer.Argument(..., help="A model file (model.pt) or checkpoint."),
    data: Path = typer.Option(..., help="A dataset folder."),
    split: str = typer.Option("val", help="train or val."),
    limit: int = typer.Option(None, help="Only the first positions of the split."),
    threads: int = typer.Option(None, help="CPU threads for torch."),
    device: str = typer.Option("auto", help="auto, cpu or cuda."),
    symmetries: int = typer.Option(1, help="Average over this many board symmetries (1-8)."),
) -> None:
    """Move-prediction accuracy (top-1 legal, top-1 raw, top-3) and losses on a dataset split."""
    from imago.nn.dataset import Dataset, DatasetError
    from imago.nn.models import ModelError
    from imago.nn.supervised import evaluate_model

    try:
        result = evaluate_model(
            model,
            Dataset.open(data),
            split,
            limit=limit,
            device=device,
            threads=threads,
            symmetries=symmetries,
        )
    except (DatasetError, ModelError) as error:
        raise fail(str(error)) from None
    for key, value in result.items():
        console.print(f"{key:12} {value:,.4f}" if key != "positions" else f"{key:12} {value:,.0f}")


@train_app.command("export")
def export(
    model: Path = typer.Argument(..., help="A model file (model.pt) or checkpoint."),
    onnx: Path | None = typer.Option(None, "--onnx", help="The ONNX file to write."),
    half: Path | None = typer.Option(
        None, "--half", help="A model file to write with float16 weights (half the size)."
    ),
    int8: Path | None = typer.Option(
        None,
        "--int8",
        help="An int8 copy of the ONNX export to write (MODEL.int8.onnx beside the model: what "
        "az:precision=int8 runs), calibrated on positions of --calibration.",
    ),
    calibration: Path | None = typer.Option(
        None,
        "--calibration",
        help="With --int8: a dataset (imago train dataset) of the model's game, board and "
        "features, whose training positions set the int8 ranges.",
    ),
    positions: int = typer.Option(512, "--positions", help="Calibration positions drawn."),
    seed: int = typer.Option(0, "--seed", help="Seed of the calibration sample."),
) -> None:
    """Export a model to ONNX (input "planes"; outputs "policy" logits and "value"), as a
    float16 copy for shipping (it loads like any model), and/or as an int8 copy for fast CPU
    inference."""
    if onnx is None and half is None and int8 is None:
        raise fail("say what to write: --onnx FILE.onnx, --half FILE.pt and/or --int8 FILE.onnx")
    if (int8 is None) != (calibration is None):
        raise fail("--int8 FILE and --calibration DATASET go together")
    try:
        from imago.nn.dataset import DatasetError
        from imago.nn.export import export_onnx
        from imago.nn.models import ModelError
        from imago.nn.store import save_half
    except ImportError as error:
        raise fail(f"export needs the nn extra: {error}") from None
    try:
        planes = None if calibration is None else _calibration(model, calibration, positions, seed)
        if half is not None:
            save_half(model, half)
            console.print(f"wrote {half} (float16 weights)")
        if onnx is not None:
            export_onnx(model, onnx)
            console.print(f"wrote {onnx}")
        if int8 is not None and planes is not None:
            from imago.nn.export import quantize_model

            quantize_model(model, int8, planes)
            console.print(f"wrote {int8} (int8, calibrated on {len(planes)} positions)")
    except (ModelError, DatasetError, ImportError) as error:
        raise fail(str(error)) from None


def _calibration(model: Path, data: Path, positions: int, seed: int) -> Any:
    """``positions`` feature planes drawn from the dataset ``data``, checked to be of the
    model's game, board and feature set (a :class:`DatasetError` saying which differs)."""
    from imago.nn.dataset import Dataset, DatasetError
    from imago.nn.store import load_model

    spec = load_model(model).spec
    dataset = Dataset.open(data)
    theirs = (dataset.game, dataset.size, dataset.features)
    if theirs != (spec.game, spec.size, spec.features):
        raise DatasetError(
            f"{data} holds {dataset.size}x{dataset.size} {dataset.game} positions with "
            f"{dataset.features} features; {model} reads {spec.size}x{spec.size} {spec.game} "
            f"with {spec.features}: build one with imago train dataset --game {spec.game} "
            f"--size {spec.size} --features {spec.features}"
        )
    return dataset.sample_planes(positions, seed)


def _wthor_sources(wthor: Path) -> list[Path]:
    """The ``.wtb`` files a WTHOR argument names (a file, or a folder of them), or a clear
    error."""
    from imago.train.othello_patterns import wthor_files

    if not wthor.exists():
        raise fail(f"no such file or folder: {wthor}")
    if wthor.is_file() and wthor.suffix.lower() != ".wtb":
        raise fail(f"{wthor} is not a WTHOR file: give a .wtb file or a folder of them")
    try:
        return wthor_files(wthor) if wthor.is_dir() else [wthor]
    except ValueError as error:
        raise fail(str(error)) from None


@train_app.command("book")
def book(
    wthor: Path = typer.Argument(..., help="A folder of WTHOR .wtb files, or a .wtb file."),
    out: Path = typer.Option(..., "--out", "-o", help="The book file to write (.npz)."),
    plies: int = typer.Option(20, help="Book the first this many moves of each game."),
    min_games: int = typer.Option(5, help="Keep the moves played in at least this many games."),
) -> None:
    """Build an Othello opening book from WTHOR games (play from it: alphabeta:book=FILE)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from imago.agents.othello.book import OpeningBook
    from imago.core.errors import os_error_text
    from imago.records.wthor import WthorError, read_games

    if plies < 1 or min_games < 1:
        raise fail("--plies and --min-games must be at least 1")
    files = _wthor_sources(wthor)
    try:
        games = [game for file in files for game in read_games(file)]
    except OSError as error:
        raise fail(f"cannot read {error.filename}: {os_error_text(error)}") from None
    except (ValueError, WthorError) as error:
        raise fail(str(error)) from None
    if not games:
        raise fail(f"no games in {wthor}")
    columns = (TextColumn("booking"), BarColumn(), MofNCompleteColumn(), TextColumn("games"))
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("book", total=len(games))

        def counted() -> Any:
            for i, game in enumerate(games):
                if i % 1000 == 0:
                    progress.update(task, completed=i)
                yield game

        opening_book = OpeningBook.build(counted(), plies=plies, min_games=min_games)
    opening_book.save(out)
    console.print(
        f"wrote {out}: {len(opening_book):,} positions from {len(games):,} games "
        f"({plies} plies, moves played in {min_games}+ games)"
    )


@train_app.command("patterns")
def patterns(
    wthor: Path = typer.Argument(..., help="A folder of WTHOR .wtb files, or .wtb files."),
    out: Path = typer.Option(..., "--out", "-o", help="The weights file to write (.npz)."),
    epochs: int = typer.Option(10, help="Passes over the training positions."),
    lr: float = typer.Option(0.002, help="SGD step per disc of error and feature, epoch 1."),
    decay: float = typer.Option(0.7, help="Learning-rate factor per epoch."),
    validate_from: int = typer.Option(2023, help="Hold out games of this year on (0: none)."),
    target: str = typer.Option("mixed", help="mixed (WTHOR theoretical score early) or final."),
    theory_empties: int = typer.Option(18, help="mixed: theoretical score from this many empties."),
    max_games: int = typer.Option(0, help="At most this many training games (0: all)."),
    seed: int = typer.Option(1, help="Seed of the shuffling."),
    resume: bool = typer.Option(False, help="Continue from --out's last finished epoch."),
) -> None:
    """Fit the Othello alpha-beta agent's pattern evaluation to WTHOR games (least squares)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from imago.agents.othello.weights import WeightsError
    from imago.core.errors import os_error_text
    from imago.records.wthor import WthorError
    from imago.train import othello_patterns as op

    config = op.PatternTrainConfig(
        epochs=epochs,
        learning_rate=lr,
        decay=decay,
        validate_from=validate_from,
        target=target,
        theory_empties=theory_empties,
        seed=seed,
        max_games=max_games,
    )
    files = _wthor_sources(wthor)
    try:
        config.check()
        weights, first = None, 0
        if resume and out.exists():
            weights, info = op.read_weights(out)
            first = int(str(info.get("epochs_done", 0)))
        with console.status("replaying WTHOR games"):
            train_set, valid_set = op.load_positions(files, config)
    except OSError as error:
        raise fail(f"cannot read {error.filename}: {os_error_text(error)}") from None
    except (ValueError, WthorError, WeightsError) as error:
        raise fail(str(error)) from None
    if not len(train_set):
        raise fail(
            f"no training positions in {wthor}: every game is from {validate_from} on (held out "
            "for validation); give --validate-from a later year, or 0"
        )
    console.print(
        f"{len(train_set):,} training positions ({train_set.games:,} games), "
        f"{len(valid_set):,} validation positions ({valid_set.games:,} games)"
    )
    if not len(valid_set):
        console.print(
            "[yellow]no validation games[/]: "
            + (
                f"no game is from {validate_from} on; --validate-from sets the year"
                if validate_from
                else "--validate-from 0 holds none out"
            )
        )

    def on_epoch(report: op.EpochReport, w: Any) -> None:
        info = {**op.config_info(config), "epochs_done": report.epoch + 1}
        info |= {"train_rmse": report.train_rmse, "valid_rmse": report.valid_rmse}
        op.save_weights(out, w, info=info)
        line = (
            f"epoch {report.epoch + 1}: lr {report.learning_rate:.5f}  train RMSE "
            f"{report.train_rmse:.3f} discs"
        )
        if len(valid_set):
            stages = " ".join("-" if x != x else f"{x:.1f}" for x in report.valid_stage_rmse)
            line += (
                f"  valid RMSE {report.valid_rmse:.3f} MAE {report.valid_mae:.3f} discs  "
                f"(by stage: {stages})"
            )
        bar.console.print(line)

    columns = (
        TextColumn("[bold]epoch {task.fields[epoch]}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} positions"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("patterns", total=len(train_set), epoch=first + 1)

        def on_progress(epoch: int, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, epoch=epoch + 1)

        try:
            op.train(
                train_set,
                valid_set,
                config,
                weights=weights,
                first_epoch=first,
                on_epoch=on_epoch,
                on_progress=on_progress,
            )
        except ValueError as error:
            raise fail(str(error)) from None
    console.print(f"weights written to {out}")


@train_app.command("probcut")
def probcut(
    wthor: Path = typer.Argument(..., help="A folder of WTHOR .wtb files, or a .wtb file."),
    out: Path = typer.Option(..., "--out", "-o", help="The calibration file to write (.npz)."),
    positions: int = typer.Option(2000, help="Positions to measure."),
    max_depth: int = typer.Option(10, help="The deepest search measured."),
    min_empties: int = typer.Option(19, help="Sample positions with this many empties or more."),
    max_empties: int = typer.Option(54, help="... and this many or fewer."),
    validate_from: int = typer.Option(2023, help="Sample games of this year on (0: all)."),
    seed: int = typer.Option(1, help="Seed of the sampling."),
    jobs: int = typer.Option(1, help="Processes measuring at once."),
) -> None:
    """Calibrate the Othello alpha-beta agent's multi-ProbCut (alphabeta:probcut=T) on WTHOR
    positions: resumable, the values kept in OUT.values.npz."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from imago.core.errors import os_error_text
    from imago.records.wthor import WthorError
    from imago.train import othello_probcut as pc

    config = pc.ProbCutConfig(
        positions=positions,
        max_depth=max_depth,
        min_empties=min_empties,
        max_empties=max_empties,
        validate_from=validate_from,
        seed=seed,
    )
    if jobs < 1:
        raise fail("--jobs must be at least 1")
    files = _wthor_sources(wthor)
    try:
        config.check()
        with console.status("replaying WTHOR games"):
            sample = pc.sample_positions(pc.held_out_positions(files, config), config)
    except OSError as error:
        raise fail(f"cannot read {error.filename}: {os_error_text(error)}") from None
    except (ValueError, WthorError) as error:
        raise fail(str(error)) from None
    checkpoint = out.with_name(out.name + ".values.npz")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise fail(f"cannot make {out.parent}: {os_error_text(error)}") from None
    columns = (
        TextColumn("measuring"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("positions"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("probcut", total=positions)

        def on_progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            measured = pc.measure(*sample, config, checkpoint, jobs=jobs, progress=on_progress)
        except KeyboardInterrupt:
            err_console.print(
                f"interrupted; the measured positions are kept in {checkpoint}: "
                "run the same command to go on"
            )
            raise typer.Exit(130) from None
    calibration = pc.fit(measured, max_depth)
    pc.save_calibration(out, calibration, {"config": dataclasses.asdict(config)})
    for depth, shallow, sigma, r in pc.summary(measured, calibration):
        console.print(
            f"depth {depth:2d} from {shallow}: sigma {sigma / 100:.2f} discs, correlation {r:.3f}"
        )
    console.print(f"wrote {out} (the measured values stay in {checkpoint})")


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")
