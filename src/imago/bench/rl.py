"""Self-play speed against its ceiling: the network's own batched inference throughput.

``imago bench rl.selfplay`` measures, in one run and for each game, with the same network
and the same batch (the number of games stepped together):

* ``network_pos_s``: positions per CPU second through the evaluator alone (features, ONNX
  Runtime with one thread, softmax over the legal moves), on positions of real self-play;
* ``selfplay_pos_s``: leaf evaluations per CPU second of self-play (the search's numba
  kernels, the games, the network and the Python between them, all in the measuring thread):
  the positions played per second times the simulations per move;
* ``ratio``: the second over the first (the goal: at least 0.7), and ``search_share``: the
  part of self-play's time spent outside the network.

CPU time of the one thread doing everything (``time.thread_time``), so other load on the
machine does not count.
"""

from __future__ import annotations

import time
from typing import Any

from imago.bench import BenchConfig, Figure, benchmark

CASES = (
    # label, game, size, network (shipped, or a random size), games together, simulations
    ("othello8", "othello", 8, "shipped", 128, 64),
    ("go9", "go", 9, "shipped", 128, 64),
    ("othello6", "othello", 6, "b4c32", 128, 32),
)


class _CpuDeadline:
    """Set once this thread has used ``seconds`` of CPU time from now."""

    def __init__(self, seconds: float) -> None:
        self.at = time.thread_time() + seconds

    def is_set(self) -> bool:
        return time.thread_time() >= self.at


class _Timed:
    """An evaluator that counts the CPU time spent inside it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.history = inner.history
        self.needs_states = inner.needs_states
        self.seconds = 0.0
        self.positions = 0

    def evaluate(self, leaves: Any, count: int) -> Any:
        started = time.thread_time()
        result = self.inner.evaluate(leaves, count)
        self.seconds += time.thread_time() - started
        self.positions += count
        return result


def _network(game: str, size: int, name: str, folder: Any, onnx_file: Any = None) -> Any:
    from imago.nn.evaluator import NetworkEvaluator
    from imago.nn.rl_train import initial_model
    from imago.nn.shipped import shipped_model

    if name == "shipped":
        path = shipped_model(game, size)
    else:
        path = folder / f"{game}{size}-{name}.pt"
        initial_model(path, game=game, size=size, arch=name, features="legal4", seed=1)
    return NetworkEvaluator.load(path, backend="auto", device="cpu", threads=1, onnx_file=onnx_file)


def measure(
    game: str,
    size: int,
    network: str,
    parallel: int,
    simulations: int,
    seconds: float,
    onnx_file: Any = None,
) -> dict[str, float]:
    """The figures of one case (see the module docstring); ``onnx_file``: the export of the
    network to run (an int8 copy, say)."""
    import tempfile
    from pathlib import Path

    from imago.rl.selfplay import GameSpec, SelfPlay, SelfPlayConfig

    with tempfile.TemporaryDirectory() as folder:
        evaluator = _network(game, size, network, Path(folder), onnx_file)
    timed = _Timed(evaluator)
    config = SelfPlayConfig(parallel=parallel, simulations=simulations, considered=16)
    play = SelfPlay(GameSpec(game, size), timed, config, seed=1)
    finished: list[Any] = []
    # compile, fill the batch, reach the middle game; then measure
    play.play(1 << 30, finished.append, stop=_CpuDeadline(min(2.0, seconds / 3)))
    timed.seconds, timed.positions = 0.0, 0
    evaluations, started = play.stats.evaluations, time.thread_time()
    play.play(1 << 30, finished.append, stop=_CpuDeadline(seconds))
    spent = time.thread_time() - started
    played = play.stats.evaluations - evaluations
    selfplay_rate = played / spent
    # the ceiling: the same evaluator on the same batches, nothing else
    leaves = play.search.leaves
    assert leaves is not None
    count = min(parallel, leaves.capacity)
    evaluator.evaluate(leaves, count)
    calls, begun = 0, time.thread_time()
    while time.thread_time() - begun < seconds / 2 or calls < 3:
        evaluator.evaluate(leaves, count)
        calls += 1
    network_rate = calls * count / (time.thread_time() - begun)
    return {
        "network_pos_s": network_rate,
        "selfplay_pos_s": selfplay_rate,
        "ratio": selfplay_rate / network_rate,
        "search_share": 1.0 - timed.seconds / spent,
    }


@benchmark(
    "rl.selfplay",
    "self-play leaf evaluations/s against the network's batched throughput (same run)",
)
def selfplay(config: BenchConfig) -> list[Figure]:
    seconds = 3.0 if config.quick else 12.0
    figures = []
    for label, game, size, network, parallel, simulations in CASES:
        result = measure(game, size, network, parallel, simulations, seconds)
        note = f"{network} network, {parallel} games together, {simulations} simulations, Gumbel"
        prefix = f"rl.selfplay.{label}"
        figures += [
            Figure(f"{prefix}.network_pos_s", result["network_pos_s"], "pos/cpu-s", note),
            Figure(f"{prefix}.selfplay_pos_s", result["selfplay_pos_s"], "pos/cpu-s", note),
            Figure(f"{prefix}.ratio", result["ratio"], "x", "goal >= 0.7"),
            Figure(f"{prefix}.search_share", result["search_share"], "of self-play time", ""),
        ]
    return figures


class _Sampling:
    """An evaluator that keeps the encoded planes and legal masks of every ``every``-th batch
    it evaluates, up to ``wanted`` positions (then it is set, as a stop flag)."""

    def __init__(self, inner: Any, wanted: int, every: int = 7) -> None:
        self.inner = inner
        self.history = inner.history
        self.needs_states = inner.needs_states
        self.wanted = wanted
        self.every = every
        self.calls = 0
        self.planes: list[Any] = []
        self.legal: list[Any] = []

    def is_set(self) -> bool:
        return sum(map(len, self.planes)) >= self.wanted

    def evaluate(self, leaves: Any, count: int) -> Any:
        from imago.nn.evaluator import encode_leaves

        self.calls += 1
        if self.calls % self.every == 0 and not self.is_set():
            self.planes.append(encode_leaves(self.inner.spec, leaves, count))
            self.legal.append(leaves.legal[:count].copy())
        return self.inner.evaluate(leaves, count)


def int8_figures(game: str, size: int, seconds: float) -> dict[str, float]:
    """The shipped network of ``game`` in float32 and as an int8 copy calibrated on 512
    positions of its own self-play (as ``nn_precision=int8`` makes it): the network's
    positions per CPU-second on batches of 512 other self-play positions, self-play's leaf
    evaluations per CPU-second with each (128 games, 64 simulations, Gumbel), and how closely
    the copy follows the original on those other positions (the same most likely legal move;
    the mean absolute difference of the values, in ``[-1, 1]``)."""
    import tempfile
    from pathlib import Path

    import numpy as np

    from imago.nn.evaluator import masked_softmax
    from imago.nn.export import export_onnx, onnx_session, quantize_onnx
    from imago.nn.shipped import shipped_model
    from imago.rl.selfplay import GameSpec, SelfPlay, SelfPlayConfig

    sampling = _Sampling(_network(game, size, "shipped", None), wanted=1024)
    config = SelfPlayConfig(parallel=128, simulations=64)
    SelfPlay(GameSpec(game, size), sampling, config, seed=3).play(
        1 << 30, lambda finished: None, stop=sampling
    )
    order = np.random.default_rng(5).permutation(sum(map(len, sampling.planes)))
    planes, legal = np.concatenate(sampling.planes), np.concatenate(sampling.legal)
    calibration, others = order[:512], order[512:1024]
    held, held_legal = planes[others], legal[others]
    batches = [held[i : i + 128] for i in range(0, len(held), 128)]
    figures: dict[str, float] = {}
    outputs = {}
    with tempfile.TemporaryDirectory() as folder:
        model = shipped_model(game, size)
        fp32 = export_onnx(model, Path(folder) / "model.onnx")
        int8 = quantize_onnx(fp32, Path(folder) / "model.int8.onnx", planes[calibration])
        for name, path in (("fp32", fp32), ("int8", int8)):
            session = onnx_session(model, threads=1, onnx_file=path)
            assert session is not None  # export_onnx needed onnx already
            results = [session.run(None, {"planes": batch}) for batch in batches]
            outputs[name] = [np.concatenate(part) for part in zip(*results, strict=True)]
            calls, begun = 0, time.thread_time()
            while time.thread_time() - begun < seconds / 4 or calls < 4:
                session.run(None, {"planes": batches[calls % len(batches)]})
                calls += 1
            figures[f"{name}_network_pos_s"] = calls * 128 / (time.thread_time() - begun)
            played = measure(game, size, "shipped", 128, 64, seconds, onnx_file=path)
            figures[f"{name}_selfplay_pos_s"] = played["selfplay_pos_s"]
    first = {
        name: masked_softmax(out[0], held_legal).argmax(axis=1) for name, out in outputs.items()
    }
    figures["same_move"] = float(np.mean(first["fp32"] == first["int8"]))
    values = {name: out[1].reshape(-1) for name, out in outputs.items()}
    figures["value_abs_diff"] = float(np.mean(np.abs(values["fp32"] - values["int8"])))
    figures["network_speedup"] = figures["int8_network_pos_s"] / figures["fp32_network_pos_s"]
    figures["selfplay_speedup"] = figures["int8_selfplay_pos_s"] / figures["fp32_selfplay_pos_s"]
    return figures


@benchmark(
    "rl.int8",
    "self-play with an int8 copy of the shipped network against float32: speed and agreement",
)
def int8(config: BenchConfig) -> list[Figure]:
    seconds = 3.0 if config.quick else 12.0
    figures = []
    units = {"pos_s": "pos/cpu-s", "speedup": "x", "same_move": "share", "diff": "mean |dv|"}
    for label, game, size in (("go9", "go", 9), ("othello8", "othello", 8)):
        for name, value in int8_figures(game, size, seconds).items():
            unit = next((u for key, u in units.items() if name.endswith(key)), "")
            figures.append(Figure(f"rl.int8.{label}.{name}", value, unit, "shipped network"))
    return figures


SHARED_CASES = (
    # label, game, size, network architecture (random weights: speed only)
    ("go9-b4c32", "go", 9, "b4c32"),
    ("go9-b6c64", "go", 9, "b6c64"),
)


def shared_figures(
    game: str, size: int, arch: str, workers: int, parallel: int, modes: dict[str, Any]
) -> dict[str, float]:
    """Self-play positions/s of ``workers`` local processes in each of ``modes`` (a name and
    a :class:`~imago.nn.server.ServerConfig`, or ``None`` for a copy of the network per
    worker on its CPU: ONNX Runtime, one thread); the same games each time (``parallel`` at
    once per worker, 32 simulations, Gumbel, games cut at 24 moves so that they come back
    often). One wave of games to warm up (compile, load), one timed. With a server, also the
    mean batch per network call and the share of wall time the network was busy."""
    import tempfile
    from pathlib import Path

    from imago.cluster import ProcessExecutor
    from imago.rl.config import LoopConfig
    from imago.rl.folder import RunFolder
    from imago.rl.selfplay import GameSpec, SelfPlayConfig
    from imago.rl.stages import bootstrap, init
    from imago.rl.workers import SelfPlayPool

    config = LoopConfig(
        spec=GameSpec(game, size),
        model=arch,
        selfplay=SelfPlayConfig(
            parallel=parallel, simulations=32, considered=8, max_moves=24, resign=0.0
        ),
    )
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as root:
        folder = RunFolder(Path(root) / "run")
        init(folder, config)
        bootstrap(folder, config)
        for mode, server in modes.items():
            with ProcessExecutor(workers) as executor:
                pool = SelfPlayPool(
                    executor, folder, config, workers, name=mode, step_games=parallel, server=server
                )
                pool.play(games=parallel * workers)  # compile, load
                before = _served(pool)
                wall = time.perf_counter()
                stats = pool.play(games=parallel * workers)
                wall = time.perf_counter() - wall
                calls, positions, busy = _served(pool) - before
                figures[f"{mode}_pos_s"] = stats.evaluations / wall
                if server is not None:
                    figures[f"{mode}_mean_batch"] = positions / max(calls, 1)
                    figures[f"{mode}_network_busy"] = busy / wall
                pool.close()
    return figures


def _served(pool: Any) -> Any:
    """Network calls, positions and seconds in the network, summed over a pool's inference
    servers (zeros without any)."""
    import numpy as np

    keys = ("calls", "positions", "network_seconds")
    rows = [[stats[key] for key in keys] for stats in pool.server_stats().values()]
    return np.array(rows, dtype=np.float64).reshape(-1, len(keys)).sum(axis=0)


@benchmark(
    "rl.shared",
    "self-play positions/s: a network per worker on its CPU against one shared network "
    "(on a GPU when there is one), same workers, same run",
)
def shared(config: BenchConfig) -> list[Figure]:
    """:func:`shared_figures` for each case on ``IMAGO_BENCH_WORKERS`` workers (default: the
    CPUs less two, at least two), the shared network on CUDA when present, else the CPU."""
    import os

    from imago.cluster import cpu_count
    from imago.nn.inference import resolve_device
    from imago.nn.server import ServerConfig

    workers = int(os.environ.get("IMAGO_BENCH_WORKERS", 0)) or max(2, cpu_count() - 2)
    device = resolve_device("auto").type
    parallel = 16 if config.quick else 32
    cases = SHARED_CASES[:1] if config.quick else SHARED_CASES
    modes = {"own": None, "shared": ServerConfig(device=device)}
    figures = []
    for label, game, size, arch in cases:
        result = shared_figures(game, size, arch, workers, parallel, modes)
        note = f"{arch}, {workers} workers x {parallel} games, shared on {device}"
        prefix = f"rl.shared.{label}"
        speedup = result["shared_pos_s"] / result["own_pos_s"]
        figures += [
            Figure(f"{prefix}.own_pos_s", result["own_pos_s"], "pos/s", note),
            Figure(f"{prefix}.shared_pos_s", result["shared_pos_s"], "pos/s", note),
            Figure(f"{prefix}.speedup", speedup, "x", "shared over own"),
            Figure(f"{prefix}.mean_batch", result["shared_mean_batch"], "positions/call"),
            Figure(f"{prefix}.network_busy", result["shared_network_busy"], "of wall time"),
        ]
    return figures
