"""Ranks of a data-parallel job on this machine: rank 0 in this process, the others in
worker processes, all told where to meet.

``run_ranks(fn, 2, *args)`` calls ``fn(rank, world, address, *args)`` in each rank, with
``address`` a ``tcp://127.0.0.1:PORT`` every rank can rendezvous at (PyTorch's
``init_process_group(init_method=address, rank=rank, world_size=world)``), and returns rank
0's answer once every rank has finished. Rank 0 runs here so that it can report progress and
see a stop flag; a rank whose process dies fails the job with
:class:`~imago.cluster.base.WorkerLost` (the other ranks give up at their collective timeout).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any, TypeVar

from imago.cluster.base import WorkerLost

T = TypeVar("T")


def free_port() -> int:
    """A TCP port free on the loopback address now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_ranks(
    fn: Callable[..., T], world: int, *args: Any, first: dict[str, Any] | None = None
) -> T:
    """Run ``fn(rank, world, address, *args)`` for ranks ``0 .. world - 1`` (see the module
    docstring); rank 0's answer. ``first``: keyword arguments for rank 0 alone (callbacks
    that stay in this process: progress, a stop flag)."""
    first = first or {}
    from imago.cluster.local import _Process

    if world < 1:
        raise ValueError("a data-parallel job needs at least one rank")
    address = f"tcp://127.0.0.1:{free_port()}"
    if world == 1:
        return fn(0, 1, address, *args, **first)
    processes = [_Process() for _ in range(1, world)]
    try:
        others = [
            p.send("call", fn, (rank, world, address, *args))
            for rank, p in enumerate(processes, start=1)
        ]
        answer = fn(0, world, address, *args, **first)
        for rank, future in enumerate(others, start=1):
            try:
                future.result()
            except WorkerLost as error:
                raise WorkerLost(f"rank {rank} of {world}: {error}") from None
        return answer
    finally:
        for process in processes:
            process.stop()
