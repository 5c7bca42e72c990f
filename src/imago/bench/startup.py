"""Start-up time of the command line with a warm numba cache."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from imago.bench import BenchConfig, Figure, benchmark


def _median_run_seconds(args: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@benchmark("startup.version", "`imago --version` in a new process (median wall time)")
def version(config: BenchConfig) -> list[Figure]:
    args = ["-m", "imago", "--version"]
    _median_run_seconds(args, 1)  # warm the file cache
    seconds = _median_run_seconds(args, 1 if config.quick else config.repeats)
    return [Figure("startup.version_s", seconds, "s")]
