"""One network shared by many self-play workers: an inference server that batches their leaves.

Self-play on a CPU gives each worker its own copy of the network (:class:`NetworkEvaluator`,
ONNX Runtime on one core). A GPU wants the opposite: one copy, fed batches as large as the
workers together can make. An :class:`InferenceServer` holds the network (on ``cuda`` when
there is one) and serves the workers of one machine (one node of a cluster) over local
connections; each worker's search sends its whole leaf batch at once through a
:class:`RemoteEvaluator`, and the server runs the leaves of every worker waiting at that
moment through the network in one call.

* Batching: the server runs as soon as every connected worker has a batch waiting (each
  worker has at most one), or ``wait_ms`` after the first one came, or when ``max_batch``
  positions wait, whichever is first. Nothing waits for a worker that is busy searching.
* Features are encoded by the workers (on their CPUs); the server only stacks and runs them.
* Networks are kept by generation (the newest two), so a worker still on the previous network
  when a new one is promoted is answered by the network it asked for.
* Connections are Unix sockets with a random key (no port opened, no Nagle delay): a worker
  on another node uses its own node's server.
* A server that dies fails its workers' calls with :class:`ServerLost` (a
  :class:`~imago.cluster.base.WorkerLost`), so the self-play pool replaces them as it replaces
  any lost worker, and starts the server again.

>>> server = InferenceServer(ServerConfig(device="cuda"))            # doctest: +SKIP
>>> spec, device = server.set_model(0, {".pt": Path("model.pt").read_bytes()})  # doctest: +SKIP
>>> evaluator = RemoteEvaluator(server.address(), spec, generation=0)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
import queue
import secrets
import shutil
import socket
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.agents.mcts.evaluators import Evaluation, LeafBatch
from imago.cluster.base import WorkerLost
from imago.nn.evaluator import NetworkEvaluator, encode_leaves
from imago.nn.models import ModelError
from imago.nn.store import ModelSpec

Address = tuple[str, bytes]
"""Where a server listens: its Unix socket's path and the key a client must show."""

KEPT_GENERATIONS = 2


class ServerLost(WorkerLost):
    """The inference server stopped answering (its process or node died)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Where and how the shared network runs: ``device`` (``auto``: CUDA when present, else
    the CPU), ``threads`` (ONNX Runtime's threads on a CPU), ``max_batch``
    (positions in one call at most) and ``wait_ms`` (how long the first waiting batch waits
    for the other workers')."""

    device: str = "auto"
    threads: int = 1
    max_batch: int = 8192
    wait_ms: float = 2.0

    def __post_init__(self) -> None:
        if self.max_batch < 1 or self.wait_ms < 0 or self.threads < 0:
            raise ValueError("max_batch must be >= 1, wait_ms and threads >= 0")


@dataclass(slots=True)
class _Request:
    generation: int
    planes: npt.NDArray[np.float32]
    legal: npt.NDArray[np.bool_]
    done: threading.Event
    answer: tuple[Any, Any] | None = None
    error: str | None = None


class InferenceServer:
    """The network of each generation sent to it, serving :class:`RemoteEvaluator` clients
    (see the module docstring). Made wherever the self-play pool puts it (an actor of
    :mod:`imago.cluster`); ``close`` ends it."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        self._key = secrets.token_bytes(16)
        self._folder = Path(tempfile.mkdtemp(prefix="imago-server-"))
        self._socket = str(self._folder / "socket")
        self._listener = Listener(self._socket, family="AF_UNIX", authkey=self._key)
        self._networks: dict[int, NetworkEvaluator] = {}
        self._queue: queue.SimpleQueue[_Request | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._clients = 0
        self._open: set[Connection] = set()
        self._closed = threading.Event()
        self.calls = 0
        self.positions = 0
        self.requests = 0
        self.network_seconds = 0.0
        for target in (self._accept, self._batch):
            threading.Thread(target=target, daemon=True).start()

    # -- the driver's side -------------------------------------------------------------------------
    def address(self) -> Address:
        return self._socket, self._key

    def set_model(self, generation: int, files: dict[str, bytes]) -> tuple[ModelSpec, str]:
        """Serve ``generation``'s network (its files by suffix, ``.pt`` and ``.onnx``) from
        now on; the previous one stays for the workers still asking for it. Answers the
        network's spec (what its clients encode) and where it runs (``cuda``, ``cpu``)."""
        held = self._networks.get(generation)
        if held is not None:
            return held.spec, held.network.device.type
        path = self._folder / f"{generation:06d}.pt"
        for suffix, data in sorted(files.items()):
            path.with_suffix(suffix).write_bytes(data)
        from imago.nn.inference import resolve_device

        device = resolve_device(self.config.device)
        backend = "torch" if device.type != "cpu" else "auto"  # ONNX Runtime on a CPU
        evaluator = NetworkEvaluator.load(
            path, backend=backend, device=str(device), threads=self.config.threads
        )
        with self._lock:
            self._networks[generation] = evaluator
            for old in sorted(self._networks)[:-KEPT_GENERATIONS]:
                del self._networks[old]
        return evaluator.spec, device.type

    def ping(self) -> bool:
        return not self._closed.is_set()

    def stats(self) -> dict[str, float]:
        """Network calls, positions, requests (worker batches), the seconds spent in the
        network so far, the clients connected now and the server's process id."""
        with self._lock:
            return {
                "pid": os.getpid(),
                "calls": self.calls,
                "positions": self.positions,
                "requests": self.requests,
                "network_seconds": self.network_seconds,
                "clients": self._clients,
            }

    def close(self) -> None:
        """Stop serving: every client's next call fails with :class:`ServerLost`."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._queue.put(None)
        # Wake the accepting thread with a bare connection: it fails the key exchange and sees
        # the server closed. (A real client here would wait forever for a challenge if that
        # thread had already stopped: the connection would sit in the listen queue unanswered.)
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as wake:
            wake.settimeout(1.0)
            wake.connect(self._socket)
        with contextlib.suppress(OSError):
            self._listener.close()
        with self._lock:
            open_ = list(self._open)
        for conn in open_:  # wake the threads reading from clients
            with contextlib.suppress(OSError):
                socket.socket(fileno=os.dup(conn.fileno())).shutdown(socket.SHUT_RDWR)
        shutil.rmtree(self._folder, ignore_errors=True)

    # -- serving -----------------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn = self._listener.accept()
            except (OSError, EOFError, AuthenticationError):
                if self._closed.is_set():
                    return
                continue  # a client that failed the key
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: Connection) -> None:
        """One client: each message a batch, each answer its evaluation (or why not)."""
        with self._lock:
            self._clients += 1
            self._open.add(conn)
        try:
            while True:
                try:
                    generation, planes, legal = conn.recv()
                except (EOFError, OSError, ValueError, TypeError):
                    return  # gone, or not one of our clients: drop the connection
                if self._closed.is_set():
                    return
                request = _Request(generation, planes, legal, threading.Event())
                self._queue.put(request)
                while not request.done.wait(0.1):
                    if self._closed.is_set():
                        return
                reply: tuple[Any, ...] = (False, request.error)
                if request.error is None and request.answer is not None:
                    reply = (True, *request.answer)
                try:
                    conn.send(reply)
                except (OSError, EOFError):
                    return
        finally:
            with self._lock:
                self._clients -= 1
                self._open.discard(conn)
            conn.close()

    def _batch(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            waiting = [first]
            count = len(first.planes)
            deadline = time.monotonic() + self.config.wait_ms / 1000
            while count < self.config.max_batch:
                with self._lock:
                    everyone = len(waiting) >= self._clients
                left = 0.0 if everyone else deadline - time.monotonic()
                try:
                    request = self._queue.get(left > 0, max(left, 0.0))
                except queue.Empty:
                    break
                if request is None:
                    self._queue.put(None)
                    break
                waiting.append(request)
                count += len(request.planes)
            self._run(waiting)

    def _run(self, waiting: list[_Request]) -> None:
        by_generation: dict[int, list[_Request]] = {}
        for request in waiting:
            by_generation.setdefault(request.generation, []).append(request)
        for generation, requests in by_generation.items():
            try:
                self._answer(generation, requests)
            except Exception as error:  # answered to the workers, who raise it
                for request in requests:
                    request.error = f"{type(error).__name__}: {error}"
            for request in requests:
                request.done.set()

    def _answer(self, generation: int, requests: list[_Request]) -> None:
        with self._lock:
            network = self._networks.get(generation)
        if network is None:
            raise ModelError(f"the inference server has no network of generation {generation}")
        planes = np.concatenate([r.planes for r in requests])
        legal = np.concatenate([r.legal for r in requests])
        started = time.perf_counter()
        probs, values = network.run(planes, legal)
        seconds = time.perf_counter() - started
        at = 0
        for request in requests:
            n = len(request.planes)
            request.answer = (probs[at : at + n], values[at : at + n])
            at += n
        with self._lock:
            self.calls += 1
            self.positions += len(planes)
            self.requests += len(requests)
            self.network_seconds += seconds


class RemoteEvaluator:
    """A search's evaluator whose network runs in an :class:`InferenceServer`: encodes the
    leaves here and sends them in one message. ``spec``: the served network's (as
    :meth:`InferenceServer.set_model` answers it); ``generation``: which network to ask;
    ``score_weight``: the share of margin in its values (see
    :class:`imago.agents.mcts.evaluators.Evaluator`)."""

    needs_states = False

    def __init__(
        self, address: Address, spec: ModelSpec, generation: int, score_weight: float = 0.0
    ) -> None:
        self.spec = spec
        self.history = spec.feature_set.history
        self.generation = generation
        self.score_weight = score_weight
        self.calls = 0
        self.positions = 0
        try:
            self._conn = Client(address[0], family="AF_UNIX", authkey=address[1])
        except (OSError, EOFError, AuthenticationError) as error:
            where = address[0]
            raise ServerLost(f"cannot reach the inference server at {where}: {error}") from None

    def check(self, game: str, size: int) -> None:
        self.spec.check(game, size)

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        planes = encode_leaves(self.spec, leaves, count)
        legal = np.ascontiguousarray(leaves.legal[:count])
        try:
            self._conn.send((self.generation, planes, legal))
            reply = self._conn.recv()
        except (OSError, EOFError) as error:
            raise ServerLost(f"the inference server stopped answering ({error})") from None
        if not reply[0]:
            raise ModelError(f"the inference server could not evaluate: {reply[1]}")
        _, probs, values = reply
        self.calls += 1
        self.positions += count
        return Evaluation(values, probs)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._conn.close()
