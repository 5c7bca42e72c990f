"""The shared inference server: the answers of a network of one's own, batches of several
workers in one network call, networks kept by generation, and clear failures."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from imago.agents.mcts import LeafBatch
from imago.nn.evaluator import NetworkEvaluator
from imago.nn.models import ModelError, parse_arch
from imago.nn.server import InferenceServer, RemoteEvaluator, ServerConfig, ServerLost
from imago.nn.store import ModelSpec, save_model

SIZE = 7


def _model(tmp_path: Path, name: str, seed: int) -> tuple[Path, ModelSpec]:
    import torch

    torch.manual_seed(seed)
    spec = ModelSpec("go", SIZE, "legal4", parse_arch("b1c8"))
    path = tmp_path / f"{name}.pt"
    save_model(path, spec.build(), spec)
    return path, spec


def _files(path: Path) -> dict[str, bytes]:
    return {".pt": path.read_bytes()}


def _leaves(seed: int, count: int = 4) -> LeafBatch:
    """``count`` leaves of random stones, each with a few legal moves and pass."""
    rng = np.random.default_rng(seed)
    leaves = LeafBatch("go", SIZE, 1, count, 8)
    points = SIZE * SIZE
    for b in range(count):
        leaves.boards[b, 0] = rng.integers(0, 3, points)
        leaves.to_play[b] = 1 + b % 2
        leaves.legal[b, rng.choice(points, 5, replace=False)] = True
        leaves.legal[b, points] = True
    return leaves


@pytest.fixture
def server() -> Iterator[InferenceServer]:
    made = InferenceServer(ServerConfig(device="cpu"))
    yield made
    made.close()


def test_answers_what_the_network_of_ones_own_answers(
    tmp_path: Path, server: InferenceServer
) -> None:
    path, spec = _model(tmp_path, "net", 1)
    assert server.set_model(0, _files(path)) == (spec, "cpu")
    leaves = _leaves(0)
    own = NetworkEvaluator.load(path, backend="auto", device="cpu").evaluate(leaves, 4)
    remote = RemoteEvaluator(server.address(), spec, generation=0)
    shared = remote.evaluate(leaves, 4)
    assert shared.priors is not None and own.priors is not None
    assert shared.priors == pytest.approx(own.priors, abs=1e-6)
    assert shared.values == pytest.approx(own.values, abs=1e-6)
    assert not np.allclose(shared.values, 0.5)  # a value head answered, not a default
    assert remote.calls == 1 and remote.positions == 4
    remote.close()


def test_the_batches_of_every_waiting_worker_go_through_the_network_at_once(
    tmp_path: Path,
) -> None:
    """Two clients, each with one batch: one network call of both, without waiting out a
    long ``wait_ms`` (the server runs once everyone connected is waiting)."""
    path, spec = _model(tmp_path, "net", 1)
    server = InferenceServer(ServerConfig(device="cpu", wait_ms=5000))
    try:
        server.set_model(0, _files(path))
        clients = [RemoteEvaluator(server.address(), spec, 0) for _ in range(2)]
        while server.stats()["clients"] < 2:
            time.sleep(0.01)
        answers: dict[int, object] = {}
        started = time.monotonic()
        threads = [
            threading.Thread(
                target=lambda i=i: answers.update({i: clients[i].evaluate(_leaves(i, 3), 3)})
            )
            for i in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert time.monotonic() - started < 2.5
        stats = server.stats()
        assert (stats["calls"], stats["requests"], stats["positions"]) == (1, 2, 6)
        own = NetworkEvaluator.load(path, device="cpu")
        for i in range(2):
            alone = own.evaluate(_leaves(i, 3), 3)
            assert answers[i].values == pytest.approx(alone.values, abs=1e-6)  # type: ignore[attr-defined]
        for client in clients:
            client.close()
    finally:
        server.close()


def test_a_lone_batch_waits_no_longer_than_wait_ms_for_an_idle_worker(tmp_path: Path) -> None:
    path, spec = _model(tmp_path, "net", 1)
    server = InferenceServer(ServerConfig(device="cpu", wait_ms=50))
    try:
        server.set_model(0, _files(path))
        busy, idle = (RemoteEvaluator(server.address(), spec, 0) for _ in range(2))
        while server.stats()["clients"] < 2:
            time.sleep(0.01)
        started = time.monotonic()
        busy.evaluate(_leaves(0), 4)
        assert 0.04 < time.monotonic() - started < 2.0
        assert server.stats()["calls"] == 1
        idle.close()
        busy.close()
    finally:
        server.close()


def test_networks_are_kept_by_generation_the_newest_two(
    tmp_path: Path, server: InferenceServer
) -> None:
    paths = [_model(tmp_path, f"g{g}", seed=10 + g) for g in range(3)]
    server.set_model(0, _files(paths[0][0]))
    server.set_model(1, _files(paths[1][0]))
    leaves = _leaves(3)
    for generation in (0, 1):
        path, spec = paths[generation]
        own = NetworkEvaluator.load(path, device="cpu").evaluate(leaves, 4).values
        remote = RemoteEvaluator(server.address(), spec, generation)
        assert remote.evaluate(leaves, 4).values == pytest.approx(own, abs=1e-6)
        remote.close()
    server.set_model(2, _files(paths[2][0]))
    stale = RemoteEvaluator(server.address(), paths[0][1], 0)
    with pytest.raises(ModelError, match="no network of generation 0"):
        stale.evaluate(leaves, 4)
    stale.close()


def test_a_closed_server_or_a_wrong_key_is_a_lost_server(
    tmp_path: Path, server: InferenceServer
) -> None:
    path, spec = _model(tmp_path, "net", 1)
    server.set_model(0, _files(path))
    socket, _ = server.address()
    with pytest.raises(ServerLost, match="cannot reach"):
        RemoteEvaluator((socket, b"not the key"), spec, 0)
    remote = RemoteEvaluator(server.address(), spec, 0)
    remote.evaluate(_leaves(0), 4)
    server.close()
    with pytest.raises(ServerLost):
        remote.evaluate(_leaves(0), 4)
    with pytest.raises(ServerLost, match="cannot reach"):
        RemoteEvaluator(server.address(), spec, 0)


def test_closing_does_not_wait_for_an_accepting_thread_that_has_stopped(
    tmp_path: Path,
) -> None:
    """close() wakes the thread accepting clients by connecting to the socket; when nobody
    accepts there any more (that thread already gone), it must still return at once. The
    socket is swapped for one nobody accepts on: the listen queue takes the connection and
    never answers, as when the thread stopped between two accepts."""
    from multiprocessing.connection import Listener

    server = InferenceServer(ServerConfig(device="cpu"))
    silent = Listener(str(tmp_path / "silent"), family="AF_UNIX", authkey=b"k")
    server._socket = str(tmp_path / "silent")
    closing = threading.Thread(target=server.close, daemon=True)
    closing.start()
    closing.join(10)
    silent.close()
    assert not closing.is_alive(), "close() hung on a socket nobody accepts on"
    assert not server.ping()


def test_a_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="max_batch"):
        ServerConfig(max_batch=0)
