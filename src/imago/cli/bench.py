"""``imago bench [NAMES...]``: run benchmarks and print their figures."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from imago.cli._common import console, default_data_dir, fail


def bench(
    names: list[str] = typer.Argument(None, help="Benchmarks or prefixes (default: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: figure -> value."),
    quick: bool = typer.Option(False, "--quick", help="Smaller workloads, fewer repeats."),
    repeats: int = typer.Option(5, help="Repeats per timed figure (the median is reported)."),
    data_dir: Path = typer.Option(None, help="The shared data folder (default: found nearby)."),
    list_only: bool = typer.Option(False, "--list", help="List the benchmarks and exit."),
) -> None:
    """Measure imago's speed (and its peers' in the same run); print a table of figures."""
    from rich.table import Table

    from imago.bench import BenchConfig, benchmarks, select

    if list_only:
        for bench_ in benchmarks().values():
            console.print(f"[bold]{bench_.name}[/]  {bench_.summary}")
        return
    try:
        chosen = select(names or [])
    except ValueError as error:
        raise fail(str(error)) from None
    if data_dir is not None and not data_dir.is_dir():
        raise fail(f"no data folder {data_dir} (give --data-dir the shared/data folder)")
    config = BenchConfig(data_dir=data_dir or default_data_dir(), quick=quick, repeats=repeats)
    figures = []
    for bench_ in chosen:
        if not as_json:
            console.print(f"[dim]running {bench_.name}…[/]")
        figures.extend(bench_.function(config))
    if as_json:
        print(json.dumps({f.name: f.value for f in figures}))
        return
    table = Table(title="imago bench")
    for column in ("figure", "value", "unit", "note"):
        table.add_column(column, justify="right" if column == "value" else "left")
    for figure in figures:
        table.add_row(figure.name, f"{figure.value:,.4g}", figure.unit, figure.note)
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("bench")(bench)
