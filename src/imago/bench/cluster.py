"""Scaling out: self-play and match games on 1 and 2 workers, local processes and Ray.

``imago bench cluster`` measures, for each executor (local processes; Ray when installed, a
local instance of this machine's CPUs), with 1 and with 2 workers:

* ``selfplay.*.pos_per_cpu_s``: self-play leaf evaluations per CPU second of the workers
  (their processes' CPU time), and ``pos_per_s`` the same per wall second; ``driver_ms_game``:
  the driver's CPU time per game (receiving and writing it into the run folder: the part that
  does not spread over workers);
* ``match.*.cpu_s_game``: a match game's CPU time in the thread playing it, ``games_per_s``
  per wall second with as many games under way as ``imago match`` keeps, and ``overhead_ms``:
  per game, the wall time from submitting it to having its answer less the time the game took
  where it ran (the executor's cost: pickling, scheduling, transport), median over games run
  one per worker;
* ``selfplay.processes.w1.train_pos_per_cpu_s``: the trainer's consumption (positions per
  CPU second of one training process on those examples) and ``model_bytes`` the network sent
  to every worker at each promotion;
* ``paper100.*``: what 100 nodes of 16 CPUs would do, from these per-worker figures
  (:func:`paper_estimate`);
* ``scaling_cpu``: what 2 workers give over 1 from CPU-time rates (twice the per-worker rate
  with 2, over the rate with 1: the speed-up on two otherwise idle cores), and
  ``scaling_wall`` as measured on the wall clock (meaningful only on an idle machine).

Self-play times 8 rounds of each worker's ``PARALLEL`` games (2 with ``--quick``), so that
the games in flight from the warm-up are a small part of the window; matches are 64 games (8).
Without ``--quick`` the whole measure is made in up to 3 rounds (``--repeats``), 1 and 2 workers
back to back in each: figures are medians over the rounds, and each scaling figure is the median
of the rounds' ratios (its note lists them). On a shared machine the wall-clock figures move
with the other load; the CPU-time figures less so.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from imago.bench import BenchConfig, Figure, benchmark


def _timed_game(item: tuple[Any, float], settings: Any) -> tuple[float, float, float]:
    """One match game where the executor runs it (``item``: the pairing and when it was
    submitted): its CPU seconds, and the wall time spent outside the game so far."""
    from imago.arena.match import played_game

    pairing, submitted = item
    cpu, started = time.thread_time(), time.time()
    played_game(pairing, settings)
    return time.thread_time() - cpu, started - submitted, time.time()


def _submitted(schedule: list[Any]) -> Any:
    """The pairings, each with the time it is taken for submission."""
    for pairing in schedule:
        yield pairing, time.time()


def _executors(workers: int) -> list[tuple[str, Any]]:
    from imago.cluster import ProcessExecutor

    found: list[tuple[str, Any]] = [("processes", lambda: ProcessExecutor(workers))]
    try:
        import ray  # noqa: F401
    except ImportError:
        return found
    from imago.cluster.raycluster import RayExecutor

    # Ray's workers at the priority of the local processes they are compared with (Ray's
    # default lowers them by 15)
    os.environ.setdefault("RAY_worker_niceness", "0")
    found.append(("ray", lambda: RayExecutor("auto", cpus=workers, slots=workers)))
    return found


def match_figures(make: Any, games: int) -> dict[str, float]:
    """A match of random against alpha-beta (depth 2) on 8x8 Othello on an executor.

    The executor's overhead per game is measured with one game per worker under way (so no
    game waits for a free worker); the rates with as many under way as ``imago match`` keeps
    (:func:`map_unordered`'s default window), each game's CPU time in the thread playing it."""
    from imago.arena.game import GameSettings
    from imago.arena.match import MatchSettings, Player, match_schedule
    from imago.cluster import map_unordered

    settings = MatchSettings(GameSettings("othello", 8), seed=1)
    schedule = match_schedule(Player.parse("alphabeta:depth=2"), Player.parse("random"), games)
    with make() as executor:
        overheads = []
        warm = _submitted(schedule[: 4 * executor.slots])
        for _, (_, before, end), _ in map_unordered(
            executor, _timed_game, warm, settings, window=executor.slots
        ):
            overheads.append(before + (time.time() - end))
        cpu = []
        started = time.time()
        for _, (seconds, _, _), _ in map_unordered(
            executor, _timed_game, _submitted(schedule), settings
        ):
            cpu.append(seconds)
        wall = time.time() - started
    return {
        "cpu_s_game": statistics.median(cpu),
        "games_per_s": games / wall,
        "games_per_cpu_s": 1.0 / statistics.median(cpu),
        "overhead_ms": 1000 * statistics.median(overheads),
    }


def train_figures(folder: Any, config: Any, steps: int) -> dict[str, float]:
    """Training one process on the examples just played: positions per CPU second (the
    trainer's consumption rate), and the network's size on the wire (weights + ONNX)."""
    from imago.nn.rl_train import StepsConfig, load_window, train_steps
    from imago.rl.stages import gather

    window = load_window(gather(folder, config, 0))
    steps_config = StepsConfig(steps=steps, batch_size=256, device="cpu", checkpoint_every=10**6)
    cpu = time.process_time()
    train_steps(
        folder.model_path(0), window, folder.model_path(1), folder.root / "ckpt.pt",
        steps_config, tag=1,
    )  # fmt: skip
    cpu = time.process_time() - cpu
    size = sum(folder.model_path(0, suffix).stat().st_size for suffix in (".pt", ".onnx"))
    return {"train_pos_per_cpu_s": steps * 256 / cpu, "model_bytes": float(size)}


PARALLEL = 32
"""Games each self-play worker plays at once."""


def selfplay_figures(make: Any, workers: int, games: int, train_steps: int = 0) -> dict[str, float]:
    """Self-play of a b4c32 network on 6x6 Othello (``PARALLEL`` games at once per worker, 16
    simulations): ``games`` timed after a warm-up."""
    from imago.rl.config import LoopConfig
    from imago.rl.folder import RunFolder
    from imago.rl.selfplay import GameSpec, SelfPlayConfig
    from imago.rl.stages import bootstrap, init
    from imago.rl.workers import SelfPlayPool

    config = LoopConfig(
        spec=GameSpec("othello", 6),
        model="b4c32",
        selfplay=SelfPlayConfig(parallel=PARALLEL, simulations=16, considered=8),
    )
    with tempfile.TemporaryDirectory() as root, make() as executor:
        folder = RunFolder(Path(root) / "run")
        init(folder, config)
        bootstrap(folder, config)
        pool = SelfPlayPool(executor, folder, config, workers, name="bench", step_games=8)
        pool.play(games=4 * workers)  # compile, load, fill the batches
        cpu_before, driver = pool.cpu_seconds(), time.process_time()
        wall = time.perf_counter()
        stats = pool.play(games=games)
        wall = time.perf_counter() - wall
        driver = time.process_time() - driver
        cpu = pool.cpu_seconds() - cpu_before
        pool.close()
        trained = train_figures(folder, config, train_steps) if train_steps else {}
    return trained | {
        "pos_per_cpu_s": stats.evaluations / max(cpu, 1e-9),
        "pos_per_s": stats.evaluations / wall,
        "driver_ms_game": 1000 * driver / max(stats.games, 1),
        "games": stats.games,
        "positions_per_game": stats.evaluations / max(stats.games, 1),
        "examples_per_game": stats.examples / max(stats.games, 1),
    }


def paper_estimate(
    worker: dict[str, float], *, nodes: int = 100, cpus: int = 16, trainer_cpus: int = 16
) -> dict[str, float]:
    """What ``nodes`` nodes of ``cpus`` CPUs would do, from one worker's measured figures
    (``selfplay.processes.w1.*``): one self-play worker per CPU, one driver writing every game,
    one trainer node of ``trainer_cpus`` CPUs (data-parallel ranks, taken to scale linearly).

    * ``selfplay_pos_s``, ``games_s``, ``examples_s``: the workers' output;
    * ``driver_load``: CPU seconds per second the one driver needs to write those games (above
      1: the driver is the bottleneck), and ``driver_games_s`` the most it can write;
    * ``trainer_pos_s``: positions per second the trainer node consumes, and
      ``samples_per_example``: how often it can sample each new example (AlphaZero-style
      training wants several; below 1 the trainer is the bottleneck);
    * ``broadcast_mb``: megabytes sent at each promotion (the network once per node, through
      Ray's object store).
    """
    workers = nodes * cpus
    pos_s = workers * worker["pos_per_cpu_s"]
    games_s = pos_s / worker["positions_per_game"]
    examples_s = games_s * worker["examples_per_game"]
    trainer = trainer_cpus * worker["train_pos_per_cpu_s"]
    return {
        "selfplay_pos_s": pos_s,
        "games_s": games_s,
        "examples_s": examples_s,
        "driver_load": games_s * worker["driver_ms_game"] / 1000,
        "driver_games_s": 1000 / max(worker["driver_ms_game"], 1e-9),
        "trainer_pos_s": trainer,
        "samples_per_example": trainer / max(examples_s, 1e-9),
        "broadcast_mb": nodes * worker["model_bytes"] / 1e6,
    }


@benchmark("cluster", "self-play and match games on 1 and 2 workers: local processes and Ray")
def cluster(config: BenchConfig) -> list[Figure]:
    # each worker plays PARALLEL games at once: time several rounds of them per worker, so
    # that the games still in flight from the warm-up are a small part of the window
    games_per_worker = (2 if config.quick else 8) * PARALLEL
    match_games = 8 if config.quick else 64
    rounds = 1 if config.quick else max(1, min(config.repeats, 3))
    runs: dict[tuple[str, str, int], list[dict[str, float]]] = {}
    for r in range(rounds):  # 1 and 2 workers back to back in each round
        for workers in (1, 2):
            for name, make in _executors(workers):
                steps = 0
                if (name, workers, r) == ("processes", 1, 0):
                    steps = 10 if config.quick else 40
                runs.setdefault(("selfplay", name, workers), []).append(
                    selfplay_figures(make, workers, games_per_worker * workers, steps)
                )
                runs.setdefault(("match", name, workers), []).append(
                    match_figures(make, match_games)
                )
    results = {
        key: {k: statistics.median(run[k] for run in values if k in run) for k in values[0]}
        for key, values in runs.items()
    }
    units = {
        "pos_per_cpu_s": "pos/cpu-s",
        "pos_per_s": "pos/s",
        "driver_ms_game": "ms",
        "games": "games",
        "positions_per_game": "pos",
        "examples_per_game": "examples",
        "train_pos_per_cpu_s": "pos/cpu-s",
        "model_bytes": "bytes",
        "cpu_s_game": "cpu-s",
        "games_per_s": "games/s",
        "games_per_cpu_s": "games/cpu-s",
        "overhead_ms": "ms",
    }
    figures: list[Figure] = []
    for (job, name, workers), values in results.items():
        note = f"{workers} worker{'s' if workers > 1 else ''} on {name}, median of {rounds}"
        for key, value in values.items():
            figures.append(
                Figure(f"cluster.{job}.{name}.w{workers}.{key}", value, units[key], note)
            )
    for key, value in paper_estimate(results[("selfplay", "processes", 1)]).items():
        figures.append(Figure(f"cluster.paper100.{key}", value, "", "100 nodes x 16 CPUs"))
    for job, rate in (("selfplay", "pos_per_cpu_s"), ("match", "games_per_cpu_s")):
        wall = "pos_per_s" if job == "selfplay" else "games_per_s"
        for name in sorted({n for (j, n, _) in runs if j == job}):
            ones, twos = runs[(job, name, 1)], runs[(job, name, 2)]
            for kind, key, factor, note in (
                ("cpu", rate, 2.0, "2 workers over 1 from CPU-time rates (goal >= 1.8)"),
                ("wall", wall, 1.0, "2 workers over 1 on the wall clock (goal >= 1.8)"),
            ):
                ratios = [factor * two[key] / one[key] for one, two in zip(ones, twos, strict=True)]
                figures.append(
                    Figure(
                        f"cluster.{job}.{name}.scaling_{kind}",
                        statistics.median(ratios),
                        "x",
                        f"{note}; median of {rounds} rounds: "
                        + ", ".join(f"{x:.2f}" for x in ratios),
                    )
                )
    return figures
