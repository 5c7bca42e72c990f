"""Executors on this machine: in this process, or in worker processes of our own.

:class:`InlineExecutor` runs everything at once in the calling process (what one ``--jobs 1``
match or one self-play process always did). :class:`ProcessExecutor` keeps up to ``workers``
processes (started with ``spawn``), each running one task at a time, and one more process per
actor. Each process is served through its own pipe, so a process that dies (killed, crashed)
fails only the work it held, with :class:`~imago.cluster.base.WorkerLost`, and is replaced
for the next task; the other processes' games go on.

Worker processes ignore Ctrl-C: the driver decides when to stop, and ends them on
:meth:`ProcessExecutor.close`.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import functools
import itertools
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from imago.cluster.base import Actor, ClusterError, Done, Executor, WorkerLost

T = TypeVar("T")
LOCAL = "local"


def _resolved(fn: Callable[[], T]) -> concurrent.futures.Future[T]:
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    try:
        future.set_result(fn())
    except Exception as error:
        future.set_exception(error)
    return future


# -- in this process -------------------------------------------------------------------------------
class _InlineActor(Actor):
    def __init__(self, cls: type, args: tuple[Any, ...]) -> None:
        self.node = LOCAL
        self._object: Any = cls(*args)

    def call(self, method: str, *args: Any) -> concurrent.futures.Future[Any]:
        return _resolved(lambda: getattr(self._object, method)(*args))

    def stop(self) -> None:
        close = getattr(self._object, "close", None)
        if callable(close):
            close()


class InlineExecutor(Executor):
    """Everything in the calling process, one thing at a time, answered at once."""

    kind = "inline"

    @property
    def slots(self) -> int:
        return 1

    def submit(self, fn: Callable[..., T], *args: Any) -> concurrent.futures.Future[Done[T]]:
        return _resolved(lambda: Done(fn(*args), LOCAL))

    def start_actor(
        self, cls: type, *args: Any, node: str | None = None, cpus: float = 1, gpus: float = 0
    ) -> Actor:
        return _InlineActor(cls, args)

    def describe(self) -> str:
        return "this process"

    def close(self) -> None:
        pass


# -- worker processes ------------------------------------------------------------------------------
def _serve(conn: multiprocessing.connection.Connection) -> None:
    """A worker process's loop: run calls from the pipe, answer each in order. The hosted
    actor's ``close`` runs however the loop ends: asked to stop, its caller gone, or
    terminated in the middle of a call (SIGTERM, which :meth:`_Process.stop` sends an actor
    that is still busy), so it can remove what it keeps on disk."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    hosted: list[Any] = []
    try:
        _answer_calls(conn, hosted)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        close = getattr(hosted[0], "close", None) if hosted else None
        if callable(close):
            close()


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    """SIGTERM as an exit that unwinds (``finally`` blocks run), with the shell's status."""
    raise SystemExit(128 + signum)


def _answer_calls(conn: multiprocessing.connection.Connection, hosted: list[Any]) -> None:
    """Run calls from the pipe until told to stop or the pipe closes; the actor that a "new"
    call makes is put in ``hosted``."""
    broken: BaseException | None = None
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind, ident = message[0], message[1]
        if kind == "stop":
            return
        try:
            if kind == "call":
                value = message[2](*message[3])
            elif kind == "new":
                hosted[:] = [message[2](*message[3])]
                value = None
            elif broken is not None:
                raise ClusterError(f"the actor failed to start: {broken}")
            else:
                value = getattr(hosted[0], message[2])(*message[3])
            reply: tuple[Any, ...] = (ident, True, value)
        except Exception as error:
            if kind == "new":
                broken = error
            reply = (ident, False, error)
        try:
            conn.send(reply)
        except OSError:  # the caller closed its end (it stopped, or ended): nobody waits
            return
        except Exception as error:  # an answer that does not pickle
            conn.send((ident, False, RuntimeError(f"{type(error).__name__}: {error}")))


class _Process:
    """One worker process and the futures of the calls it holds."""

    _ids = itertools.count()

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self._pending: dict[int, concurrent.futures.Future[Any]] = {}
        self._lock = threading.Lock()
        self.alive = True
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return int(self.process.pid or 0)

    @property
    def busy(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def send(self, kind: str, target: Any, args: tuple[Any, ...]) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        ident = next(self._ids)
        with self._lock:
            if not self.alive:
                future.set_exception(self._lost())
                return future
            self._pending[ident] = future
            try:
                self.conn.send((kind, ident, target, args))
            except (OSError, EOFError, BrokenPipeError):
                del self._pending[ident]
                future.set_exception(self._lost())
        return future

    def _read(self) -> None:
        while True:
            try:
                ident, ok, value = self.conn.recv()
            except (EOFError, OSError):
                break
            with self._lock:
                future = self._pending.pop(ident, None)
            if future is None:
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        self.process.join(timeout=5)
        with self._lock:
            self.alive = False
            pending, self._pending = self._pending, {}
        for future in pending.values():
            future.set_exception(self._lost())

    def _lost(self) -> WorkerLost:
        code = self.process.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return WorkerLost(f"worker process {self.pid} died ({how})")

    def stop(self, wait: float = 5.0) -> None:
        with self._lock:
            alive = self.alive
        if alive:
            with contextlib.suppress(OSError, EOFError, BrokenPipeError):
                self.conn.send(("stop", -1, None, ()))
        self.process.join(timeout=wait)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


class _ProcessActor(Actor):
    def __init__(self, cls: type, args: tuple[Any, ...]) -> None:
        self.node = LOCAL
        self.process = _Process()
        self.started = self.process.send("new", cls, args)

    def call(self, method: str, *args: Any) -> concurrent.futures.Future[Any]:
        return self.process.send("method", method, args)

    def stop(self) -> None:
        self.process.stop()


class ProcessExecutor(Executor):
    """Tasks on up to ``workers`` local processes, actors on processes of their own (see the
    module docstring)."""

    kind = "processes"

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("a process executor needs at least one worker")
        self.workers = workers
        self._idle: list[_Process] = []
        self._busy = 0
        self._queue: collections.deque[tuple[concurrent.futures.Future[Any], Any, Any]] = (
            collections.deque()
        )
        self._actors: list[_ProcessActor] = []
        self._every: list[_Process] = []
        self._lock = threading.RLock()
        self._closed = False

    @property
    def slots(self) -> int:
        return self.workers

    def submit(self, fn: Callable[..., T], *args: Any) -> concurrent.futures.Future[Done[T]]:
        future: concurrent.futures.Future[Done[T]] = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise ClusterError("the executor is closed")
            self._queue.append((future, fn, args))
        self._dispatch()
        return future

    def _dispatch(self) -> None:
        with self._lock:
            while self._queue and not self._closed:
                if self._idle:
                    process = self._idle.pop()
                    if not process.alive:
                        continue  # died while idle: nothing lost, another takes its place
                elif self._busy < self.workers:
                    process = _Process()
                    self._every.append(process)
                else:
                    return
                future, fn, args = self._queue.popleft()
                if not future.set_running_or_notify_cancel():
                    self._idle.append(process)
                    continue
                self._busy += 1
                inner = process.send("call", fn, args)
                inner.add_done_callback(functools.partial(self._finished, process, future))

    def _finished(
        self,
        process: _Process,
        future: concurrent.futures.Future[Any],
        inner: concurrent.futures.Future[Any],
    ) -> None:
        with self._lock:
            self._busy -= 1
            if process.alive and not self._closed:
                self._idle.append(process)
        error = inner.exception()
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(Done(inner.result(), LOCAL))
        self._dispatch()

    def start_actor(
        self, cls: type, *args: Any, node: str | None = None, cpus: float = 1, gpus: float = 0
    ) -> Actor:
        actor = _ProcessActor(cls, args)
        with self._lock:
            self._actors.append(actor)
        return actor

    def pids(self, busy: bool = False) -> list[int]:
        """The worker processes alive now (tasks' and actors'; ``busy``: only those running
        something)."""
        with self._lock:
            processes = self._every + [a.process for a in self._actors]
        return [
            p.pid for p in processes if p.alive and p.process.is_alive() and (p.busy or not busy)
        ]

    def describe(self) -> str:
        return f"{self.workers} local processes"

    def close(self) -> None:
        with self._lock:
            self._closed = True
            queued = list(self._queue)
            self._queue.clear()
            processes = self._every + [a.process for a in self._actors]
        for future, _, _ in queued:
            future.cancel()
        for process in processes:
            process.stop()


def cpu_count() -> int:
    """The CPUs this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)
