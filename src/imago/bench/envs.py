"""Speed of the RL environments, with the field's environments measured in the same run.

Figures (``imago bench envs``), all random-action environment steps (one move in one game, its
observation, legal mask and reward delivered) per CPU second of the process
(``time.process_time``: every thread counted, other processes not):

* ``envs.vector.go9`` / ``envs.vector.othello8``: :class:`imago.envs.VectorEnv` with 1,024
  games (uniform random legal actions drawn from the masks, auto-reset), observations
  ``minigo17`` for Go (17 planes, as PettingZoo's ``go_v5`` and pgx give) and ``legal4`` for
  Othello (pgx gives 2 planes, OpenSpiel 3); ``..._rules``: the same games stepped without
  observations (the batch alone).
* Peers, each driven as its authors document it: PettingZoo's ``go_v5`` AEC loop
  (``last()``, a random legal action, ``step()``); OpenSpiel's ``rl_environment.Environment``
  (its RL API: observations, legal actions and rewards in a time step); OpenSpiel's game API
  with an observation per move (``observation_tensor()`` + ``legal_actions_mask()`` after
  ``apply_action``); OpenSpiel's bare loop (``apply_action(choice(legal_actions()))``, no
  observation: not an environment step, shown for scale); pgx (JAX on the CPU, XLA held to
  one thread) with 1,024 games, ``vmap``-ed ``step`` with auto-reset and random legal actions
  in one ``jit``-compiled call, in a subprocess (needs ``pip install imago[pgx]``).
  ``..._x`` figures are imago's rate over the peer's: the median of per-round ratios, each
  round measuring imago and the peers back to back.
* ``envs.aec.*``: the PettingZoo AEC environment's cost per move over the bare rules API:
  ``bare_us`` (``state.play_action`` of a random legal action), ``step_us``
  (``env.step`` of the same), ``loop_us`` (the full agent loop: ``last()`` with the
  observation, then ``step``); ``step_overhead_us`` and ``loop_overhead_us`` the differences.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from imago.bench import BenchConfig, Figure, benchmark

_clock = time.process_time
BATCH = 1024

Window = Callable[[float], tuple[int, float]]
"""Runs for about ``seconds`` of CPU time; returns ``(steps, seconds taken)``."""


def _windowed(run_some: Callable[[], int]) -> Window:
    def window(seconds: float) -> tuple[int, float]:
        steps = 0
        start = _clock()
        while (elapsed := _clock() - start) < seconds:
            steps += run_some()
        return steps, elapsed

    return window


# -- imago ---------------------------------------------------------------------------------------
def _imago_env(game: str, size: int, features: str) -> Window:
    from imago.envs import VectorEnv

    env = VectorEnv(game, BATCH, size=size, features=features, seed=1)
    env.reset()

    def run_some() -> int:
        env.step(env.random_actions())
        return BATCH

    for _ in range(3):
        run_some()
    return _windowed(run_some)


def _imago_rules(game: str, size: int) -> Window:
    from imago.envs.config import EnvConfig
    from imago.envs.vector import random_legal

    batch = EnvConfig.create(game, size=size, features="stones2").new_batch(BATCH)
    rng = np.random.default_rng(2)

    def run_some() -> int:
        batch.step(random_legal(batch.legal_mask(), rng))
        ended = np.flatnonzero(batch.done)
        if ended.size:
            batch.reset(ended)
        return BATCH

    run_some()
    return _windowed(run_some)


# -- peers ---------------------------------------------------------------------------------------
def _pettingzoo_go(size: int) -> Window | None:
    try:
        from pettingzoo.classic import go_v5
    except ImportError:  # pettingzoo or its pygame missing
        return None
    env = go_v5.env(board_size=size)
    env.reset(seed=3)
    rng = random.Random(3)

    def run_some() -> int:
        env.reset()
        moves = 0
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"])))
            moves += 1
        return moves

    return _windowed(run_some)


def _openspiel_params(game: str, size: int) -> tuple[str, dict[str, int]]:
    return ("go", {"board_size": size}) if game == "go" else ("othello", {})


def _openspiel_environment(game: str, size: int) -> Window | None:
    try:
        from open_spiel.python import rl_environment
    except ImportError:
        return None
    name, params = _openspiel_params(game, size)
    env = rl_environment.Environment(name, **params)
    rng = random.Random(4)

    def run_some() -> int:
        step = env.reset()
        moves = 0
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([rng.choice(step.observations["legal_actions"][player])])
            moves += 1
        return moves

    return _windowed(run_some)


def _openspiel_games(game: str, size: int, *, observed: bool) -> Window | None:
    """OpenSpiel's games played at random, one by one from Python; ``observed``: reading each
    position's observation tensor, legal mask and returns as an environment would."""
    try:
        import pyspiel
    except ImportError:
        return None
    name, params = _openspiel_params(game, size)
    loaded = pyspiel.load_game(name, params)
    rng = random.Random(5 if observed else 6)

    def run_some() -> int:
        state = loaded.new_initial_state()
        moves = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
            if observed:
                if not state.is_terminal():
                    np.asarray(state.observation_tensor())
                    np.asarray(state.legal_actions_mask())
                state.returns()
        return moves

    return _windowed(run_some)


_PGX_SCRIPT = r"""
import json, sys, time
import jax, jax.numpy as jnp, pgx
from pgx.experimental import auto_reset

name, n, seconds, rounds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
env = pgx.make(name)
step = jax.vmap(auto_reset(env.step, env.init))

@jax.jit
def advance(state, key):
    key, pick, noise = jax.random.split(key, 3)
    logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
    action = jax.random.categorical(pick, logits, axis=1)
    return step(state, action, jax.random.split(noise, n)), key

key = jax.random.PRNGKey(0)
state = jax.jit(jax.vmap(env.init))(jax.random.split(key, n))
start = time.process_time()
state, key = advance(state, key)
state.observation.block_until_ready()
compile_s = time.process_time() - start
rates = []
for _ in range(rounds):
    steps, start = 0, time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        state, key = advance(state, key)
        state.observation.block_until_ready()
        steps += n
    rates.append(steps / elapsed)
print(json.dumps({"rates": rates, "compile_s": compile_s, "pgx": pgx.__version__}))
"""


def _pgx_rates(name: str, seconds: float, rounds: int) -> tuple[list[float], str] | None:
    """pgx's steps per CPU second with ``BATCH`` games, in a subprocess on one XLA thread."""
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    command = [sys.executable, "-c", _PGX_SCRIPT, name, str(BATCH), str(seconds), str(rounds)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        if "ModuleNotFoundError" in done.stderr:
            return None
        raise RuntimeError(f"the pgx benchmark failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return [float(r) for r in result["rates"]], f"pgx {result['pgx']}"


# -- the benchmarks --------------------------------------------------------------------------------
def _compare(
    prefix: str,
    ours: Window,
    peers: dict[str, Window | None],
    seconds: float,
    rounds: int,
    note: str,
) -> list[Figure]:
    """Rounds of imago then each peer; medians of the rates and of the per-round ratios."""
    live = {name: peer for name, peer in peers.items() if peer is not None}
    rates: dict[str, list[float]] = {name: [] for name in ("imago", *live)}
    ratios: dict[str, list[float]] = {name: [] for name in live}
    for _ in range(rounds):
        steps, elapsed = ours(seconds)
        mine = steps / elapsed
        rates["imago"].append(mine)
        for name, peer in live.items():
            steps, elapsed = peer(seconds)
            rates[name].append(steps / elapsed)
            ratios[name].append(mine / rates[name][-1])
    figures = [Figure(f"{prefix}.imago", statistics.median(rates["imago"]), "steps/s", note)]
    for name in peers:
        if name not in live:
            figures.append(Figure(f"{prefix}.{name}", float("nan"), "", "not installed"))
            continue
        figures.append(Figure(f"{prefix}.{name}", statistics.median(rates[name]), "steps/s"))
        figures.append(Figure(f"{prefix}.{name}_x", statistics.median(ratios[name]), "x"))
    return figures


def _pgx_figures(
    prefix: str, name: str, imago_rate: float, seconds: float, rounds: int
) -> list[Figure]:
    measured = _pgx_rates(name, seconds, rounds)
    if measured is None:
        return [Figure(f"{prefix}.pgx", float("nan"), "", "pip install imago[pgx]")]
    rates, version = measured
    rate = statistics.median(rates)
    return [
        Figure(f"{prefix}.pgx", rate, "steps/s", f"{version}, JAX on the CPU, one XLA thread"),
        Figure(f"{prefix}.pgx_x", imago_rate / rate, "x", "goal > 1"),
    ]


def _vector(game: str, size: int, features: str, config: BenchConfig) -> list[Figure]:
    seconds = 0.3 if config.quick else 1.5
    rounds = 1 if config.quick else config.repeats
    prefix = f"envs.vector.{game}{size}"
    peers: dict[str, Window | None] = {}
    if game == "go":
        peers["pettingzoo_go_v5"] = _pettingzoo_go(size)
    peers["openspiel_rl_environment"] = _openspiel_environment(game, size)
    peers["openspiel_observed"] = _openspiel_games(game, size, observed=True)
    peers["openspiel_bare"] = _openspiel_games(game, size, observed=False)
    note = f"{BATCH} games, {features} observations"
    figures = _compare(prefix, _imago_env(game, size, features), peers, seconds, rounds, note)
    rules = _compare(f"{prefix}_rules", _imago_rules(game, size), {}, seconds, rounds, "no obs.")
    figures += rules
    pgx_name = f"go_{size}x{size}" if game == "go" else "othello"
    figures += _pgx_figures(prefix, pgx_name, figures[0].value, seconds, rounds)
    return figures


@benchmark(
    "envs.vector", "1,024-game vector environment steps/s against PettingZoo, OpenSpiel, pgx"
)
def vector(config: BenchConfig) -> list[Figure]:
    return _vector("go", 9, "minigo17", config) + _vector("othello", 8, "legal4", config)


def _per_move(run_some: Callable[[], int], seconds: float, rounds: int) -> float:
    """Median over rounds of CPU microseconds per move."""
    window = _windowed(run_some)
    costs = []
    for _ in range(rounds):
        moves, elapsed = window(seconds)
        costs.append(1e6 * elapsed / moves)
    return statistics.median(costs)


def _aec(game: str, size: int, config: BenchConfig) -> list[Figure]:
    try:
        from imago.envs import pettingzoo_env
    except ImportError:
        return [Figure(f"envs.aec.{game}{size}", float("nan"), "", "pip install imago[envs]")]

    seconds = 0.3 if config.quick else 1.0
    rounds = 1 if config.quick else config.repeats
    env = pettingzoo_env.raw_env(game=game, size=size, max_moves=10_000)
    rng = random.Random(7)

    def bare() -> int:
        state = env.config.new_state()
        moves = 0
        while not state.is_over():
            state = state.play_action(rng.choice(state.legal_actions()))  # type: ignore[attr-defined]
            moves += 1
        return moves

    def steps() -> int:
        env.reset()
        moves = 0
        while not env.game_state.is_over():
            env.step(rng.choice(env.game_state.legal_actions()))  # type: ignore[attr-defined]
            moves += 1
        return moves

    def loop() -> int:
        env.reset()
        moves = 0
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"])))
            moves += 1
        return moves

    for run in (bare, steps, loop):
        run()
    costs = {
        name: _per_move(run, seconds, rounds)
        for name, run in (("bare", bare), ("step", steps), ("loop", loop))
    }
    prefix = f"envs.aec.{game}{size}"
    return [
        Figure(f"{prefix}.bare_us", costs["bare"], "us/move", "state.play_action"),
        Figure(f"{prefix}.step_us", costs["step"], "us/move", "env.step"),
        Figure(f"{prefix}.step_overhead_us", costs["step"] - costs["bare"], "us/move"),
        Figure(f"{prefix}.loop_us", costs["loop"], "us/move", "last() + step, legal4"),
        Figure(f"{prefix}.loop_overhead_us", costs["loop"] - costs["bare"], "us/move"),
    ]


@benchmark("envs.aec", "the PettingZoo AEC environment's cost per move over the bare rules API")
def aec(config: BenchConfig) -> list[Figure]:
    return _aec("go", 9, config) + _aec("othello", 8, config)
