"""Network speed on this machine: training and inference positions per second per model size.

The measuring code lives in :mod:`imago.nn.throughput` (only :mod:`imago.nn` imports torch).
"""

from __future__ import annotations

from imago.bench import BenchConfig, Figure, benchmark


@benchmark("nn.throughput", "training and inference positions/s per model size (CPU)")
def throughput(config: BenchConfig) -> list[Figure]:
    from imago.nn.throughput import measure_throughput

    return [Figure(*m) for m in measure_throughput(config.quick)]
