"""``imago records``: check, count and convert game records (SGF, WTHOR, transcripts, CSV)."""

from __future__ import annotations

from pathlib import Path

import typer

from imago.cli._common import console, err_console, fail


def register(app: typer.Typer) -> None:
    """Add the ``records`` command group to the ``imago`` app."""
    records = typer.Typer(
        name="records",
        help="Check, count and convert game records (SGF, WTHOR .wtb, GGF, transcripts, eOthello "
        "CSV).",
        no_args_is_help=True,
    )
    records.command("check")(check)
    records.command("stats")(stats)
    records.command("convert")(convert)
    app.add_typer(records)


def check(
    files: list[Path] = typer.Argument(
        ..., help="Record files (.sgf .wtb .txt .ggf .csv).", exists=True
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line."),
) -> None:
    """Read each file (replaying every move) and print its problems with line and column."""
    from imago.records.files import load_file

    bad = 0
    for path in files:
        if path.is_dir():
            raise fail(f"{path} is a folder: use `imago records stats` for folders")
        loaded = load_file(path)
        if loaded.errors:
            bad += 1
            if not quiet:
                for message in loaded.errors:
                    console.print(message, markup=False, highlight=False, soft_wrap=True)
        elif not quiet:
            console.print(
                f"{path}: ok ({len(loaded.games)} games)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
    summary = f"{len(files) - bad} of {len(files)} files clean"
    if bad:
        err_console.print(summary)
        raise typer.Exit(1)
    console.print(summary)


def stats(
    paths: list[Path] = typer.Argument(
        ..., help="Files, folders or .tar.gz archives.", exists=True
    ),
    replay: bool = typer.Option(
        False, "--replay/--no-replay", help="Also check every move against the rules."
    ),
) -> None:
    """Count games, results, board sizes and game lengths (with a progress bar)."""
    from rich.progress import Progress
    from rich.table import Table

    from imago.records.files import RecordStats, count_sources, iter_sources, load_bytes

    total = count_sources(paths)
    summary = RecordStats()
    interrupted = False
    try:
        with Progress(console=err_console, transient=True) as progress:
            task = progress.add_task("reading records", total=total)
            for name, data, folder in iter_sources(paths):
                summary.add_file(load_bytes(name, data, replay=replay, names_folder=folder))
                progress.advance(task)
    except KeyboardInterrupt:
        interrupted = True
    table = Table(title="records" + (" (interrupted: partial counts)" if interrupted else ""))
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("files", str(summary.files))
    table.add_row("files without a game", str(summary.unreadable_files))
    table.add_row("games", str(summary.games))
    table.add_row("problems", str(summary.errors))
    for board, count in summary.boards.most_common():
        table.add_row(f"board {board}", str(count))
    for result, count in summary.results.most_common():
        table.add_row(f"result {result}", str(count))
    for key, value in summary.length_summary().items():
        table.add_row(f"moves {key}", f"{value:g}")
    console.print(table)
    if interrupted:
        raise typer.Exit(130)


def convert(
    source: Path = typer.Argument(..., help="Input: .sgf .wtb .txt .ggf .csv", exists=True),
    target: Path = typer.Argument(..., help="Output: .sgf .wtb .txt .ggf (written atomically)"),
    force: bool = typer.Option(False, "--force", "-f", help="Overwrite an existing output."),
) -> None:
    """Convert between SGF (Go and Othello), WTHOR, GGF and Othello transcripts."""
    from imago.records.files import WRITABLE, FormatError, load_file, save_file, suffix

    if suffix(target.name) not in WRITABLE:
        raise fail(f"cannot write {target.suffix or 'files without an extension'} (use {WRITABLE})")
    if target.exists() and not force:
        raise fail(f"{target} exists (use --force to overwrite)")
    loaded = load_file(source)
    for message in loaded.errors:
        err_console.print(message, markup=False, highlight=False, soft_wrap=True)
    if not loaded.games:
        raise fail(f"no game could be read from {source}")
    try:
        save_file(target, loaded.games)
    except (FormatError, ValueError) as error:
        raise fail(str(error)) from None
    console.print(f"wrote {len(loaded.games)} games to {target}", markup=False, highlight=False)
