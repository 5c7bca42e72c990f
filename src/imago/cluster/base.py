"""The execution layer's contract: executors run tasks and host actors, and say where.

An :class:`Executor` runs *tasks* (a picklable function and its arguments; the answer comes
back as a :class:`concurrent.futures.Future` of a :class:`Done`, which also says on which node
it ran) and hosts *actors* (an object built in a worker from a class and arguments, whose
methods are then called in order: :class:`Actor`). Three executors share this contract:
in this process (:class:`imago.cluster.local.InlineExecutor`), in local processes
(:class:`imago.cluster.local.ProcessExecutor`) and on a Ray cluster
(:class:`imago.cluster.raycluster.RayExecutor`).

Faults are part of the contract: a task or actor call whose worker died (a killed process,
a lost node) fails with :class:`WorkerLost`, the same exception on every executor, so callers
decide once what to replay; an exception raised by the task itself comes back as it was
raised. :func:`map_unordered` runs many tasks at once and replays lost ones.
"""

from __future__ import annotations

import concurrent.futures
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from imago.core.errors import ImagoError

T = TypeVar("T")
R = TypeVar("R")


class ClusterError(ImagoError, RuntimeError):
    """The work cannot run as asked: Ray missing, a cluster out of reach, a node lacking a
    program, or a task lost more often than it may be replayed."""


class WorkerLost(ClusterError):
    """The process (or node) running a task or an actor died; the work it had under way is
    lost, what it had returned is not."""


@dataclass(frozen=True, slots=True)
class Done(Generic[T]):
    """A task's answer and the node that computed it (for per-node progress)."""

    value: T
    node: str


class Actor(ABC):
    """A worker-held object; :meth:`call` runs one of its methods there, in call order."""

    node: str = "local"

    @abstractmethod
    def call(self, method: str, *args: Any) -> concurrent.futures.Future[Any]:
        """Run ``method(*args)`` on the actor; the future fails with :class:`WorkerLost` when
        the actor's worker died."""

    @abstractmethod
    def stop(self) -> None:
        """End the actor (its worker process ends with it)."""


class Executor(ABC):
    """Where tasks and actors run (see the module docstring). Close it when done (it is a
    context manager): it ends the processes it started."""

    kind: str = "executor"

    @property
    @abstractmethod
    def slots(self) -> int:
        """How many tasks run at once."""

    @abstractmethod
    def submit(self, fn: Callable[..., T], *args: Any) -> concurrent.futures.Future[Done[T]]:
        """Run ``fn(*args)`` somewhere; ``fn`` must be importable by module and name."""

    @abstractmethod
    def start_actor(
        self, cls: type, *args: Any, node: str | None = None, cpus: float = 1, gpus: float = 0
    ) -> Actor:
        """Build ``cls(*args)`` in a worker of its own: on ``node`` (one of :meth:`nodes`;
        default: wherever there is room), holding ``cpus`` CPUs and ``gpus`` GPUs of the
        cluster's accounting (Ray's; a local process sees the whole machine)."""

    def share(self, value: Any) -> Any:
        """``value`` made cheap to pass to many tasks and actors (Ray's object store); pass
        what this returns instead of ``value``."""
        return value

    def nodes(self) -> list[str]:
        """The labels of the nodes that take work."""
        return ["local"]

    def on_each_node(self, fn: Callable[..., T], *args: Any) -> dict[str, T]:
        """``fn(*args)`` once on every node (to check that each has what the work needs)."""
        return {"local": self.submit(fn, *args).result().value}

    def cancel(self, future: concurrent.futures.Future[Any]) -> None:
        """Give up a task: never started, or stopped where the executor can."""
        future.cancel()

    def describe(self) -> str:
        """One line: what this executor is (for progress displays and reports)."""
        return self.kind

    @abstractmethod
    def close(self) -> None:
        """End every process this executor started."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Lost = Callable[[Any, WorkerLost, int], None]
"""``(item, error, attempt)``: a task was lost with its worker and is about to be replayed."""


def map_unordered(
    executor: Executor,
    fn: Callable[..., R],
    items: Iterable[T],
    *args: Any,
    retries: int = 2,
    on_lost: Lost | None = None,
    halt: threading.Event | None = None,
    window: int | None = None,
    tally: Tally | None = None,
) -> Iterator[tuple[T, R, str]]:
    """``fn(item, *args)`` for every item, at most ``window`` (default: twice the executor's
    slots, one for an executor of one slot) under way at once; yields ``(item, answer,
    node)`` as tasks finish.

    A task lost with its worker is replayed (``on_lost`` is told), up to ``retries`` times;
    then :class:`ClusterError`. Once ``halt`` is set no more tasks start, and the ones under
    way are still waited for and yielded. Leaving the loop early cancels what is left.
    ``tally`` counts the finished tasks by node, and the lost ones.
    """
    todo = iter(items)
    slots = executor.slots
    limit = max(1, window if window is not None else (slots if slots == 1 else 2 * slots))
    pending: dict[concurrent.futures.Future[Done[R]], tuple[T, int]] = {}

    def fill() -> None:
        while len(pending) < limit and not (halt is not None and halt.is_set()):
            item = next(todo, _END)
            if item is _END:
                return
            pending[executor.submit(fn, item, *args)] = (item, 0)  # type: ignore[arg-type]

    try:
        fill()
        while pending:
            finished, _ = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in finished:
                item, attempt = pending.pop(future)
                try:
                    done = future.result()
                except WorkerLost as error:
                    if attempt >= retries:
                        raise ClusterError(
                            f"a task was lost {attempt + 1} times with its worker ({error}); "
                            "giving up"
                        ) from None
                    if tally is not None:
                        tally.add_lost()
                    if on_lost is not None:
                        on_lost(item, error, attempt + 1)
                    pending[executor.submit(fn, item, *args)] = (item, attempt + 1)
                    continue
                if tally is not None:
                    tally.add(done.node)
                yield item, done.value, done.node
            fill()
    finally:
        for future in pending:
            executor.cancel(future)


_END: Any = object()


class Tally:
    """Work finished per node and how fast, for a progress line covering the whole cluster
    (thread-safe: executors answer on their own threads)."""

    def __init__(self) -> None:
        import collections
        import time

        self._clock = time.monotonic
        self.started = self._clock()
        self.by_node: collections.Counter[str] = collections.Counter()
        self.lost = 0
        self._lock = threading.Lock()

    def add(self, node: str, count: int = 1) -> None:
        with self._lock:
            self.by_node[node] += count

    def add_lost(self) -> None:
        with self._lock:
            self.lost += 1

    @property
    def done(self) -> int:
        return sum(self.by_node.values())

    def rate(self) -> float:
        """Work finished per second since the tally began."""
        return self.done / max(self._clock() - self.started, 1e-9)

    def describe(self, unit: str = "games") -> str:
        """``1.9 games/s; 127.0.0.1/1a2b3c 5, 127.0.0.1/4d5e6f 4; 1 lost and replayed``."""
        with self._lock:
            nodes = ", ".join(f"{node} {n}" for node, n in sorted(self.by_node.items()))
            lost = f"; {self.lost} lost and replayed" if self.lost else ""
        return f"{self.rate():.2f} {unit}/s; {nodes or 'no node yet'}{lost}"
