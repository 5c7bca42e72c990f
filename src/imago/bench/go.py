"""Speed of the Go rules: playout kernel, public per-move cost, and OpenSpiel's Go in the same run.

Figures (``imago bench go``):

* ``go.playouts_9`` / ``go.playouts_19``: random playouts per second on one thread (the numba
  kernel, from the empty board, uniformly random sensible moves until two passes).
* ``go.openspiel_games_9``: OpenSpiel's Go driven from Python, random games per second (uniform
  legal actions until the game ends), and ``go.playout_vs_openspiel`` = imago's playouts/s over it.
* ``go.public_move_us``: one move of a random game through the public API
  (``legal_moves()`` + ``random.choice`` + ``play()``), default rules (positional superko);
  ``go.openspiel_move_us``: the same with OpenSpiel (``legal_actions()`` + ``random.choice`` +
  ``apply_action()``), games of the two alternating so that load hits both alike;
  ``go.public_vs_openspiel_move`` is the ratio (issue 42's goal: at most 1.3, by safe means).
  ``go.public_move_us_alone``: imago's loop with its games back to back, nothing in between:
  what a program that only plays Go pays (glibc hands the memory of a finished game back to
  the system and the next game faults it in again, which the alternation hides; see
  BENCHMARKS.md, "Go rules").
* ``go.first_playout_s``: a new process that imports the kernels (warm cache) and runs one
  playout, wall time (goal: under 1 s).

Everything but the start-up figure is measured in CPU time of the benchmarking thread
(``time.thread_time``), so the figures hold on a shared, busy machine.
"""

from __future__ import annotations

import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from imago.bench import BenchConfig, Figure, benchmark

_clock = time.thread_time
"""Rates and per-move costs are CPU time of the measuring thread, so other processes on a shared
machine do not count (the start-up figure is wall time: it is what a user waits)."""

_FIRST_PLAYOUT = (
    "import numpy as np; from imago.games.go import fastpath as f; "
    "s = f.new_state(9); f.playout(s, 9, 7.5, False, 1000, f.seed_rng(1))"
)


def _rate(run_once: Callable[[], int], seconds: float, repeats: int) -> float:
    """Median over ``repeats`` windows of ``seconds`` of (units done) / (time taken)."""
    rates = []
    for _ in range(max(1, repeats)):
        done = 0
        start = _clock()
        while (elapsed := _clock() - start) < seconds:
            done += run_once()
        rates.append(done / elapsed)
    return statistics.median(rates)


def _playouts_per_second(size: int, seconds: float, repeats: int) -> float:
    from imago.games.go import fastpath

    empty = fastpath.new_state(size)
    rng = fastpath.seed_rng(12345)
    batch = 200 if size == 9 else 20
    max_moves = 3 * size * size

    def run() -> int:
        for _ in range(batch):
            fastpath.playout(empty.copy(), size, 7.5, False, max_moves, rng)
        return batch

    run()
    return _rate(run, seconds, repeats)


@benchmark("go.playouts", "random playouts per second on 9x9 and 19x19, one thread")
def playouts(config: BenchConfig) -> list[Figure]:
    seconds = 0.5 if config.quick else 2.0
    repeats = 1 if config.quick else config.repeats
    return [
        Figure("go.playouts_9", _playouts_per_second(9, seconds, repeats), "playouts/s"),
        Figure("go.playouts_19", _playouts_per_second(19, seconds, repeats), "playouts/s"),
    ]


def public_api_games(rng: random.Random, size: int = 9) -> Callable[[], tuple[int, float]]:
    """A function that plays one random ``size`` game through the public API (default rules)
    and returns its moves and the CPU seconds they took."""

    from imago.games.go import new_game

    def game() -> tuple[int, float]:
        position = new_game(size)
        moves = 0
        choice = rng.choice
        start = _clock()
        while not position.is_over():
            position = position.play(choice(position.legal_moves()))
            moves += 1
        return moves, _clock() - start

    return game


def openspiel_games(rng: random.Random, size: int = 9) -> Callable[[], tuple[int, float]] | None:
    """The same for OpenSpiel's Go (``None`` when ``pyspiel`` is not installed)."""
    try:
        import pyspiel
    except ImportError:
        return None
    go = pyspiel.load_game("go", {"board_size": size})

    def game() -> tuple[int, float]:
        state = go.new_initial_state()
        moves = 0
        choice = rng.choice
        start = _clock()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
        return moves, _clock() - start

    return game


def _per_move_us(
    ours: Callable[[], tuple[int, float]],
    theirs: Callable[[], tuple[int, float]],
    seconds: float,
    repeats: int,
) -> tuple[float, float]:
    """Median per-move microseconds of both, games alternating so load hits both alike."""
    samples: list[tuple[float, float]] = []
    for _ in range(max(1, repeats)):
        totals = [[0, 0.0], [0, 0.0]]
        while totals[0][1] + totals[1][1] < 2 * seconds:
            for total, game in zip(totals, (ours, theirs), strict=True):
                moves, spent = game()
                total[0] += moves
                total[1] += spent
        samples.append((totals[0][1] / totals[0][0] * 1e6, totals[1][1] / totals[1][0] * 1e6))
    return (
        statistics.median(s[0] for s in samples),
        statistics.median(s[1] for s in samples),
    )


def _alone_us(game: Callable[[], tuple[int, float]], seconds: float, repeats: int) -> float:
    """Median per-move microseconds of ``game`` played back to back (nothing in between)."""
    samples = []
    for _ in range(max(1, repeats)):
        moves, spent = 0, 0.0
        while spent < seconds:
            more, taken = game()
            moves += more
            spent += taken
        samples.append(spent / moves * 1e6)
    return statistics.median(samples)


def _games_per_second(game: Callable[[], tuple[int, float]], seconds: float, repeats: int) -> float:
    def run() -> int:
        game()
        return 1

    return _rate(run, seconds, repeats)


@benchmark("go.openspiel", "imago's Go against OpenSpiel's (pip open-spiel), measured in one run")
def openspiel(config: BenchConfig) -> list[Figure]:
    seconds = 0.5 if config.quick else 2.0
    repeats = 1 if config.quick else config.repeats
    rng = random.Random(7)
    theirs = openspiel_games(rng)
    if theirs is None:
        return [Figure("go.openspiel_missing", 1, "", "pip install 'imago[bench]'")]
    ours = public_api_games(rng)
    ours()  # compile / warm
    theirs()
    our_move, their_move = _per_move_us(ours, theirs, seconds, repeats)
    our_move_alone = _alone_us(ours, seconds, repeats)
    their_games = _games_per_second(theirs, seconds, repeats)
    our_playouts = _playouts_per_second(9, seconds, repeats)
    return [
        Figure("go.public_move_us", our_move, "us/move", "legal_moves+choice+play, 9x9"),
        Figure("go.openspiel_move_us", their_move, "us/move", "legal_actions+choice+apply"),
        Figure("go.public_move_us_alone", our_move_alone, "us/move", "imago's games back to back"),
        Figure("go.public_vs_openspiel_move", our_move / their_move, "x", "goal <= 1.3"),
        Figure("go.openspiel_games_9", their_games, "games/s", "random games, Python-driven"),
        Figure("go.playouts_9_same_run", our_playouts, "playouts/s"),
        Figure("go.playout_vs_openspiel", our_playouts / their_games, "x", "goal >= 10"),
    ]


@benchmark("go.first_playout", "a new process: import the kernels (warm cache), one playout")
def first_playout(config: BenchConfig) -> list[Figure]:
    args = [sys.executable, "-c", _FIRST_PLAYOUT]
    subprocess.run(args, check=True, capture_output=True)  # fill the cache
    walls, cpus = [], []
    for _ in range(1 if config.quick else config.repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return [
        Figure("go.first_playout_s", float(np.median(walls)), "s", "wall time, goal < 1"),
        Figure("go.first_playout_cpu_s", float(np.median(cpus)), "s", "CPU time of the process"),
    ]
