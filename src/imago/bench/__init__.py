"""Benchmarks: named functions that measure and return figures, run by ``imago bench``.

A benchmark module registers its functions::

    @benchmark("go.playouts", "random 9x9 and 19x19 playouts per second, one thread")
    def playouts(config: BenchConfig) -> list[Figure]: ...

Speed goals are measured here, never in timed unit tests. Where a peer is named (OpenSpiel,
sgfmill), the benchmark measures it in the same run and reports the ratio as a figure.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BENCH_MODULES: tuple[str, ...] = (
    "imago.bench.startup",
    "imago.bench.go",
    "imago.bench.scoring",
    "imago.bench.othello",
    "imago.bench.records",
    "imago.bench.search",
    "imago.bench.nn",
    "imago.bench.rl",
    "imago.bench.web",
    "imago.bench.envs",
    "imago.bench.cluster",
)


@dataclass(frozen=True, slots=True)
class BenchConfig:
    """What a benchmark run may use: real data, how long, whether to take the quick version."""

    data_dir: Path | None = None
    quick: bool = False
    repeats: int = 5


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure: ``name`` (dotted, stable for scripts), value and unit."""

    name: str
    value: float
    unit: str
    note: str = ""


BenchFunction = Callable[[BenchConfig], list[Figure]]


@dataclass(frozen=True, slots=True)
class Benchmark:
    name: str
    summary: str
    function: BenchFunction


_REGISTRY: dict[str, Benchmark] = {}


def benchmark(name: str, summary: str) -> Callable[[BenchFunction], BenchFunction]:
    """Decorator: register a benchmark function under ``name``."""

    def decorate(function: BenchFunction) -> BenchFunction:
        _REGISTRY[name] = Benchmark(name, summary, function)
        return function

    return decorate


def benchmarks() -> dict[str, Benchmark]:
    """Every registered benchmark by name (modules not yet written are skipped)."""
    for module in BENCH_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name is None or not module.startswith(error.name):
                raise
    return dict(sorted(_REGISTRY.items()))


def select(names: list[str]) -> list[Benchmark]:
    """The benchmarks named (exact names or dotted prefixes such as ``go``); all when empty."""
    every = benchmarks()
    if not names:
        return list(every.values())
    chosen: dict[str, Benchmark] = {}
    for name in names:
        matches = [b for key, b in every.items() if key == name or key.startswith(name + ".")]
        if not matches:
            raise ValueError(f"no benchmark {name!r} (known: {', '.join(every)})")
        chosen.update((b.name, b) for b in matches)
    return list(chosen.values())


def progress(message: str) -> None:
    """A line on standard error while a long benchmark runs (standard output keeps the table,
    and ``--json`` stays one parseable object)."""
    print(message, file=sys.stderr, flush=True)


def median_seconds(function: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls of ``function``."""
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
