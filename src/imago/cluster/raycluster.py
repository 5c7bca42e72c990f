"""The executor on a Ray cluster: tasks and actors anywhere on its nodes.

``--ray auto`` starts a Ray instance on this machine for this run alone (bound to 127.0.0.1,
no dashboard, shut down at the end); ``--ray ADDRESS`` joins a running cluster
(``ray start --head`` on one machine, ``ray start --address HEAD:6379`` on the others), which
it leaves running. Every node needs imago installed (the same version) and the external
programs the work uses; :meth:`RayExecutor.on_each_node` checks the latter before any work.

Ray is imported only here, and only when asked for; without it the error says how to install
it (``pip install 'imago[ray]'``). Ray's own retries are off: a task or actor lost with its
worker or node fails with :class:`~imago.cluster.base.WorkerLost`, as on local processes, so
the caller replays it and reports it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from imago.cluster.base import Actor, ClusterError, Done, Executor, WorkerLost

T = TypeVar("T")
INSTALL = "Ray is not installed: pip install 'imago[ray]' (or pip install ray)"


def import_ray() -> Any:
    """The ``ray`` module, or :class:`ClusterError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ClusterError(INSTALL) from None
    return ray


def node_label() -> str:
    """This worker's node, as progress displays show it: address and a short node id."""
    import ray

    context = ray.get_runtime_context()
    node = context.get_node_id()
    address = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
    return f"{address}/{node[:6]}"


def _label(node: dict[str, Any]) -> str:
    """A node of ``ray.nodes()`` labelled as :func:`node_label` labels it from inside."""
    return f"{node['NodeManagerAddress']}/{node['NodeID'][:6]}"


def here() -> str:
    """The label of the node this process runs on: :func:`node_label` inside a Ray worker
    (or a driver connected to Ray), ``local`` elsewhere."""
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        return node_label()
    return "local"


def _located(fn: Callable[..., Any], *args: Any) -> tuple[Any, str]:
    # arguments go to Ray one by one: shared values (object refs) among them are resolved
    return fn(*args), node_label()


class _Host:
    """The Ray actor holding one object of any class (see :meth:`RayExecutor.start_actor`)."""

    def __init__(self, cls: type, args: tuple[Any, ...]) -> None:
        self.hosted = cls(*args)

    def call(self, method: str, *args: Any) -> Any:
        return getattr(self.hosted, method)(*args)

    def node(self) -> str:
        return node_label()

    def close(self) -> None:
        """Let the hosted object clean up (its ``close``, where it has one)."""
        close = getattr(self.hosted, "close", None)
        if callable(close):
            close()


def _translate(ray: Any, error: BaseException) -> BaseException:
    """Ray's exception as the layer's: a dead worker or node is :class:`WorkerLost`, the
    task's own exception is itself."""
    exceptions = ray.exceptions
    lost = (
        exceptions.RayActorError,
        exceptions.WorkerCrashedError,
        exceptions.NodeDiedError,
        exceptions.ObjectLostError,
        exceptions.LocalRayletDiedError,
    )
    if isinstance(error, lost):
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return WorkerLost(f"{type(error).__name__}: {first}")
    if isinstance(error, exceptions.RayTaskError):
        cause = getattr(error, "cause", None)
        if isinstance(cause, BaseException):
            return cause
    return error


def _relay(ray: Any, ref: Any) -> concurrent.futures.Future[Any]:
    """A future of ``ref``'s value with the layer's exceptions."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    inner = ref.future()

    def done(inner: concurrent.futures.Future[Any]) -> None:
        if future.cancelled():
            return
        try:
            error = inner.exception()
        except concurrent.futures.CancelledError as cancelled:
            error = cancelled
        if error is not None:
            future.set_exception(_translate(ray, error))
        else:
            future.set_result(inner.result())

    future.set_running_or_notify_cancel()
    inner.add_done_callback(done)
    return future


class _RayActor(Actor):
    def __init__(self, ray: Any, handle: Any) -> None:
        self._ray = ray
        self.handle = handle
        self.node = "?"
        self.located = _relay(ray, handle.node.remote())
        self.located.add_done_callback(self._set_node)

    def _set_node(self, future: concurrent.futures.Future[Any]) -> None:
        if future.exception() is None:
            self.node = str(future.result())

    def call(self, method: str, *args: Any) -> concurrent.futures.Future[Any]:
        return _relay(self._ray, self.handle.call.remote(method, *args))

    def stop(self, wait: float = 5.0) -> None:
        """Close the hosted object (a self-play worker removes its temporary folder), waiting
        at most ``wait`` seconds, then end the actor, as local actors are stopped."""
        with contextlib.suppress(Exception):
            self._ray.get(self.handle.close.remote(), timeout=wait)
        with contextlib.suppress(Exception):
            self._ray.kill(self.handle, no_restart=True)


def _probe(address: str, seconds: float = 10.0) -> None:
    """Fail at once, and clearly, when nothing answers at ``address`` (``ray.init`` would wait
    for minutes)."""
    import socket

    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        raise ClusterError(f"--ray wants auto or HOST:PORT, not {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=seconds):
            pass
    except OSError as error:
        raise ClusterError(
            f"cannot reach the Ray cluster at {address}: {error.strerror or error} (is "
            f"`ray start --head` running there? the address is HOST:PORT, port 6379 by default)"
        ) from None


class RayExecutor(Executor):
    """Tasks and actors on a Ray cluster (see the module docstring). ``address``: ``auto``
    starts a private local instance with ``cpus`` CPUs (default: this machine's); anything
    else is the address of a running cluster. ``slots``: tasks at once (default: the
    cluster's CPUs)."""

    kind = "ray"

    def __init__(self, address: str, *, cpus: int | None = None, slots: int = 0) -> None:
        ray = import_ray()
        self._ray = ray
        self.address = address
        self._owned = False
        if not ray.is_initialized():
            self._connect(address, cpus)
        self._slots = slots
        self._refs: dict[concurrent.futures.Future[Any], Any] = {}
        self._lock = threading.Lock()
        self._remote = ray.remote(_located)
        # spread over the nodes (Ray's default packs the driver's node first, and a node
        # slow to start its workers could be left without games)
        self._task = self._remote.options(num_cpus=1, max_retries=0, scheduling_strategy="SPREAD")
        self._host_class = ray.remote(_Host)
        self._host = self._host_class.options(num_cpus=1, max_restarts=0, max_task_retries=0)
        self._actors: list[_RayActor] = []

    def _connect(self, address: str, cpus: int | None) -> None:
        ray = self._ray
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if address != "auto":
            _probe(address)
        try:
            if address == "auto":
                # a private instance: every daemon on the loopback address only
                os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
                ray.init(address="local", num_cpus=cpus, **options)
                self._owned = True
            else:
                ray.init(address=address, **options)
        except (ConnectionError, RuntimeError, ValueError, TimeoutError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            raise ClusterError(f"cannot reach the Ray cluster at {address}: {first}") from None

    @property
    def slots(self) -> int:
        if self._slots:
            return self._slots
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def submit(self, fn: Callable[..., T], *args: Any) -> concurrent.futures.Future[Done[T]]:
        ref = self._task.remote(fn, *args)
        inner = _relay(self._ray, ref)
        future: concurrent.futures.Future[Done[T]] = concurrent.futures.Future()
        future.set_running_or_notify_cancel()

        def done(inner: concurrent.futures.Future[Any]) -> None:
            with self._lock:
                self._refs.pop(future, None)
            error = inner.exception()
            if error is not None:
                future.set_exception(error)
            else:
                value, node = inner.result()
                future.set_result(Done(value, node))

        with self._lock:
            self._refs[future] = ref
        inner.add_done_callback(done)
        return future

    def cancel(self, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            ref = self._refs.pop(future, None)
        if ref is not None:
            with contextlib.suppress(Exception):
                self._ray.cancel(ref, force=True)

    def start_actor(
        self, cls: type, *args: Any, node: str | None = None, cpus: float = 1, gpus: float = 0
    ) -> Actor:
        host = self._host
        if node is not None or cpus != 1 or gpus:
            options: dict[str, Any] = {"num_cpus": cpus, "max_restarts": 0, "max_task_retries": 0}
            found = self._node(node) if node is not None else None
            if found is not None:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

                options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(
                    found["NodeID"], soft=False
                )
            if gpus and (found or {}).get("Resources", {}).get("GPU", 0) >= gpus:
                options["num_gpus"] = gpus
            host = self._host_class.options(**options)
        actor = _RayActor(self._ray, host.remote(cls, args))
        self._actors.append(actor)
        return actor

    def share(self, value: Any) -> Any:
        return self._ray.put(value)

    def _alive_nodes(self) -> list[dict[str, Any]]:
        return [
            n
            for n in self._ray.nodes()
            if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0
        ]

    def nodes(self) -> list[str]:
        return [_label(n) for n in self._alive_nodes()]

    def _node(self, label: str) -> dict[str, Any]:
        for found in self._alive_nodes():
            if _label(found) == label:
                return found
        raise WorkerLost(f"node {label} is not in the cluster (any more)")

    def on_each_node(self, fn: Callable[..., T], *args: Any) -> dict[str, T]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        refs = {}
        for node in self._alive_nodes():
            strategy = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
            task = self._remote.options(num_cpus=1, max_retries=0, scheduling_strategy=strategy)
            refs[_label(node)] = task.remote(fn, *args)
        answers = {}
        for label, ref in refs.items():
            try:
                answers[label] = self._ray.get(ref)[0]
            except Exception as error:
                raise _translate(self._ray, error) from None
        return answers

    def describe(self) -> str:
        where = "a local Ray instance" if self._owned else f"the Ray cluster at {self.address}"
        return f"{where} ({len(self.nodes())} nodes, {self.slots} CPUs)"

    def close(self) -> None:
        for actor in self._actors:
            actor.stop()
        self._actors = []
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
