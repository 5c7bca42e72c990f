"""``imago records``: check, count and convert game records (SGF, WTHOR, transcripts, CSV)."""

from __future__ import annotations

import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from imago.cli._common import console, err_console, fail

if TYPE_CHECKING:
    from imago.records.files import Loaded


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


REPLAY = typer.Option(
    True, "--replay/--no-replay", help="Check every move against the rules (slower)."
)
PATHS = typer.Argument(
    ...,
    help="Record files (.sgf .wtb .txt .ggf .csv), folders (searched recursively) and .tar.gz "
    "archives.",
    exists=True,
    show_default=False,
)


def check(
    paths: list[Path] = PATHS,
    replay: bool = REPLAY,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line."),
) -> None:
    """Read every record (replaying every move) and print each problem with its place; exit 1
    when there is any. Takes what `imago records stats` takes and finds the same problems."""
    bad = files = 0
    skipped: list[str] = []
    for loaded in _read(paths, replay):
        if loaded.skipped is not None:
            skipped.append(f"{loaded.name}: {loaded.skipped}")
            continue
        files += 1
        if loaded.errors:
            bad += 1
            if not quiet:
                for message in loaded.errors:
                    _plain(message)
        elif not quiet:
            _plain(f"{loaded.name}: ok, {_games(len(loaded.games))}")
    _print_skipped(skipped)
    summary = f"{files - bad} of {files} files clean"
    if bad:
        err_console.print(summary)
        raise typer.Exit(1)
    console.print(summary)


def stats(
    paths: list[Path] = PATHS,
    replay: bool = REPLAY,
    problems: bool = typer.Option(
        False, "--problems", help="List every problem (as `imago records check` does)."
    ),
) -> None:
    """Count games, results, board sizes and game lengths (with a progress bar)."""
    from rich.progress import Progress
    from rich.table import Table

    from imago.records.files import RecordStats, count_sources

    try:
        total = count_sources(paths)
    except (OSError, tarfile.TarError) as error:
        raise fail(_unreadable(error)) from None
    summary = RecordStats()
    found: list[str] = []
    interrupted = False
    try:
        with Progress(console=err_console, transient=True) as progress:
            task = progress.add_task("reading records", total=total)
            for loaded in _read(paths, replay):
                summary.add_file(loaded)
                found.extend(loaded.errors)
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
    _print_skipped(summary.skipped)
    if problems:
        for message in found:
            _plain(message)
    elif found:
        console.print(
            f"{_count(len(found), 'problem')}: list them with --problems, or with "
            "`imago records check`",
            highlight=False,
        )
    if interrupted:
        raise typer.Exit(130)


def convert(
    source: Path = typer.Argument(
        ..., help="Input: .sgf .wtb .txt .ggf .csv", exists=True, dir_okay=False, show_default=False
    ),
    target: Path = typer.Argument(
        ..., help="Output: .sgf .wtb .txt .ggf (written atomically)", show_default=False
    ),
    force: bool = typer.Option(False, "--force", "-f", help="Overwrite an existing output."),
) -> None:
    """Convert between SGF (Go and Othello), WTHOR, GGF and Othello transcripts (WTHOR and
    transcripts: 8x8 Othello only; a Go game or another board is refused, never written as
    something else)."""
    from imago.core.errors import os_error_text
    from imago.records.files import WRITABLE, FormatError, load_file, save_file, suffix

    if suffix(target.name) not in WRITABLE:
        raise fail(
            f"cannot write {target.suffix or 'files without an extension'}: give the output "
            f"one of the extensions {', '.join(WRITABLE)}"
        )
    if target.exists() and not force:
        raise fail(f"{target} exists (use --force to overwrite)")
    try:
        loaded = load_file(source)
    except OSError as error:
        raise fail(_unreadable(error)) from None
    for message in loaded.errors:
        err_console.print(message, markup=False, highlight=False, soft_wrap=True)
    if not loaded.games:
        raise fail(f"no game could be read from {source}")
    try:
        save_file(target, loaded.games)
    except (FormatError, ValueError) as error:
        raise fail(str(error)) from None
    except OSError as error:
        raise fail(f"cannot write {target}: {os_error_text(error)}") from None
    _plain(f"wrote {_games(len(loaded.games))} to {target}")


def _read(paths: list[Path], replay: bool) -> Iterator[Loaded]:
    from imago.records.files import load_sources

    try:
        yield from load_sources(paths, replay=replay)
    except (OSError, tarfile.TarError) as error:
        raise fail(_unreadable(error)) from None


def _unreadable(error: BaseException) -> str:
    from imago.core.errors import os_error_text

    if isinstance(error, OSError):
        return f"cannot read {error.filename or 'a file'}: {os_error_text(error)}"
    return f"a broken archive: {error}"


def _print_skipped(skipped: list[str]) -> None:
    for line in skipped:
        err_console.print(f"skipped {line}", markup=False, highlight=False, soft_wrap=True)


def _games(count: int) -> str:
    return _count(count, "game")


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _plain(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)
