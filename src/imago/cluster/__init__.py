"""Where work runs: this process, local processes, or a Ray cluster.

One small execution layer for the work that outgrows one process first: the games of matches
and tournaments (tasks), self-play workers (actors fed models and answering with finished
games) and data-parallel training (ranks). The callers own the results: whatever runs where,
the process that asked writes the folders, so a match or a run moves between executors and
back.

>>> with open_executor(Execution(workers=2)) as executor:       # doctest: +SKIP
...     for item, answer, node in map_unordered(executor, play, games): ...

``Execution()`` (the default) runs in this process, as imago always did; ``workers=N`` on N
local processes; ``ray="auto"`` on a Ray instance started for the run, ``ray=ADDRESS`` on a
running cluster (Ray is an optional extra: ``pip install 'imago[ray]'``).
"""

from __future__ import annotations

from dataclasses import dataclass

from imago.cluster.base import (
    Actor,
    ClusterError,
    Done,
    Executor,
    Tally,
    WorkerLost,
    map_unordered,
)
from imago.cluster.local import InlineExecutor, ProcessExecutor, cpu_count
from imago.cluster.ranks import free_port, run_ranks
from imago.cluster.raycluster import here

__all__ = [
    "Actor",
    "ClusterError",
    "Done",
    "Execution",
    "Executor",
    "InlineExecutor",
    "ProcessExecutor",
    "Tally",
    "WorkerLost",
    "cpu_count",
    "free_port",
    "here",
    "map_unordered",
    "open_executor",
    "run_ranks",
]


@dataclass(frozen=True, slots=True)
class Execution:
    """Where work runs (see the module docstring): ``ray`` (``None``: this machine;
    ``"auto"``: a Ray instance started here; else a cluster's address) and ``workers``
    (processes, or tasks at once on Ray; 0: one per CPU of the machine or cluster)."""

    ray: str | None = None
    workers: int = 1

    def __post_init__(self) -> None:
        if self.workers < 0:
            raise ValueError("workers must be 0 (one per CPU) or more")
        if self.ray is not None and not self.ray.strip():
            raise ValueError("--ray wants auto or a cluster address (HOST:PORT)")

    @property
    def local(self) -> bool:
        return self.ray is None

    def describe(self) -> str:
        if self.ray is None:
            return "this process" if self.workers == 1 else f"{self.workers or 'all'} processes"
        return "a local Ray instance" if self.ray == "auto" else f"the Ray cluster at {self.ray}"


def open_executor(execution: Execution) -> Executor:
    """The executor for ``execution`` (close it, or use it in a ``with``). Ray is imported only
    here and only for ``ray``; :class:`ClusterError` when it is missing or unreachable."""
    if execution.ray is not None:
        from imago.cluster.raycluster import RayExecutor

        cpus = execution.workers if execution.ray == "auto" and execution.workers else None
        return RayExecutor(execution.ray, cpus=cpus, slots=execution.workers)
    workers = execution.workers or cpu_count()
    return InlineExecutor() if workers == 1 else ProcessExecutor(workers)
